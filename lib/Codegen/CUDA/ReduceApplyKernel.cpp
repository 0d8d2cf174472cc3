//===- ReduceApplyKernel.cpp - Reduce a row, then rewrite it --------------===//
//
// A reduce-and-apply region (getReduceApplyRow: softmax, LayerNorm over
// trailing dims, x - mean(x) on rows of consecutive elements) becomes
// solder::reduceApplyWarpPerRow
// (runtime/device/solder/kernel/reduce_apply_kernel.cuh: kLanes lanes a
// row) over a generated
// Region functor whose computeRow reads as the chain: one solder::reduceRow
// per reduction, in program order, over the ops that compute its input at
// element r, then one solder::forEachInRow that computes and stores the
// region's results; what a pass needs of an earlier one is its reductions,
// scalars of the row. A pool of the row's values (poolsRowWindows) runs in
// that last walk: the rows come in window order, each lane's value goes
// into solder::RowWindows::gather, which leaves each window's result with
// a lane of its own; after the walk each lane computes the ops after the
// pool at its window's output position and stores them.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Analysis/RegionLaunch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::solder;

/// Prints i0, i1, ... of a row whose kept dims have the extents `kept`,
/// the rows in pool-window order: `windowKernel` rows a window along each
/// kept dim, a window's rows consecutive (consecutive segments of a warp).
static void emitWindowOrderRows(raw_ostream &os, ArrayRef<int64_t> kept,
                                ArrayRef<int64_t> windowKernel, bool narrow) {
  StringRef type = narrow ? "int" : "long", suffix = narrow ? "" : "L";
  const int64_t windowRows = product(windowKernel);
  os << "    // Rows in pool-window order: a window's "
     << joinIntegers(windowKernel.drop_front(2), "x")
     << " rows are consecutive segments of a warp.\n"
     << "    const RowIndex window = row / " << windowRows << suffix << ";\n"
     << "    const int inWindow = int(row % " << windowRows << suffix << ");\n";
  // Row-major over the windows (extents kept / kernel), and within a
  // window over its kernel.
  int64_t windowStride = 1, kernelStride = 1;
  SmallVector<std::string> lines;
  for (int64_t d = static_cast<int64_t>(kept.size()) - 1; d >= 0; --d) {
    const int64_t extent = kept[d] / windowKernel[d], kernel = windowKernel[d];
    std::string expression = "window";
    if (windowStride != 1)
      expression = "(" + expression + " / " + std::to_string(windowStride) + suffix.str() + ")";
    if (d != 0)
      expression += " % " + std::to_string(extent) + suffix.str();
    if (kernel > 1) {
      std::string offset = "inWindow";
      if (kernelStride != 1)
        offset = "inWindow / " + std::to_string(kernelStride);
      if (kernelStride * kernel != windowRows)
        offset = (kernelStride != 1 ? "(" + offset + ")" : offset) + " % " + std::to_string(kernel);
      expression = "(" + expression + ") * " + std::to_string(kernel) + " + " + offset;
    }
    lines.push_back(
        llvm::formatv("    [[maybe_unused]] const {0} i{1} = {2};\n", type, d, expression).str());
    windowStride *= extent;
    kernelStride *= kernel;
  }
  for (const std::string &line : llvm::reverse(lines))
    os << line;
}

/// Prints, after the row's last walk (which gathered `pool`'s windows into
/// `kept`, solder::RowWindows), in each lane that holds a window: the
/// window's output position (i0, i1, ... rebound to it), the ops after the
/// pool there and the stores of `windowResults`.
static LogicalResult emitWindowResults(raw_ostream &os, FusionOp fusion, PoolOp pool,
                                       ArrayRef<std::pair<unsigned, Value>> windowResults,
                                       const ElementEmitter &element,
                                       ArrayRef<std::string> captureNames,
                                       SmallVector<bool> doubleCaptures, bool narrow) {
  ArrayRef<int64_t> pooledShape = pool.getType().getShape();
  os << "    if (Windows::holdsWindow()) {\n"
     << "      // The window's output position.\n"
     << "      const RowIndex pooledIndex = Windows::index(row);\n"
     << "      {\n";
  emitIndexDecomposition(os, "        ", pooledShape,
                         llvm::to_vector(llvm::seq<int64_t>(0, pooledShape.size())), "pooledIndex",
                         narrow);
  os << "        const float pooled = Windows::result(kept);\n";
  ElementEmitter pooled(fusion, captureNames, pooledShape, std::move(doubleCaptures));
  pooled.continueNumbering(element);
  pooled.bind(pool.getResult(), "pooled");
  SmallVector<Value> values = llvm::to_vector(llvm::make_second_range(windowResults));
  for (Operation *op : getProducingSlice(values, [&](Operation *op) { return op == pool; }))
    if (failed(pooled.emit(op, os, "        ")))
      return failure();
  for (auto [index, value] : windowResults)
    os << "        out" << index << "["
       << pooled.getOffset(cast<RankedTensorType>(value.getType()).getShape())
       << "] = " << pooled.get(value) << ";\n";
  os << "      }\n    }\n";
  return success();
}

LogicalResult ProgramEmitter::emitReduceApplyKernel(FusionOp fusion,
                                                    const ReduceApplyRow &row) {
  FailureOr<RegionLaunchAttr> planned = getPlannedRegionLaunch(fusion);
  if (failed(planned))
    return failure();
  // The lanes a row come from the row, not the attribute: the grid must be
  // the one they need, or rows would go unwritten.
  const RegionLaunch expected = getReduceApplyLaunch(row.getRows(), row.getLength());
  if (planned->getWalk() != RegionWalk::warp_per_row ||
      planned->getGrid()[0] != expected.blocks || planned->getThreads() != expected.threads)
    return fusion.emitError("the CUDA code generator runs a reduce-and-apply region a "
                            "segment of a warp per row (grid [")
           << expected.blocks << ", 1, 1], " << expected.threads
           << " threads); the plan gives it " << *planned;
  ArrayRef<int64_t> shape = row.shape;
  const int64_t rank = shape.size(), first = row.firstReducedDim;
  const SmallVector<int64_t> keptDims = llvm::to_vector(llvm::seq<int64_t>(0, first));
  const SmallVector<int64_t> reducedDims = llvm::to_vector(llvm::seq<int64_t>(first, rank));
  SmallVector<int64_t> reducedShape(shape);
  for (int64_t d : reducedDims)
    reducedShape[d] = 1;

  // The region's ops but its constants, in program order.
  SmallVector<Operation *> ops;
  PoolOp pool;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    ops.push_back(&op);
    if (auto candidate = dyn_cast<PoolOp>(op))
      pool = candidate;
  }
  // The pool's values (getPooledValues) are stored once a window; results
  // of the reductions' shape once a row; the others (the row's shape, or
  // broadcast along some of its dims) at each element.
  std::optional<DenseSet<Value>> pooledValues = getPooledValues(ops, pool);
  assert(pooledValues && "getReduceApplyRow(fusion), which gave `row`, checked them");
  SmallVector<std::pair<unsigned, Value>> elementResults, rowResults, windowResults;
  for (auto [index, value] : llvm::enumerate(fusion.getYield().getValues())) {
    if (pooledValues->contains(value))
      windowResults.push_back({unsigned(index), value});
    else if (cast<RankedTensorType>(value.getType()).getShape() == ArrayRef(reducedShape))
      rowResults.push_back({unsigned(index), value});
    else
      elementResults.push_back({unsigned(index), value});
  }

  const std::string name = fusion.getName().str();
  const int64_t lanes = getReduceApplyLanes(row.getRows(), row.getLength());
  const std::string summary =
      "reduce and apply: " + joinOpNames(ops, " -> ") + " (a segment of a warp per row)";
  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  ElementEmitter element(fusion, captureNames, shape, getDoubleCaptures(fusion));
  const bool narrow = fitsInt(product(shape));
  StringRef rowType = narrow ? "int" : "long";

  if (pool)
    os << getPoolWindows(fusion);
  os << "// " << name << "_region: each row's reductions in turn, then the values\n"
     << "// that read them, stored" << (pool ? ", and the pool of them" : "") << ".\n"
     << "struct " << name << "_region {\n"
     << getRegionMembers(fusion) << "  using RowIndex = " << rowType << ";\n"
     << "  static constexpr RowIndex kRows = " << row.getRows() << (narrow ? "" : "L") << ";\n"
     << "  static constexpr int kLength = " << row.getLength() << ", kLanes = " << lanes
     << ", kChunk = " << planned->getChunk() << ", kThreads = " << planned->getThreads() << ";\n\n"
     << "  __device__ void computeRow(const RowIndex row, const int lane) const {\n";
  // The pool's kernel along each kept dim (1 for the sample and channel
  // dims); a window's rows are their product.
  SmallVector<int64_t> windowKernel(first, 1);
  if (pool)
    for (int64_t d = 2; d < first; ++d)
      windowKernel[d] = pool.getKernel()[d - 2];
  const int64_t windowRows = product(windowKernel);
  if (windowRows > 1)
    emitWindowOrderRows(os, shape.take_front(first), windowKernel, narrow);
  else
    emitIndexDecomposition(os, "    ", shape, keptDims, "row", narrow);
  auto emitSlice = [&](ArrayRef<Value> values, StringRef indent) -> LogicalResult {
    // Reductions are scalars of the row by then: the slice stops at them.
    for (Operation *op : getProducingSlice(values, llvm::IsaPred<ReduceOp>))
      if (failed(element.emit(op, os, indent)))
        return failure();
    return success();
  };

  unsigned passes = 0;
  for (Operation *op : ops) {
    auto reduce = dyn_cast<ReduceOp>(op);
    if (!reduce)
      continue;
    std::string result = "r" + std::to_string(passes++);
    os << "    // " << stringifyReduceKind(reduce.getKind()) << " over the row\n"
       << "    const float " << result << " = solder::reduceRow<kLength, kChunk, kLanes>(solder::"
       << getReduceAccumulator(reduce.getKind()) << "{}, lane, [&](const int r) {\n";
    emitIndexDecomposition(os, "      ", shape, reducedDims, "r", /*narrow=*/true);
    if (failed(emitSlice({reduce.getX()}, "      ")))
      return failure();
    os << "      return " << element.get(reduce.getX()) << ";\n    });\n";
    element.bind(reduce.getResult(), result);
  }

  if (!elementResults.empty() || pool) {
    if (pool)
      os << "    // The pool's windows, a lane each: gathered in the walk, finished after it.\n"
         << "    using Windows = solder::RowWindows<" << getWindowName(pool)
         << ", kLanes, kLength>;\n"
         << "    float kept = 0.0f;\n";
    os << "    solder::forEachInRow<kLength, kChunk, kLanes>(lane, [&](const int r) {\n";
    emitIndexDecomposition(os, "      ", shape, reducedDims, "r", /*narrow=*/true);
    SmallVector<Value> values = llvm::to_vector(llvm::make_second_range(elementResults));
    if (pool)
      values.push_back(pool.getX());
    if (failed(emitSlice(values, "      ")))
      return failure();
    for (auto [index, value] : elementResults)
      os << "      out" << index << "["
         << element.getOffset(cast<RankedTensorType>(value.getType()).getShape())
         << "] = " << element.get(value) << ";\n";
    if (pool) {
      ArrayRef<int64_t> kernel = pool.getKernel();
      os << "      // solder.pool " << describeWindow(pool) << ": the window's " << kernel.back()
         << " columns in lanes" << (product(kernel.drop_back()) > 1 ? ", its rows in segments" : "")
         << "\n"
         << "      Windows::gather(kept, " << element.get(pool.getX()) << ", r);\n";
    }
    os << "    });\n";
    if (pool && failed(emitWindowResults(os, fusion, pool, windowResults, element, captureNames,
                                         getDoubleCaptures(fusion), narrow)))
      return failure();
  }
  if (!rowResults.empty()) {
    os << "    if (lane == 0) {\n";
    for (int64_t d : reducedDims)
      os << "      [[maybe_unused]] const int i" << d << " = 0;\n";
    SmallVector<Value> values = llvm::to_vector(llvm::make_second_range(rowResults));
    if (failed(emitSlice(values, "      ")))
      return failure();
    // Rows in window order are not in memory's: their place from i0, i1, ...
    for (auto [index, value] : rowResults)
      os << "      out" << index << "["
         << (windowRows > 1 ? element.getOffset(reducedShape) : std::string("row"))
         << "] = " << element.get(value) << ";\n";
    os << "    }\n";
  }
  os << "  }\n};\n\n";

  beginKernel(fusion, name, summary, {planned->getGrid()[0], 1, 1}, {}, planned->getThreads());
  os << "  solder::reduceApplyWarpPerRow(" << name << "_region" << getRegionInitializer(fusion)
     << ");\n}\n\n";
  return success();
}
