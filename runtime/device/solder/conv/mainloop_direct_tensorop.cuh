//===- conv/mainloop_direct_tensorop.cuh - Direct conv on tensor cores ----===//
//
// A conv whose reduction is short (few input channels: W1's 3 x 27 taps,
// W3's 8 x 9) wastes most of an implicit-GEMM K step on zeros, and its
// input must first be converted to NDHWC. Here a block stages the input
// window of whole output rows (one output plane, Rows rows, every column)
// in shared memory as PyTorch lays it out (direct_window.cuh), and its
// channel tile's weights as B fragments over k = (input channel, kd, kh,
// kw), PyTorch's own order (split into TF32 parts by the prepare kernel,
// direct_prepare.cuh, when the weights change). The reduction is then walked in
// 8-deep steps of sm80 mma.sync TF32 (arch::MmaTF32, 16x8x8): an A fragment
// element (pixel p, reduction index k) is window[pixelOffset(p) +
// reductionOffset(k)], one shared-memory load straight into its operand
// register (3xTF32 keeps the big and the small parts in two planes: a load
// each), with no im2col, no layout conversion and the whole K dense (81 =
// 10.1 steps for W1, 72 = 9 for W3). On sm_90a (kWgmma) each step is one
// register-A wgmma (64 x BN x 8) a row block instead: the warps' A
// fragments as above, the weights read from shared memory once for the
// warpgroup (prepared in wgmma's K-major order), where mma.sync loaded
// every B fragment into every warp; the accumulators come out in
// mma.sync's fragment layout, so all that follows is the same.
//   * ieee: 3xTF32 (both parts rounded to nearest; small x big + big x
//     small + big x big accumulated in fp32; where a sum downstream
//     cancels, each step's three products summed apart first: kStepSums);
//   * tf32: one TF32 product of operands rounded to nearest.
// kCentered (the plan's choice in tf32 for unpadded convs whose output a
// sum downstream cancels): the window is staged minus a shift per (sample,
// input channel), near the channel's mean, and the shift comes back
// through the weights' exact tap sums, conv(x) = conv(x - s) +
// sum_ci s_ci * sum_taps w(c, ci, tap), added in double-float when the
// accumulators leave. The tensor cores then round and truncate values of
// the data's spread, not of its offset (W1 at x + 1000: an offset 3000x
// the spread).
// The accumulators leave through the accumulator tile that the generated
// epilogue visits (epilogue/tile_visit.cuh), or, for an epilogue that only
// reduces the conv output (W1's statistics), as each tile's channel
// moments summed in registers (epilogue/moments.cuh).
// Two schedules (kernel/conv_kernel.cuh): one tile a block, or persistent
// blocks that take tiles in turn, copy their channel tile's fragments once
// and the next tile's window by cp.async during the current one. Every
// size and offset comes from direct_layout.h, which the planner shares.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_DIRECT_TENSOROP_CUH
#define SOLDER_CONV_MAINLOOP_DIRECT_TENSOROP_CUH

#include "solder/arch/sm80.cuh"
#include "solder/conv/direct_prepare.cuh"
#include "solder/conv/direct_traits.cuh"
#include "solder/conv/direct_window.cuh"
#include "solder/epilogue/accumulator_tile.h"
#include "solder/epilogue/moments.cuh"

namespace solder {

template <class G, int Rows, int BN_, int Warps, TensorMath Math,
          DirectAccumulation Accumulation = DirectAccumulation::kPlain>
struct DirectTensorOpConv : DirectTensorOpTraits<G, Rows, BN_, Warps, Math, Accumulation> {
  using Traits = DirectTensorOpTraits<G, Rows, BN_, Warps, Math, Accumulation>;
  using Prepare = DirectPrepare<Traits>;
  using Window = DirectWindow<Traits>;
  using typename Traits::Element;
  using typename Traits::WeightFragment;
  using Traits::BM, Traits::BN, Traits::kWarps, Traits::kThreads, Traits::kLayout;
  using Traits::kCentered, Traits::kStepSums, Traits::kThreeTF32, Traits::kParts, Traits::kWgmma;
  using Traits::kMmaRows, Traits::kMmaRowsPerWarp, Traits::kMmaCols, Traits::kKSteps;
  using Traits::kChannelFastest, Traits::kWeightFragments, Traits::kWindowElements;
  using Traits::kWinChannel, Traits::kBatch, Traits::pixelBase, Traits::pixelOffset;
  using Traits::reductionOffset;
  using Tile = AccumulatorTile<BM, BN>;

  /// One tile a block, and persistent (the plan's scheduler picks).
  static constexpr int kSharedBytes = kLayout.sharedBytes;
  /// On wgmma in 3xTF32, the steps' MMAs overlap the next step's A loads
  /// (two sets of A registers), but where each step's products are summed
  /// apart (they must retire first). H200: W3's conv 401 -> 375 us in ieee;
  /// one product's shorter steps gained nothing for the registers (W3 322
  /// -> 330 us; W1's under its bound of 80 serialized its wgmmas, 123 ->
  /// 128, and unbounded fit 4 blocks an SM against 6, 128).
  static constexpr bool kPipelinedWgmma = kWgmma && kThreeTF32 && !kStepSums;
  static constexpr int kPersistentSharedBytes = kLayout.persistentSharedBytes;
  /// The prepare kernel before the conv: its output and threads.
  static constexpr long kPreparedBytes = Prepare::kPreparedBytes;
  static constexpr long kPrepareThreads = Prepare::kPrepareThreads;
  __device__ static void prepare(const float *__restrict__ input,
                                 const float *__restrict__ weight,
                                 float *__restrict__ prepared) {
    Prepare::prepare(input, weight, prepared);
  }

  using Mma = arch::MmaTF32;
  /// The MMA accumulators of a warp: its row blocks x the tile's column
  /// blocks.
  using Accumulators = typename Mma::FragmentC[kMmaRowsPerWarp][kMmaCols];

  /// Copies channel tile channelTile's prepared weight fragments to shared
  /// memory, kBatch loads in flight per thread, and, without channel-fastest
  /// order, each reduction element's window offset (bytes).
  __device__ static void loadFragments(const float *__restrict__ weight, int channelTile,
                                       WeightFragment *fragments, int *offsets) {
    if constexpr (!kChannelFastest)
      for (int k = threadIdx.x; k < kKSteps * 8; k += kThreads)
        offsets[k] = 4 * Traits::reductionOffset(k);
    const WeightFragment *prepared = Prepare::fragments(weight, channelTile);
    for (int first = threadIdx.x; first < kWeightFragments; first += kBatch * kThreads) {
      WeightFragment loaded[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (first + b * kThreads < kWeightFragments)
          loaded[b] = prepared[first + b * kThreads];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (first + b * kThreads < kWeightFragments)
          fragments[first + b * kThreads] = loaded[b];
    }
#if SOLDER_DIRECT_WGMMA
    if constexpr (kWgmma)
      arch::fenceSharedForWgmma(); // wgmma reads them through the async proxy
#endif
  }

  /// The tile's MMAs: the window in shared memory times the fragments,
  /// into this warp's accumulators.
  __device__ static void multiply(const WeightFragment *fragments, const Element *window,
                                  const int *offsets, Accumulators &acc) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / 4, quad = lane % 4; // fragment row / column
    // Where the warps' row blocks divide the tile's evenly every warp has
    // all of its own: no per-MMA test (nor the warp-wide branch around it):
    // W1's conv 266 -> 246 us in ieee, 150 -> 145 in tf32 (H200). Not with
    // more than 48 accumulator registers: the test also keeps the compiler
    // from hoisting later steps' loads, and without it W3's 64 spilled at
    // one product's bound of 80 registers (325 -> 379 us) and took 140
    // unbounded in 3xTF32 (one block an SM: W3's conv alone 465 -> 608 us,
    // though the fused W3's took 106 and ran 473 -> 433). (mma.sync only:
    // a warpgroup's wgmma runs every row block of its four warps.)
    constexpr bool kEveryRowBlock =
        kMmaRowsPerWarp * kWarps == kMmaRows && kMmaRowsPerWarp * kMmaCols * 4 <= 48;
    // This thread's window elements for rows group and group + 8 of each
    // MMA row block (channel-fastest, of its fragment column's channel), in
    // bytes like the offsets: an element's address is then one add.
    const char *windowBytes = reinterpret_cast<const char *>(window);
    int pixels[kMmaRowsPerWarp][2];
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int half = 0; half < 2; ++half)
        pixels[m][half] =
            4 * (pixelOffset((warp * kMmaRowsPerWarp + m) * 16 + group + 8 * half) +
                 (kChannelFastest ? quad * kWinChannel : 0));

#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j)
        acc[m][j].clear();

    Mma mma;
#if SOLDER_DIRECT_WGMMA
    const uint32_t weights = cute::cast_smem_ptr_to_uint(fragments);
#endif
    // A fragments of every row block, in two sets on wgmma without step
    // sums: a step's are loaded while the previous step's wgmmas run.
    typename Mma::FragmentA aSets[kPipelinedWgmma ? 2 : 1][kMmaRowsPerWarp],
        aSmallSets[kPipelinedWgmma ? 2 : 1][kMmaRowsPerWarp];
#pragma unroll
    for (int step = 0; step < kKSteps; ++step) {
      // Channel-fastest, the step's offsets are constants (channel q of
      // the step's tap is in the lane's pointer); otherwise the block's
      // table has them.
      const int offsetLo = kChannelFastest ? 4 * reductionOffset(8 * step)
                                           : offsets[8 * step + quad];
      const int offsetHi = kChannelFastest ? 4 * reductionOffset(8 * step + 4)
                                           : offsets[8 * step + quad + 4];
      // A fragments of every row block: (row group, k0), (group + 8, k0),
      // (group, k0 + 4), (group + 8, k0 + 4), each part from its plane.
      typename Mma::FragmentA(&aBig)[kMmaRowsPerWarp] = aSets[kPipelinedWgmma ? step % 2 : 0];
      typename Mma::FragmentA(&aSmall)[kMmaRowsPerWarp] =
          aSmallSets[kPipelinedWgmma ? step % 2 : 0];
#pragma unroll
      for (int m = 0; m < kMmaRowsPerWarp; ++m) {
        const Element *a[4] = {
            reinterpret_cast<const Element *>(windowBytes + pixels[m][0] + offsetLo),
            reinterpret_cast<const Element *>(windowBytes + pixels[m][1] + offsetLo),
            reinterpret_cast<const Element *>(windowBytes + pixels[m][0] + offsetHi),
            reinterpret_cast<const Element *>(windowBytes + pixels[m][1] + offsetHi)};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          aBig[m][i] = a[i][0];
          if constexpr (kThreeTF32)
            aSmall[m][i] = a[i][kWindowElements];
        }
      }
#if SOLDER_DIRECT_WGMMA
      if constexpr (kWgmma) {
        multiplyStepOnWgmma(weights, step, aBig, aSmall, acc);
      } else
#endif
      {
        // Each B fragment once, into every row block.
#pragma unroll
        for (int j = 0; j < kMmaCols; ++j) {
          const WeightFragment b = fragments[(step * kMmaCols + j) * 32 + lane];
          typename Mma::FragmentB big, small;
          big[0] = b[0];
          big[1] = b[1];
          if constexpr (kThreeTF32) {
            small[0] = b[2];
            small[1] = b[3];
          }
#pragma unroll
          for (int m = 0; m < kMmaRowsPerWarp; ++m) {
            if (!kEveryRowBlock && warp * kMmaRowsPerWarp + m >= kMmaRows)
              continue;
            // With StepSums the step's products go into a fresh fragment,
            // then one fp32 add into the accumulator: tensor cores truncate
            // what they accumulate, so into the running sum every MMA added
            // a bias of up to an ulp of it, which a cancelling sum downstream
            // exposes (small W1: up to 13x eager's error on an H200); here
            // one truncation of the step's sum, and the adds round to nearest
            // (up to 2.6x, median 0.6x). More registers and instructions:
            // W1's conv 0.367 -> 0.416 ms.
            typename Mma::FragmentC stepSum;
            if constexpr (kStepSums)
              stepSum.clear();
            typename Mma::FragmentC &sum = kStepSums ? stepSum : acc[m][j];
            if constexpr (kThreeTF32) {
              mma(sum, aSmall[m], big, sum);
              mma(sum, aBig[m], small, sum);
            }
            mma(sum, aBig[m], big, sum);
            if constexpr (kStepSums) {
#pragma unroll
              for (int i = 0; i < 4; ++i)
                acc[m][j][i] += stepSum[i];
            }
          }
        }
      }
    }
#if SOLDER_DIRECT_WGMMA
    if constexpr (kPipelinedWgmma) {
      cute::warpgroup_wait<0>();
      fenceAccumulators(acc);
    }
#endif
  }

#if SOLDER_DIRECT_WGMMA
  /// K-step `step` of every row block on wgmma: a 64 x BN x 8 product a row
  /// block of each warp (its A fragments are its rows), B from the weights
  /// in shared memory (`weights`, in DirectPrepare's wgmma order), waited
  /// for before the step's registers are reused.
  __device__ __forceinline__ static void
  multiplyStepOnWgmma(uint32_t weights, int step,
                      const typename Mma::FragmentA (&aBig)[kMmaRowsPerWarp],
                      const typename Mma::FragmentA (&aSmall)[kMmaRowsPerWarp],
                      Accumulators &acc) {
    // The step's two halves a core matrix apart, channel blocks a block.
    auto descriptor = [&](int part) {
      return arch::interleavedDescriptor(weights + 4 * Traits::wgmmaStep(part, step),
                                         4 * Traits::kWgmmaHalf, 4 * Traits::kWgmmaBlock);
    };
    const uint64_t big = descriptor(0);
    [[maybe_unused]] const uint64_t small = kThreeTF32 ? descriptor(1) : 0;
    if constexpr (kStepSums) {
      // The step's products into fresh fragments, added in fp32 once they
      // have retired (multiply says why).
      Accumulators stepSums;
      productsOnWgmma<true, 0>(big, small, aBig, aSmall, stepSums);
#pragma unroll
      for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
        for (int j = 0; j < kMmaCols; ++j)
#pragma unroll
          for (int i = 0; i < 4; ++i)
            acc[m][j][i] += stepSums[m][j][i];
    } else {
      // Pipelined, the step's wgmmas left running (the previous step's
      // retired: the next step's loads reuse its A registers).
      productsOnWgmma<false, kPipelinedWgmma ? 1 : 0>(big, small, aBig, aSmall, acc);
    }
  }

  /// The step's wgmmas into `sums` (Fresh: overwriting them), retired but
  /// for the Pending latest batches (then the caller waits for them before
  /// it reads `sums`).
  template <bool Fresh, int Pending>
  __device__ __forceinline__ static void
  productsOnWgmma(uint64_t big, [[maybe_unused]] uint64_t small,
                  const typename Mma::FragmentA (&aBig)[kMmaRowsPerWarp],
                  [[maybe_unused]] const typename Mma::FragmentA (&aSmall)[kMmaRowsPerWarp],
                  Accumulators &sums) {
    using Registers = const uint32_t(&)[4];
    fenceAccumulators(sums);
    cute::warpgroup_arrive();
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m) {
      if constexpr (kThreeTF32) {
        arch::wgmmaRegisterATF32<BN>(reinterpret_cast<Registers>(aSmall[m]), big, sums[m],
                                     Fresh ? arch::ScaleOut::Zero : arch::ScaleOut::One);
        arch::wgmmaRegisterATF32<BN>(reinterpret_cast<Registers>(aBig[m]), small, sums[m]);
      } else if constexpr (Fresh) {
        arch::wgmmaRegisterATF32<BN>(reinterpret_cast<Registers>(aBig[m]), big, sums[m],
                                     arch::ScaleOut::Zero);
        continue;
      }
      arch::wgmmaRegisterATF32<BN>(reinterpret_cast<Registers>(aBig[m]), big, sums[m]);
    }
    cute::warpgroup_commit_batch();
    cute::warpgroup_wait<Pending>();
    if constexpr (Pending == 0)
      fenceAccumulators(sums);
  }

  __device__ __forceinline__ static void fenceAccumulators(Accumulators &sums) {
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j)
        arch::fenceOperands(sums[m][j]);
  }
#endif

  /// Accumulator (row group (+8), columns 2 quad, 2 quad + 1) to the
  /// channel-major tile; a stride of 4 mod 32 keeps the stores apart.
  /// Centered, each gets its channel's correction: low first, so that the
  /// sum rounds once at the output's magnitude.
  __device__ static void writeTile(const Accumulators &acc,
                                   [[maybe_unused]] const float2 *correction, float *tile) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / 4, quad = lane % 4;
    auto corrected = [&](float value, int channel) {
      if constexpr (kCentered)
        return (value + correction[channel].y) + correction[channel].x;
      return value;
    };
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m) {
      const int row = (warp * kMmaRowsPerWarp + m) * 16 + group;
      if (row >= BM)
        continue;
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j) {
        const int channel = 8 * j + 2 * quad;
        float *column = tile + channel * Tile::kStride + row;
        column[0] = corrected(acc[m][j][0], channel);
        column[Tile::kStride] = corrected(acc[m][j][1], channel + 1);
        column[8] = corrected(acc[m][j][2], channel);
        column[Tile::kStride + 8] = corrected(acc[m][j][3], channel + 1);
      }
    }
  }

  /// The staged tile's MMAs, then its accumulator tile at `tile` (which
  /// overlaps the window: both schedules reuse its shared memory).
  __device__ static float *multiplyIntoTile(const WeightFragment *fragments,
                                            const Element *window, const int *offsets,
                                            const float2 *correction, float *tile) {
    Accumulators acc;
    multiply(fragments, window, offsets, acc);
    __syncthreads(); // the tile reuses the window's shared memory
    writeTile(acc, correction, tile);
    __syncthreads();
    return tile;
  }

  /// Keeps its accumulators in registers: an epilogue whose reductions are
  /// of the conv output alone (kConvMoments) takes each tile's channel
  /// moments from them (storeMmaTileMoments).
  static constexpr bool kTileMoments = true;
  static_assert(kWarps * BN * sizeof(ShiftedMoments) <= Tile::kBytes,
                "the moments' slots fit where the tile goes");

  // One tile a block. Shared memory: [fragments][window][offsets] ...
  // [correction]; the tile (or the moments' slots) over the first two once
  // the MMAs are done.
  __device__ static WeightFragment *tileFragments(char *shared) {
    return reinterpret_cast<WeightFragment *>(shared);
  }
  __device__ static Element *tileWindow(char *shared) {
    return reinterpret_cast<Element *>(shared + kLayout.weightFloats * 4);
  }
  __device__ static int *tileOffsets(char *shared) {
    return reinterpret_cast<int *>(tileWindow(shared) + kParts * kWindowElements);
  }
  __device__ static float2 *tileCorrection(char *shared) {
    return reinterpret_cast<float2 *>(shared + kLayout.correctionOffset);
  }

  /// Stages the tile at (n, pixelBase, channelTile) for this block alone:
  /// `weight` is what prepare wrote.
  __device__ static void stageTile(const float *__restrict__ input,
                                   const float *__restrict__ weight, int n, int pixelBase,
                                   int channelTile, char *shared) {
    const float *sampleShifts = Prepare::shifts(weight) + n * G::kInChannels;
    loadFragments(weight, channelTile, tileFragments(shared), tileOffsets(shared));
    Window::stage(input, sampleShifts, n, pixelBase, tileWindow(shared));
    if constexpr (kCentered)
      Window::computeCorrection(Prepare::tapSums(weight) + channelTile * BN * G::kInChannels,
                                sampleShifts, tileCorrection(shared));
    __syncthreads();
  }

  /// One tile, staged and computed into its accumulator tile.
  __device__ static float *computeTile(const float *__restrict__ input,
                                       const float *__restrict__ weight, const WorkTile &work,
                                       char *shared) {
    stageTile(input, weight, work.n, pixelBase(work.pixelTile), work.channelTile, shared);
    return multiplyIntoTile(tileFragments(shared), tileWindow(shared), tileOffsets(shared),
                            tileCorrection(shared), reinterpret_cast<float *>(shared));
  }

  /// One tile, staged and computed into its channel moments (Epilogue
  /// takes them: kConvMoments).
  template <class Epilogue>
  __device__ static void computeTileMoments(const float *__restrict__ input,
                                            const float *__restrict__ weight,
                                            const Epilogue &epilogue, const WorkTile &work,
                                            char *shared) {
    stageTile(input, weight, work.n, pixelBase(work.pixelTile), work.channelTile, shared);
    Accumulators acc;
    multiply(tileFragments(shared), tileWindow(shared), tileOffsets(shared), acc);
    storeMmaTileMoments<Traits>(epilogue, acc, tileCorrection(shared),
                                reinterpret_cast<ShiftedMoments *>(shared), work.n,
                                work.pixelTile, work.channelTile * BN);
  }

  // Persistent: a block runs tile after tile, its weight fragments (and tap
  // sums) copied once a channel tile, and its next tile's input window
  // copied raw by cp.async while it computes and visits the current one;
  // then split (and shifted) from shared memory into the window. Shared
  // memory: [fragments][offsets][window | tile][raw][tap sums][shifts]
  // [correction], each 16-byte aligned.
  __device__ static WeightFragment *stagedFragments(char *shared) {
    return reinterpret_cast<WeightFragment *>(shared);
  }
  __device__ static int *stagedOffsets(char *shared) {
    return reinterpret_cast<int *>(shared + kLayout.persistentOffsetsOffset);
  }
  /// The window, and over it once the MMAs are done the tile (or the
  /// moments' slots).
  __device__ static Element *stagedWindow(char *shared) {
    return reinterpret_cast<Element *>(shared + kLayout.persistentWindowOffset);
  }
  __device__ static float *stagedRaw(char *shared) {
    return reinterpret_cast<float *>(shared + kLayout.rawOffset);
  }
  __device__ static double *stagedTapSums(char *shared) {
    return reinterpret_cast<double *>(shared + kLayout.tapSumsOffset);
  }
  __device__ static float *stagedShifts(char *shared) {
    return reinterpret_cast<float *>(shared + kLayout.shiftsOffset);
  }
  __device__ static float2 *stagedCorrection(char *shared) {
    return reinterpret_cast<float2 *>(shared + kLayout.persistentCorrectionOffset);
  }

  /// Issues the copies of `work`'s raw window (and, centered, its sample's
  /// shifts) as one cp.async group.
  __device__ static void issueWindow(const float *__restrict__ input,
                                     const float *__restrict__ weight, const WorkTile &work,
                                     char *shared) {
    Window::issue(input, Prepare::shifts(weight), work.n, pixelBase(work.pixelTile),
                  stagedRaw(shared), stagedShifts(shared));
  }
  /// Waits for this thread's copies issued by issueWindow.
  __device__ static void waitWindow() { arch::copyAsyncWaitAll(); }
  /// After the raw window has landed (waitWindow and a barrier): splits it
  /// into the window's planes and, centered, computes the correction.
  __device__ static void convertWindow(char *shared) {
    Window::convert(stagedRaw(shared), stagedShifts(shared), stagedWindow(shared));
    if constexpr (kCentered)
      Window::computeCorrection(stagedTapSums(shared), stagedShifts(shared),
                                stagedCorrection(shared));
  }

  /// Once a channel tile (its first channel, channelBase): its fragments,
  /// offsets and (centered) tap sums.
  __device__ static void loadChannelTile(const float *__restrict__ weight, int channelBase,
                                         char *shared) {
    loadFragments(weight, channelBase / BN, stagedFragments(shared), stagedOffsets(shared));
    if constexpr (kCentered) {
      double *sums = stagedTapSums(shared);
      const double *prepared = Prepare::tapSums(weight) + channelBase * G::kInChannels;
      for (int i = threadIdx.x; i < BN * G::kInChannels; i += kThreads)
        sums[i] = prepared[i];
    }
  }

  /// The current tile's MMAs and its channel moments (Epilogue takes them:
  /// kConvMoments), their slots over the window.
  template <class Epilogue>
  __device__ static void computeStagedMoments(const Epilogue &epilogue, const WorkTile &work,
                                              char *shared) {
    Accumulators acc;
    multiply(stagedFragments(shared), stagedWindow(shared), stagedOffsets(shared), acc);
    storeMmaTileMoments<Traits>(epilogue, acc, stagedCorrection(shared),
                                reinterpret_cast<ShiftedMoments *>(stagedWindow(shared)),
                                work.n, work.pixelTile, work.channelTile * BN);
  }

  /// The current tile's MMAs and its accumulator tile (over the window).
  __device__ static float *computeStagedTile(char *shared) {
    return multiplyIntoTile(stagedFragments(shared), stagedWindow(shared), stagedOffsets(shared),
                            stagedCorrection(shared),
                            reinterpret_cast<float *>(stagedWindow(shared)));
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_DIRECT_TENSOROP_CUH
