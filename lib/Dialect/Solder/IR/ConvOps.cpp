//===- ConvOps.cpp - conv and conv_transpose: shapes and verifiers --------===//

#include "Verification.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::detail;

/// Checks what conv and conv_transpose share: ranks, the per-spatial-dim
/// attribute arrays, groups dividing the input channels.
static LogicalResult checkConvCommon(const Diag &diag, RankedTensorType input,
                                     RankedTensorType weight,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> padding,
                                     ArrayRef<int64_t> dilations,
                                     int64_t groups) {
  if (failed(checkBatchChannelSpatialRank(diag, "input", input)))
    return failure();
  int64_t numSpatialDims = input.getRank() - 2;
  if (weight.getRank() != input.getRank())
    return diag.fail("weight must have rank ", input.getRank(),
                     " like the input, got rank ", weight.getRank());
  if (failed(checkSpatialArray(diag, "strides", strides, numSpatialDims, 1)) ||
      failed(checkSpatialArray(diag, "padding", padding, numSpatialDims, 0)) ||
      failed(checkSpatialArray(diag, "dilations", dilations, numSpatialDims, 1)))
    return failure();
  for (int64_t i = 2; i < weight.getRank(); ++i)
    if (weight.getDimSize(i) < 1)
      return diag.fail("weight kernel sizes must be at least 1, got ",
                       formatList(weight.getShape().drop_front(2)));
  if (groups < 1)
    return diag.fail("groups must be at least 1, got ", groups);
  int64_t inChannels = input.getDimSize(1);
  if (inChannels % groups != 0)
    return diag.fail("input channels (", inChannels,
                     ") must be divisible by groups (", groups, ")");
  return success();
}

/// The output spatial dims, each checked to be at least 1.
static LogicalResult checkOutputSizes(const Diag &diag,
                                      ArrayRef<int64_t> outputSizes,
                                      RankedTensorType input) {
  for (auto [dim, size] : llvm::enumerate(outputSizes))
    if (size < 1)
      return diag.fail("output size of spatial dim ", dim, " is ", size,
                       " for input ", formatList(input.getShape()),
                       "; it must be at least 1");
  return success();
}

/// Verifies conv or conv_transpose: one element type, then the result type
/// against `infer(bias, emitError)`.
template <typename OpT, typename InferFn>
static LogicalResult verifyConvLike(OpT op, InferFn infer) {
  auto emitError = [&] { return op.emitOpError(); };
  RankedTensorType bias = getTensorTypeOrNull(op.getBias());
  SmallVector<Type> types = {op.getInput().getType(), op.getWeight().getType(),
                             op.getResult().getType()};
  if (bias)
    types.push_back(bias);
  if (failed(checkSameElementType(Diag(emitError), types)))
    return failure();
  FailureOr<RankedTensorType> inferred = infer(bias, emitError);
  if (failed(inferred))
    return failure();
  return checkResultType(op, *inferred);
}

FailureOr<RankedTensorType> ConvOp::inferResultType(
    RankedTensorType input, RankedTensorType weight, RankedTensorType bias,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
    ArrayRef<int64_t> paddingHigh, ArrayRef<int64_t> dilations, int64_t groups,
    EmitErrorFn emitError) {
  Diag diag(emitError);
  if (failed(checkConvCommon(diag, input, weight, strides, padding, dilations,
                             groups)))
    return failure();
  if (paddingHigh.empty())
    paddingHigh = padding;
  else if (failed(checkSpatialArray(diag, "padding_high", paddingHigh,
                                    input.getRank() - 2, 0)))
    return failure();
  int64_t outChannels = weight.getDimSize(0);
  if (outChannels % groups != 0)
    return diag.fail("output channels (weight dim 0 = ", outChannels,
                     ") must be divisible by groups (", groups, ")");
  int64_t inChannelsPerGroup = input.getDimSize(1) / groups;
  if (weight.getDimSize(1) != inChannelsPerGroup)
    return diag.fail("weight dim 1 (", weight.getDimSize(1),
                     ") must equal input channels / groups (",
                     inChannelsPerGroup, ")");
  if (failed(checkPerChannelParameter(diag, "bias", bias, outChannels)))
    return failure();

  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int64_t i = 0, e = input.getRank() - 2; i < e; ++i) {
    int64_t kernel = weight.getDimSize(i + 2);
    // in + padding + padding_high - dilation * (kernel - 1) - 1, in checked
    // arithmetic: attributes and sizes come from the user.
    std::optional<int64_t> extent = checkedSum(
        {{1, input.getDimSize(i + 2)}, {1, padding[i]}, {1, paddingHigh[i]},
         {-dilations[i], kernel - 1}, {-1, 1}});
    if (!extent)
      return diag.fail("the size of spatial dim ", i,
                       " overflows 64-bit arithmetic");
    // Floor division, as PyTorch computes it; a negative extent means no
    // window fits, and the size below 1 is reported.
    shape.push_back(llvm::divideFloorSigned(*extent, strides[i]) + 1);
  }
  if (failed(checkOutputSizes(diag, ArrayRef(shape).drop_front(2), input)))
    return failure();
  return RankedTensorType::get(shape, input.getElementType());
}

void ConvOp::build(OpBuilder &builder, OperationState &state, Value input,
                   Value weight, Value bias, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> padding, ArrayRef<int64_t> dilations,
                   int64_t groups) {
  RankedTensorType resultType =
      inferResultType(cast<RankedTensorType>(input.getType()),
                      cast<RankedTensorType>(weight.getType()),
                      getTensorTypeOrNull(bias), strides, padding, {}, dilations,
                      groups, nullptr)
          .value();
  build(builder, state, resultType, input, weight, bias, strides, padding,
        /*padding_high=*/nullptr, dilations, groups);
}

LogicalResult ConvOp::verify() {
  return verifyConvLike(*this, [&](RankedTensorType bias, EmitErrorFn emitError) {
    return inferResultType(getInput().getType(), getWeight().getType(), bias,
                           getStrides(), getPadding(),
                           getPaddingHigh().value_or(ArrayRef<int64_t>()),
                           getDilations(), getGroups(), emitError);
  });
}

FailureOr<RankedTensorType> ConvTransposeOp::inferResultType(
    RankedTensorType input, RankedTensorType weight, RankedTensorType bias,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
    ArrayRef<int64_t> outputPadding, ArrayRef<int64_t> dilations,
    int64_t groups, EmitErrorFn emitError) {
  Diag diag(emitError);
  if (failed(checkConvCommon(diag, input, weight, strides, padding, dilations,
                             groups)))
    return failure();
  int64_t numSpatialDims = input.getRank() - 2;
  if (failed(checkSpatialArray(diag, "output_padding", outputPadding,
                               numSpatialDims, 0)))
    return failure();
  int64_t inChannels = input.getDimSize(1);
  if (weight.getDimSize(0) != inChannels)
    return diag.fail("weight dim 0 (", weight.getDimSize(0),
                     ") must equal input channels (", inChannels, ")");
  std::optional<int64_t> channels = llvm::checkedMul(weight.getDimSize(1), groups);
  if (!channels)
    return diag.fail("output channels (weight dim 1 times groups) overflow 64-bit "
                     "arithmetic");
  int64_t outChannels = *channels;
  if (failed(checkPerChannelParameter(diag, "bias", bias, outChannels)))
    return failure();

  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int64_t i = 0; i < numSpatialDims; ++i) {
    if (outputPadding[i] >= std::max(strides[i], dilations[i]))
      return diag.fail("output_padding (", outputPadding[i],
                       ") of spatial dim ", i,
                       " must be smaller than its stride (", strides[i],
                       ") or its dilation (", dilations[i], ")");
    int64_t kernel = weight.getDimSize(i + 2);
    // (in - 1) * stride - 2 * padding + dilation * (kernel - 1)
    //   + output_padding + 1, in checked arithmetic.
    std::optional<int64_t> size = checkedSum(
        {{strides[i], input.getDimSize(i + 2) - 1}, {-2, padding[i]},
         {dilations[i], kernel - 1}, {1, outputPadding[i]}, {1, 1}});
    if (!size)
      return diag.fail("the size of spatial dim ", i,
                       " overflows 64-bit arithmetic");
    shape.push_back(*size);
  }
  if (failed(checkOutputSizes(diag, ArrayRef(shape).drop_front(2), input)))
    return failure();
  return RankedTensorType::get(shape, input.getElementType());
}

void ConvTransposeOp::build(OpBuilder &builder, OperationState &state,
                            Value input, Value weight, Value bias,
                            ArrayRef<int64_t> strides,
                            ArrayRef<int64_t> padding,
                            ArrayRef<int64_t> outputPadding,
                            ArrayRef<int64_t> dilations, int64_t groups) {
  RankedTensorType resultType =
      inferResultType(cast<RankedTensorType>(input.getType()),
                      cast<RankedTensorType>(weight.getType()),
                      getTensorTypeOrNull(bias), strides, padding,
                      outputPadding, dilations, groups, nullptr)
          .value();
  build(builder, state, resultType, input, weight, bias, strides, padding,
        outputPadding, dilations, groups);
}

LogicalResult ConvTransposeOp::verify() {
  return verifyConvLike(*this, [&](RankedTensorType bias, EmitErrorFn emitError) {
    return inferResultType(getInput().getType(), getWeight().getType(), bias,
                           getStrides(), getPadding(), getOutputPadding(),
                           getDilations(), getGroups(), emitError);
  });
}
