//===- conv/direct_window.cuh - Staging the direct conv's input window ----===//
//
// A tile of the direct conv on tensor cores reads the input window of its
// rows: every input row they read (channel, depth, row), every column, zero
// outside the input (padding, rows past the last output row), each element
// split once into its TF32 parts and kept in kParts planes (big, then
// small), minus the sample's shifts when centered. Two ways to stage it:
//   * stage: one tile a block, straight from global memory (a warp per
//     window row, kBatch loads in flight a lane; 16-byte loads where the
//     rows are whole 16-byte chunks of the input's);
//   * issue, then convert: persistent blocks copy the next tile's window raw
//     by cp.async while they compute the current one, then split it from
//     shared memory, 16 bytes a thread.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_DIRECT_WINDOW_CUH
#define SOLDER_CONV_DIRECT_WINDOW_CUH

#include "solder/arch/sm80.cuh"
#include "solder/conv/direct_traits.cuh"

namespace solder {

template <class Traits> struct DirectWindow {
  using G = typename Traits::Geometry;
  using Element = typename Traits::Element;
  using Parts = typename Traits::Parts;
  using SampleOffset = typename Traits::SampleOffset;
  static constexpr int kParts = Traits::kParts, kThreads = Traits::kThreads;
  static constexpr int kWarps = Traits::kWarps, kBatch = Traits::kBatch;
  static constexpr int kOutH = Traits::kOutH, kOutW = Traits::kOutW;
  static constexpr int kWinD = Traits::kWinD, kWinH = Traits::kWinH, kWinW = Traits::kWinW;
  static constexpr int kWinRows = Traits::kWinRows, kWinPitch = Traits::kWinPitch;
  static constexpr int kWinChannel = Traits::kWinChannel;
  static constexpr int kWindowElements = Traits::kWindowElements;
  static constexpr long kSampleElements = Traits::kSampleElements;
  static constexpr int kRawPitch = Traits::kLayout.rawPitch;
  static constexpr int kChunkFloats = Traits::kLayout.chunkFloats;
  static constexpr int kRowChunks = Traits::kLayout.rowChunks;
  /// Whether the persistent blocks' copies and conversion keep a thread
  /// column (issue, convert): in one product, whose threads have registers
  /// for them. 3xTF32's hold twice the operands: unrolled, W1's took 168 ->
  /// 181 registers, 3 -> 2 blocks an SM, its conv 231 -> 248 us on an H200;
  /// rolled, 154 registers and 238 us.
  static constexpr bool kColumnCopies = !Traits::kThreeTF32;

  /// Where the window of the tile at pixelBase starts in the input: the
  /// depth and row its first window row reads (either may be padding).
  struct WindowOrigin {
    int d, h;
  };
  __device__ static WindowOrigin windowOrigin(int pixelBase) {
    constexpr int strideD = G::kStride[0], strideH = G::kStride[1];
    constexpr int padD = G::kPad[0], padH = G::kPad[1];
    const int z = pixelBase / (kOutH * kOutW), y0 = pixelBase / kOutW % kOutH;
    return {z * strideD - padD, y0 * strideH - padH};
  }
  /// The offset in a sample of input row (channel, depth, row), inside it.
  __device__ static SampleOffset inputRowOffset(int channel, int inputD, int inputH) {
    constexpr int inD = G::kIn[0], inH = G::kIn[1], inW = G::kIn[2];
    return (SampleOffset(channel) * inD + inputD) * inH * inW + SampleOffset(inputH) * inW;
  }
  /// Window row `row` (channel, depth, row) of the tile at pixelBase: the
  /// offset in its sample of the input row it reads, or -1 where it lies
  /// outside the input.
  __device__ static SampleOffset windowRowOffset(int pixelBase, int row) {
    const WindowOrigin origin = windowOrigin(pixelBase);
    const int inputD = origin.d + row / kWinH % kWinD, inputH = origin.h + row % kWinH;
    constexpr int inD = G::kIn[0], inH = G::kIn[1];
    if (inputD < 0 || inputD >= inD || inputH < 0 || inputH >= inH)
      return -1;
    return inputRowOffset(row / (kWinH * kWinD), inputD, inputH);
  }
  /// The same as a pointer into sample n's input, or null.
  __device__ static const float *windowRowSource(const float *__restrict__ input, int n,
                                                 int pixelBase, int row) {
    const SampleOffset offset = windowRowOffset(pixelBase, row);
    return offset < 0 ? nullptr : input + long(n) * kSampleElements + offset;
  }
  /// Where window row `row`'s elements go, in each plane.
  __device__ static int windowRow(int row) {
    return row / (kWinH * kWinD) * kWinChannel + row % (kWinH * kWinD) * kWinPitch;
  }
  /// Window elements [at, at + N), split into their planes: one N-wide
  /// store a plane (at a multiple of N).
  template <int N>
  __device__ static void storeParts(Element *window, int at, const float (&values)[N]) {
    using Run = cutlass::AlignedArray<Element, N>;
    Run runs[kParts];
#pragma unroll
    for (int e = 0; e < N; ++e) {
      const Parts parts = Traits::split(values[e]);
#pragma unroll
      for (int part = 0; part < kParts; ++part)
        runs[part][e] = parts[part];
    }
#pragma unroll
    for (int part = 0; part < kParts; ++part)
      *reinterpret_cast<Run *>(window + part * kWindowElements + at) = runs[part];
  }

  /// The window of the tile at (n, pixelBase), straight from `input`
  /// (minus sampleShifts, this sample's, when centered): a warp per window
  /// row, its lanes along the row, kBatch loads in flight per lane.
  __device__ static void stage(const float *__restrict__ input,
                               const float *__restrict__ sampleShifts, int n, int pixelBase,
                               Element *window) {
    constexpr int inW = G::kIn[2];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // Where a window row is whole 16-byte chunks of its input row (unpadded
    // columns, rows 16-byte aligned: kChunkFloats == 4), a lane takes a
    // chunk, one vector load and one store a part (W3's staging took 10
    // instructions an element a scalar at a time); the chunks past the
    // window's width, inside the input row, land in the pitch's columns
    // past it, which no pixel reads. Otherwise a lane takes an element.
    constexpr int kWidth = kChunkFloats, kRowRuns = kWidth == 4 ? kRowChunks : kWinW;
    constexpr int kRowLoads = (kRowRuns + 31) / 32;
    constexpr int kRowsPerBatch = kBatch / kRowLoads > 0 ? kBatch / kRowLoads : 1;
    for (int firstRow = warp; firstRow < kWinRows; firstRow += kRowsPerBatch * kWarps) {
      float values[kRowsPerBatch][kRowLoads][kWidth];
#pragma unroll
      for (int r = 0; r < kRowsPerBatch; ++r) {
        const int row = firstRow + r * kWarps;
        const float *source =
            row < kWinRows ? windowRowSource(input, n, pixelBase, row) : nullptr;
        const float shift =
            Traits::kCentered && source ? __ldg(sampleShifts + row / (kWinH * kWinD)) : 0.0f;
#pragma unroll
        for (int i = 0; i < kRowLoads; ++i) {
          const int run = lane + 32 * i, inputW = kWidth * run - G::kPad[2];
          // (Chunks lie inside the input row: unpadded, the pitch at most
          // its width.)
          const bool inside = source && run < kRowRuns &&
                              (kWidth == 4 || (inputW >= 0 && inputW < inW));
          float *loaded = values[r][i];
          if constexpr (kWidth == 4) {
            float4 quad = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (inside) {
              quad = __ldg(reinterpret_cast<const float4 *>(source + inputW));
              quad = make_float4(quad.x - shift, quad.y - shift, quad.z - shift, quad.w - shift);
            }
            loaded[0] = quad.x, loaded[1] = quad.y, loaded[2] = quad.z, loaded[3] = quad.w;
          } else {
            loaded[0] = inside ? __ldg(source + inputW) - shift : 0.0f;
          }
        }
      }
#pragma unroll
      for (int r = 0; r < kRowsPerBatch; ++r) {
        const int row = firstRow + r * kWarps;
        if (row >= kWinRows)
          break;
        const int destination = windowRow(row);
#pragma unroll
        for (int i = 0; i < kRowLoads; ++i)
          if (lane + 32 * i < kRowRuns)
            storeParts<kWidth>(window, destination + kWidth * (lane + 32 * i), values[r][i]);
      }
    }
  }

  /// Issues the cp.async copies of the raw window of the tile at (n,
  /// pixelBase) into `raw` (kWinRows rows of kRawPitch floats) and, centered,
  /// of the sample's shifts from `preparedShifts` into `shifts`, and commits
  /// them as one group. Where the threads divide into whole rows, each
  /// keeps one column of chunks.
  __device__ static void issue(const float *__restrict__ input,
                               const float *__restrict__ preparedShifts, int n, int pixelBase,
                               float *raw, float *shifts) {
    const float *sample = input + long(n) * kSampleElements;
    constexpr int inW = G::kIn[2];
    constexpr int kRowsAPass = kThreads % kRowChunks == 0 ? kThreads / kRowChunks : 0;
    auto copyChunk = [&](int row, int column) {
      const SampleOffset offset = windowRowOffset(pixelBase, row);
      const int inputW = column - G::kPad[2];
      const bool inside = offset >= 0 && column < kWinW && inputW >= 0 && inputW < inW;
      arch::copyAsync<4 * kChunkFloats>(raw + row * kRawPitch + column,
                                        inside ? sample + offset + inputW : input, inside);
    };
    if constexpr (kColumnCopies && kRowsAPass > 0 && kRowsAPass % kWinH == 0) {
      // Each thread copies one column of one row of every (kPlaneStep)th
      // plane (channel, depth): its row's height and column, the tile's
      // origin and their bounds are the same for every copy, and a copy's
      // source is the plane's offset from them (windowRowOffset per copy
      // took 60-odd instructions: W1's copies, a quarter of its conv's).
      constexpr int kPlanes = G::kInChannels * kWinD, kPlaneStep = kRowsAPass / kWinH;
      const int column = threadIdx.x % kRowChunks * kChunkFloats;
      const int firstRow = threadIdx.x / kRowChunks;
      const int h = firstRow % kWinH, firstPlane = firstRow / kWinH;
      const WindowOrigin origin = windowOrigin(pixelBase);
      const int inputH = origin.h + h, inputW = column - G::kPad[2];
      constexpr int inD = G::kIn[0], inH = G::kIn[1];
      const bool rowInside =
          unsigned(inputH) < unsigned(inH) && column < kWinW && unsigned(inputW) < unsigned(inW);
#pragma unroll
      for (int i = 0; i < (kPlanes + kPlaneStep - 1) / kPlaneStep; ++i) {
        const int plane = firstPlane + i * kPlaneStep;
        if (plane >= kPlanes)
          break;
        const int inputD = origin.d + plane % kWinD;
        const bool inside = rowInside && unsigned(inputD) < unsigned(inD);
        const SampleOffset offset = inputRowOffset(plane / kWinD, inputD, inputH) + inputW;
        arch::copyAsync<4 * kChunkFloats>(raw + (plane * kWinH + h) * kRawPitch + column,
                                          inside ? sample + offset : input, inside);
      }
    } else if constexpr (kRowsAPass > 0) {
      const int column = threadIdx.x % kRowChunks * kChunkFloats;
      for (int row = threadIdx.x / kRowChunks; row < kWinRows; row += kRowsAPass)
        copyChunk(row, column);
    } else {
      for (int i = threadIdx.x; i < kWinRows * kRowChunks; i += kThreads)
        copyChunk(i / kRowChunks, i % kRowChunks * kChunkFloats);
    }
    if constexpr (Traits::kCentered)
      if (threadIdx.x < G::kInChannels)
        arch::copyAsync<4>(shifts + threadIdx.x,
                           preparedShifts + n * G::kInChannels + threadIdx.x, true);
    arch::copyAsyncCommit();
  }

  /// After the raw window has landed (copyAsyncWaitAll and a barrier):
  /// splits it, minus the shifts, into the window's planes, four elements
  /// a thread at a time (a raw row's 16-byte chunks land at 16-byte aligned
  /// window offsets: the pitch and channel stride are multiples of 4). Rows
  /// outside the input (an unpadded conv has them only past the last output
  /// row, whose pixels are never stored) become -shift; so do the pitch's
  /// columns past the window, never read.
  __device__ static void convert(const float *raw, [[maybe_unused]] const float *sampleShifts,
                                 Element *window) {
    const float4 *quads = reinterpret_cast<const float4 *>(raw);
    constexpr int kRowQuads = kRawPitch / 4;
    if constexpr (kColumnCopies && kThreads % kRowQuads == 0) {
      // Each thread keeps one column of quads, rows kRowStep apart: a row's
      // window offset is windowRow's, row x pitch plus its channel's gap,
      // from one division (windowRow's own division and remainder took W1's
      // conv 88 more instructions).
      constexpr int kRowStep = kThreads / kRowQuads, kChannelRows = kWinH * kWinD;
      const int column = threadIdx.x % kRowQuads * 4, firstRow = threadIdx.x / kRowQuads;
#pragma unroll
      for (int i = 0; i < (kWinRows + kRowStep - 1) / kRowStep; ++i) {
        const int row = firstRow + i * kRowStep;
        if (row >= kWinRows)
          break;
        const int channel = row / kChannelRows;
        const float shift = Traits::kCentered ? sampleShifts[channel] : 0.0f;
        const float4 values = quads[row * kRowQuads + column / 4];
        storeParts<4>(window,
                      row * kWinPitch + channel * (kWinChannel - kChannelRows * kWinPitch) +
                          column,
                      {values.x - shift, values.y - shift, values.z - shift, values.w - shift});
      }
    } else {
      for (int i = threadIdx.x; i < kWinRows * kRowQuads; i += kThreads) {
        const int row = i / kRowQuads;
        const float shift = Traits::kCentered ? sampleShifts[row / (kWinH * kWinD)] : 0.0f;
        const float4 values = quads[i];
        storeParts<4>(window, windowRow(row) + i % kRowQuads * 4,
                      {values.x - shift, values.y - shift, values.z - shift, values.w - shift});
      }
    }
  }

  /// Centered: what the shift contributes to each of the tile's channels,
  /// sum_ci s_ci * tapSum(c, ci) in double, kept as high + low floats
  /// (threads below BN, one channel each).
  __device__ static void computeCorrection(const double *channelTapSums,
                                           const float *sampleShifts, float2 *correction) {
    if (threadIdx.x >= Traits::BN)
      return;
    double sum = 0.0;
#pragma unroll
    for (int c = 0; c < G::kInChannels; ++c)
      sum += double(sampleShifts[c]) * channelTapSums[threadIdx.x * G::kInChannels + c];
    const float high = float(sum);
    correction[threadIdx.x] = make_float2(high, float(sum - high));
  }
};

} // namespace solder

#endif // SOLDER_CONV_DIRECT_WINDOW_CUH
