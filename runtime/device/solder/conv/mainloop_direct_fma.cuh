//===- conv/mainloop_direct_fma.cuh - Direct conv on FMAs -----------------===//
//
// A conv whose reduction is short and narrow (W1: 3 input channels x 27
// taps) is not a GEMM problem: implicit-GEMM tiles waste most of each K step
// on zeros. Here each thread owns one output pixel and all BN output channels
// of the tile in registers; it walks the (channel, tap) window once, loading
// each input element once and multiplying it into BN accumulators with
// weights that the block staged in shared memory as [channel, tap][BN]
// (read four at a time, the same address across the warp: a broadcast).
// fp32 FMAs, exact in both precisions. Reads PyTorch's NCDHW input and
// weights directly: no layout conversion.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_DIRECT_FMA_CUH
#define SOLDER_CONV_MAINLOOP_DIRECT_FMA_CUH

#include "solder/conv/direct_layout.h"
#include "solder/conv/geometry.cuh"
#include "solder/epilogue/accumulator_tile.h"

namespace solder {

/// Direct conv of geometry G (groups == 1, not transposed): BM pixels (one
/// per thread) x BN output channels (a multiple of 4) per block.
template <class G, int BM_, int BN_>
struct DirectConv : LinearPixelTiles<G, BM_> {
  static_assert(G::kGroups == 1 && !G::kTransposed,
                "the direct conv runs ungrouped convs");
  static_assert(BN_ % 4 == 0 && BM_ % 32 == 0, "the plan's tile");
  using Geometry = G;
  static constexpr int BM = BM_, BN = BN_;
  static constexpr int kThreads = BM, kWarps = BM / 32;
  using Tile = AccumulatorTile<BM, BN>;
  static constexpr int kChannelTiles = (G::kOutChannels + BN - 1) / BN;
  static constexpr int kTaps = ConvShape<G>::kTaps;
  static constexpr int kWindow = G::kInChannels * kTaps;
  /// The block's weights, then the accumulator tile over them.
  static constexpr int kSharedBytes = directFmaSharedBytes(G::kInChannels, kTaps, BM, BN);

  __device__ static float *computeTile(const float *__restrict__ input,
                                       const float *__restrict__ weight, const WorkTile &work,
                                       char *shared) {
    const int n = work.n, pixelBase = LinearPixelTiles<G, BM_>::pixelBase(work.pixelTile),
              channelBase = work.channelTile * BN;
    constexpr int inD = G::kIn[0], inH = G::kIn[1], inW = G::kIn[2];
    constexpr int outH = G::kOut[1], outW = G::kOut[2];
    constexpr int kernelH = G::kKernel[1], kernelW = G::kKernel[2];
    float *weights = reinterpret_cast<float *>(shared);
    for (int e = threadIdx.x; e < kWindow * BN; e += kThreads) {
      const int k = channelBase + e % BN, window = e / BN;
      weights[e] = k < G::kOutChannels ? weight[k * kWindow + window] : 0.0f;
    }
    __syncthreads();

    float acc[BN];
#pragma unroll
    for (int k = 0; k < BN; ++k)
      acc[k] = 0.0f;
    const int pixel = pixelBase + threadIdx.x;
    if (pixel < ConvShape<G>::kOutVolume) {
      const int z = pixel / (outH * outW), y = (pixel / outW) % outH,
                x = pixel % outW;
      const float *sample = input + long(n) * G::kInChannels * inD * inH * inW;
#pragma unroll
      for (int c = 0; c < G::kInChannels; ++c)
#pragma unroll
        for (int tap = 0; tap < kTaps; ++tap) {
          int d, h, w;
          const bool inside =
              inputPosition<G, 0>(z, tap / (kernelH * kernelW), d) &&
              inputPosition<G, 1>(y, (tap / kernelW) % kernelH, h) &&
              inputPosition<G, 2>(x, tap % kernelW, w);
          const float value =
              inside ? __ldg(sample + ((long(c) * inD + d) * inH + h) * inW + w)
                     : 0.0f;
          const float4 *row =
              reinterpret_cast<const float4 *>(weights + (c * kTaps + tap) * BN);
#pragma unroll
          for (int k = 0; k < BN / 4; ++k) {
            const float4 w4 = row[k];
            acc[4 * k] = fmaf(value, w4.x, acc[4 * k]);
            acc[4 * k + 1] = fmaf(value, w4.y, acc[4 * k + 1]);
            acc[4 * k + 2] = fmaf(value, w4.z, acc[4 * k + 2]);
            acc[4 * k + 3] = fmaf(value, w4.w, acc[4 * k + 3]);
          }
        }
    }
    __syncthreads(); // the tile reuses the weights' shared memory
    float *tile = reinterpret_cast<float *>(shared);
#pragma unroll
    for (int k = 0; k < BN; ++k)
      tile[k * Tile::kStride + threadIdx.x] = acc[k];
    __syncthreads();
    return tile;
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_DIRECT_FMA_CUH
