//===- SolderDialect.cpp - The solder dialect -----------------------------===//

#include "solder/Dialect/Solder/IR/SolderDialect.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::solder;

#include "solder/Dialect/Solder/IR/SolderOpsDialect.cpp.inc"

#include "solder/Dialect/Solder/IR/SolderEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "solder/Dialect/Solder/IR/SolderAttrs.cpp.inc"

void SolderDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "solder/Dialect/Solder/IR/SolderAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "solder/Dialect/Solder/IR/SolderOps.cpp.inc"
      >();
}

LogicalResult mlir::solder::verifyTensorSizes(Operation *op) {
  auto check = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return success();
    int64_t elements = 1;
    for (int64_t dim : tensor.getShape())
      if (llvm::MulOverflow(elements, dim, elements) || elements > kMaxTensorElements)
        return op->emitOpError("takes or yields ")
               << type << ": more than 2^40 elements, larger than any GPU";
    return success();
  };
  for (Type type : op->getOperandTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(check(type)))
      return failure();
  return success();
}
