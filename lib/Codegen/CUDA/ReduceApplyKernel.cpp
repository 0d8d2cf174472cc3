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
// scalars of the row.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Analysis/RegionLaunch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::solder;

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

  // Results of the reductions' shape are stored once a row; the others
  // (the row's shape, or broadcast along some of its dims) at each element.
  SmallVector<std::pair<unsigned, Value>> elementResults, rowResults;
  for (auto [index, value] : llvm::enumerate(fusion.getYield().getValues()))
    (cast<RankedTensorType>(value.getType()).getShape() == ArrayRef(reducedShape)
         ? rowResults
         : elementResults)
        .push_back({unsigned(index), value});

  const std::string name = fusion.getName().str();
  SmallVector<Operation *> ops;
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (!isa<arith::ConstantOp>(op))
      ops.push_back(&op);
  const std::string summary =
      "reduce and apply: " + joinOpNames(ops, " -> ") + " (a segment of a warp per row)";
  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  ElementEmitter element(fusion, captureNames, shape, getDoubleCaptures(fusion));
  const bool narrow = fitsInt(product(shape));
  StringRef rowType = narrow ? "int" : "long";

  os << "// " << name << "_region: each row's reductions in turn, then the values\n"
     << "// that read them, stored.\n"
     << "struct " << name << "_region {\n"
     << getRegionMembers(fusion) << "  using RowIndex = " << rowType << ";\n"
     << "  static constexpr RowIndex kRows = " << row.getRows() << (narrow ? "" : "L") << ";\n"
     << "  static constexpr int kLength = " << row.getLength()
     << ", kLanes = " << getReduceApplyLanes(row.getRows(), row.getLength())
     << ", kChunk = " << planned->getChunk() << ", kThreads = " << planned->getThreads()
     << ";\n\n"
     << "  __device__ void computeRow(const RowIndex row, const int lane) const {\n";
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

  if (!elementResults.empty()) {
    os << "    solder::forEachInRow<kLength, kChunk, kLanes>(lane, [&](const int r) {\n";
    emitIndexDecomposition(os, "      ", shape, reducedDims, "r", /*narrow=*/true);
    SmallVector<Value> values = llvm::to_vector(llvm::make_second_range(elementResults));
    if (failed(emitSlice(values, "      ")))
      return failure();
    for (auto [index, value] : elementResults)
      os << "      out" << index << "["
         << element.getOffset(cast<RankedTensorType>(value.getType()).getShape())
         << "] = " << element.get(value) << ";\n";
    os << "    });\n";
  }
  if (!rowResults.empty()) {
    os << "    if (lane == 0) {\n";
    for (int64_t d : reducedDims)
      os << "      [[maybe_unused]] const int i" << d << " = 0;\n";
    SmallVector<Value> values = llvm::to_vector(llvm::make_second_range(rowResults));
    if (failed(emitSlice(values, "      ")))
      return failure();
    for (auto [index, value] : rowResults)
      os << "      out" << index << "[row] = " << element.get(value) << ";\n";
    os << "    }\n";
  }
  os << "  }\n};\n\n";

  beginKernel(fusion, name, summary, {planned->getGrid()[0], 1, 1}, {}, planned->getThreads());
  os << "  solder::reduceApplyWarpPerRow(" << name << "_region" << getRegionInitializer(fusion)
     << ");\n}\n\n";
  return success();
}
