//===- conv/mainloop_depthwise.cuh - Depthwise conv on FMAs ---------------===//
//
// A depthwise conv (one input channel a group: MobileNet's 3x3, ConvNeXt's
// 7x7) reduces each output over its own channel's taps alone: no GEMM tile
// fills, and it is bound by memory and by the loads that feed its FMAs.
// A block takes a rectangle of output positions (TileRows x TileColumns of
// one output plane) for BN channels: it stages each channel's input window
// in shared memory once (zeros where the window leaves the input: the
// padding), then each thread computes ThreadRows outputs down one column
// of one channel, the channel's taps in registers. Walking a column of
// input values once per kernel column, each value feeds every output of
// the thread whose window holds it: ((ThreadRows - 1) * stride + the
// kernel's height) loads for ThreadRows x kernel-height FMAs. The thread's
// outputs go to the accumulator tile, which the generated epilogue visits:
// a tile of whole output rows as a run of pixels, else through the tile's
// positions (rows(): a position outside the output reads -1 and is
// skipped). fp32 FMAs, exact in both precisions; reads PyTorch's NCDHW
// input and weights as they are, or an NDHWC input (InputChannelsLast: its
// producer or the caller stored it channels-last) as it is too.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_DEPTHWISE_CUH
#define SOLDER_CONV_MAINLOOP_DEPTHWISE_CUH

#include "solder/arch/sm80.cuh"
#include "solder/conv/depthwise_layout.h"
#include "solder/conv/geometry.cuh"
#include "solder/epilogue/accumulator_tile.h"

#include <type_traits>

namespace solder {

template <class G, int TileRows, int TileColumns, int ThreadRows, int BN_,
          bool InputChannelsLast = false>
struct DepthwiseConv {
  static_assert(!G::kTransposed && G::kInChannels == G::kGroups,
                "a depthwise conv: one input channel a group");
  static_assert(TileRows % ThreadRows == 0, "a thread's rows tile the tile's");
  static_assert(ConvShape<G>::kTaps <= 64, "a thread keeps the taps in registers");
  using Geometry = G;
  static constexpr int BN = BN_;
  static constexpr int kThreads = 128, kWarps = kThreads / 32;
  static_assert(kThreads % BN == 0, "threads a channel");
  static constexpr int kThreadsPerChannel = kThreads / BN;
  static constexpr int kTaps = ConvShape<G>::kTaps;
  static constexpr int kMultiplier = ConvShape<G>::kOutPerGroup;
  static constexpr DepthwiseLayout kLayout = depthwiseLayout(
      G::kKernel, G::kStride, G::kDilation, G::kOut, TileRows, TileColumns, BN);
  static constexpr int BM = kLayout.bm;
  using Tile = AccumulatorTile<BM, BN>;
  static constexpr int kPixelTiles = kLayout.pixelTiles;
  static constexpr int kChannelTiles = (G::kOutChannels + BN - 1) / BN;
  static constexpr int kSharedBytes = kLayout.sharedBytes;
  static constexpr int kOutH = G::kOut[1], kOutW = G::kOut[2];

  /// A tile's rows of the accumulator tile as output pixels: row
  /// y * TileColumns + x is position (y0 + y, x0 + x) of plane z, or -1
  /// past the output's edge.
  struct TilePixels {
    int base, rowsLeft, columnsLeft, count;
    __device__ int pixel(int row) const {
      const int y = row / TileColumns, x = row % TileColumns;
      return y < rowsLeft && x < columnsLeft ? base + y * kOutW + x : -1;
    }
    /// Whether every position of the tile is inside the output.
    __device__ bool whole() const { return rowsLeft >= TileRows && columnsLeft >= TileColumns; }
  };
  struct Origin {
    int z, y0, x0;
  };
  __device__ static Origin origin(int tile) {
    return {tile / (kLayout.tilesY * kLayout.tilesX),
            tile / kLayout.tilesX % kLayout.tilesY * TileRows, tile % kLayout.tilesX * TileColumns};
  }
  /// A tile of whole output rows is a run of consecutive pixels, which the
  /// visit takes as such (pixelBase, pixelCount: no division a position);
  /// else its rows map through rows().
  static constexpr bool kWholeRows = TileColumns == kOutW;
  /// Its full tiles' visit unguarded (epilogue/tile_visit.cuh; a tile of
  /// positions is full where TilePixels::whole()).
  static constexpr bool kUnguardedFullTiles = true;
  template <bool WholeRows = kWholeRows, std::enable_if_t<!WholeRows, int> = 0>
  __device__ static TilePixels rows(int tile) {
    const Origin at = origin(tile);
    return {(at.z * kOutH + at.y0) * kOutW + at.x0, kOutH - at.y0, kOutW - at.x0,
            kLayout.pixels};
  }
  __device__ static int pixelBase(int tile) {
    const Origin at = origin(tile);
    return (at.z * kOutH + at.y0) * kOutW;
  }
  __device__ static int pixelCount(int tile) {
    const int rowsLeft = kOutH - origin(tile).y0;
    return (rowsLeft < TileRows ? rowsLeft : TileRows) * kOutW;
  }

  __device__ static float *computeTile(const float *__restrict__ input,
                                       const float *__restrict__ weight, const WorkTile &work,
                                       char *shared) {
    constexpr int inD = G::kIn[0], inH = G::kIn[1], inW = G::kIn[2];
    constexpr int kernelD = G::kKernel[0], kernelH = G::kKernel[1], kernelW = G::kKernel[2];
    constexpr int strideH = G::kStride[1], strideW = G::kStride[2];
    constexpr int dilationD = G::kDilation[0], dilationH = G::kDilation[1],
                  dilationW = G::kDilation[2];
    constexpr int kInColumns = kLayout.inColumns, kPlaneFloats = kLayout.inRows * kInColumns;
    float *tile = reinterpret_cast<float *>(shared);
    float *windows = reinterpret_cast<float *>(shared + kLayout.windowOffset);
    float *weights = reinterpret_cast<float *>(shared + kLayout.weightOffset);
    const Origin at = origin(work.pixelTile);
    const int channelBase = work.channelTile * BN;

    // Each channel's window, zero outside the input, by cp.async (every
    // copy of the thread in flight at once; loaded into registers first,
    // 31% of the 7x7's stalls waited on them): a warp a window row, its
    // lanes along the row, the row's position worked out once for all of
    // the tile's channels, so that a copy is an address and a predicate
    // (dividing each element's position out of a flat index took about
    // half of the 3x3's instructions).
    constexpr int kChannelRows = kLayout.planes * kLayout.inRows;
    constexpr int kColumnSteps = (kInColumns + 31) / 32;
    const int d0 = at.z * G::kStride[0] - G::kPad[0], h0 = at.y0 * strideH - G::kPad[1],
              w0 = at.x0 * strideW - G::kPad[2];
    const float *sample = input + long(work.n) * G::kInChannels * ConvShape<G>::kInVolume;
    if constexpr (InputChannelsLast) {
      // NDHWC: consecutive threads copy consecutive channels of a window
      // position, so a warp reads each position's run of the tile's
      // channels whole. A thread keeps its channel and steps through the
      // positions, its row and column advanced rather than divided out.
      constexpr int kPositions = kChannelRows * kInColumns, kStep = kThreads / BN;
      const int c = threadIdx.x % BN, channel = channelBase + c;
      const bool channelInside = channel < G::kOutChannels;
      const float *channelSource = sample + channel / kMultiplier;
      float *channelTarget = windows + c * kLayout.channelPitch;
      int position = threadIdx.x / BN, row = position / kInColumns,
          column = position % kInColumns;
#pragma unroll 4
      for (; position < kPositions; position += kStep) {
        const int d = d0 + row / kLayout.inRows, h = h0 + row % kLayout.inRows,
                  w = w0 + column;
        const bool copied = channelInside && d >= 0 && d < inD && h >= 0 && h < inH &&
                            w >= 0 && w < inW;
        arch::copyAsync<4>(channelTarget + position,
                           copied ? channelSource + long((d * inH + h) * inW + w) *
                                                        G::kInChannels
                                  : sample,
                           copied);
        column += kStep;
        while (column >= kInColumns) {
          column -= kInColumns;
          ++row;
        }
      }
    } else {
      const int lane = threadIdx.x % 32;
      bool columnInside[kColumnSteps];
#pragma unroll
      for (int j = 0; j < kColumnSteps; ++j) {
        const int w = w0 + lane + 32 * j;
        columnInside[j] = w >= 0 && w < inW;
      }
#pragma unroll 1
      for (int row = threadIdx.x / 32; row < kChannelRows; row += kWarps) {
        const int d = d0 + row / kLayout.inRows, h = h0 + row % kLayout.inRows;
        const bool rowInside = d >= 0 && d < inD && h >= 0 && h < inH;
        const int rowSource = (d * inH + h) * inW + w0 + lane;
        float *rowTarget = windows + row * kInColumns + lane;
#pragma unroll 4
        for (int c = 0; c < BN; ++c) {
          const int channel = channelBase + c;
          const float *source =
              sample + long(channel / kMultiplier) * ConvShape<G>::kInVolume + rowSource;
          const bool channelInside = rowInside && channel < G::kOutChannels;
#pragma unroll
          for (int j = 0; j < kColumnSteps; ++j) {
            const bool copied = channelInside && columnInside[j];
            if (lane + 32 * j < kInColumns)
              arch::copyAsync<4>(rowTarget + c * kLayout.channelPitch + 32 * j,
                                 copied ? source + 32 * j : sample, copied);
          }
        }
      }
    }
    arch::copyAsyncCommit();
    for (int e = threadIdx.x; e < BN * kTaps; e += kThreads) {
      const int channel = channelBase + e / kTaps;
      weights[e] = channel < G::kOutChannels ? __ldg(weight + long(channel) * kTaps + e % kTaps)
                                             : 0.0f;
    }
    arch::copyAsyncWaitAll();
    __syncthreads();

    // kThreadsPerChannel threads a channel, each ThreadRows outputs down a
    // column at a time; a warp's lanes on consecutive columns.
    const int c = threadIdx.x / kThreadsPerChannel;
    float taps[kTaps];
#pragma unroll
    for (int t = 0; t < kTaps; ++t)
      taps[t] = weights[c * kTaps + t];
    const float *window = windows + c * kLayout.channelPitch;
    constexpr int kRuns = TileRows / ThreadRows, kUnits = kRuns * TileColumns;
    constexpr int kSpan = (ThreadRows - 1) * strideH + (kernelH - 1) * dilationH + 1;
#pragma unroll 1
    for (int unit = threadIdx.x % kThreadsPerChannel; unit < kUnits;
         unit += kThreadsPerChannel) {
      const int x = unit % TileColumns, firstRow = unit / TileColumns * ThreadRows;
      float acc[ThreadRows];
#pragma unroll
      for (int r = 0; r < ThreadRows; ++r)
        acc[r] = 0.0f;
#pragma unroll
      for (int kd = 0; kd < kernelD; ++kd)
#pragma unroll
        for (int kx = 0; kx < kernelW; ++kx) {
          const float *column = window + kd * dilationD * kPlaneFloats +
                                firstRow * strideH * kInColumns + x * strideW + kx * dilationW;
          float values[kSpan];
#pragma unroll
          for (int i = 0; i < kSpan; ++i)
            values[i] = column[i * kInColumns];
#pragma unroll
          for (int r = 0; r < ThreadRows; ++r)
#pragma unroll
            for (int ky = 0; ky < kernelH; ++ky)
              acc[r] = fmaf(values[r * strideH + ky * dilationH],
                            taps[(kd * kernelH + ky) * kernelW + kx], acc[r]);
        }
#pragma unroll
      for (int r = 0; r < ThreadRows; ++r)
        tile[c * Tile::kStride + (firstRow + r) * TileColumns + x] = acc[r];
    }
    __syncthreads();
    return tile;
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_DEPTHWISE_CUH
