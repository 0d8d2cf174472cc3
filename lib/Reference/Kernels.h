//===- Kernels.h - Reference implementations of the solder ops --*- C++ -*-===//
//
// One function per op family; each takes the op and its operand tensors and
// returns the result tensors. The interpreter dispatches to them.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_LIB_REFERENCE_KERNELS_H
#define SOLDER_LIB_REFERENCE_KERNELS_H

#include "solder/Dialect/Solder/IR/SolderOps.h"
#include "solder/Reference/Interpreter.h"

namespace mlir::solder::reference {

/// Row-major strides of `shape`.
SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape);

Tensor evalConv(ConvOp op, const Tensor &input, const Tensor &weight,
                const Tensor *bias);
Tensor evalConvTranspose(ConvTransposeOp op, const Tensor &input,
                         const Tensor &weight, const Tensor *bias);

/// Normalizes per group of `numGroups` over the samples (acrossBatch) or per
/// sample: the shared core of all the norms.
Tensor evalGroupStats(const Tensor &input, int64_t numGroups, double epsilon,
                      bool acrossBatch);
Tensor evalGroupNormalize(const Tensor &input, const Tensor &stats,
                          const Tensor *weight, const Tensor *bias);
Tensor evalLayerNorm(LayerNormOp op, const Tensor &input, const Tensor *weight,
                     const Tensor *bias);

/// Unary pointwise ops; fails (null) on an op that is not one.
FailureOr<Tensor> evalUnary(Operation *op, const Tensor &x);
/// Binary pointwise ops with broadcasting to `resultShape`.
FailureOr<Tensor> evalBinary(Operation *op, const Tensor &lhs,
                             const Tensor &rhs, ArrayRef<int64_t> resultShape);

Tensor evalReduce(ReduceOp op, const Tensor &x);
Tensor evalSoftmax(const Tensor &x, int64_t dim, bool log);
Tensor evalPool(PoolOp op, const Tensor &x);
Tensor evalAdaptivePool(AdaptivePoolOp op, const Tensor &x);

} // namespace mlir::solder::reference

#endif // SOLDER_LIB_REFERENCE_KERNELS_H
