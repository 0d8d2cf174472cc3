//===- conv/mainloop_implicit_gemm_tensorop.cuh - CUTLASS implicit GEMM ---===//
//
// The main loop is CUTLASS 2.x's: the multistage (cp.async) threadblock MMA
// of DefaultConv2dFprop or DefaultConv3dFprop over NDHWC activations and
// KTRSC weights, on sm80 mma.sync TF32 tensor cores, which every GPU from
// Ampere on runs.
//   * ieee: 3xTF32 (OpMultiplyAddFastF32): each operand split into big and
//     small TF32 parts, three products accumulated in fp32 (fp32 accuracy);
//   * tf32: one TF32 product (OpMultiplyAdd), PyTorch's cuDNN default; on
//     operands its conversions rounded to TF32 where both are converted
//     (TensorOpTile's OperandsTF32), else rounding them itself.
// Solder keeps its own epilogue: the accumulators are staged to shared
// memory as the accumulator tile (epilogue/accumulator_tile.h) that the
// generated epilogue functor visits (epilogue/tile_visit.cuh).
//
// One CTA computes BM output pixels of one sample by BN output channels:
// the problem CUTLASS sees is one sample (N = 1), so every tile lies in one
// sample and partial statistics stay per (sample, pixel tile, channel).
// A grouped conv is the conv of one group that CUTLASS sees, run group by
// group: a channel tile lies in one group, whose input channels it reads
// through the whole input's strides from the group's first channel on, and
// whose KTRSC weights are a block of their own.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_TENSOROP_CUH
#define SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_TENSOROP_CUH

#include "solder/conv/geometry.cuh"
#include "solder/conv/implicit_gemm_layout.h"
#include "solder/epilogue/accumulator_tile.h"

#include <new>
#include <type_traits>

#include <cutlass/conv/conv2d_problem_size.h>
#include <cutlass/conv/conv3d_problem_size.h>
#include <cutlass/conv/kernel/default_conv2d_fprop.h>
#include <cutlass/conv/kernel/default_conv3d_fprop.h>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/warp/mma_tensor_op_tile_iterator.h>

namespace solder {

/// The plan's tile: BM pixels x BN channels x BK reduction elements per
/// stage, warps of WM x WN, Stages-deep cp.async pipeline. OperandsTF32
/// (TF32 only): both operands come from Solder's conversions, which rounded
/// them to TF32 (StoreTF32, conv/layout.cuh: to nearest, ties away, as the
/// Hopper main loop reads them), so the main loop reads them as CUTLASS's
/// tfloat32_t and converts nothing: 48 fewer of the 285 instructions a
/// warp issues for a K step of 128 x 32 x 16. CUTLASS's own conversion
/// rounds the same on sm_80 (bitwise the same results); on sm_90 it rounds
/// ties to even (cvt.rn), which now only floats read as stored do.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int Stages_,
          TensorMath Math_, bool OperandsTF32_ = false>
struct TensorOpTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
  static constexpr int kStages = Stages_;
  static constexpr TensorMath kMath = Math_;
  static constexpr bool kOperandsTF32 = OperandsTF32_;
  static_assert(!kOperandsTF32 || kMath == TensorMath::kTF32,
                "operands rounded to TF32 feed one TF32 product");
};

/// The conv CUTLASS runs for one output phase of G (Phases): a conv as it
/// is; a conv_transpose's phase as the conv of stride 1 over the input
/// that it is (conv/phases.h), its taps reversed by the weight reorder
/// (weightsToKtrsc): for a stride of 1, the whole kernel flipped with
/// padding dilation * (kernel - 1) - padding. Input channels are padded to
/// 4 (one 16-byte cp.async) by the layout conversion. A grouped conv is the
/// conv of one group: its input channels a multiple of 4 (the planner's
/// rule), so that each group starts on a 16-byte boundary and none is
/// padded.
template <class G> struct ConvForm {
  /// Input channels an NDHWC pixel holds, and those of one group.
  static constexpr int kInChannels = paddedInputChannels(G::kInChannels);
  static constexpr int kGroupInChannels =
      G::kGroups == 1 ? kInChannels : ConvShape<G>::kInPerGroup;
  static constexpr int kGroupOutChannels = ConvShape<G>::kOutPerGroup;
  static_assert(G::kGroups == 1 || kGroupInChannels % 4 == 0,
                "a group's input channels start on 16 bytes");
  /// No depth: one input and output plane, a flat kernel, no depth padding
  /// (a conv_transpose's depth is then one phase of one tap).
  static constexpr int kDims =
      G::kIn[0] == 1 && G::kOut[0] == 1 && G::kKernel[0] == 1 && G::kPad[0] == 0 ? 2 : 3;
  /// Per spatial dim (D, H, W) of one phase: kernel taps, padding, stride,
  /// dilation, output extent, and the input from position `shift` on (a
  /// phase whose first output reads past its taps' reach, a negative
  /// padding, reads the input from there, through a pointer offset, with
  /// the whole input's strides; conv/phases.h).
  struct Dims {
    int kernel[3], pad[3], stride[3], dilation[3], out[3], in[3], shift[3];
  };
  template <int D>
  __device__ static void setDim(Dims &dims, const PhaseDim &phase) {
    dims.kernel[D] = phase.tapCount;
    dims.pad[D] = phase.convPad > 0 ? phase.convPad : 0;
    dims.shift[D] = phase.convPad < 0 ? -phase.convPad : 0;
    dims.in[D] = G::kIn[D] - dims.shift[D];
    dims.stride[D] = G::kTransposed ? 1 : G::kStride[D];
    dims.dilation[D] = phase.convDilation;
    dims.out[D] = G::kTransposed ? Phases<G>::template kExtent<D> : G::kOut[D];
  }
  __device__ static Dims of(const typename Phases<G>::Phase &phase) {
    Dims dims;
    setDim<0>(dims, phase.x);
    setDim<1>(dims, phase.y);
    setDim<2>(dims, phase.z);
    return dims;
  }
  /// Where the phase's input starts in an NDHWC sample.
  __device__ static long inputOffset(const Dims &dims) {
    return ((long(dims.shift[0]) * G::kIn[1] + dims.shift[1]) * G::kIn[2] + dims.shift[2]) *
           kInChannels;
  }
};

/// CUTLASS's conv of 2 or 3 spatial dims: a geometry without depth runs the
/// Conv2d iterators, which hold fewer registers (the 128 x 128 TF32 tile
/// spills with the Conv3d ones).
template <int Dims> struct CutlassConvDims;
template <> struct CutlassConvDims<2> {
  using Layout = cutlass::layout::TensorNHWC;
  using ProblemSize = cutlass::conv::Conv2dProblemSize;
  template <class Element, class Tile, class Warp, class Instruction, int Stages, class Math>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
      Element, Layout, Element, Layout, float, Layout, float,
      cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, Tile, Warp, Instruction,
      cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages, Math,
      cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  /// One NHWC sample of the whole input (a group's channels are a slice
  /// of each pixel's).
  template <class G> __device__ static Layout inputLayout() {
    // Locals: geometry arrays bound to references would be odr-used.
    constexpr int h = G::kIn[1], w = G::kIn[2], c = ConvForm<G>::kInChannels;
    return Layout(c, w * c, h * w * c);
  }
  template <class G, class Dims> __device__ static ProblemSize problem(const Dims &f) {
    constexpr int c = ConvForm<G>::kGroupInChannels, k = ConvForm<G>::kGroupOutChannels;
    return ProblemSize({1, f.in[1], f.in[2], c}, {k, f.kernel[1], f.kernel[2], c},
                       {f.pad[1], f.pad[1], f.pad[2], f.pad[2]}, {f.stride[1], f.stride[2]},
                       {f.dilation[1], f.dilation[2]}, {1, f.out[1], f.out[2], k},
                       cutlass::conv::Mode::kCrossCorrelation, 1);
  }
};
template <> struct CutlassConvDims<3> {
  using Layout = cutlass::layout::TensorNDHWC;
  using ProblemSize = cutlass::conv::Conv3dProblemSize;
  template <class Element, class Tile, class Warp, class Instruction, int Stages, class Math>
  using Kernel = typename cutlass::conv::kernel::DefaultConv3dFprop<
      Element, Layout, Element, Layout, float, Layout, float,
      cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, Tile, Warp, Instruction,
      cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages, Math,
      cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  /// One NDHWC sample of the whole input (a group's channels are a slice
  /// of each pixel's).
  template <class G> __device__ static Layout inputLayout() {
    constexpr int d = G::kIn[0], h = G::kIn[1], w = G::kIn[2], c = ConvForm<G>::kInChannels;
    return Layout(c, w * c, h * w * c, d * h * w * c);
  }
  template <class G, class Dims> __device__ static ProblemSize problem(const Dims &f) {
    constexpr int c = ConvForm<G>::kGroupInChannels, k = ConvForm<G>::kGroupOutChannels;
    return ProblemSize({1, f.in[0], f.in[1], f.in[2], c}, {k, f.kernel[0], f.kernel[1], f.kernel[2], c},
                       cutlass::make_Coord(f.pad[0], f.pad[1], f.pad[2]),
                       cutlass::make_Coord(f.stride[0], f.stride[1], f.stride[2]),
                       cutlass::make_Coord(f.dilation[0], f.dilation[1], f.dilation[2]),
                       {1, f.out[0], f.out[1], f.out[2], k},
                       cutlass::conv::Mode::kCrossCorrelation, 1);
  }
};

/// How TensorOpConv cuts the output into pixel tiles: a conv_transpose of
/// stride > 1 phase by phase (each phase its own problem), else in runs of
/// BM pixels.
template <class G, int BM>
using TensorOpPixelTiles = std::conditional_t<Phases<G>::kSplit, PhasePixelTiles<G, BM>,
                                              LinearPixelTiles<G, BM>>;

/// Tensor-core conv of geometry G with tile T. A conv_transpose runs its
/// output phases (Phases) as convs of stride 1, each with its own problem
/// (Context) and weights; a grouped conv its groups, each channel tile in
/// one group (channelRange).
template <class G, class T> struct TensorOpConv : TensorOpPixelTiles<G, T::BM> {
  using Geometry = G;
  using Form = ConvForm<G>;
  using Phases = solder::Phases<G>;
  using PixelTiles = TensorOpPixelTiles<G, T::BM>;
  static constexpr int BM = T::BM, BN = T::BN;
  using Dims = CutlassConvDims<Form::kDims>;
  using Layout = typename Dims::Layout;
  using MathOperator =
      std::conditional_t<T::kMath == TensorMath::k3xTF32,
                         cutlass::arch::OpMultiplyAddFastF32,
                         cutlass::arch::OpMultiplyAdd>;
  using InstructionShape = cutlass::gemm::GemmShape<16, 8, 8>;
  /// The operands as the main loop reads them (the same 32 bits either way).
  using Element = std::conditional_t<T::kOperandsTF32, cutlass::tfloat32_t, float>;
  using Kernel = typename Dims::template Kernel<
      Element, cutlass::gemm::GemmShape<T::BM, T::BN, T::BK>,
      cutlass::gemm::GemmShape<T::WM, T::WN, T::BK>, InstructionShape, T::kStages,
      MathOperator>;
  using Mma = typename Kernel::Mma;
  using WarpCount = typename Mma::WarpCount;

  static constexpr int kThreads = Kernel::kThreadCount;
  static constexpr int kWarps = kThreads / 32;
  /// Channel tiles run group by group; a group's last may be ragged.
  static constexpr int kGroupChannelTiles = (Form::kGroupOutChannels + BN - 1) / BN;
  static constexpr int kChannelTiles = G::kGroups * kGroupChannelTiles;
  using Tile = AccumulatorTile<BM, BN>;
  /// The output channels of a channel tile: from its first to its group's
  /// end (the epilogue's visit stops there).
  __device__ static ChannelRange channelRange(int channelTile) {
    const int group = channelTile / kGroupChannelTiles;
    return {group * Form::kGroupOutChannels + channelTile % kGroupChannelTiles * BN,
            (group + 1) * Form::kGroupOutChannels};
  }
  static_assert(sizeof(typename Mma::SharedStorage) ==
                    implicitGemmMainLoopBytes(T::BM, T::BN, T::BK, T::kStages),
                "the planner's main-loop shared memory (implicit_gemm_layout.h)");
  /// The accumulator tile reuses the main loop's shared memory.
  static constexpr int kSharedBytes = implicitGemmSharedBytes(T::BM, T::BN, T::BK, T::kStages);

  /// One phase's problem, the iterators' precomputed parameters, where its
  /// weights start (weightsToKtrsc lays the phases out one after another)
  /// and how far apart its groups' weights are. CUTLASS's iterators keep
  /// references to them and read them at every K step (the next tap's
  /// offset, the channel bound): stock kernels pass them as kernel
  /// parameters, in the constant bank. Here they live in a __constant__
  /// ContextStorage of the generated code, which the runtime fills once,
  /// when it loads the bundle, by running buildContext (the manifest's
  /// "constants"). In shared memory each K step waited on shared loads
  /// before its cp.async addresses (20% slower than stock CUTLASS on W2's
  /// conv); on the stack they cost local memory and registers.
  struct Context {
    typename Dims::ProblemSize size;
    typename Mma::IteratorA::Params paramsA;
    typename Mma::IteratorB::Params paramsB;
    long inputOffset, weightOffset, groupWeights;
  };
  /// A Context a phase, as bytes, so that a __constant__ variable of it
  /// needs no constructor.
  struct alignas(16) ContextStorage {
    unsigned char bytes[sizeof(Context) * Phases::kCount];
  };
  /// One thread builds the Contexts into `storage` (device memory that the
  /// runtime then copies to the generated __constant__ ContextStorage).
  __device__ static void buildContext(ContextStorage *storage) {
    if (threadIdx.x != 0 || blockIdx.x != 0)
      return;
    long weightOffset = 0;
    for (int phase = 0; phase < Phases::kCount; ++phase) {
      const typename Phases::Phase dims = Phases::get(phase);
      const typename Form::Dims form = Form::of(dims);
      auto *built = new (storage->bytes + phase * sizeof(Context)) Context;
      built->size = Dims::template problem<G>(form);
      // The whole input's strides: a phase that reads it from a shift on
      // has a smaller extent, not another layout.
      built->paramsA = Mma::IteratorA::getParams(
          built->size, Dims::template inputLayout<G>());
      built->paramsB = typename Mma::IteratorB::Params(
          built->size, Layout::packed(built->size.filter_extent()));
      built->inputOffset = Form::inputOffset(form);
      built->weightOffset = weightOffset;
      built->groupWeights = long(Form::kGroupOutChannels) * dims.taps() * Form::kGroupInChannels;
      weightOffset += G::kGroups * built->groupWeights;
    }
  }
  static constexpr long kInSampleElements =
      long(ConvShape<G>::kInVolume) * Form::kInChannels;

  /// Runs the main loop for `work`'s output pixels [pixelBase, pixelBase +
  /// BM) (positions of one phase where the conv has phases) and channels
  /// channelRange(work.channelTile) (BN of them at most), and leaves the result
  /// in shared memory as the accumulator tile. `constants` is the generated
  /// __constant__ ContextStorage. Inlined, so that the constants' loads stay
  /// in the constant space.
  __device__ __forceinline__ static float *
  computeTile(const float *__restrict__ inputNdhwc, const float *__restrict__ weightKtrsc,
              const WorkTile &work, char *shared, const ContextStorage &constants) {
    constexpr bool kGrouped = G::kGroups > 1;
    const int n = work.n, group = work.channelTile / kGroupChannelTiles,
              channelBase = work.channelTile % kGroupChannelTiles * BN;
    int pixelBase, phase = 0;
    if constexpr (Phases::kSplit) {
      phase = PixelTiles::phase(work.pixelTile);
      pixelBase = PixelTiles::positionBase(work.pixelTile);
    } else {
      pixelBase = PixelTiles::pixelBase(work.pixelTile);
    }
    const Context &context = reinterpret_cast<const Context *>(constants.bytes)[phase];
    const typename Dims::ProblemSize &size = context.size;
    const int warp = cutlass::canonical_warp_idx_sync();
    const int lane = threadIdx.x % 32;
    typename Mma::IteratorA iteratorA(context.paramsA, size,
                                      reinterpret_cast<const Element *>(inputNdhwc) + n * kInSampleElements +
                                          (Phases::kSplit ? context.inputOffset : 0) +
                                          (kGrouped ? group * Form::kGroupInChannels : 0),
                                      threadIdx.x, cutlass::MatrixCoord(pixelBase, 0));
    typename Mma::IteratorB iteratorB(context.paramsB, size,
                                      reinterpret_cast<const Element *>(weightKtrsc) +
                                          (Phases::kSplit ? context.weightOffset : 0) +
                                          (kGrouped ? group * context.groupWeights : 0),
                                      threadIdx.x,
                                      cutlass::MatrixCoord(0, channelBase));
    auto &storage = *reinterpret_cast<typename Mma::SharedStorage *>(shared);
    Mma mma(storage, threadIdx.x, warp, lane);
    typename Mma::FragmentC accumulators;
    accumulators.clear();
    constexpr auto kFprop = cutlass::conv::Operator::kFprop;
    constexpr auto kAlgorithm = cutlass::conv::IteratorAlgorithm::kOptimized;
    mma(cutlass::conv::implicit_gemm_k_iterations(kFprop, T::BK, size, kAlgorithm),
        accumulators, iteratorA, iteratorB, accumulators,
        cutlass::conv::implicit_gemm_k_iterations_per_channel(kFprop, size,
                                                              kAlgorithm));
    cutlass::arch::cp_async_wait<0>();
    __syncthreads(); // the tile reuses the main loop's shared memory

    // The accumulators' (pixel, channel) positions are CUTLASS's: its
    // accumulator tile iterator writes them to the column-major tile.
    using WarpTileIterator = cutlass::gemm::warp::MmaTensorOpAccumulatorTileIterator<
        cutlass::MatrixShape<T::WM, T::WN>, float, cutlass::layout::ColumnMajor,
        InstructionShape, typename Mma::Operator::Policy::OpDelta>;
    float *tile = reinterpret_cast<float *>(shared);
    WarpTileIterator store({tile, cutlass::layout::ColumnMajor(Tile::kStride)}, lane);
    const int warpMN = warp % (WarpCount::kM * WarpCount::kN);
    store.add_tile_offset({warpMN % WarpCount::kM, warpMN / WarpCount::kM});
    store.store(accumulators);
    __syncthreads();
    return tile;
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_TENSOROP_CUH
