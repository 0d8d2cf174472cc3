//===- conv/direct_traits.cuh - What the direct tensor-core parts share ---===//
//
// The vocabulary of the direct conv on tensor cores, which its operand
// preparation (direct_prepare.cuh), its window staging (direct_window.cuh),
// its main loop (mainloop_direct_tensorop.cuh) and its register moments
// (epilogue/mma_moments.cuh) all read: the tile's sizes (from
// direct_layout.h, which the planner shares), an operand element's TF32
// parts, and where reduction element k and pixel p of a tile lie in the
// input window.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_DIRECT_TRAITS_CUH
#define SOLDER_CONV_DIRECT_TRAITS_CUH

#include "solder/arch/sm80.cuh"
#include "solder/conv/direct_layout.h"
#include "solder/conv/geometry.cuh"

#include <cutlass/numeric_conversion.h>

#include <type_traits>

// The sm_90a device pass multiplies on wgmma (kWgmma); every other pass,
// the host's and the CPU run's included, on mma.sync.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(SOLDER_HOST_MMA)
#include "solder/arch/sm90.cuh"
#define SOLDER_DIRECT_WGMMA 1
#else
#define SOLDER_DIRECT_WGMMA 0
#endif

namespace solder {

/// How the direct conv on tensor cores accumulates (the plan's
/// #solder.direct_tile accumulation):
///   * kPlain;
///   * kStepSums (3xTF32, for outputs a sum downstream cancels): each
///     reduction step's products go into a fresh fragment, added to the
///     accumulator in fp32, as tensor cores truncate what they accumulate;
///   * kCentered (one TF32 product, unpadded convs): the input enters minus
///     a shift per (sample, channel), which the accumulators get back
///     exactly as they leave.
enum class DirectAccumulation { kPlain, kStepSums, kCentered };

/// Direct tensor-core conv of geometry G (groups == 1, not transposed): a
/// tile is Rows whole output rows of one output plane of one sample by BN
/// output channels (a multiple of 8), computed by Warps warps.
template <class G, int Rows, int BN_, int Warps, TensorMath Math,
          DirectAccumulation Accumulation>
struct DirectTensorOpTraits {
  static_assert(G::kGroups == 1 && !G::kTransposed, "the direct conv runs ungrouped convs");
  static constexpr bool kStepSums = Accumulation == DirectAccumulation::kStepSums;
  static constexpr bool kCentered = Accumulation == DirectAccumulation::kCentered;
  static_assert(!kStepSums || Math == TensorMath::k3xTF32, "step sums are for 3xTF32");
  // Padding reads zeros, which a shift would move: the identity holds
  // where every tap reads the input.
  template <int D>
  static constexpr bool kWindowInside =
      (G::kOut[D] - 1) * G::kStride[D] + G::kDilation[D] * (G::kKernel[D] - 1) < G::kIn[D];
  static_assert(!kCentered || (G::kPad[0] == 0 && G::kPad[1] == 0 && G::kPad[2] == 0 &&
                               kWindowInside<0> && kWindowInside<1> && kWindowInside<2>),
                "a centered input needs an unpadded conv (no zeros before or after)");
  static_assert(BN_ % 8 == 0 && Rows >= 1 && Warps >= 1, "the plan's tile");
  using Geometry = G;
  static constexpr bool kThreeTF32 = Math == TensorMath::k3xTF32;
  /// TF32 parts kept of each operand element: big and small, or one.
  static constexpr int kParts = kThreeTF32 ? 2 : 1;

  static constexpr DirectTensorOpLayout kLayout{
      DirectConvShape{G::kBatch,
                      G::kInChannels,
                      G::kOutChannels,
                      {G::kIn[0], G::kIn[1], G::kIn[2]},
                      {G::kOut[0], G::kOut[1], G::kOut[2]},
                      {G::kKernel[0], G::kKernel[1], G::kKernel[2]},
                      {G::kStride[0], G::kStride[1], G::kStride[2]},
                      {G::kPad[0], G::kPad[1], G::kPad[2]},
                      {G::kDilation[0], G::kDilation[1], G::kDilation[2]}},
      DirectTensorOpTile{Rows, BN_, Warps, kParts, kCentered}};

  static constexpr int kRows = Rows, kOutH = G::kOut[1], kOutW = G::kOut[2];
  static constexpr int kRowTiles = kLayout.rowTiles;
  static constexpr int kTilePixels = kLayout.tilePixels;
  /// Warpgroup MMAs (sm_90a): a warpgroup's four warps supply their own
  /// rows' A fragments from the window, as for mma.sync, and one wgmma
  /// reads the step's B from shared memory for all of them (mma.sync loads
  /// each B fragment into every warp). The weights then lie in shared
  /// memory as wgmma reads them (DirectPrepare).
  static constexpr bool kWgmma = SOLDER_DIRECT_WGMMA && Warps % 4 == 0;
  /// The epilogue's lanes take BM / 32 pixels of each channel.
  static constexpr int BM = kLayout.bm, BN = BN_;
  static constexpr int kWarps = Warps, kThreads = 32 * Warps;
  static constexpr int kMmaRows = kLayout.mmaRows;
  static constexpr int kMmaRowsPerWarp = kLayout.mmaRowsPerWarp;
  static constexpr int kMmaCols = kLayout.mmaCols;
  static constexpr int kTaps = kLayout.taps;
  static constexpr int kK = kLayout.reduction;
  static constexpr int kKSteps = kLayout.kSteps;
  static constexpr bool kChannelFastest = kLayout.channelFastest;
  static constexpr int kChannelTiles = kLayout.channelTiles;
  static constexpr int kPixelTiles = kLayout.pixelTiles;

  static constexpr int kWeightFragments = kLayout.weightFragments;
  static constexpr int kWinD = kLayout.winD, kWinH = kLayout.winH, kWinW = kLayout.winW;
  static constexpr int kWinRows = kLayout.winRows;
  static constexpr int kWinPitch = kLayout.winPitch, kWinPlane = kLayout.winPlane;
  static constexpr int kWinChannel = kLayout.winChannel;
  static constexpr int kWindowElements = kLayout.windowElements;

  /// Tile t covers output rows [r * Rows, r * Rows + Rows) of plane z.
  __device__ static int pixelBase(int tile) {
    return (tile / kRowTiles * kOutH + tile % kRowTiles * Rows) * kOutW;
  }
  __device__ static int pixelCount(int tile) {
    const int rows = kOutH - tile % kRowTiles * Rows;
    return (rows < Rows ? rows : Rows) * kOutW;
  }

  /// Input channel and kernel tap of reduction element k < kK.
  __device__ static constexpr int reductionChannel(int k) {
    return kChannelFastest ? k % G::kInChannels : k / kTaps;
  }
  __device__ static constexpr int reductionTap(int k) {
    return kChannelFastest ? k / G::kInChannels : k % kTaps;
  }
  /// Offset of reduction element k in the window; the padding past kK reads
  /// element 0 (its weights are zero, and the window holds no NaN).
  __device__ static constexpr int reductionOffset(int k) {
    if (k >= kK)
      return 0;
    constexpr int kernelH = G::kKernel[1], kernelW = G::kKernel[2];
    const int tap = reductionTap(k);
    return reductionChannel(k) * kWinChannel +
           tap / (kernelH * kernelW) * G::kDilation[0] * kWinPlane +
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

  /// Both parts rounded to nearest: |small| <= 2^-12 |x|, so the dropped
  /// small x small product and what small leaves out are both about 2^-24
  /// relative, fp32's own rounding (CUTLASS's faster split, big toward zero
  /// and small half-ulp truncated, left W1's GroupNorm -> mean up to 60x
  /// eager's error). Each element is split once, at staging.
  using BigSmall = cutlass::NumericConverterFastF32<
      cutlass::FloatRoundStyle::round_to_nearest,
      cutlass::FloatRoundStyle::round_to_nearest>;
  using Nearest = cutlass::NumericConverter<cutlass::tfloat32_t, float,
                                            cutlass::FloatRoundStyle::round_to_nearest>;
  /// A window element or a weight, as the MMA takes it.
  using Element = cutlass::tfloat32_t;
  using Parts = cutlass::AlignedArray<Element, kParts>;
  /// The weights in fragment order: for k-step s, column block j and lane,
  /// the B fragment (k0 = 8s + lane % 4 and k0 + 4 of channel 8j + lane / 4)
  /// as {big k0, big k0 + 4, small k0, small k0 + 4}: one 16-byte load.
  /// For wgmma the same values in its K-major order instead: part, k-step,
  /// column block j, then the step's two halves of 4 (core matrices of 8
  /// channels x 4 values, 128 bytes): the value of lane and half h at
  /// wgmmaStep(part, s) + j * kWgmmaBlock + h * kWgmmaHalf + lane.
  using WeightFragment = cutlass::AlignedArray<Element, 2 * kParts>;
  /// Elements of a core matrix (a K step's half of 8 channels) and of a
  /// column block (both halves).
  static constexpr int kWgmmaHalf = 32, kWgmmaBlock = 2 * kWgmmaHalf;
  /// Where part `part`'s weights of K step `step` start, in elements.
  __host__ __device__ static constexpr int wgmmaStep(int part, int step) {
    return (part * kKSteps + step) * kMmaCols * kWgmmaBlock;
  }
  static_assert(sizeof(WeightFragment) == 2 * kParts * 4, "the layout's fragment bytes");
  __device__ static Parts split(float value) {
    Parts parts;
    if constexpr (kThreeTF32) {
      const auto bigSmall = BigSmall::convert(value);
      parts[0] = bigSmall[0];
      parts[1] = bigSmall[1];
    } else {
      parts[0] = Nearest::convert(value);
    }
    return parts;
  }
  /// Loads a batch of kBatch values per thread before splitting and storing
  /// any, so that each thread has that many loads in flight.
  static constexpr int kBatch = 8;

  /// Offsets within a sample's input: 32-bit where a sample fits.
  static constexpr long kSampleElements = long(G::kInChannels) * ConvShape<G>::kInVolume;
  using SampleOffset = std::conditional_t<(kSampleElements < (1L << 31)), int, long>;
};

} // namespace solder

#endif // SOLDER_CONV_DIRECT_TRAITS_CUH
