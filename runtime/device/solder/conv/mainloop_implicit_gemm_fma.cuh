//===- conv/mainloop_implicit_gemm_fma.cuh - The FMA fallback main loop ---===//
//
// One thread block computes a BM x BN tile of one sample's output: BM output
// pixels (flattened spatial positions, of one output phase) by BN output
// channels of one group. The reduction dim K runs over (input channel of the
// group, kernel tap of the phase), staged through shared memory BK at a time:
// A[BK][BM] gathers input elements (im2col on the fly, zero where the window
// leaves the input), and B[BK][BN] holds weights. Each of the 256 threads
// accumulates a TM x TN sub-tile in registers with fp32 FMAs (exact in both
// precisions), from PyTorch's layouts, and the epilogue visits them there
// (ImplicitGemmFmaConv::Fragment, epilogue/fragment_visit.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_FMA_CUH
#define SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_FMA_CUH

#include "solder/conv/geometry.cuh"

namespace solder {

/// The input element that position `local` of `phase` reads at reduction
/// index k (input channel of the group and the phase's tap), or 0 outside
/// the input.
template <class G>
__device__ __forceinline__ float loadPatch(const float *__restrict__ input,
                                           int n, int group,
                                           const typename Phases<G>::Phase &phase,
                                           int local, int k) {
  using S = ConvShape<G>;
  constexpr int kernelH = G::kKernel[1], kernelW = G::kKernel[2];
  constexpr int inH = G::kIn[1], inW = G::kIn[2], inD = G::kIn[0];
  const int taps = phase.taps();
  int outD, outH, outW;
  if (k >= S::kInPerGroup * taps || !phase.position(local, outD, outH, outW))
    return 0.0f;
  int channel = group * S::kInPerGroup + k / taps;
  int tap = phase.tap(k % taps);
  int d, h, w;
  if (!inputPosition<G, 0>(outD, tap / (kernelH * kernelW), d) ||
      !inputPosition<G, 1>(outH, (tap / kernelW) % kernelH, h) ||
      !inputPosition<G, 2>(outW, tap % kernelW, w))
    return 0.0f;
  return input[(((long)(n * G::kInChannels + channel) * inD + d) * inH + h) * inW +
               w];
}

/// The weight of output channel `outChannel` (within its group's tile) at
/// reduction index k of `phase`. conv: (Cout, Cin/g, *k); conv_transpose:
/// (Cin, Cout/g, *k).
template <class G>
__device__ __forceinline__ float loadWeight(const float *__restrict__ weight,
                                            int group, int outInGroup,
                                            const typename Phases<G>::Phase &phase,
                                            int k) {
  using S = ConvShape<G>;
  const int taps = phase.taps();
  if (outInGroup >= S::kOutPerGroup || k >= S::kInPerGroup * taps)
    return 0.0f;
  int inInGroup = k / taps;
  int tap = phase.tap(k % taps);
  if (G::kTransposed)
    return weight[((group * S::kInPerGroup + inInGroup) * S::kOutPerGroup +
                   outInGroup) * S::kTaps + tap];
  return weight[((group * S::kOutPerGroup + outInGroup) * S::kInPerGroup +
                 inInGroup) * S::kTaps + tap];
}

/// Accumulates the block's tile into acc[TM][TN]: positions pixelBase..
/// of `phase` (Phases). Thread t owns positions pixelBase + (t % 16) + 16 *
/// i and channels channelBase + (t / 16) + 16 * j (strided so neighbouring
/// threads touch neighbouring pixels: coalesced epilogue stores).
template <class G, int BM, int BN, int BK>
__device__ __forceinline__ void convTile(const float *__restrict__ input,
                                         const float *__restrict__ weight,
                                         int n, int group,
                                         const typename Phases<G>::Phase &phase,
                                         int pixelBase, int outInGroupBase,
                                         float (&acc)[BM / 16][BN / 16]) {
  const int reduction = phase.reduction();
  constexpr int TM = BM / 16, TN = BN / 16;
  __shared__ float tileA[BK][BM];
  __shared__ float tileB[BK][BN];
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < reduction; k0 += BK) {
    for (int e = t; e < BK * BM; e += 256) {
      int kk = e / BM, m = e % BM;
      tileA[kk][m] = loadPatch<G>(input, n, group, phase, pixelBase + m, k0 + kk);
    }
    for (int e = t; e < BK * BN; e += 256) {
      int kk = e % BK, c = e / BK;
      tileB[kk][c] = loadWeight<G>(weight, group, outInGroupBase + c, phase, k0 + kk);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
        a[i] = tileA[kk][(t % 16) + 16 * i];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        b[j] = tileB[kk][(t / 16) + 16 * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
}

/// The FMA fallback as a main loop: 256 threads compute a BM x BN tile of
/// one output phase (Phases) and one group, a thread's accumulators in
/// registers, where the epilogue visits them (kFragmentEpilogue). Pixel
/// tiles run phase by phase, channel tiles group by group.
template <class G, int BM_, int BN_, int BK_> struct ImplicitGemmFmaConv {
  using Geometry = G;
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = BM / 16, TN = BN / 16;
  static constexpr int kThreads = 256;
  /// Its operand tiles are static shared memory.
  static constexpr int kSharedBytes = 0;
  using Phases = solder::Phases<G>;
  static constexpr int kTilesPerPhase = (Phases::kVolume + BM - 1) / BM;
  static constexpr int kPixelTiles = Phases::kCount * kTilesPerPhase;
  static constexpr int kOutPerGroup = ConvShape<G>::kOutPerGroup;
  static constexpr int kChannelTilesPerGroup = (kOutPerGroup + BN - 1) / BN;
  static constexpr int kChannelTiles = G::kGroups * kChannelTilesPerGroup;

  static constexpr bool kFragmentEpilogue = true;
  /// A thread's accumulators: pixels pixelBase + threadIdx.x % 16 + 16 i of
  /// the phase by channels outInGroupBase + threadIdx.x / 16 + 16 j of the
  /// group, so a channel column is a half-warp's.
  struct Fragment {
    static constexpr int kRows = TM, kColumns = TN, kLanesPerChannel = 16;
    float acc[TM][TN];
    typename Phases::Phase phase;
    int pixelBase, group, outInGroupBase;
    /// The output pixel of row i; -1 past the output.
    __device__ int pixel(int i) const {
      return phase.pixel(pixelBase + threadIdx.x % 16 + 16 * i);
    }
    /// The output channel of column j, and whether it lies in the group.
    __device__ long channel(int j, bool &valid) const {
      const int outInGroup = outInGroupBase + threadIdx.x / 16 + 16 * j;
      valid = outInGroup < kOutPerGroup;
      return group * kOutPerGroup + (valid ? outInGroup : 0);
    }
  };

  __device__ static Fragment computeFragment(const float *__restrict__ input,
                                             const float *__restrict__ weight,
                                             const WorkTile &work) {
    // Unsigned: the divisions by constants need no sign fix-up. The phase
    // and bases are locals (const) while the main loop runs.
    const unsigned pixelTile = work.pixelTile, channelTile = work.channelTile;
    const int group = channelTile / kChannelTilesPerGroup;
    const int outInGroupBase = channelTile % kChannelTilesPerGroup * BN;
    const typename Phases::Phase phase = Phases::get(pixelTile / kTilesPerPhase);
    const int pixelBase = pixelTile % kTilesPerPhase * BM;
    Fragment fragment{{}, phase, pixelBase, group, outInGroupBase};
    convTile<G, BM, BN, BK>(input, weight, work.n, group, phase, pixelBase, outInGroupBase,
                            fragment.acc);
    return fragment;
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_FMA_CUH
