//===- FusionUtils.h - Building and reshaping solder.fusion ops -*- C++ -*-===//

#ifndef SOLDER_DIALECT_SOLDER_TRANSFORMS_FUSIONUTILS_H
#define SOLDER_DIALECT_SOLDER_TRANSFORMS_FUSIONUTILS_H

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::solder {

/// What an op is to the fuser.
enum class FusionRole {
  anchor,    // conv, conv_transpose: starts a region
  rows,      // a small GEMM (isRowConv): joins a rows region on its input
  pointwise, // unary, binary, group_normalize: one output element per input
  reduction, // reduce, group_stats: joins the region of its input
  window,    // pool: starts a region that reads its input from an earlier one
  constant,  // arith.constant: cloned into every region that uses it
  opaque,    // anything else: stays outside every region
};
FusionRole getFusionRole(Operation *op);

/// Whether `op` is a conv small enough to run a row at a time (a block per
/// row, FMA from shared memory): a 1x1 conv, no padding, one group, on one
/// pixel a sample (a GEMM's rows: squeeze-excitation's two convs, a
/// classifier head), at most kMaxRowWidth channels in and out, and rows x
/// weights at most kMaxRowTraffic (each block reads every weight; past that
/// a tensor-core GEMM tile sharing them across rows is cheaper).
bool isRowConv(Operation *op);
constexpr int64_t kMaxRowWidth = 4096;
constexpr int64_t kMaxRowTraffic = int64_t(1) << 22;

/// Whether `fusion` is a rows region: row convs (at least one) and the
/// pointwise ops between and around them, every value one row of the
/// batch.
bool isRowRegion(FusionOp fusion);

/// The floats of shared memory a rows region's block holds for `ops`: one
/// row of each op's result, and of each conv input that comes from outside
/// the region.
int64_t getRowSharedFloats(ArrayRef<Operation *> ops);
/// At most this many: 32 KB of a block's static shared memory.
constexpr int64_t kMaxRowSharedFloats = 8192;

/// A row that one warp reduces and then rewrites (softmax, LayerNorm over
/// trailing dims, x - mean(x), x / sum(x) on rows of consecutive
/// elements): reductions (keepdim) over the same trailing dims of tensors
/// of `shape`, and pointwise ops whose results broadcast to `shape`, which
/// may read those reductions back. One kernel reads each row from memory
/// once; its later passes over the row hit the cache.
struct ReduceApplyRow {
  SmallVector<int64_t> shape;
  int64_t firstReducedDim = 0;

  /// The elements of a row: the reduced dims' product.
  int64_t getLength() const;
  /// The rows: the kept dims' product.
  int64_t getRows() const;
  bool operator==(const ReduceApplyRow &other) const {
    return shape == other.shape && firstReducedDim == other.firstReducedDim;
  }
};
/// Rows longer than this stay two kernels: a warp's row of 16 KB, eight
/// warps a block, stays in L1 between the passes.
constexpr int64_t kMaxReduceApplyLength = 4096;

/// The row of `op`, a keepdim solder.reduce over trailing dims (sorted) of
/// at most kMaxReduceApplyLength elements; none for any other op.
std::optional<ReduceApplyRow> getReduceApplyRow(Operation *op);

/// Whether `ops` can run in one walk of `row`: reduces of that row and
/// pointwise ops whose results broadcast to its shape; and at most one
/// pool of the row's values (poolsRowWindows), the pointwise ops after it
/// of its result's shape.
bool fitsReduceApplyRow(ArrayRef<Operation *> ops, const ReduceApplyRow &row);

/// The values that a reduce-and-apply row's kernel computes once a window
/// of `pool` (one of `ops`; null: none), after its walk: the pool's result
/// and the results of the ops that read them. None where one of those is
/// not pointwise of the pool's type or reads what `ops` compute before the
/// pool (a lane's reductions are its own row's, not those of the window it
/// holds), or where an op of the pool's type is not one of them.
std::optional<DenseSet<Value>> getPooledValues(ArrayRef<Operation *> ops, PoolOp pool);

/// Whether `pool` runs in the walk of `row` on the row's values, its
/// windows combined across a warp's lanes (solder::RowWindows): the row is
/// the last dim alone; the windows tile the spatial dims (kernel = stride,
/// no padding, dilation or ceil mode, extents the kernel divides), more
/// than one element each; a window's columns lie in consecutive lanes of a
/// row's segment (getReduceApplyLanes: the columns divide the lanes, the
/// lanes the row) and its rows, the kept spatial dims' taps, in
/// consecutive segments of one warp (they divide a warp's rows; the kernel
/// walks the rows in window order); and a warp holds at most 32 windows,
/// one a lane (a lane's elements of a row at most a window's).
bool poolsRowWindows(PoolOp pool, const ReduceApplyRow &row);

/// The row of a region without a conv whose ops read one of its own
/// reductions, or that holds several reductions of one row (FormFusions
/// joined them); none for any other region.
std::optional<ReduceApplyRow> getReduceApplyRow(FusionOp fusion);

/// Whether `op` can run in the epilogue of a conv kernel, which tiles the
/// channels across thread blocks: pointwise ops and reductions per channel
/// (group_stats, sum/mean over all spatial dims), not reductions across
/// channels.
bool isConvEpilogueOp(Operation *op);

/// The ops of a fusion body that compute `values` (inside that body), in
/// block order. An op for which `isBoundary` holds is taken as given: it
/// and what computes its operands are left out.
SmallVector<Operation *> getProducingSlice(ArrayRef<Value> values,
                                           function_ref<bool(Operation *)> isBoundary = {});

/// The conv region's prologue: the pointwise ops of `anchor`'s fusion body
/// that compute its input (FormFusions puts them there when nothing else
/// reads them); empty when the conv reads a capture.
SmallVector<Operation *> getConvPrologue(Operation *anchor);

/// The names of `ops` without the dialect, constants left out, joined by
/// `separator`: "group_normalize -> silu" (kernel comments, the report).
std::string joinOpNames(ArrayRef<Operation *> ops, StringRef separator);

/// Moves `ops` (in block order, same block) into a new solder.fusion named
/// `name`, inserted before the last of them: values they read from outside
/// become captures (constants are cloned in), values used outside become
/// results. Uses outside are rewired and the original ops erased.
FusionOp wrapInFusion(RewriterBase &rewriter, ArrayRef<Operation *> ops,
                      StringRef name);

/// Replaces `fusion` by one that yields only the results for which `keep`
/// is true, rewiring their uses; ops left without uses are erased.
FusionOp dropFusionResults(RewriterBase &rewriter, FusionOp fusion,
                           ArrayRef<bool> keep);

/// Replaces `fusion` by one that also yields its result `index` again, as
/// its last result, and moves `moved` (uses of that result) onto the copy:
/// the same value stored twice, each for its own readers. Returns the new
/// fusion.
FusionOp duplicateFusionResult(RewriterBase &rewriter, FusionOp fusion, unsigned index,
                               ArrayRef<OpOperand *> moved);

/// Erases ops in `fusion`'s body whose results are unused (side-effect free).
void eraseDeadOps(RewriterBase &rewriter, FusionOp fusion);

/// A rank-0 arith.constant of `value` with element type `elementType`: the
/// scalar operand of a broadcast pointwise op that a rewrite introduces.
Value createScalar(OpBuilder &builder, Location loc, Type elementType, double value);

} // namespace mlir::solder

#endif // SOLDER_DIALECT_SOLDER_TRANSFORMS_FUSIONUTILS_H
