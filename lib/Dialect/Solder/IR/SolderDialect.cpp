//===- SolderDialect.cpp - The solder dialect -----------------------------===//

#include "solder/Dialect/Solder/IR/SolderDialect.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

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
