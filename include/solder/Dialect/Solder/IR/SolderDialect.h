//===- SolderDialect.h - The solder dialect ---------------------*- C++ -*-===//

#ifndef SOLDER_DIALECT_SOLDER_IR_SOLDERDIALECT_H
#define SOLDER_DIALECT_SOLDER_IR_SOLDERDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "solder/Dialect/Solder/IR/SolderOpsDialect.h.inc"

#include "solder/Dialect/Solder/IR/SolderEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "solder/Dialect/Solder/IR/SolderAttrs.h.inc"

#endif // SOLDER_DIALECT_SOLDER_IR_SOLDERDIALECT_H
