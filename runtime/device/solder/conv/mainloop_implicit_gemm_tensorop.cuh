//===- conv/mainloop_implicit_gemm_tensorop.cuh - CUTLASS implicit GEMM ---===//
//
// The main loop is CUTLASS 2.x's: the multistage (cp.async) threadblock MMA
// of DefaultConv2dFprop or DefaultConv3dFprop over NDHWC activations and
// KTRSC weights, on sm80 mma.sync TF32 tensor cores, which every GPU from
// Ampere on runs.
//   * ieee: 3xTF32 (OpMultiplyAddFastF32): each operand split into big and
//     small TF32 parts, three products accumulated in fp32 (fp32 accuracy);
//   * tf32: one TF32 product (OpMultiplyAdd), PyTorch's cuDNN default.
// Solder keeps its own epilogue: the accumulators are staged to shared
// memory as the accumulator tile (epilogue/accumulator_tile.h) that the
// generated epilogue functor visits (epilogue/tile_visit.cuh).
//
// One CTA computes BM output pixels of one sample by BN output channels:
// the problem CUTLASS sees is one sample (N = 1), so every tile lies in one
// sample and partial statistics stay per (sample, pixel tile, channel).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_TENSOROP_CUH
#define SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_TENSOROP_CUH

#include "solder/conv/geometry.cuh"
#include "solder/conv/implicit_gemm_layout.h"
#include "solder/epilogue/accumulator_tile.h"

#include <new>

#include <cutlass/conv/conv2d_problem_size.h>
#include <cutlass/conv/conv3d_problem_size.h>
#include <cutlass/conv/kernel/default_conv2d_fprop.h>
#include <cutlass/conv/kernel/default_conv3d_fprop.h>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/warp/mma_tensor_op_tile_iterator.h>

namespace solder {

/// The plan's tile: BM pixels x BN channels x BK reduction elements per
/// stage, warps of WM x WN, Stages-deep cp.async pipeline.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int Stages_,
          TensorMath Math_>
struct TensorOpTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
  static constexpr int kStages = Stages_;
  static constexpr TensorMath kMath = Math_;
};

/// A conv_transpose of stride 1 is a conv with the kernel flipped and
/// padding dilation * (kernel - 1) - padding; the weight reorder flips it.
/// Input channels are padded to 4 (one 16-byte cp.async) by the layout
/// conversion.
template <class G> struct ConvForm {
  static constexpr int kInChannels = paddedInputChannels(G::kInChannels);
  static constexpr int pad(int d) {
    return G::kTransposed ? G::kDilation[d] * (G::kKernel[d] - 1) - G::kPad[d]
                          : G::kPad[d];
  }
  static constexpr int stride(int d) { return G::kTransposed ? 1 : G::kStride[d]; }
  /// No depth: one input and output plane, a flat kernel, no depth padding.
  static constexpr int kDims =
      G::kIn[0] == 1 && G::kOut[0] == 1 && G::kKernel[0] == 1 && pad(0) == 0 ? 2 : 3;
};

/// CUTLASS's conv of 2 or 3 spatial dims: a geometry without depth runs the
/// Conv2d iterators, which hold fewer registers (the 128 x 128 TF32 tile
/// spills with the Conv3d ones).
template <int Dims> struct CutlassConvDims;
template <> struct CutlassConvDims<2> {
  using Layout = cutlass::layout::TensorNHWC;
  using ProblemSize = cutlass::conv::Conv2dProblemSize;
  template <class Tile, class Warp, class Instruction, int Stages, class Math>
  using Kernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
      float, Layout, float, Layout, float, Layout, float,
      cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, Tile, Warp, Instruction,
      cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages, Math,
      cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  template <class G, class Form> __device__ static ProblemSize problem() {
    // Locals: geometry arrays bound to references would be odr-used.
    constexpr int h = G::kIn[1], w = G::kIn[2], p = G::kOut[1], q = G::kOut[2];
    constexpr int r = G::kKernel[1], s = G::kKernel[2];
    constexpr int padH = Form::pad(1), padW = Form::pad(2);
    constexpr int strideH = Form::stride(1), strideW = Form::stride(2);
    constexpr int dilationH = G::kDilation[1], dilationW = G::kDilation[2];
    constexpr int c = Form::kInChannels, k = G::kOutChannels;
    return ProblemSize({1, h, w, c}, {k, r, s, c}, {padH, padH, padW, padW},
                       {strideH, strideW}, {dilationH, dilationW}, {1, p, q, k},
                       cutlass::conv::Mode::kCrossCorrelation, 1);
  }
};
template <> struct CutlassConvDims<3> {
  using Layout = cutlass::layout::TensorNDHWC;
  using ProblemSize = cutlass::conv::Conv3dProblemSize;
  template <class Tile, class Warp, class Instruction, int Stages, class Math>
  using Kernel = typename cutlass::conv::kernel::DefaultConv3dFprop<
      float, Layout, float, Layout, float, Layout, float,
      cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, Tile, Warp, Instruction,
      cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages, Math,
      cutlass::conv::IteratorAlgorithm::kOptimized,
      cutlass::conv::StrideSupport::kStrided>::Kernel;
  template <class G, class Form> __device__ static ProblemSize problem() {
    constexpr int d = G::kIn[0], h = G::kIn[1], w = G::kIn[2];
    constexpr int z = G::kOut[0], p = G::kOut[1], q = G::kOut[2];
    constexpr int t = G::kKernel[0], r = G::kKernel[1], s = G::kKernel[2];
    constexpr int padD = Form::pad(0), padH = Form::pad(1), padW = Form::pad(2);
    constexpr int strideD = Form::stride(0), strideH = Form::stride(1),
                  strideW = Form::stride(2);
    constexpr int dilationD = G::kDilation[0], dilationH = G::kDilation[1],
                  dilationW = G::kDilation[2];
    constexpr int c = Form::kInChannels, k = G::kOutChannels;
    return ProblemSize({1, d, h, w, c}, {k, t, r, s, c},
                       cutlass::make_Coord(padD, padH, padW),
                       cutlass::make_Coord(strideD, strideH, strideW),
                       cutlass::make_Coord(dilationD, dilationH, dilationW),
                       {1, z, p, q, k}, cutlass::conv::Mode::kCrossCorrelation, 1);
  }
};

/// Tensor-core conv of geometry G (groups == 1; stride 1 when transposed)
/// with tile T.
template <class G, class T> struct TensorOpConv : LinearPixelTiles<G, T::BM> {
  static_assert(G::kGroups == 1, "the tensor-core path runs groups == 1");
  static_assert(!G::kTransposed || (G::kStride[0] == 1 && G::kStride[1] == 1 &&
                                    G::kStride[2] == 1),
                "the tensor-core path runs conv_transpose of stride 1");
  using Geometry = G;
  using Form = ConvForm<G>;
  static constexpr int BM = T::BM, BN = T::BN;
  using Dims = CutlassConvDims<Form::kDims>;
  using Layout = typename Dims::Layout;
  using MathOperator =
      std::conditional_t<T::kMath == TensorMath::k3xTF32,
                         cutlass::arch::OpMultiplyAddFastF32,
                         cutlass::arch::OpMultiplyAdd>;
  using InstructionShape = cutlass::gemm::GemmShape<16, 8, 8>;
  using Kernel = typename Dims::template Kernel<
      cutlass::gemm::GemmShape<T::BM, T::BN, T::BK>,
      cutlass::gemm::GemmShape<T::WM, T::WN, T::BK>, InstructionShape, T::kStages,
      MathOperator>;
  using Mma = typename Kernel::Mma;
  using WarpCount = typename Mma::WarpCount;

  static constexpr int kThreads = Kernel::kThreadCount;
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kChannelTiles = (G::kOutChannels + BN - 1) / BN;
  using Tile = AccumulatorTile<BM, BN>;
  static_assert(sizeof(typename Mma::SharedStorage) ==
                    implicitGemmMainLoopBytes(T::BM, T::BN, T::BK, T::kStages),
                "the planner's main-loop shared memory (implicit_gemm_layout.h)");
  /// The accumulator tile reuses the main loop's shared memory.
  static constexpr int kSharedBytes = implicitGemmSharedBytes(T::BM, T::BN, T::BK, T::kStages);

  /// The problem and the iterators' precomputed parameters. CUTLASS's
  /// iterators keep references to them and read them at every K step (the
  /// next tap's offset, the channel bound): stock kernels pass them as
  /// kernel parameters, in the constant bank. Here they live in a
  /// __constant__ ContextStorage of the generated code, which the runtime
  /// fills once, when it loads the bundle, by running buildContext (the
  /// manifest's "constants"). In shared memory each K step waited on shared
  /// loads before its cp.async addresses (20% slower than stock CUTLASS on
  /// W2's conv); on the stack they cost local memory and registers.
  struct Context {
    typename Dims::ProblemSize size;
    typename Mma::IteratorA::Params paramsA;
    typename Mma::IteratorB::Params paramsB;
  };
  /// Bytes, so that a __constant__ variable of it needs no constructor.
  struct alignas(16) ContextStorage {
    unsigned char bytes[sizeof(Context)];
  };
  /// One thread builds the Context into `storage` (device memory that the
  /// runtime then copies to the generated __constant__ ContextStorage).
  __device__ static void buildContext(ContextStorage *storage) {
    if (threadIdx.x != 0 || blockIdx.x != 0)
      return;
    auto *built = new (storage->bytes) Context;
    built->size = Dims::template problem<G, Form>();
    built->paramsA = Mma::IteratorA::getParams(
        built->size, Layout::packed(built->size.activation_extent()));
    built->paramsB = typename Mma::IteratorB::Params(
        built->size, Layout::packed(built->size.filter_extent()));
  }
  static constexpr long kInSampleElements =
      long(ConvShape<G>::kInVolume) * Form::kInChannels;

  /// Runs the main loop for `work`'s output pixels [pixelBase, pixelBase +
  /// BM) and channels [channelBase, channelBase + BN), and leaves the result
  /// in shared memory as the accumulator tile. `constants` is the generated
  /// __constant__ ContextStorage. Inlined, so that the constants' loads stay
  /// in the constant space.
  __device__ __forceinline__ static float *
  computeTile(const float *__restrict__ inputNdhwc, const float *__restrict__ weightKtrsc,
              const WorkTile &work, char *shared, const ContextStorage &constants) {
    const int n = work.n, channelBase = work.channelTile * BN;
    const int pixelBase = LinearPixelTiles<G, T::BM>::pixelBase(work.pixelTile);
    const Context &context = *reinterpret_cast<const Context *>(constants.bytes);
    const typename Dims::ProblemSize &size = context.size;
    const int warp = cutlass::canonical_warp_idx_sync();
    const int lane = threadIdx.x % 32;
    typename Mma::IteratorA iteratorA(context.paramsA, size,
                                      inputNdhwc + n * kInSampleElements,
                                      threadIdx.x, cutlass::MatrixCoord(pixelBase, 0));
    typename Mma::IteratorB iteratorB(context.paramsB, size, weightKtrsc, threadIdx.x,
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
