//===- RegionLaunch.h - Launch of a region without a conv -------*- C++ -*-===//
//
// The one place the launch of an elementwise or reduction region is decided
// (a conv region's is its ConvSchedule): how its threads split the work, how
// many elements a thread loads before it uses them, and its grid. `plan`
// stores it as a #solder.region_launch; emit-cuda generates and launches
// exactly that.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_REGIONLAUNCH_H
#define SOLDER_ANALYSIS_REGIONLAUNCH_H

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include <cstdint>
#include <optional>

namespace mlir::solder {

/// What a region without a conv computes over: facts of its IR, which the
/// plan and emit-cuda both read.
struct RegionExtent {
  /// The region's one reduction (null when elementwise).
  Operation *reduction = nullptr;
  /// Reductions: outputs x length elements. Elementwise: the elements.
  int64_t outputs = 0, length = 0;
  /// Reductions: an output's elements are consecutive in the reduced
  /// tensor (a suffix of its dims, or a group's channels of one sample).
  bool contiguous = false;
};
RegionExtent getRegionExtent(FusionOp fusion);

/// The builder of a region's #solder.region_launch.
struct RegionLaunch {
  /// elementwise: blocks walk tiles of `chunk` x `threads` items;
  /// thread_per_output: each thread reduces one output, `chunk` elements at
  /// a time (2048 outputs or more: enough threads without splitting a
  /// reduction); warp_per_output: each warp reduces one output whose
  /// elements are contiguous (2048 outputs or more of 64 elements or more:
  /// a thread's own row would leave its warp's loads strided);
  /// block_per_output: each block reduces one output through a fixed-order
  /// tree, or with `blocks` a multiple of the outputs, an equal share of
  /// one, the last of its blocks merging the shares (few long reductions); block_per_row: each
  /// block computes one row of a rows region; warp_per_row: a segment of a warp's lanes reduces and
  /// then rewrites one row of a reduce-and-apply region (getReduceApplyRow).
  RegionWalk walk = RegionWalk::elementwise;
  /// Elements a thread loads and computes before it stores or accumulates
  /// them, so that many loads are in flight (one at a time left W3's
  /// logsumexp tail and W2's normalize latency-bound).
  int64_t chunk = 1;
  /// Elementwise: elements a thread loads and stores as one vector (4:
  /// float4, where getVectorTailStart finds a tail; W2's normalize went
  /// from 2.8 to 4.1 TB/s). `chunk` then counts vectors.
  int64_t vector = 1;
  int64_t blocks = 0;
  int64_t threads = 256;

  /// Null, after a diagnostic through `emitError`, when it does not verify.
  RegionLaunchAttr toAttr(function_ref<InFlightDiagnostic()> emitError,
                          MLIRContext *context) const;
};

/// The launch of `fusion`, which holds no conv and at most one reduction.
RegionLaunch getRegionLaunch(FusionOp fusion);

/// The launch of a rows region (isRowRegion) over `rows` rows: a block a
/// row.
RegionLaunch getRowsLaunch(int64_t rows);

/// The lanes of a warp that walk one row of a reduce-and-apply region
/// (getReduceApplyRow) of `rows` rows of `length` elements: a power of two
/// from 4 to 32 that divides a warp's rows evenly into `rows`.
int64_t getReduceApplyLanes(int64_t rows, int64_t length);

/// The launch of a reduce-and-apply region over `rows` rows of `length`
/// elements: getReduceApplyLanes lanes a row.
RegionLaunch getReduceApplyLaunch(int64_t rows, int64_t length);

/// For an elementwise region over `shape`: the first of the innermost dims
/// along which it can load and store float4 vectors. Their flattened size
/// (the tail) is a multiple of 4 and every tensor the region reads per
/// element is dense over them or broadcast along all of them, so a vector's
/// 4 elements are 4 consecutive floats at an offset that is a multiple of 4.
/// The innermost such tail; none when no tail qualifies.
std::optional<int64_t> getVectorTailStart(FusionOp fusion, ArrayRef<int64_t> shape);

/// Whether `argument`, for the tail of `shape` from `tailStart` on, is the
/// same element for every lane of a vector (broadcast along the whole
/// tail) rather than dense over it.
bool isBroadcastAlongTail(BlockArgument argument, ArrayRef<int64_t> shape,
                          int64_t tailStart);

/// Whether a region's `argument` is read per element (group_normalize's
/// statistics, weight and bias are read per (sample, channel), a pool's
/// input per window).
bool isReadPerElement(BlockArgument argument);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_REGIONLAUNCH_H
