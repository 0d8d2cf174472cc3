//===- SolderOps.h - Ops of the solder dialect ------------------*- C++ -*-===//

#ifndef SOLDER_DIALECT_SOLDER_IR_SOLDEROPS_H
#define SOLDER_DIALECT_SOLDER_IR_SOLDEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "solder/Dialect/Solder/IR/SolderDialect.h"

namespace mlir::solder {

/// The type PyTorch's broadcasting gives `lhs op rhs`, or a diagnostic through
/// `emitError` (null: fail silently) when the shapes are incompatible.
FailureOr<RankedTensorType>
inferBroadcastType(RankedTensorType lhs, RankedTensorType rhs,
                   function_ref<InFlightDiagnostic()> emitError);

/// No tensor an op takes or yields holds more than 2^40 elements (4 TiB of
/// floats: larger than any GPU), so element counts and byte sizes computed
/// anywhere after verification fit in int64.
constexpr int64_t kMaxTensorElements = int64_t(1) << 40;
LogicalResult verifyTensorSizes(Operation *op);

/// The trait every solder op carries (Solder_Op): verifyTensorSizes.
template <typename ConcreteType>
class TensorSizeLimit : public OpTrait::TraitBase<ConcreteType, TensorSizeLimit> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifyTensorSizes(op); }
};

/// The main loop's name in reports and bundle manifests ("direct_3xtf32",
/// "tensorop_tf32", "fma", ...).
StringRef getMainLoopName(MainLoopKind mainLoop, TensorMath math);

} // namespace mlir::solder

#define GET_OP_CLASSES
#include "solder/Dialect/Solder/IR/SolderOps.h.inc"

#endif // SOLDER_DIALECT_SOLDER_IR_SOLDEROPS_H
