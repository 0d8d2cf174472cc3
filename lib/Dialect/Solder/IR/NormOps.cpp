//===- NormOps.cpp - Normalization ops: verifiers -------------------------===//

#include "Verification.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::detail;

/// Checks what every normalization shares: one element type, the result typed
/// like the input, a non-negative epsilon, and `weight`/`bias` of
/// `parameterShape`.
static LogicalResult verifyNormCommon(Operation *op, Value input, Value weight,
                                      Value bias, float epsilon,
                                      ArrayRef<int64_t> parameterShape) {
  Diag diag([op] { return op->emitOpError(); });
  SmallVector<Type> types = {input.getType(), op->getResult(0).getType()};
  for (Value parameter : {weight, bias})
    if (parameter)
      types.push_back(parameter.getType());
  if (failed(checkSameElementType(diag, types)))
    return failure();
  if (!(epsilon >= 0.0f))
    return diag.fail("epsilon must be non-negative, got ", epsilon);
  std::pair<StringRef, Value> parameters[] = {{"weight", weight},
                                              {"bias", bias}};
  for (auto [name, parameter] : parameters) {
    if (!parameter)
      continue;
    auto type = cast<RankedTensorType>(parameter.getType());
    if (type.getShape() != parameterShape)
      return diag.fail(name, " must have shape ", formatList(parameterShape),
                       ", got ", type);
  }
  return checkResultType(op, input.getType());
}

/// Statistics need at least two values, or the variance is undefined (PyTorch
/// rejects this case for batch_norm in training mode and instance_norm).
static LogicalResult checkValuesPerStatistic(Operation *op,
                                             RankedTensorType input,
                                             ArrayRef<int64_t> reducedDims) {
  int64_t count = 1;
  for (int64_t dim : reducedDims)
    count *= input.getDimSize(dim);
  if (count > 1)
    return success();
  return op->emitOpError("needs more than one value per statistic, got ")
         << count << " for input " << formatList(input.getShape());
}

LogicalResult GroupNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() < 2)
    return emitOpError("input must have rank at least 2 (N, C, *), got rank ")
           << input.getRank();
  int64_t channels = input.getDimSize(1);
  if (getNumGroups() < 1)
    return emitOpError("num_groups must be at least 1, got ")
           << getNumGroups();
  if (channels % getNumGroups() != 0)
    return emitOpError("channels (")
           << channels << ") must be divisible by num_groups ("
           << getNumGroups() << ")";
  return verifyNormCommon(*this, getInput(), getWeight(), getBias(),
                          getEpsilon().convertToFloat(), {channels});
}

LogicalResult BatchNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() < 2)
    return emitOpError("input must have rank at least 2 (N, C, *), got rank ")
           << input.getRank();
  SmallVector<int64_t> reducedDims = {0};
  for (int64_t dim = 2; dim < input.getRank(); ++dim)
    reducedDims.push_back(dim);
  if (failed(checkValuesPerStatistic(*this, input, reducedDims)))
    return failure();
  return verifyNormCommon(*this, getInput(), getWeight(), getBias(),
                          getEpsilon().convertToFloat(),
                          {input.getDimSize(1)});
}

LogicalResult InstanceNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() < 3)
    return emitOpError("input must have rank at least 3 (N, C, *spatial), got "
                       "rank ")
           << input.getRank();
  SmallVector<int64_t> reducedDims;
  for (int64_t dim = 2; dim < input.getRank(); ++dim)
    reducedDims.push_back(dim);
  if (failed(checkValuesPerStatistic(*this, input, reducedDims)))
    return failure();
  return verifyNormCommon(*this, getInput(), getWeight(), getBias(),
                          getEpsilon().convertToFloat(),
                          {input.getDimSize(1)});
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType input = getInput().getType();
  ArrayRef<int64_t> normalizedShape = getNormalizedShape();
  if (normalizedShape.empty())
    return emitOpError("normalized_shape must not be empty");
  if (static_cast<int64_t>(normalizedShape.size()) > input.getRank() ||
      input.getShape().take_back(normalizedShape.size()) != normalizedShape)
    return emitOpError("normalized_shape ")
           << formatList(normalizedShape)
           << " must equal the trailing dims of the input "
           << formatList(input.getShape());
  return verifyNormCommon(*this, getInput(), getWeight(), getBias(),
                          getEpsilon().convertToFloat(), normalizedShape);
}
