//===- conv_direct_tensorop.cuh - Direct conv on tensor cores, short K ---===//
//
// A conv whose reduction is short (few input channels: W1's 3 x 27 taps,
// W3's 8 x 9) wastes most of an implicit-GEMM K step on zeros, and its
// input must first be converted to NDHWC. Here a block stages the input
// window of whole output rows (one output plane, Rows rows, every column)
// in shared memory as PyTorch lays it out (channel, depth, row, column, zero
// where the window leaves the input), and the weights as [channel][k] with
// k = (input channel, kd, kh, kw), PyTorch's own order. The reduction is
// then walked in 8-deep steps of sm80 mma.sync TF32 (CUTLASS's
// arch::Mma 16x8x8): an A fragment element (pixel p, reduction index k) is
// window[pixelOffset(p) + reductionOffset(k)], one shared-memory load, with
// no im2col, no layout conversion and the whole K dense (81 = 10.1 steps
// for W1, 72 = 9 for W3).
//   * ieee: 3xTF32 as CUTLASS's OpMultiplyAddFastF32 does it (big part
//     rounded toward zero, small part the rest; small x big + big x small +
//     big x big, accumulated in fp32);
//   * tf32: one TF32 product of operands rounded to nearest.
// The accumulators leave through the channel-major shared tile that
// solder::runConv's generated epilogue visits (conv_epilogue.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_CONV_DIRECT_TENSOROP_CUH
#define SOLDER_DEVICE_CONV_DIRECT_TENSOROP_CUH

#include "solder/conv.cuh"
#include "solder/conv_epilogue.cuh"

#include <cutlass/arch/memory_sm80.h>
#include <cutlass/arch/mma_sm80.h>
#include <cutlass/numeric_conversion.h>

namespace solder {

/// Direct tensor-core conv of geometry G (groups == 1, not transposed): a
/// block computes Rows whole output rows of one output plane of one sample
/// by BN output channels (a multiple of 8), with Warps warps.
template <class G, int Rows, int BN_, int Warps, TensorMath Math>
struct DirectTensorOpConv {
  static_assert(G::kGroups == 1 && !G::kTransposed,
                "the direct conv runs ungrouped convs");
  static_assert(BN_ % 8 == 0 && Rows >= 1 && Warps >= 1, "the plan's tile");
  using Geometry = G;
  static constexpr int kOutH = G::kOut[1], kOutW = G::kOut[2];
  static constexpr int kRowTiles = (kOutH + Rows - 1) / Rows;
  static constexpr int kTilePixels = Rows * kOutW;
  /// The epilogue's lanes take BM / 32 pixels of each channel.
  static constexpr int BM = (kTilePixels + 31) / 32 * 32, BN = BN_;
  static constexpr int kWarps = Warps, kThreads = 32 * Warps;
  static constexpr int kTileStride = BM + 4;

  /// MMA steps: 16 pixels x 8 channels x 8 reduction elements.
  static constexpr int kMmaRows = (kTilePixels + 15) / 16;
  static constexpr int kMmaRowsPerWarp = (kMmaRows + Warps - 1) / Warps;
  static constexpr int kMmaCols = BN / 8;
  static constexpr int kTaps = ConvShape<G>::kTaps;
  static constexpr int kK = G::kInChannels * kTaps;
  static constexpr int kKSteps = (kK + 7) / 8;
  /// A row stride of 4 mod 8 words puts a B fragment's 8 channels x 4 k on
  /// 32 distinct banks.
  static constexpr int kWeightStride = kKSteps * 8 + 4;
  static constexpr bool kThreeTF32 = Math == TensorMath::k3xTF32;
  static constexpr int kWeightFloats = (kThreeTF32 ? 2 : 1) * BN * kWeightStride;

  /// The input window of one tile.
  static constexpr int kWinD = (G::kKernel[0] - 1) * G::kDilation[0] + 1;
  static constexpr int kWinH =
      (Rows - 1) * G::kStride[1] + (G::kKernel[1] - 1) * G::kDilation[1] + 1;
  static constexpr int kWinW =
      (kOutW - 1) * G::kStride[2] + (G::kKernel[2] - 1) * G::kDilation[2] + 1;
  /// A row pitch of 16 mod 32 words keeps the 8 pixels of one fragment
  /// column apart from those of the next row's kernel tap.
  static constexpr int kWinPitch =
      ((kWinW + 15) / 16 % 2 == 1) ? (kWinW + 15) / 16 * 16 : (kWinW + 15) / 16 * 16 + 16;
  static constexpr int kWinPlane = kWinH * kWinPitch;
  static constexpr int kWinChannel = kWinD * kWinPlane;
  static constexpr int kWindowFloats = G::kInChannels * kWinChannel;

  static constexpr int kMainLoopBytes = (kWeightFloats + kWindowFloats) * 4;
  static constexpr int kTileBytes = BN * kTileStride * 4;
  static constexpr int kSharedBytes =
      kMainLoopBytes > kTileBytes ? kMainLoopBytes : kTileBytes;

  /// Tile t covers output rows [r * Rows, r * Rows + Rows) of plane z.
  __device__ static int pixelBase(int tile) {
    return (tile / kRowTiles * kOutH + tile % kRowTiles * Rows) * kOutW;
  }
  __device__ static int pixelCount(int tile) {
    const int rows = kOutH - tile % kRowTiles * Rows;
    return (rows < Rows ? rows : Rows) * kOutW;
  }

  /// Offset of reduction element k in the window; the padding past kK reads
  /// element 0 (its weights are zero, and the window holds no NaN).
  __device__ static constexpr int reductionOffset(int k) {
    if (k >= kK)
      return 0;
    constexpr int kernelH = G::kKernel[1], kernelW = G::kKernel[2];
    const int c = k / kTaps, tap = k % kTaps;
    return c * kWinChannel + tap / (kernelH * kernelW) * G::kDilation[0] * kWinPlane +
           (tap / kernelW) % kernelH * G::kDilation[1] * kWinPitch +
           tap % kernelW * G::kDilation[2];
  }
  /// Offset of the tile's pixel p (row-major over Rows x kOutW) in the
  /// window; pixels past the tile read element 0 and are never stored.
  __device__ static int pixelOffset(int p) {
    if (p >= kTilePixels)
      return 0;
    return p / kOutW * G::kStride[1] * kWinPitch + p % kOutW * G::kStride[2];
  }

  using Mma = cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 8>, 32,
                                 cutlass::tfloat32_t, cutlass::layout::RowMajor,
                                 cutlass::tfloat32_t, cutlass::layout::ColumnMajor,
                                 float, cutlass::layout::RowMajor,
                                 cutlass::arch::OpMultiplyAdd>;
  using BigSmall = cutlass::NumericConverterFastF32<
      cutlass::FloatRoundStyle::round_toward_zero,
      cutlass::FloatRoundStyle::round_half_ulp_truncate>;
  using Nearest = cutlass::NumericConverter<cutlass::tfloat32_t, float,
                                            cutlass::FloatRoundStyle::round_to_nearest>;

  __device__ static const float *computeTile(const float *__restrict__ input,
                                             const float *__restrict__ weight,
                                             int n, int pixelBase,
                                             int channelBase, char *shared) {
    constexpr int inD = G::kIn[0], inH = G::kIn[1], inW = G::kIn[2];
    cutlass::tfloat32_t *weights = reinterpret_cast<cutlass::tfloat32_t *>(shared);
    float *window = reinterpret_cast<float *>(shared) + kWeightFloats;

    // The input window, zero outside the input (padding, rows past the
    // last output row), copied asynchronously: every thread's copies are in
    // flight at once while it stages the weights.
    const int z = pixelBase / (kOutH * kOutW), y0 = pixelBase / kOutW % kOutH;
    const float *sample = input + long(n) * G::kInChannels * inD * inH * inW;
    constexpr int kWindowCopies = G::kInChannels * kWinD * kWinH * kWinW;
#pragma unroll 4
    for (int e = threadIdx.x; e < kWindowCopies; e += kThreads) {
      const int w = e % kWinW, h = e / kWinW % kWinH, d = e / (kWinW * kWinH) % kWinD,
                c = e / (kWinW * kWinH * kWinD);
      const int inputD = z * G::kStride[0] - G::kPad[0] + d,
                inputH = y0 * G::kStride[1] - G::kPad[1] + h, inputW = w - G::kPad[2];
      const bool inside = inputD >= 0 && inputD < inD && inputH >= 0 &&
                          inputH < inH && inputW >= 0 && inputW < inW;
      const float *source =
          inside ? sample + ((long(c) * inD + inputD) * inH + inputH) * inW + inputW
                 : sample;
      cutlass::arch::cp_async_zfill<4>(
          window + c * kWinChannel + d * kWinPlane + h * kWinPitch + w, source, inside);
    }
    cutlass::arch::cp_async_fence();

    // Weights of channels [channelBase, channelBase + BN), split once per
    // block: [part][channel][k], zero past kK and past the output channels.
    // All of a thread's loads first, then the splits and stores.
    constexpr int kWeightElements = BN * kKSteps * 8;
    constexpr int kWeightLoads = (kWeightElements + kThreads - 1) / kThreads;
    float values[kWeightLoads];
#pragma unroll
    for (int i = 0; i < kWeightLoads; ++i) {
      const int e = threadIdx.x + i * kThreads;
      const int channel = e / (kKSteps * 8), k = e % (kKSteps * 8);
      values[i] = e < kWeightElements && channelBase + channel < G::kOutChannels && k < kK
                      ? __ldg(weight + long(channelBase + channel) * kK + k)
                      : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kWeightLoads; ++i) {
      const int e = threadIdx.x + i * kThreads;
      const int channel = e / (kKSteps * 8), k = e % (kKSteps * 8);
      if (e >= kWeightElements)
        continue;
      if constexpr (kThreeTF32) {
        const auto parts = BigSmall::convert(values[i]);
        weights[channel * kWeightStride + k] = parts[0];
        weights[(BN + channel) * kWeightStride + k] = parts[1];
      } else {
        weights[channel * kWeightStride + k] = Nearest::convert(values[i]);
      }
    }
    cutlass::arch::cp_async_wait<0>();
    __syncthreads();

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / 4, quad = lane % 4; // fragment row / column
    // This thread's pixels: rows group and group + 8 of each MMA row block.
    int pixels[kMmaRowsPerWarp][2];
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int half = 0; half < 2; ++half)
        pixels[m][half] =
            pixelOffset(((warp * kMmaRowsPerWarp + m) * 16) + group + 8 * half);

    typename Mma::FragmentC acc[kMmaRowsPerWarp][kMmaCols];
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j)
        acc[m][j].clear();

    Mma mma;
#pragma unroll
    for (int step = 0; step < kKSteps; ++step) {
      const int k0 = step * 8 + quad;
      // B fragments (k0 and k0 + 4 of channel 8j + group) of every column.
      typename Mma::FragmentB big[kMmaCols], small[kMmaCols];
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j) {
        const cutlass::tfloat32_t *row = weights + (8 * j + group) * kWeightStride + k0;
        big[j][0] = row[0];
        big[j][1] = row[4];
        if constexpr (kThreeTF32) {
          small[j][0] = row[BN * kWeightStride];
          small[j][1] = row[BN * kWeightStride + 4];
        }
      }
      const int offsetLo = reductionOffset(k0), offsetHi = reductionOffset(k0 + 4);
#pragma unroll
      for (int m = 0; m < kMmaRowsPerWarp; ++m) {
        if ((warp * kMmaRowsPerWarp + m) >= kMmaRows)
          continue;
        const float a[4] = {window[pixels[m][0] + offsetLo], window[pixels[m][1] + offsetLo],
                            window[pixels[m][0] + offsetHi], window[pixels[m][1] + offsetHi]};
        typename Mma::FragmentA aBig, aSmall;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          if constexpr (kThreeTF32) {
            const auto parts = BigSmall::convert(a[i]);
            aBig[i] = parts[0];
            aSmall[i] = parts[1];
          } else {
            aBig[i] = Nearest::convert(a[i]);
          }
        }
#pragma unroll
        for (int j = 0; j < kMmaCols; ++j) {
          if constexpr (kThreeTF32) {
            mma(acc[m][j], aSmall, big[j], acc[m][j]);
            mma(acc[m][j], aBig, small[j], acc[m][j]);
          }
          mma(acc[m][j], aBig, big[j], acc[m][j]);
        }
      }
    }
    __syncthreads(); // the tile reuses the window's shared memory

    // Accumulator (row group (+8), columns 2 quad, 2 quad + 1) to the
    // channel-major tile; a stride of 4 mod 32 keeps the stores apart.
    float *tile = reinterpret_cast<float *>(shared);
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m) {
      const int row = (warp * kMmaRowsPerWarp + m) * 16 + group;
      if (row >= BM)
        continue;
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j) {
        float *column = tile + (8 * j + 2 * quad) * kTileStride + row;
        column[0] = acc[m][j][0];
        column[kTileStride] = acc[m][j][1];
        column[8] = acc[m][j][2];
        column[kTileStride + 8] = acc[m][j][3];
      }
    }
    __syncthreads();
    return tile;
  }
};

} // namespace solder

#endif // SOLDER_DEVICE_CONV_DIRECT_TENSOROP_CUH
