//===- Verification.h - Helpers shared by the op verifiers ------*- C++ -*-===//
//
// Shape-inference functions report problems through an `EmitErrorFn`: the op's
// emitOpError when verifying, null when a builder or pass only asks whether a
// type can be inferred. `Diag` hides that difference.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_LIB_DIALECT_SOLDER_IR_VERIFICATION_H
#define SOLDER_LIB_DIALECT_SOLDER_IR_VERIFICATION_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <optional>
#include <string>

namespace mlir::solder::detail {

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

/// Emits through `emitError` when it is set; always yields failure. Holds a
/// function_ref: bind the callable to a named variable that outlives the Diag.
class Diag {
public:
  explicit Diag(EmitErrorFn emitError) : emitError(emitError) {}

  /// Starts a diagnostic; streams into it are dropped when silent.
  template <typename... Args> LogicalResult fail(Args &&...args) const {
    if (emitError) {
      InFlightDiagnostic diag = emitError();
      (diag << ... << std::forward<Args>(args));
    }
    return failure();
  }

private:
  EmitErrorFn emitError;
};

/// "(128, 24, 22)" for a shape or an attribute array.
std::string formatList(ArrayRef<int64_t> values);

/// Checks that an array attribute has one entry per spatial dim and that every
/// entry is at least `minValue`.
LogicalResult checkSpatialArray(const Diag &diag, StringRef name,
                                ArrayRef<int64_t> values, int64_t numSpatialDims,
                                int64_t minValue);

/// Checks that an (N, C, *spatial) operand has 1 to 3 spatial dims.
LogicalResult checkBatchChannelSpatialRank(const Diag &diag, StringRef what,
                                           RankedTensorType type);

/// Checks that `type`, when present, is a 1-d tensor of `size` elements.
LogicalResult checkPerChannelParameter(const Diag &diag, StringRef name,
                                       RankedTensorType type, int64_t size);

/// Checks that every given type has the element type of the first one.
LogicalResult checkSameElementType(const Diag &diag, TypeRange types);

/// Checks that the op's single result has type `inferred`.
LogicalResult checkResultType(Operation *op, Type inferred);

/// The type of an optional tensor value, or null.
RankedTensorType getTensorTypeOrNull(Value value);

/// The sum of factor * value terms, or nothing when a product or a partial
/// sum overflows int64: output sizes from user attributes and shapes.
inline std::optional<int64_t>
checkedSum(std::initializer_list<std::pair<int64_t, int64_t>> terms) {
  int64_t sum = 0;
  for (auto [factor, value] : terms) {
    std::optional<int64_t> product = llvm::checkedMul(factor, value);
    std::optional<int64_t> next =
        product ? llvm::checkedAdd(sum, *product) : std::nullopt;
    if (!next)
      return std::nullopt;
    sum = *next;
  }
  return sum;
}

} // namespace mlir::solder::detail

#endif // SOLDER_LIB_DIALECT_SOLDER_IR_VERIFICATION_H
