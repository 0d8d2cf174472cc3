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
  auto emitError = [op] { return op->emitOpError(); };
  Diag diag(emitError);
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

/// batch_norm and instance_norm: per-channel statistics over the spatial
/// dims, and over the batch too for batch_norm.
static LogicalResult verifyPerChannelNorm(Operation *op, Value input,
                                          Value weight, Value bias,
                                          APFloat epsilon, bool acrossBatch) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t minRank = acrossBatch ? 2 : 3;
  if (type.getRank() < minRank)
    return op->emitOpError("input must have rank at least ")
           << minRank << (acrossBatch ? " (N, C, *)" : " (N, C, *spatial)")
           << ", got rank " << type.getRank();
  SmallVector<int64_t> reducedDims;
  if (acrossBatch)
    reducedDims.push_back(0);
  for (int64_t dim = 2; dim < type.getRank(); ++dim)
    reducedDims.push_back(dim);
  if (failed(checkValuesPerStatistic(op, type, reducedDims)))
    return failure();
  return verifyNormCommon(op, input, weight, bias, epsilon.convertToFloat(),
                          {type.getDimSize(1)});
}

LogicalResult BatchNormOp::verify() {
  return verifyPerChannelNorm(*this, getInput(), getWeight(), getBias(),
                              getEpsilon(), /*acrossBatch=*/true);
}

LogicalResult InstanceNormOp::verify() {
  return verifyPerChannelNorm(*this, getInput(), getWeight(), getBias(),
                              getEpsilon(), /*acrossBatch=*/false);
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

//===----------------------------------------------------------------------===//
// group_stats and group_normalize (internal)
//===----------------------------------------------------------------------===//

/// The (N or 1, G, 2) statistics type of `input`.
static RankedTensorType getGroupStatsType(RankedTensorType input,
                                          int64_t numGroups, bool acrossBatch) {
  return RankedTensorType::get(
      {acrossBatch ? 1 : input.getDimSize(0), numGroups, 2},
      input.getElementType());
}

void GroupStatsOp::build(OpBuilder &builder, OperationState &state,
                         Value input, int64_t numGroups, APFloat epsilon,
                         bool acrossBatch) {
  auto inputType = cast<RankedTensorType>(input.getType());
  build(builder, state, getGroupStatsType(inputType, numGroups, acrossBatch),
        input, numGroups, epsilon, acrossBatch);
}

/// Checks that `channels` split into `numGroups` groups.
static LogicalResult checkGroups(Operation *op, RankedTensorType input,
                                 int64_t numGroups) {
  if (input.getRank() < 2)
    return op->emitOpError(
               "input must have rank at least 2 (N, C, *), got rank ")
           << input.getRank();
  if (numGroups < 1 || input.getDimSize(1) % numGroups != 0)
    return op->emitOpError("channels (")
           << input.getDimSize(1) << ") must split into " << numGroups
           << " groups";
  return success();
}

LogicalResult GroupStatsOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(checkGroups(*this, input, getNumGroups())))
    return failure();
  if (!(getEpsilon().convertToFloat() >= 0.0f))
    return emitOpError("epsilon must be non-negative, got ")
           << getEpsilon().convertToFloat();
  return checkResultType(
      *this, getGroupStatsType(input, getNumGroups(), getAcrossBatch()));
}

LogicalResult GroupNormalizeOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType stats = getStats().getType();
  if (stats.getRank() != 3 || stats.getDimSize(2) != 2 ||
      (stats.getDimSize(0) != 1 &&
       (input.getRank() < 1 || stats.getDimSize(0) != input.getDimSize(0))))
    return emitOpError("stats must have shape (N, G, 2) or (1, G, 2), got ")
           << stats;
  if (failed(checkGroups(*this, input, stats.getDimSize(1))))
    return failure();
  auto emitError = [this] { return emitOpError(); };
  Diag diag(emitError);
  SmallVector<Type> types = {input, stats, getResult().getType()};
  for (Value parameter : {getWeight(), getBias()})
    if (parameter)
      types.push_back(parameter.getType());
  if (failed(checkSameElementType(diag, types)) ||
      failed(checkPerChannelParameter(diag, "weight",
                                      getTensorTypeOrNull(getWeight()),
                                      input.getDimSize(1))) ||
      failed(checkPerChannelParameter(diag, "bias",
                                      getTensorTypeOrNull(getBias()),
                                      input.getDimSize(1))))
    return failure();
  return checkResultType(*this, input);
}
