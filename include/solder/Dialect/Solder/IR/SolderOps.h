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

} // namespace mlir::solder

#define GET_OP_CLASSES
#include "solder/Dialect/Solder/IR/SolderOps.h.inc"

#endif // SOLDER_DIALECT_SOLDER_IR_SOLDEROPS_H
