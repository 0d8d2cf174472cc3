//===- PointwiseOps.cpp - Unary and binary pointwise ops: verifiers -------===//

#include "Verification.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::detail;

FailureOr<RankedTensorType>
mlir::solder::inferBroadcastType(RankedTensorType lhs, RankedTensorType rhs,
                                 EmitErrorFn emitError) {
  Diag diag(emitError);
  if (lhs.getElementType() != rhs.getElementType())
    return diag.fail("operands must have one element type, got ",
                     lhs.getElementType(), " and ", rhs.getElementType());
  // Align at the trailing dims; a missing leading dim acts as a 1.
  int64_t rank = std::max(lhs.getRank(), rhs.getRank());
  SmallVector<int64_t> shape(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t lhsDim = i < rank - lhs.getRank()
                         ? 1
                         : lhs.getDimSize(i - (rank - lhs.getRank()));
    int64_t rhsDim = i < rank - rhs.getRank()
                         ? 1
                         : rhs.getDimSize(i - (rank - rhs.getRank()));
    if (lhsDim != rhsDim && lhsDim != 1 && rhsDim != 1)
      return diag.fail("operands are not broadcast-compatible: ",
                       formatList(lhs.getShape()), " and ",
                       formatList(rhs.getShape()), " differ at result dim ", i,
                       " (", lhsDim, " vs ", rhsDim, ")");
    shape[i] = lhsDim == 1 ? rhsDim : lhsDim;
  }
  return RankedTensorType::get(shape, lhs.getElementType());
}

/// Shared verifier of the binary ops (ODS classes share no C++ base).
static LogicalResult verifyBinaryOp(Operation *op) {
  FailureOr<RankedTensorType> inferred = inferBroadcastType(
      cast<RankedTensorType>(op->getOperand(0).getType()),
      cast<RankedTensorType>(op->getOperand(1).getType()),
      [op] { return op->emitOpError(); });
  if (failed(inferred))
    return failure();
  return checkResultType(op, *inferred);
}

LogicalResult AddOp::verify() { return verifyBinaryOp(*this); }
LogicalResult SubOp::verify() { return verifyBinaryOp(*this); }
LogicalResult MulOp::verify() { return verifyBinaryOp(*this); }
LogicalResult DivOp::verify() { return verifyBinaryOp(*this); }
LogicalResult MaximumOp::verify() { return verifyBinaryOp(*this); }
LogicalResult MinimumOp::verify() { return verifyBinaryOp(*this); }
LogicalResult PowOp::verify() { return verifyBinaryOp(*this); }

LogicalResult SoftplusOp::verify() {
  if (getBeta().isZero())
    return emitOpError("beta must be non-zero");
  return success();
}

LogicalResult HardtanhOp::verify() {
  // NaN compares false with everything: min > max would let it through.
  if (getMin().isNaN() || getMax().isNaN())
    return emitOpError("bounds must not be NaN");
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError("min (")
           << getMin().convertToFloat() << ") must not exceed max ("
           << getMax().convertToFloat() << ")";
  return success();
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs at least one of min and max");
  if ((getMin() && getMin()->isNaN()) || (getMax() && getMax()->isNaN()))
    return emitOpError("bounds must not be NaN");
  return success();
}
