//===- PointwiseKernels.cpp - Reference unary and binary ops --------------===//
//
// PyTorch's formulas, evaluated in double; NaN propagates through every op
// (relu, clamp and maximum/minimum included, as in PyTorch).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::reference;

using UnaryFn = std::function<double(double)>;

/// min(max(x, low), high) that lets NaN through.
static double clampNaN(double x, double low, double high) {
  if (std::isnan(x))
    return x;
  return std::min(std::max(x, low), high);
}

static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

static std::optional<UnaryFn> getUnaryFunction(Operation *op) {
  return TypeSwitch<Operation *, std::optional<UnaryFn>>(op)
      .Case([](ReluOp) { return UnaryFn([](double x) {
              return clampNaN(x, 0.0, INFINITY); }); })
      .Case([](TanhOp) { return UnaryFn([](double x) { return std::tanh(x); }); })
      .Case([](SigmoidOp) { return UnaryFn(sigmoid); })
      .Case([](SiluOp) { return UnaryFn([](double x) { return x * sigmoid(x); }); })
      .Case([](MishOp) { return UnaryFn([](double x) {
              return x * std::tanh(std::log1p(std::exp(x))); }); })
      .Case([](HardswishOp) { return UnaryFn([](double x) {
              return x * clampNaN(x + 3.0, 0.0, 6.0) / 6.0; }); })
      .Case([](HardsigmoidOp) { return UnaryFn([](double x) {
              return clampNaN(x + 3.0, 0.0, 6.0) / 6.0; }); })
      .Case([](ExpOp) { return UnaryFn([](double x) { return std::exp(x); }); })
      .Case([](LogOp) { return UnaryFn([](double x) { return std::log(x); }); })
      .Case([](AbsOp) { return UnaryFn([](double x) { return std::fabs(x); }); })
      .Case([](NegOp) { return UnaryFn([](double x) { return -x; }); })
      .Case([](SqrtOp) { return UnaryFn([](double x) { return std::sqrt(x); }); })
      .Case([](RsqrtOp) { return UnaryFn([](double x) {
              return 1.0 / std::sqrt(x); }); })
      .Case([](LeakyReluOp op) {
        double alpha = op.getAlpha().convertToDouble();
        return UnaryFn([alpha](double x) { return x > 0 ? x : x * alpha; });
      })
      .Case([](EluOp op) {
        double alpha = op.getAlpha().convertToDouble();
        return UnaryFn([alpha](double x) {
          return x > 0 ? x : alpha * std::expm1(x);
        });
      })
      .Case([](SoftplusOp op) {
        double beta = op.getBeta().convertToDouble();
        double threshold = op.getThreshold().convertToDouble();
        return UnaryFn([beta, threshold](double x) {
          return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
        });
      })
      .Case([](GeluOp op) {
        if (op.getApproximate() == GeluApproximation::tanh)
          return UnaryFn([](double x) {
            double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
            return 0.5 * x * (1.0 + std::tanh(inner));
          });
        return UnaryFn([](double x) {
          return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        });
      })
      .Case([](HardtanhOp op) {
        double low = op.getMin().convertToDouble();
        double high = op.getMax().convertToDouble();
        return UnaryFn([low, high](double x) { return clampNaN(x, low, high); });
      })
      .Case([](ClampOp op) {
        double low = op.getMin() ? op.getMin()->convertToDouble() : -INFINITY;
        double high = op.getMax() ? op.getMax()->convertToDouble() : INFINITY;
        return UnaryFn([low, high](double x) { return clampNaN(x, low, high); });
      })
      .Default([](Operation *) { return std::nullopt; });
}

FailureOr<Tensor> mlir::solder::reference::evalUnary(Operation *op,
                                                     const Tensor &x) {
  std::optional<UnaryFn> function = getUnaryFunction(op);
  if (!function)
    return failure();
  Tensor result(x.shape);
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
    result.data[i] = (*function)(x.data[i]);
  return result;
}

using BinaryFn = double (*)(double, double);

static std::optional<BinaryFn> getBinaryFunction(Operation *op) {
  return TypeSwitch<Operation *, std::optional<BinaryFn>>(op)
      .Case([](AddOp) { return BinaryFn([](double a, double b) { return a + b; }); })
      .Case([](SubOp) { return BinaryFn([](double a, double b) { return a - b; }); })
      .Case([](MulOp) { return BinaryFn([](double a, double b) { return a * b; }); })
      .Case([](DivOp) { return BinaryFn([](double a, double b) { return a / b; }); })
      .Case([](PowOp) { return BinaryFn([](double a, double b) { return std::pow(a, b); }); })
      .Case([](MaximumOp) {
        return BinaryFn([](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
        });
      })
      .Case([](MinimumOp) {
        return BinaryFn([](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
        });
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Strides that read `shape` broadcast to a result of rank `rank`: 0 along
/// broadcast dims.
static SmallVector<int64_t> getBroadcastStrides(ArrayRef<int64_t> shape,
                                                int64_t rank) {
  SmallVector<int64_t> strides = getStrides(shape);
  SmallVector<int64_t> result(rank, 0);
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  for (int64_t i = 0, e = shape.size(); i < e; ++i)
    result[offset + i] = shape[i] == 1 ? 0 : strides[i];
  return result;
}

FailureOr<Tensor> mlir::solder::reference::evalBinary(
    Operation *op, const Tensor &lhs, const Tensor &rhs,
    ArrayRef<int64_t> resultShape) {
  std::optional<BinaryFn> function = getBinaryFunction(op);
  if (!function)
    return failure();
  int64_t rank = resultShape.size();
  SmallVector<int64_t> lhsStrides = getBroadcastStrides(lhs.shape, rank);
  SmallVector<int64_t> rhsStrides = getBroadcastStrides(rhs.shape, rank);
  Tensor result(resultShape);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i) {
    int64_t lhsOffset = 0, rhsOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      lhsOffset += index[d] * lhsStrides[d];
      rhsOffset += index[d] * rhsStrides[d];
    }
    result.data[i] = (*function)(lhs.data[lhsOffset], rhs.data[rhsOffset]);
    // Advance the multi-index, last dim fastest.
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == resultShape[d]; --d)
      index[d] = 0;
  }
  return result;
}
