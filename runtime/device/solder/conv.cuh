//===- conv.cuh - Implicit-GEMM main loop of conv and conv_transpose -----===//
//
// One thread block computes a BM x BN tile of one sample's output: BM output
// pixels (flattened spatial positions) by BN output channels of one group.
// The reduction dim K runs over (input channel of the group, kernel tap),
// staged through shared memory BK at a time: A[BK][BM] gathers input
// elements (im2col on the fly, zero where the window leaves the input), and
// B[BK][BN] holds weights. Each of the 256 threads accumulates a TM x TN
// sub-tile in registers with fp32 FMAs (ieee precision: no TF32).
//
// conv_transpose uses the gather form: output o receives input
// i = (o + padding - k * dilation) / stride when that division is exact.
//
// Geometry is a struct of static constexpr members (shapes baked in by the
// code generator), so all index arithmetic folds to constants.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_CONV_CUH
#define SOLDER_DEVICE_CONV_CUH

namespace solder {

/// Geometry of a conv with its spatial dims padded to 3 (D, H, W); a missing
/// dim has size 1, kernel 1, stride 1, no padding.
///   struct G {
///     static constexpr bool kTransposed;
///     static constexpr int kBatch, kInChannels, kOutChannels, kGroups;
///     static constexpr int kIn[3], kOut[3], kKernel[3], kStride[3], kPad[3],
///                          kDilation[3];
///   };
template <class G> struct ConvShape {
  static constexpr int kInPerGroup = G::kInChannels / G::kGroups;
  static constexpr int kOutPerGroup = G::kOutChannels / G::kGroups;
  static constexpr int kTaps = G::kKernel[0] * G::kKernel[1] * G::kKernel[2];
  static constexpr int kInVolume = G::kIn[0] * G::kIn[1] * G::kIn[2];
  static constexpr int kOutVolume = G::kOut[0] * G::kOut[1] * G::kOut[2];
};

/// How a tensor-core main loop multiplies: the plan's precision.
///   * k3xTF32 (ieee): each fp32 operand split into big and small TF32
///     parts, three products accumulated in fp32 (fp32 accuracy);
///   * kTF32: one TF32 product, PyTorch's cuDNN default.
enum class TensorMath { k3xTF32, kTF32 };

/// The pixel tiles of main loops that cut a sample's output into runs of BM
/// consecutive (flattened) pixels: tile t starts at t * BM.
template <class G, int BM> struct LinearPixelTiles {
  __device__ static int pixelBase(int tile) { return tile * BM; }
  __device__ static int pixelCount(int tile) {
    const int left = ConvShape<G>::kOutVolume - tile * BM;
    return left < BM ? left : BM;
  }
};

/// The input position along spatial dim D that output position `out` reads
/// at kernel tap `tap`; false when it falls outside the input (padding) or,
/// for conv_transpose, between strided inputs. D is a template parameter so
/// every geometry subscript is a compile-time constant.
template <class G, int D>
__device__ __forceinline__ bool inputPosition(int out, int tap, int &position) {
  constexpr int stride = G::kStride[D], pad = G::kPad[D];
  constexpr int dilation = G::kDilation[D], extent = G::kIn[D];
  if (G::kTransposed) {
    int shifted = out + pad - tap * dilation;
    if (shifted < 0 || shifted % stride != 0)
      return false;
    position = shifted / stride;
  } else {
    position = out * stride - pad + tap * dilation;
  }
  return position >= 0 && position < extent;
}

/// The output phases of a conv_transpose with a stride > 1 (gather form).
/// Output position o along a dim reads input (o + pad - k * dilation) /
/// stride only at the taps k where that division is exact, and which taps
/// those are depends on r = (o + pad) % stride alone. So the outputs split
/// into phases, one residue per dim (stride^d phases), each a strided
/// sub-grid of the output whose taps are all valid: a tile stays in one
/// phase and reduces over that phase's taps only, never multiplying the
/// zeros between strided inputs. A conv, or a stride of 1, is one phase:
/// the whole output, every tap. Every phase is given the largest phase's
/// extent, ceil(out / stride) per dim; positions past the output are masked.
template <class G> struct Phases {
  static constexpr bool kSplit =
      G::kTransposed && (G::kStride[0] > 1 || G::kStride[1] > 1 || G::kStride[2] > 1);
  // Dims are template parameters: device code indexes the geometry's
  // arrays with constants only.
  template <int D> static constexpr int kStride = kSplit ? G::kStride[D] : 1;
  template <int D>
  static constexpr int kExtent = (G::kOut[D] + kStride<D> - 1) / kStride<D>;
  static constexpr int kCount = kStride<0> * kStride<1> * kStride<2>;
  static constexpr int kVolume = kExtent<0> * kExtent<1> * kExtent<2>;

  /// One dim of a phase: its first output position, and its taps: `count`
  /// of them, from `first` by `step`.
  struct Dim {
    int firstOutput, firstTap, tapStep, tapCount;
  };
  template <int D> __device__ static Dim dim(int phase) {
    constexpr int s = kStride<D>, kernel = G::kKernel[D];
    constexpr int pad = G::kPad[D], dilation = G::kDilation[D];
    if constexpr (!kSplit)
      return {0, 0, 1, kernel};
    const int r = D == 0 ? phase / (kStride<1> * kStride<2>)
                  : D == 1 ? phase / kStride<2> % kStride<1>
                           : phase % kStride<2>;
    Dim result{((r - pad) % s + s) % s, -1, 1, 0};
    // Taps k with k * dilation = r (mod stride): every step-th from the first.
#pragma unroll
    for (int k = 0; k < kernel; ++k)
      if (k * dilation % s == r) {
        if (result.firstTap < 0)
          result.firstTap = k;
        else if (result.tapCount == 1)
          result.tapStep = k - result.firstTap;
        ++result.tapCount;
      }
    return result;
  }

  /// One phase, its dims worked out once (per tile, not per element).
  struct Phase {
    Dim x, y, z;
    /// Taps of the phase.
    __device__ int taps() const { return x.tapCount * y.tapCount * z.tapCount; }
    /// The reduction length: input channels of a group x the phase's taps.
    __device__ int reduction() const { return ConvShape<G>::kInPerGroup * taps(); }
    /// The output position (d, h, w) of position `local` of the phase;
    /// false past the output.
    __device__ bool position(int local, int &d, int &h, int &w) const {
      constexpr int outD = G::kOut[0], outH = G::kOut[1], outW = G::kOut[2];
      if (local >= kVolume)
        return false;
      d = x.firstOutput + kStride<0> * (local / (kExtent<1> * kExtent<2>));
      h = y.firstOutput + kStride<1> * (local / kExtent<2> % kExtent<1>);
      w = z.firstOutput + kStride<2> * (local % kExtent<2>);
      return d < outD && h < outH && w < outW;
    }
    /// The flattened output pixel of position `local`; -1 past the output.
    __device__ int pixel(int local) const {
      constexpr int outH = G::kOut[1], outW = G::kOut[2];
      int d, h, w;
      return position(local, d, h, w) ? (d * outH + h) * outW + w : -1;
    }
    /// The kernel tap (flattened) of the phase's tap index t.
    __device__ int tap(int t) const {
      constexpr int kernelH = G::kKernel[1], kernelW = G::kKernel[2];
      const int td = t / (y.tapCount * z.tapCount), th = t / z.tapCount % y.tapCount,
                tw = t % z.tapCount;
      return ((x.firstTap + x.tapStep * td) * kernelH + y.firstTap + y.tapStep * th) *
                 kernelW +
             z.firstTap + z.tapStep * tw;
    }
  };
  /// Phase `phase` (0 for a conv or a stride of 1: every index then folds
  /// to constants).
  __device__ static Phase get(int phase) {
    if constexpr (!kSplit)
      phase = 0;
    return {dim<0>(phase), dim<1>(phase), dim<2>(phase)};
  }
};

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

} // namespace solder

#endif // SOLDER_DEVICE_CONV_CUH
