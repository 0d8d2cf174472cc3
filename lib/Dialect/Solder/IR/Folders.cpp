//===- Folders.cpp - Op folders: identities that remove ops ---------------===//
//
// Each fold returns an existing value and is exact, except that x + 0 -> x
// keeps the sign of a -0 input (PyTorch would give +0); no comparison or
// later op can tell the difference short of 1/x.
//
//===----------------------------------------------------------------------===//

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::solder;

/// Whether `attr` is a constant tensor whose every element equals `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto elements = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  return elements && elements.isSplat() &&
         elements.getSplatValue<APFloat>().convertToDouble() == value;
}

/// `operand` when the op's result has its type (no broadcast hides behind
/// the identity), else null.
static OpFoldResult sameTypeOrNull(Operation *op, Value operand) {
  return op->getResult(0).getType() == operand.getType() ? operand : Value();
}

OpFoldResult ReluOp::fold(FoldAdaptor) {
  // relu is idempotent.
  if (auto inner = getX().getDefiningOp<ReluOp>())
    return getX();
  return {};
}

OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (auto inner = getX().getDefiningOp<AbsOp>())
    return getX();
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    return sameTypeOrNull(*this, getLhs());
  if (isSplatOf(adaptor.getLhs(), 0.0))
    return sameTypeOrNull(*this, getRhs());
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    return sameTypeOrNull(*this, getLhs());
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return sameTypeOrNull(*this, getLhs());
  if (isSplatOf(adaptor.getLhs(), 1.0))
    return sameTypeOrNull(*this, getRhs());
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return sameTypeOrNull(*this, getLhs());
  return {};
}
