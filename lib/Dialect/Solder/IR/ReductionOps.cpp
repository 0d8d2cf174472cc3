//===- ReductionOps.cpp - reduce, softmax, pool: shapes and verifiers -----===//

#include "Verification.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::detail;

FailureOr<RankedTensorType>
ReduceOp::inferResultType(RankedTensorType x, ArrayRef<int64_t> dims,
                          bool keepdim, EmitErrorFn emitError) {
  Diag diag(emitError);
  if (dims.empty())
    return diag.fail("dims must not be empty");
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= x.getRank())
      return diag.fail("dim ", dim, " is out of range for rank ", x.getRank());
    if (i > 0 && dim <= dims[i - 1])
      return diag.fail("dims must be strictly increasing, got ",
                       formatList(dims));
  }
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < x.getRank(); ++dim) {
    if (!llvm::is_contained(dims, dim))
      shape.push_back(x.getDimSize(dim));
    else if (keepdim)
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, x.getElementType());
}

void ReduceOp::build(OpBuilder &builder, OperationState &state,
                     ReduceKind kind, Value x, ArrayRef<int64_t> dims,
                     bool keepdim) {
  RankedTensorType resultType =
      inferResultType(cast<RankedTensorType>(x.getType()), dims, keepdim,
                      nullptr)
          .value();
  build(builder, state, resultType, x, kind, dims, keepdim);
}

LogicalResult ReduceOp::verify() {
  auto emitError = [&] { return emitOpError(); };
  if (failed(checkSameElementType(Diag(emitError),
                                  {getX().getType(), getResult().getType()})))
    return failure();
  FailureOr<RankedTensorType> inferred =
      inferResultType(getX().getType(), getDims(), getKeepdim(), emitError);
  if (failed(inferred))
    return failure();
  return checkResultType(*this, *inferred);
}

/// softmax and log_softmax: `dim` must name a dim of `x`.
static LogicalResult verifySoftmaxDim(Operation *op, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  if (dim < 0 || dim >= rank)
    return op->emitOpError("dim ")
           << dim << " is out of range for rank " << rank;
  return success();
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxDim(*this, getDim()); }
LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxDim(*this, getDim());
}

FailureOr<RankedTensorType> PoolOp::inferResultType(
    RankedTensorType x, PoolKind kind, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
    ArrayRef<int64_t> dilations, bool ceilMode, EmitErrorFn emitError) {
  Diag diag(emitError);
  if (failed(checkBatchChannelSpatialRank(diag, "input", x)))
    return failure();
  int64_t numSpatialDims = x.getRank() - 2;
  if (failed(checkSpatialArray(diag, "kernel", kernel, numSpatialDims, 1)) ||
      failed(checkSpatialArray(diag, "strides", strides, numSpatialDims, 1)) ||
      failed(checkSpatialArray(diag, "padding", padding, numSpatialDims, 0)) ||
      failed(checkSpatialArray(diag, "dilations", dilations, numSpatialDims, 1)))
    return failure();
  if (kind == PoolKind::avg && llvm::any_of(dilations, [](int64_t d) {
        return d != 1;
      }))
    return diag.fail("avg pooling needs all dilations to be 1, got ",
                     formatList(dilations));

  SmallVector<int64_t> shape = {x.getDimSize(0), x.getDimSize(1)};
  for (int64_t i = 0; i < numSpatialDims; ++i) {
    // PyTorch bounds the padding by the undilated kernel.
    if (padding[i] > kernel[i] / 2)
      return diag.fail("padding (", padding[i], ") of spatial dim ", i,
                       " must be at most half the kernel (", kernel[i], ")");
    int64_t input = x.getDimSize(i + 2);
    std::optional<int64_t> window = checkedSum({{dilations[i], kernel[i] - 1}, {1, 1}});
    std::optional<int64_t> padded = checkedSum({{1, input}, {2, padding[i]}});
    if (!window || !padded)
      return diag.fail("the size of spatial dim ", i, " overflows 64-bit arithmetic");
    int64_t extent = *padded - *window;
    if (extent < 0)
      return diag.fail("window (", *window, ") of spatial dim ", i,
                       " does not fit the padded input (", *padded, ")");
    int64_t size = (ceilMode ? llvm::divideCeil(extent, strides[i])
                             : extent / strides[i]) +
                   1;
    // PyTorch drops a last window that would start inside the right padding.
    if (ceilMode && (size - 1) * strides[i] >= input + padding[i])
      --size;
    shape.push_back(size);
  }
  return RankedTensorType::get(shape, x.getElementType());
}

LogicalResult PoolOp::verify() {
  auto emitError = [&] { return emitOpError(); };
  if (failed(checkSameElementType(Diag(emitError),
                                  {getX().getType(), getResult().getType()})))
    return failure();
  FailureOr<RankedTensorType> inferred = inferResultType(
      getX().getType(), getKind(), getKernel(), getStrides(), getPadding(),
      getDilations(), getCeilMode(), emitError);
  if (failed(inferred))
    return failure();
  if (std::optional<int64_t> divisor = getDivisorOverride()) {
    if (getKind() != PoolKind::avg)
      return emitOpError("divisor_override is for avg pooling only");
    if (*divisor <= 0)
      return emitOpError("divisor_override must be positive, got ") << *divisor;
  }
  return checkResultType(*this, *inferred);
}

LogicalResult AdaptivePoolOp::verify() {
  auto emitError = [&] { return emitOpError(); };
  Diag diag(emitError);
  RankedTensorType x = getX().getType(), result = getType();
  if (failed(checkSameElementType(diag, {x, result})) ||
      failed(checkBatchChannelSpatialRank(diag, "x", x)))
    return failure();
  if (result.getRank() != x.getRank() || result.getShape().take_front(2) != x.getShape().take_front(2))
    return emitOpError("result must keep the input's batch and channels and have its rank, got ")
           << result << " for " << x;
  if (llvm::is_contained(x.getShape().drop_front(2), 0))
    return emitOpError("input spatial sizes must be at least 1, got ")
           << formatList(x.getShape().drop_front(2));
  if (llvm::is_contained(result.getShape().drop_front(2), 0))
    return emitOpError("output sizes must be at least 1, got ")
           << formatList(result.getShape().drop_front(2));
  return success();
}
