//===- conv/mainloop_implicit_gemm_wgmma.cuh - Hopper implicit GEMM -------===//
//
// The sm_90a main loop: warpgroup MMAs (wgmma, TF32) fed by the bulk tensor
// copy engine (TMA), warp-specialized as CUTLASS 3.x's collectives are.
//   * One producer warpgroup, of which one thread issues each stage's
//     copies: the input's im2col box (BM output pixels x 32 channels of
//     one kernel tap, zeros where the window leaves the input) and the
//     weights' tile (BN output channels x the same 32 reduction elements).
//     They land in the 128-byte swizzle that wgmma reads, completing on the
//     stage's transaction barrier.
//   * Two consumer warpgroups, each BM / 2 pixels (one or two row blocks
//     of 64) x BN channels: per stage four 64 x BN x 8 wgmmas a row block,
//     (TF32) one batch in flight while the next stage's copies are waited
//     for; a stage goes back to the producer once the batch that read it
//     has retired.
//   * 3xTF32 (ieee): the conversions stored each operand as a big and a
//     small TF32 part (StoreTF32Parts, conv/layout.cuh), in buffers of
//     their own; a stage holds both of each, and each K step is three
//     products, the small ones first as in CUTLASS's sm80 3xTF32: small x
//     big, big x small, big x big (the big part rounded to nearest where
//     CUTLASS's sm80 split truncates it), into a partial sum of the stage
//     that is added to the accumulators in fp32 once its batch has retired
//     (consume says why); the stage goes back then.
// A conv_transpose of stride > 1 runs its output phases (conv/phases.h) as
// sm80's loop does, phase after phase (PhasePixelTiles), each the conv of
// stride 1 over the whole input that it is, through an im2col map of its
// own (WgmmaPhaseTensorMaps), where every phase has as many taps: their
// weight blocks are then rows of one tiled map.
// A K step is one tap's 32 channels; steps run tap after tap (under split-K
// a block runs its split's share of them: kernel/tile_scheduler.cuh sums
// the shares). A tile's BM pixels lie in one sample, or with AcrossSamples
// run on from one sample's pixels into the next one's (the im2col copy
// walks into the next sample as it does into the next row). Channels past
// the input's (32 does not divide them) are zeros in the im2col box, so
// the weights the tile reads there (the next tap's) add nothing (unless one
// of them is infinite or NaN, which the next tap's step reads anyway).
//
// The copies read tensor maps (WgmmaTensorMaps) that the runtime encodes
// when it loads the bundle, over the input's NDHWC and the weights' KTRSC
// workspace buffers, and for 3xTF32 their small parts' (conv/wgmma_layout.h
// gives their boxes and corners).
// The accumulators then go to the accumulator tile in shared memory, as
// every tiled main loop leaves them for Solder's epilogue
// (epilogue/tile_visit.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_WGMMA_CUH
#define SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_WGMMA_CUH

#include "solder/arch/sm90.cuh"
#include "solder/conv/geometry.cuh"
#include "solder/conv/implicit_gemm_layout.h"
#include "solder/conv/wgmma_layout.h"
#include "solder/epilogue/accumulator_tile.h"

#include <cstddef>
#include <type_traits>

namespace solder {

/// The tensor maps of a Hopper conv (CUtensorMap each): the input's im2col
/// map and the weights' tiled map, then for 3xTF32 those of their small
/// TF32 parts (TF32 leaves them unwritten).
struct WgmmaTensorMaps {
  cute::TmaDescriptor input, weight, inputSmall, weightSmall;
};
static_assert(sizeof(cute::TmaDescriptor) == kTensorMapBytes &&
                  offsetof(WgmmaTensorMaps, weight) == wgmmaMapOffset(kWgmmaWeightMap) &&
                  offsetof(WgmmaTensorMaps, inputSmall) == wgmmaMapOffset(kWgmmaInputSmallMap) &&
                  offsetof(WgmmaTensorMaps, weightSmall) == wgmmaMapOffset(kWgmmaWeightSmallMap),
              "the runtime writes each map at wgmmaMapOffset");

/// A phased conv_transpose's maps: WgmmaTensorMaps' four (phase 0's input
/// maps and the weights'), then the other phases' input maps, big parts
/// first (wgmmaPhaseInputMapOffset).
template <int Phases> struct WgmmaPhaseTensorMaps {
  static_assert(Phases > 1, "a conv_transpose of stride > 1");
  cute::TmaDescriptor input, weight, inputSmall, weightSmall;
  cute::TmaDescriptor phaseInputs[2 * (Phases - 1)];
};

/// The input map of `phase` (`part` 1: its small TF32 part).
__device__ __forceinline__ const cute::TmaDescriptor *inputMapOf(const WgmmaTensorMaps &maps,
                                                                 int, int part) {
  return part ? &maps.inputSmall : &maps.input;
}
template <int Phases>
__device__ __forceinline__ const cute::TmaDescriptor *
inputMapOf(const WgmmaPhaseTensorMaps<Phases> &maps, int phase, int part) {
  static_assert(sizeof(WgmmaPhaseTensorMaps<Phases>) ==
                    kTensorMapBytes * (4 + 2 * (Phases - 1)),
                "the runtime writes each map at wgmmaPhaseInputMapOffset");
  if (phase == 0)
    return part ? &maps.inputSmall : &maps.input;
  return &maps.phaseInputs[part * (Phases - 1) + phase - 1];
}

/// The plan's tile: BM pixels (128 or 256: half a consumer warpgroup) x BN
/// channels, Stages-deep, in TF32 (one product a K step) or 3xTF32; its K
/// steps in Splits shares, one a block (split-K); its pixels one sample's,
/// or AcrossSamples the next ones' too (AcrossSamplePixelTiles).
template <int BM_, int BN_, int Stages_, TensorMath Math_ = TensorMath::kTF32, int Splits_ = 1,
          bool AcrossSamples_ = false>
struct WgmmaTile {
  static constexpr int BM = BM_, BN = BN_, kStages = Stages_, kSplits = Splits_;
  static constexpr TensorMath kMath = Math_;
  static constexpr bool kAcrossSamples = AcrossSamples_;
};

template <class G, class T>
using WgmmaPixelTiles = std::conditional_t<
    Phases<G>::kSplit, PhasePixelTiles<G, T::BM>,
    std::conditional_t<T::kAcrossSamples, AcrossSamplePixelTiles<G, T::BM>,
                       LinearPixelTiles<G, T::BM>>>;

template <class G, class T> struct WgmmaConv : WgmmaPixelTiles<G, T> {
  using Geometry = G;
  using PixelTiles = WgmmaPixelTiles<G, T>;
  static constexpr int BM = T::BM, BN = T::BN, kStages = T::kStages, kSplits = T::kSplits;
  /// Each operand's TF32 parts in shared memory: 3xTF32's big and small.
  static constexpr int kParts = T::kMath == TensorMath::k3xTF32 ? 2 : 1;
  static_assert(kParts == 1 || (BM == 128 && BN <= 128),
                "3xTF32 holds a stage's products apart: one row block of at most 128 "
                "channels a consumer warpgroup");
  static_assert((BM == 128 || BM == 256) && (BN == 64 || BN == 128 || BN == 256),
                "one or two row blocks of 64 a consumer warpgroup; a wgmma of N = BN");
  /// A conv_transpose of stride > 1: its output phases, each the conv of
  /// stride 1 of phaseForm.
  static constexpr bool kPhased = Phases<G>::kSplit;
  static constexpr int kPhaseCount = Phases<G>::kCount;
  __host__ __device__ static constexpr WgmmaConvForm phaseForm(int phase) {
    // Local copies: the geometry's arrays are not in device memory.
    const int in[3] = {G::kIn[0], G::kIn[1], G::kIn[2]},
              out[3] = {G::kOut[0], G::kOut[1], G::kOut[2]},
              kernel[3] = {G::kKernel[0], G::kKernel[1], G::kKernel[2]},
              stride[3] = {G::kStride[0], G::kStride[1], G::kStride[2]},
              pad[3] = {G::kPad[0], G::kPad[1], G::kPad[2]},
              dilation[3] = {G::kDilation[0], G::kDilation[1], G::kDilation[2]};
    return wgmmaPhaseForm(G::kGroups, G::kBatch, paddedInputChannels(G::kInChannels),
                          G::kOutChannels, in, out, kernel, stride, pad, dilation, phase);
  }
  static constexpr bool phasesFit() {
    WgmmaConvForm phases[kPhaseCount];
    for (int phase = 0; phase < kPhaseCount; ++phase)
      phases[phase] = phaseForm(phase);
    return wgmmaPhasesFit(phases, kPhaseCount);
  }
  /// The conv's form (a phased conv_transpose's: its first phase's, whose
  /// taps every phase has).
  static constexpr WgmmaConvForm kForm =
      kPhased ? phaseForm(0)
              : wgmmaConvForm(G::kTransposed, G::kGroups, G::kBatch,
                              paddedInputChannels(G::kInChannels), G::kOutChannels, G::kIn,
                              G::kOut, G::kKernel, G::kStride, G::kPad, G::kDilation);
  static_assert(kPhased ? phasesFit() : kForm.fits,
                "a conv the Hopper main loop runs (conv/wgmma_layout.h)");
  static_assert(!kPhased || (kSplits == 1 && !T::kAcrossSamples),
                "a phased conv_transpose's tiles are one phase's of one sample, unsplit");
#if defined(__CUDA_ARCH__)
  static_assert(arch::kHasWgmma, "the Hopper main loop needs the sm_90a target "
                                 "(solder-compile --arch=sm_90a)");
#endif

  static constexpr int kGroupRows = BM / kWgmmaConsumerGroups;
  static constexpr int kRowBlocks = kGroupRows / kWgmmaRows;
  static constexpr int kThreads = kWgmmaThreads;
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kChannelTiles = (G::kOutChannels + BN - 1) / BN;
  static constexpr int kSharedBytes = wgmmaSharedBytes(BM, BN, kStages, kParts);
  using Tile = AccumulatorTile<BM, BN>;

  /// A stage: the input's box (its big part, then its small one), then
  /// the weights' likewise; each starts on a 1024-byte swizzle atom.
  static constexpr int kStageBytes = wgmmaStageBytes(BM, BN, kParts);
  static constexpr int kABytes = BM * kWgmmaStepChannels * 4;
  static constexpr int kBBytes = BN * kWgmmaStepChannels * 4;
  static constexpr int kWeightOffset = kParts * kABytes;
  static constexpr int kSteps = kForm.taps() * kForm.channelSteps();
  static_assert(kSplits >= 1 && kSplits <= kSteps, "a K step or more a split");
  /// A thread's accumulators of one row block.
  static constexpr int kAccumulators = BN / 2;

  /// Computes `work`'s tile (sample work.n's BM pixels from
  /// pixelBase(work.pixelTile) on, BN channels from work.channelTile * BN;
  /// the K steps of share work.split) and leaves it in shared memory as
  /// the accumulator tile, through the bundle's tensor maps `maps` (the
  /// operand pointers go unused).
  template <class Maps>
  __device__ __forceinline__ static float *computeTile(const float *__restrict__,
                                                       const float *__restrict__,
                                                       const WorkTile &work, char *shared,
                                                       const Maps &maps) {
    // The 128-byte swizzle repeats every 1024 bytes: the stages start on
    // one. Offset from `shared`, not rounded as an integer: a pointer cast
    // from an integer loses its address space, and the tile's reads in the
    // epilogue became generic loads that no global access could pass (each
    // residual load waited for the last store: ResNet-50's 1x1 64 -> 256
    // conv with its residual ran at 1.3 TB/s).
    const uint32_t misalignment = cute::cast_smem_ptr_to_uint(shared) % 1024;
    char *stages = shared + (misalignment ? 1024 - misalignment : 0);
    uint64_t *full = reinterpret_cast<uint64_t *>(
        stages + (kSharedBytes - 1024 - 2 * kStages * 8));
    uint64_t *empty = full + kStages;
    const int warpGroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
      for (int s = 0; s < kStages; ++s) {
        arch::ClusterTransactionBarrier::init(&full[s], 1);
        arch::ClusterBarrier::init(&empty[s], 4 * kWgmmaConsumerGroups); // a consumer warp each
      }
      cutlass::arch::fence_barrier_init();
    }
    __syncthreads();

    // The split's K steps: as even a share as the steps allow.
    const int firstStep = work.split * kSteps / kSplits;
    const int steps = (work.split + 1) * kSteps / kSplits - firstStep;
    float accumulators[kRowBlocks][kAccumulators];
    if (warpGroup == 0) {
      if (threadIdx.x == 0) {
        if constexpr (kPhased) {
          const int phase = PixelTiles::phase(work.pixelTile);
          produce(phaseForm(phase), phase, PixelTiles::positionBase(work.pixelTile), work,
                  firstStep, steps, stages, full, empty, maps);
        } else {
          // A local copy: a static member's arrays would be odr-used.
          constexpr WgmmaConvForm form = kForm;
          produce(form, 0, PixelTiles::pixelBase(work.pixelTile), work, firstStep, steps,
                  stages, full, empty, maps);
        }
      }
    } else {
#pragma unroll
      for (int m = 0; m < kRowBlocks; ++m)
#pragma unroll
        for (int i = 0; i < kAccumulators; ++i)
          accumulators[m][i] = 0.f;
      consume(warpGroup - 1, steps, stages, full, empty, accumulators);
    }
    __syncthreads(); // every stage consumed: the tile reuses them

    float *tile = reinterpret_cast<float *>(stages);
    if (warpGroup > 0) {
      // wgmma's accumulator layout: warp w of the group holds rows 16 w +
      // lane / 4 (+ 8) of each row block, each 8 columns 2 (lane % 4) (+ 1).
      const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
      const int row = (warpGroup - 1) * kGroupRows + 16 * warp + lane / 4;
      const int column = 2 * (lane % 4);
#pragma unroll
      for (int m = 0; m < kRowBlocks; ++m)
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
          for (int i = 0; i < 4; ++i)
            tile[(8 * j + column + i % 2) * Tile::kStride + m * kWgmmaRows + row +
                 8 * (i / 2)] = accumulators[m][4 * j + i];
    }
    __syncthreads();
    return tile;
  }

private:
  /// Issues the copies of K steps firstStep on (two a step, or four for
  /// 3xTF32), each into a stage its consumers have given back: the conv
  /// `form` (a phased conv_transpose's phase `phase`) from output position
  /// `row` on.
  template <class Maps>
  __device__ __forceinline__ static void produce(const WgmmaConvForm &form, int phase, int row,
                                                 const WorkTile &work, int firstStep, int steps,
                                                 char *stages, uint64_t *full, uint64_t *empty,
                                                 const Maps &maps) {
    // The host wrote the maps (at load): acquire them for the copy engine's
    // proxy before its first use.
    const cute::TmaDescriptor *inputMaps[] = {inputMapOf(maps, phase, 0),
                                              inputMapOf(maps, phase, 1)};
    const cute::TmaDescriptor *weightMaps[] = {&maps.weight, &maps.weightSmall};
#pragma unroll
    for (int part = 0; part < kParts; ++part) {
      arch::acquireTensorMap(inputMaps[part]);
      cute::prefetch_tma_descriptor(inputMaps[part]);
      arch::acquireTensorMap(weightMaps[part]);
      cute::prefetch_tma_descriptor(weightMaps[part]);
    }
    // The tile's first output position, and where its window starts.
    const int volume = form.out[0] * form.out[1] * form.out[2];
    // Across samples, the tile's first pixel tells its sample too.
    const int n = T::kAcrossSamples ? row / volume : work.n;
    const int pixel = T::kAcrossSamples ? row % volume : row;
    const int z = pixel / (form.out[2] * form.out[1]), y = pixel / form.out[2] % form.out[1],
              x = pixel % form.out[2];
    const int w = x * form.stride[2] - form.padBefore[2];
    const int h = y * form.stride[1] - form.padBefore[1];
    const int d = z * form.stride[0] - form.padBefore[0];
    // A phase's weight block: its output channels' rows from phase x K on.
    const int channelBase = work.channelTile * BN + phase * G::kOutChannels;
    const int channelSteps = form.channelSteps();
    int tap = firstStep / channelSteps, channelStep = firstStep % channelSteps;
    for (int step = 0; step < steps; ++step) {
      const int stage = step % kStages;
      if (step >= kStages)
        arch::ClusterBarrier::wait(&empty[stage], (step / kStages - 1) & 1);
      arch::ClusterTransactionBarrier::arrive_and_expect_tx(&full[stage], kStageBytes);
      char *a = stages + stage * kStageBytes;
      const int t = tap / (form.kernel[1] * form.kernel[2]),
                r = tap / form.kernel[2] % form.kernel[1], s = tap % form.kernel[2];
      const int channel = channelStep * kWgmmaStepChannels;
      const uint16_t offsets[3] = {uint16_t(s * form.dilation[2]), uint16_t(r * form.dilation[1]),
                                   uint16_t(t * form.dilation[0])};
#pragma unroll
      for (int part = 0; part < kParts; ++part) {
        arch::copyIm2col(inputMaps[part], &full[stage], a + part * kABytes,
                         channel, w, h, d, n, offsets[0], offsets[1], offsets[2],
                         form.dims == 3);
        arch::copyTile2d(weightMaps[part], &full[stage],
                         a + kWeightOffset + part * kBBytes, tap * form.channels + channel,
                         channelBase);
      }
      if (++channelStep == channelSteps) {
        channelStep = 0;
        ++tap;
      }
    }
  }

  /// Warpgroup `group`'s BM / 2 rows: each stage's four K steps of 8 a row
  /// block; TF32 keeps the last stage's batch in flight while this one's
  /// copies are waited for. 3xTF32 (three products a K step) runs each
  /// stage's batch into `partial`, which its first wgmma overwrites, and
  /// adds it to the accumulators in fp32 once it has retired: wgmma's own
  /// accumulation loses low bits of each sum (it does not round to
  /// nearest), which over the 3x3 256 -> 256 conv's 2304-long reduction
  /// came to a relative L2 error of 1.6e-5; summed a stage at a time it is
  /// 2.9e-7 (CUTLASS's FP8 GEMMs promote their accumulators for the same
  /// reason). The other consumer warpgroup's batch keeps the tensor cores
  /// busy meanwhile: 132 TFLOP/s against 129 without (H200).
  __device__ __forceinline__ static void
  consume(int group, int steps, char *stages, uint64_t *full, uint64_t *empty,
          float (&accumulators)[kRowBlocks][kAccumulators]) {
    const uint32_t base = cute::cast_smem_ptr_to_uint(stages);
    const bool releases = threadIdx.x % 32 == 0;
    // Where each stage's wgmmas accumulate (TF32 leaves `partial` unused).
    float partial[kRowBlocks][kAccumulators];
    float(*products)[kAccumulators] = kParts == 2 ? partial : accumulators;
    for (int step = 0; step < steps; ++step) {
      const int stage = step % kStages;
      arch::ClusterTransactionBarrier::wait(&full[stage], (step / kStages) & 1);
      // A row block's 64 rows of 128 bytes: 8 KB on.
      const uint32_t a = base + stage * kStageBytes + group * kGroupRows * 128;
      const uint32_t b = base + stage * kStageBytes + kWeightOffset;
      fence(products);
      cute::warpgroup_arrive();
#pragma unroll
      for (int k = 0; k < kWgmmaStepChannels / 8; ++k)
#pragma unroll
        for (int m = 0; m < kRowBlocks; ++m) {
          const uint32_t rows = a + m * kWgmmaRows * 128 + 32 * k;
          const uint64_t bigA = arch::swizzled128Descriptor(rows);
          const uint64_t bigB = arch::swizzled128Descriptor(b + 32 * k);
          if constexpr (kParts == 2) {
            // small x big, big x small, big x big.
            arch::wgmmaTF32<BN>(arch::swizzled128Descriptor(rows + kABytes), bigB, products[m],
                                k == 0 ? arch::ScaleOut::Zero : arch::ScaleOut::One);
            arch::wgmmaTF32<BN>(bigA, arch::swizzled128Descriptor(b + kBBytes + 32 * k),
                                products[m]);
          }
          arch::wgmmaTF32<BN>(bigA, bigB, products[m]);
        }
      cute::warpgroup_commit_batch();
      if constexpr (kParts == 2) {
        cute::warpgroup_wait<0>();
        fence(products);
#pragma unroll
        for (int m = 0; m < kRowBlocks; ++m)
#pragma unroll
          for (int i = 0; i < kAccumulators; ++i)
            accumulators[m][i] += partial[m][i];
        if (releases)
          arch::ClusterBarrier::arrive(&empty[stage]);
      } else {
        // The batch before this one has retired: its stage is free.
        cute::warpgroup_wait<1>();
        fence(products);
        if (step > 0 && releases)
          arch::ClusterBarrier::arrive(&empty[(step - 1) % kStages]);
      }
    }
    cute::warpgroup_wait<0>();
    fence(products);
  }

  __device__ __forceinline__ static void fence(float (*rowBlocks)[kAccumulators]) {
#pragma unroll
    for (int m = 0; m < kRowBlocks; ++m)
      arch::fenceOperands(rowBlocks[m]);
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_IMPLICIT_GEMM_WGMMA_CUH
