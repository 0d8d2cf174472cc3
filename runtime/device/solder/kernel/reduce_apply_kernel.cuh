//===- kernel/reduce_apply_kernel.cuh - Reduce a row, then rewrite it -----===//
//
// A reduce-and-apply region (softmax, LayerNorm over trailing dims,
// x - mean(x), x / sum(x) on rows of consecutive elements): a segment of
// kLanes lanes of a warp per row (as many lanes as keep at most 8 elements
// of the row a lane: a warp a row of 64 left too few loads in flight). The
// segment walks its row once per reduction, in program order (reduceRow:
// each lane every kLanes-th element, kChunk loads in flight, the lanes
// combined by shuffles in a fixed order, every lane given the result), then
// once more to store what reads them (forEachInRow). The row comes from
// memory on the first walk; the later ones take the same chunks, so that a
// row of a few elements a lane stays in registers, and a longer one comes
// from L1 (at most 16 KB a row). Results are bitwise reproducible. The
// generated Region functor says what a row computes:
//   using RowIndex;                        int | long, 32 bits where they fit
//   static constexpr RowIndex kRows;       a multiple of 32 / kLanes
//   static constexpr int kLength, kLanes, kChunk, kThreads;
//   void computeRow(RowIndex row, int lane) const;   lane: within the segment
// A pool of the rows' values (LayerNorm over the last dim, then avg_pool)
// runs in the last walk: each lane's element combined with the rest of its
// window's across lanes (RowWindows::gather), where a window's columns are
// consecutive lanes of a segment and its rows consecutive segments of the
// warp (computeRow takes the rows in window order), each window's result
// kept by a lane of its own; after the walk each lane runs the ops after
// the pool on its window and stores them. The pooled values are never
// stored unless the region returns them.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_REDUCE_APPLY_KERNEL_CUH
#define SOLDER_KERNEL_REDUCE_APPLY_KERNEL_CUH

#include "solder/pool.cuh"
#include "solder/reduce.cuh"

namespace solder {

/// The reduction of element(r) over r < Length by `acc`'s kind, a segment
/// of Lanes lanes strided over the row; every lane of the segment returns
/// acc.result(Length).
template <int Length, int Chunk, int Lanes, class Accumulator, class Element>
__device__ __forceinline__ float reduceRow(Accumulator acc, const int lane,
                                           const Element &element) {
  acc = combineLanes<Lanes>(accumulateStrided<int, Length, Chunk, Lanes>(acc, lane, element));
  return __shfl_sync(0xffffffffu, acc.result(float(Length)), 0, Lanes);
}

/// visit(r) for each element r < Length of the row, a segment of Lanes
/// lanes strided over it: in chunks of Chunk elements a lane, as
/// accumulateStrided walks it, so that the compiler sees the same loads as
/// the first walk's and keeps the row in registers (a loop whose trip count
/// depends on the lane read each element from L1 again: LayerNorm's last
/// walk was bound by L1's throughput).
template <int Length, int Chunk, int Lanes, class Visit>
__device__ __forceinline__ void forEachInRow(const int lane, const Visit &visit) {
  constexpr int kStep = Chunk * Lanes;
  int r0 = 0;
  for (; r0 + kStep <= Length; r0 += kStep) {
#pragma unroll
    for (int k = 0; k < Chunk; ++k)
      visit(r0 + lane + k * Lanes);
  }
  for (int r = r0 + lane; r < Length; r += Lanes)
    visit(r);
}

/// How a reduce-and-apply kernel pools its rows' values with Window
/// (pool.cuh) over rows of Length elements, Lanes lanes a row: a window's
/// kColumns columns lie in as many consecutive lanes of a row's segment,
/// its kRows rows (kKernel[0] x kKernel[1]) in as many consecutive
/// segments of the warp (the rows in window order), and the windows tile
/// the input (no padding). A warp holds kWindows windows, no more than its
/// lanes: lane k keeps the k-th (row group k / kRowWindows, column
/// k % kRowWindows), so that the ops after the pool run once a window,
/// every lane busy, and the lanes store consecutive outputs.
template <class Window, int Lanes, int Length> struct RowWindows {
  static constexpr int kColumns = Window::kKernel[2];
  static constexpr int kRows = Window::kKernel[0] * Window::kKernel[1];
  static constexpr int kRowWindows = Length / kColumns; // a row group's windows
  static constexpr int kStepWindows = Lanes / kColumns; // of those, a walk step's
  static constexpr int kWindows = 32 / Lanes / kRows * kRowWindows;
  static_assert(Lanes % kColumns == 0 && (32 / Lanes) % kRows == 0 && Length % Lanes == 0,
                "a window's columns in a segment's lanes, its rows in a warp's segments");
  static_assert(kWindows <= 32, "a lane a window");

  /// Combines `value`, this lane's element at walk step r / Lanes, with
  /// the rest of its window's by a butterfly of shuffles, and keeps in
  /// `kept` the result of the window this lane holds, if it is among this
  /// step's: the result of one lane of the window (its first), so that
  /// the taps' order does not depend on the lane that keeps it.
  __device__ __forceinline__ static void gather(float &kept, const float value, const int r) {
    float result = value;
#pragma unroll
    for (int offset = 1; offset < kColumns; offset *= 2)
      poolTap<Window::kKind>(result, __shfl_xor_sync(0xffffffffu, result, offset));
#pragma unroll
    for (int offset = Lanes; offset < Lanes * kRows; offset *= 2)
      poolTap<Window::kKind>(result, __shfl_xor_sync(0xffffffffu, result, offset));
    const int lane = threadIdx.x % 32, column = lane % kRowWindows;
    const int source = lane / kRowWindows * kRows * Lanes + column % kStepWindows * kColumns;
    const float windowResult = __shfl_sync(0xffffffffu, result, source % 32);
    if (column / kStepWindows == r / Lanes)
      kept = windowResult;
  }

  /// Whether this lane holds a window of the warp.
  __device__ __forceinline__ static bool holdsWindow() { return threadIdx.x % 32 < kWindows; }

  /// The pool's result from what gather kept: windows inside the input
  /// hold as many taps inside as the window has.
  __device__ __forceinline__ static float result(const float kept) {
    return poolResult<Window>(kept, kColumns * kRows, 0, 0, 0);
  }

  /// The flat index, in the pooled tensor, of the window this lane holds,
  /// from this lane's row: the rows in window order, a window's kRows
  /// rows one row group, whose window index is the pooled tensor's index
  /// without its last dim.
  template <class RowIndex> __device__ __forceinline__ static RowIndex index(const RowIndex row) {
    const int lane = threadIdx.x % 32;
    const RowIndex firstWindow = (row - lane / Lanes) / kRows;
    return (firstWindow + lane / kRowWindows) * kRowWindows + lane % kRowWindows;
  }
};

/// A segment of Region::kLanes lanes per row, Region::kThreads /
/// Region::kLanes rows a block.
template <class Region>
__device__ __forceinline__ void reduceApplyWarpPerRow(const Region &region) {
  using RowIndex = typename Region::RowIndex;
  constexpr int kLanes = Region::kLanes;
  static_assert(kLanes >= 1 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0,
                "a power-of-two segment of a warp");
  static_assert(Region::kRows % (32 / kLanes) == 0, "a warp's rows all valid or all past the end");
  const RowIndex first = RowIndex(blockIdx.x) * (Region::kThreads / kLanes);
  const RowIndex row = first + threadIdx.x / kLanes;
  if (first + threadIdx.x / 32 * (32 / kLanes) >= Region::kRows)
    return; // whole warps: the shuffles see every lane of a warp that stays
  region.computeRow(row, threadIdx.x % kLanes);
}

} // namespace solder

#endif // SOLDER_KERNEL_REDUCE_APPLY_KERNEL_CUH
