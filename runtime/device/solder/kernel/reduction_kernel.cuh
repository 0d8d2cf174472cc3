//===- kernel/reduction_kernel.cuh - The body of a reduction kernel -------===//
//
// A region without a conv whose pointwise chain feeds one reduction, on one
// of the plan's two walks (#solder.region_launch):
//   * reduceThreadPerOutput: a thread per output walks its reduction in
//     chunks of kChunk elements, every load and pointwise op of a chunk
//     before the accumulator takes it whole (solder::addChunk): the loads are
//     independent of the accumulator, so all are in flight at once (one at a
//     time left W3's logsumexp latency-bound at a third of the bandwidth);
//   * reduceWarpPerOutput: a warp per output of contiguous elements, its
//     lanes strided over them, kChunk loads each in flight, combined by
//     shuffles in a fixed order;
//   * reduceBlockPerOutput: a block per output, its threads strided over the
//     reduction, kChunk loads each in flight (elements kThreads apart, so a
//     warp's loads stay coalesced) before the accumulator takes them,
//     combined by a fixed-order tree in shared memory; or, for a few outputs
//     of long reductions, Splits blocks an output, each an equal share of
//     its elements, merged by the last of them to finish (a lane a share,
//     then a fixed-order tree of the lanes).
// All are fixed-order: results are bitwise reproducible. The generated
// Region functor says what is reduced:
//   using OutputIndex, LengthIndex;     int | long, 32 bits where they fit
//   static constexpr OutputIndex kOutputs;
//   static constexpr LengthIndex kLength;
//   static constexpr int kChunk, kThreads;
//   using Accumulator;                  reduce.cuh, welford.cuh
//   using Element;                      float, or double kept for the sum
//   struct SharedStorage;               empty, or (thread per output) tables
//   void prologue(SharedStorage &, firstOutput) const;  filling them, once a block
//   struct Output;  Output output(o, firstOutput) const;   the output's indices
// (firstOutput: the block's first output, blockIdx.x * kThreads.)
//   Element element(const Output &, LengthIndex r, const SharedStorage &) const;
//   void store(OutputIndex o, const Accumulator &) const;
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_REDUCTION_KERNEL_CUH
#define SOLDER_KERNEL_REDUCTION_KERNEL_CUH

#include "solder/reduce.cuh"

#include <cstring>
#include <type_traits>

namespace solder {

/// Fills table[0, Count) with entry(t), the block's Threads threads strided
/// over it (a Region's prologue).
template <int Count, int Threads, class T, class Entry>
__device__ __forceinline__ void fillTable(T *table, const Entry &entry) {
  for (int t = threadIdx.x; t < Count; t += Threads)
    table[t] = entry(t);
}

namespace detail {
/// The block's first output: unsigned where the outputs fit 32 bits (its
/// divisions by constants then need no sign fix-up).
template <class Region> __device__ __forceinline__ auto firstOutput() {
  return blockIdx.x * typename Region::OutputIndex(Region::kThreads);
}

template <class Region, class Storage>
__device__ __forceinline__ void reduceThreadPerOutput(const Region &region,
                                                      const Storage &shared) {
  using OutputIndex = typename Region::OutputIndex;
  using LengthIndex = typename Region::LengthIndex;
  constexpr LengthIndex kLength = Region::kLength;
  constexpr int kChunk = Region::kChunk;
  const auto first = firstOutput<Region>();
  const OutputIndex o = first + threadIdx.x;
  if (o >= Region::kOutputs)
    return;
  const typename Region::Output output = region.output(o, first);
  typename Region::Accumulator acc;
  for (LengthIndex r0 = 0; r0 < kLength; r0 += kChunk) {
    typename Region::Element chunk[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const LengthIndex r = r0 + k;
      if (kLength % kChunk != 0 && r >= kLength)
        break;
      chunk[k] = region.element(output, r, shared);
    }
    // The last chunk of a ragged reduction adds its valid elements one by
    // one; whole chunks go to the accumulator at once.
    if constexpr (kLength % kChunk != 0) {
      if (r0 + kChunk > kLength) {
        for (int k = 0; r0 + k < kLength; ++k)
          acc.add(chunk[k]);
        break;
      }
    }
    addChunk(acc, chunk);
  }
  region.store(o, acc);
}
/// One output's elements from `first` on, every Width-th (a lane of a warp,
/// Width 32, or a thread of a block, its width): solder::accumulateStrided
/// over the Region's element().
template <class Region, int Width, class Storage>
__device__ __forceinline__ typename Region::Accumulator
accumulateStrided(const Region &region, const typename Region::Output &output, int first,
                  const Storage &shared) {
  using LengthIndex = typename Region::LengthIndex;
  return solder::accumulateStrided<LengthIndex, Region::kLength, Region::kChunk, Width>(
      typename Region::Accumulator{}, first,
      [&](const LengthIndex r) { return region.element(output, r, shared); });
}
} // namespace detail

template <class Region>
__device__ __forceinline__ void reduceThreadPerOutput(const Region &region) {
  using Storage = typename Region::SharedStorage;
  if constexpr (std::is_empty_v<Storage>) {
    detail::reduceThreadPerOutput(region, Storage{});
  } else {
    __shared__ Storage shared;
    region.prologue(shared, detail::firstOutput<Region>());
    __syncthreads();
    detail::reduceThreadPerOutput(region, shared);
  }
}

/// A warp per output of contiguous elements, Region::kThreads / 32 outputs a
/// block: each lane takes every 32nd element, kChunk loads in flight, and
/// the lanes combine by shuffles in a fixed order.
template <class Region>
__device__ __forceinline__ void reduceWarpPerOutput(const Region &region) {
  static_assert(std::is_empty_v<typename Region::SharedStorage>,
                "a warp per output takes no prologue");
  constexpr int kWarps = Region::kThreads / 32;
  const typename Region::SharedStorage shared{};
  const int lane = threadIdx.x % 32;
  const auto o = typename Region::OutputIndex(blockIdx.x * kWarps + threadIdx.x / 32);
  if (o >= Region::kOutputs)
    return; // whole warps: the shuffles below see every lane of a warp that stays
  const typename Region::Output output = region.output(o, o);
  typename Region::Accumulator acc =
      detail::accumulateStrided<Region, 32>(region, output, lane, shared);
  acc = combineLanes<32>(acc);
  if (lane == 0)
    region.store(o, acc);
}

/// Where the blocks of a split reduction leave their partial accumulators
/// (a share each, kVectors float4s, for every share of every output) and
/// count their arrivals (a counter an output, zero at the module's load;
/// the last arrival wraps it back to zero). Launches of one kernel must not
/// overlap: the runtime orders a bundle's calls.
struct SplitReductionWorkspace {
  static constexpr int kVectors = 2;
  float4 *__restrict__ shares;
  unsigned *__restrict__ arrivals;
};

/// A block per output (Splits 1), or Splits blocks an output for a few
/// outputs of long reductions (a VAE block's 32 GroupNorm statistics of
/// 262144 elements each, a block an output, left 100 of an H200's 132 SMs
/// idle: 0.112 ms for 32 MB): block s of output o reduces elements
/// [s L / Splits, (s + 1) L / Splits), its threads strided over them, and
/// combines them by a fixed-order tree; split, it stores its accumulator in
/// `workspace`, and the last of o's blocks to arrive merges the Splits
/// accumulators in a fixed order, whichever block that is (bitwise
/// deterministic), and stores o.
template <int Splits = 1, class Region>
__device__ __forceinline__ void reduceBlockPerOutput(const Region &region,
                                                     const SplitReductionWorkspace &workspace = {}) {
  static_assert(std::is_empty_v<typename Region::SharedStorage>,
                "a block per output takes no prologue");
  using Accumulator = typename Region::Accumulator;
  using LengthIndex = typename Region::LengthIndex;
  constexpr int kThreads = Region::kThreads;
  static_assert(Splits >= 1 && Region::kLength % Splits == 0, "equal shares");
  constexpr LengthIndex kShare = Region::kLength / Splits;
  const typename Region::SharedStorage shared{};
  const typename Region::OutputIndex o = blockIdx.x / Splits;
  const int split = blockIdx.x % Splits;
  const typename Region::Output output = region.output(o, o);
  const LengthIndex base = LengthIndex(split) * kShare;
  Accumulator acc = accumulateStrided<LengthIndex, kShare, Region::kChunk, kThreads>(
      Accumulator{}, threadIdx.x,
      [&](const LengthIndex r) { return region.element(output, base + r, shared); });
  acc = combineBlock<kThreads>(acc);
  if constexpr (Splits == 1) {
    if (threadIdx.x == 0)
      region.store(o, acc);
  } else {
    constexpr int kWords = sizeof(Accumulator) / 4;
    static_assert(sizeof(Accumulator) % 4 == 0 &&
                      sizeof(Accumulator) <= sizeof(float4) * SplitReductionWorkspace::kVectors,
                  "an accumulator fits its share's slot");
    // An output's slots, share 0's first; through L2 (__stcg, __ldcg): L1
    // does not see the other blocks' stores. Copied as words through
    // memcpy: a float read through an unsigned pointer is undefined, and
    // clang dropped such stores.
    unsigned *slots = reinterpret_cast<unsigned *>(
        workspace.shares + long(o) * Splits * SplitReductionWorkspace::kVectors);
    constexpr int kSlotWords = 4 * SplitReductionWorkspace::kVectors;
    if (threadIdx.x == 0) {
      unsigned words[kWords];
      memcpy(words, &acc, sizeof acc);
#pragma unroll
      for (int w = 0; w < kWords; ++w)
        __stcg(&slots[split * kSlotWords + w], words[w]);
    }
    // The last block's first warp: each lane merges shares lane, lane +
    // 32, ... in order, their loads in flight together, then the lanes
    // combine in a fixed-order tree. Thread 0 alone merging the shares one
    // after the other waited out an L2 round trip for each.
    if (!arrivesLast(&workspace.arrivals[o], Splits) || threadIdx.x >= 32)
      return;
    const auto share = [&](int s) {
      unsigned words[kWords];
#pragma unroll
      for (int w = 0; w < kWords; ++w)
        words[w] = __ldcg(&slots[s * kSlotWords + w]);
      Accumulator loaded;
      memcpy(&loaded, words, sizeof loaded);
      return loaded;
    };
    Accumulator total{};
    for (int s = threadIdx.x; s < Splits; s += 32)
      total.merge(share(s));
    total = combineLanes<32>(total);
    if (threadIdx.x == 0)
      region.store(o, total);
  }
}

} // namespace solder

#endif // SOLDER_KERNEL_REDUCTION_KERNEL_CUH
