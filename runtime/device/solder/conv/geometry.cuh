//===- conv/geometry.cuh - The geometry every conv main loop shares -------===//
//
// A conv's geometry is a struct of static constexpr members (shapes baked in
// by the code generator), so all index arithmetic folds to constants; its
// spatial dims are padded to 3 (D, H, W). conv_transpose uses the gather
// form: output o receives input i = (o + padding - k * dilation) / stride
// when that division is exact, and with a stride > 1 splits into output
// phases (Phases).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_GEOMETRY_CUH
#define SOLDER_CONV_GEOMETRY_CUH

#include "solder/conv/phases.h"

namespace solder {

/// Geometry of a conv with its spatial dims padded to 3 (D, H, W); a missing
/// dim has size 1, kernel 1, stride 1, no padding. kPad is the zeros before
/// each dim; those after it follow from kOut (PyTorch's padding='same' with
/// an even kernel pads one more after), and every main loop reads a
/// position past the input as zero.
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

/// A conv with one input and one output pixel a sample and a 1x1 kernel (a
/// Linear, squeeze-excitation's convs) is the GEMM (samples x input
/// channels) x (input channels x output channels), and its NDHWC input is
/// the same bytes as one sample of that many pixels. Main loops run it as
/// that geometry, so that a tile spans BM samples instead of holding one
/// pixel of BM; SamplesAsPixelsEpilogue (epilogue/samples_as_pixels.cuh)
/// gives each pixel back its sample.
template <class G> struct SamplesAsPixels {
  static_assert(ConvShape<G>::kInVolume == 1 && ConvShape<G>::kOutVolume == 1 &&
                    ConvShape<G>::kTaps == 1 && G::kGroups == 1,
                "a GEMM-shaped conv: one pixel a sample, a 1x1 kernel, one group");
  // A 1x1 conv_transpose of stride 1 (a matmul by a caller's (C, K) tensor)
  // is the conv by its weights transposed, which weightsToKtrsc<G> lays out
  // as a conv's KTRSC.
  static_assert(!G::kTransposed || (G::kStride[0] == 1 && G::kStride[1] == 1 &&
                                    G::kStride[2] == 1 && G::kPad[0] == 0 &&
                                    G::kPad[1] == 0 && G::kPad[2] == 0),
                "a GEMM-shaped conv_transpose has a stride of 1 and no padding");
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 1, kInChannels = G::kInChannels,
                       kOutChannels = G::kOutChannels, kGroups = 1;
  static constexpr int kIn[3] = {1, 1, G::kBatch}, kOut[3] = {1, 1, G::kBatch};
  static constexpr int kKernel[3] = {1, 1, 1}, kStride[3] = {1, 1, 1}, kPad[3] = {0, 0, 0},
                       kDilation[3] = {1, 1, 1};
};

/// One tile of a conv's output, as a tile scheduler hands it to the main
/// loop (kernel/tile_scheduler.cuh): pixel tile `pixelTile` of sample `n`
/// (how a tile covers the pixels is the main loop's: pixelBase,
/// pixelCount), output channel tile `channelTile` (of every group's), and
/// under split-K the share `split` of its K steps.
struct WorkTile {
  int pixelTile, n, channelTile, split = 0;
};

/// The output channels [base, end) a channel tile's columns start from and
/// stop at: its own BN from the tile's first, up to the conv's last
/// channel, or up to its group's end where the main loop runs a group's
/// channel tiles apart (TensorOpConv::channelRange).
struct ChannelRange {
  int base, end;
};

/// How a tensor-core main loop multiplies: the plan's precision.
///   * k3xTF32 (ieee): each fp32 operand split into big and small TF32
///     parts, three products accumulated in fp32 (fp32 accuracy);
///   * kTF32: one TF32 product, PyTorch's cuDNN default.
enum class TensorMath { k3xTF32, kTF32 };

/// The pixel tiles of main loops that cut a sample's output into runs of BM
/// consecutive (flattened) pixels: tile t starts at t * BM.
template <class G, int BM> struct LinearPixelTiles {
  static constexpr int kSamples = G::kBatch;
  static constexpr int kPixelTiles = (ConvShape<G>::kOutVolume + BM - 1) / BM;
  __device__ static int pixelBase(int tile) { return tile * BM; }
  __device__ static int pixelCount(int tile) {
    const int left = ConvShape<G>::kOutVolume - tile * BM;
    return left < BM ? left : BM;
  }
};

/// The pixel tiles of a main loop that runs the samples' pixels as one
/// row (N x D x H x W, the Hopper main loop's im2col copies walking from
/// one sample into the next): tile t starts at pixel t * BM of that row,
/// and a tile of a small image (ResNet's 7x7) holds all its rows' pixels,
/// not one sample's. The epilogue takes each pixel's sample back
/// (SamplesAsPixelsEpilogue).
template <class G, int BM> struct AcrossSamplePixelTiles {
  static constexpr int kSamples = 1;
  static constexpr long kPixels = long(G::kBatch) * ConvShape<G>::kOutVolume;
  static_assert(kPixels + BM <= 0x7fffffff, "a tile's pixels are ints");
  static constexpr int kPixelTiles = int((kPixels + BM - 1) / BM);
  __device__ static int pixelBase(int tile) { return tile * BM; }
  __device__ static int pixelCount(int tile) {
    const long left = kPixels - long(tile) * BM;
    return left < BM ? int(left) : BM;
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

  /// One dim of phase `phase` (conv/phases.h). A conv is one phase of
  /// itself: every output and tap, its own dilation and padding.
  template <int D> __device__ static PhaseDim dim(int phase) {
    constexpr int s = kStride<D>, kernel = G::kKernel[D];
    constexpr int pad = G::kPad[D], dilation = G::kDilation[D];
    if constexpr (!G::kTransposed)
      return {0, 0, 1, kernel, dilation, pad};
    const int r = D == 0 ? phase / (kStride<1> * kStride<2>)
                  : D == 1 ? phase / kStride<2> % kStride<1>
                           : phase % kStride<2>;
    return transposedPhaseDim(kSplit ? r : 0, s, kernel, pad, dilation);
  }

  /// One phase, its dims worked out once (per tile, not per element).
  struct Phase {
    PhaseDim x, y, z;
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

/// The pixel tiles of main loops that run a conv_transpose's output phases
/// apart (Phases::kSplit): each phase's positions cut into runs of BM, phase
/// after phase. A tile's rows are positions of one phase; rows(tile) says
/// which output pixel each is (-1 past the output), for the epilogue's
/// visit (epilogue/tile_visit.cuh).
template <class G, int BM> struct PhasePixelTiles {
  using Phases = solder::Phases<G>;
  static_assert(Phases::kSplit, "without phases, LinearPixelTiles");
  static constexpr int kTilesPerPhase = (Phases::kVolume + BM - 1) / BM;
  static constexpr int kPixelTiles = Phases::kCount * kTilesPerPhase;
  __device__ static int phase(int tile) { return tile / kTilesPerPhase; }
  /// The tile's first position in its phase.
  __device__ static int positionBase(int tile) { return tile % kTilesPerPhase * BM; }
  struct Rows {
    typename Phases::Phase phase;
    int base, count;
    __device__ int pixel(int row) const { return phase.pixel(base + row); }
  };
  __device__ static Rows rows(int tile) {
    const int base = positionBase(tile), left = Phases::kVolume - base;
    return {Phases::get(phase(tile)), base, left < BM ? left : BM};
  }
};

} // namespace solder

#endif // SOLDER_CONV_GEOMETRY_CUH
