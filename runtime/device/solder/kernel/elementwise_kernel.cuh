//===- kernel/elementwise_kernel.cuh - The body of an elementwise kernel --===//
//
// A region without a conv or a reduction: blocks walk tiles of kChunk x
// kThreads items (grid-stride), an item being one element or a vector of
// consecutive ones, and a thread computes all of its items of a tile before
// it stores any, so that their loads are in flight together (one 4-byte
// load a thread left W2's normalize at 2.5 of the H200's 4.2 TB/s). The
// generated Region functor says what an item is:
//   using Index = int | long;           32 bits where the indices fit
//   static constexpr Index kItems;
//   static constexpr int kChunk, kThreads;
//   struct Item { ... };                an item's results
//   Item compute(Index item) const;     the fused ops at one item
//   void store(Index item, const Item &) const;
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_ELEMENTWISE_KERNEL_CUH
#define SOLDER_KERNEL_ELEMENTWISE_KERNEL_CUH

namespace solder {

template <class Region> __device__ __forceinline__ void runElementwise(const Region &region) {
  using Index = typename Region::Index;
  constexpr int kChunk = Region::kChunk, kThreads = Region::kThreads;
  constexpr Index kItems = Region::kItems, kTileItems = Index(kChunk) * kThreads;
  // Only a ragged last tile needs the bound inside it.
  constexpr bool kRagged = kItems % kTileItems != 0;
  for (Index tile = blockIdx.x * kTileItems; tile < kItems;
       tile += sizeof(Index) == 4 ? gridDim.x * kTileItems : Index(gridDim.x) * kTileItems) {
    typename Region::Item results[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const Index item = tile + k * kThreads + threadIdx.x;
      if (kRagged && item >= kItems)
        break;
      results[k] = region.compute(item);
    }
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const Index item = tile + k * kThreads + threadIdx.x;
      if (kRagged && item >= kItems)
        break;
      region.store(item, results[k]);
    }
  }
}

} // namespace solder

#endif // SOLDER_KERNEL_ELEMENTWISE_KERNEL_CUH
