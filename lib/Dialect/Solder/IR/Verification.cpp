//===- Verification.cpp - Helpers shared by the op verifiers --------------===//

#include "Verification.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::solder::detail;

std::string mlir::solder::detail::formatList(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  llvm::interleaveComma(values, os);
  os << ')';
  return text;
}

LogicalResult mlir::solder::detail::checkSpatialArray(
    const Diag &diag, StringRef name, ArrayRef<int64_t> values,
    int64_t numSpatialDims, int64_t minValue) {
  if (static_cast<int64_t>(values.size()) != numSpatialDims)
    return diag.fail("'", name, "' must have ", numSpatialDims,
                     " entries (one per spatial dim), got ", values.size());
  for (int64_t value : values)
    if (value < minValue)
      return diag.fail("'", name, "' entries must be at least ", minValue,
                       ", got ", formatList(values));
  return success();
}

LogicalResult
mlir::solder::detail::checkBatchChannelSpatialRank(const Diag &diag,
                                                   StringRef what,
                                                   RankedTensorType type) {
  if (type.getRank() < 3 || type.getRank() > 5)
    return diag.fail(what, " must have rank 3 to 5 (N, C and 1 to 3 spatial "
                           "dims), got rank ",
                     type.getRank());
  return success();
}

LogicalResult mlir::solder::detail::checkPerChannelParameter(
    const Diag &diag, StringRef name, RankedTensorType type, int64_t size) {
  if (!type || (type.getRank() == 1 && type.getDimSize(0) == size))
    return success();
  return diag.fail(name, " must have shape (", size, "), got ", type);
}

LogicalResult mlir::solder::detail::checkSameElementType(const Diag &diag,
                                                         TypeRange types) {
  Type expected = getElementTypeOrSelf(types.front());
  for (Type type : types.drop_front())
    if (getElementTypeOrSelf(type) != expected)
      return diag.fail("operands and result must have one element type, got ",
                       expected, " and ", getElementTypeOrSelf(type));
  return success();
}

LogicalResult mlir::solder::detail::checkResultType(Operation *op,
                                                    Type inferred) {
  Type actual = op->getResult(0).getType();
  if (actual == inferred)
    return success();
  return op->emitOpError("result type ")
         << actual << " does not match the inferred type " << inferred;
}

RankedTensorType mlir::solder::detail::getTensorTypeOrNull(Value value) {
  return value ? cast<RankedTensorType>(value.getType()) : RankedTensorType();
}
