//===- ShapeOps.cpp - reshape: verifier and folder ------------------------===//

#include "Verification.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::detail;

LogicalResult ReshapeOp::verify() {
  auto emitError = [&] { return emitOpError(); };
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  if (failed(checkSameElementType(Diag(emitError), {input, result})))
    return failure();
  if (input.getNumElements() != result.getNumElements())
    return emitOpError("needs the same number of elements in and out, got ")
           << input.getNumElements() << " (" << input << ") and " << result.getNumElements()
           << " (" << result << ")";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A reshape of a reshape sees the first input's elements.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}
