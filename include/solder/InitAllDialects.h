//===- InitAllDialects.h - The dialects Solder's tools read -----*- C++ -*-===//
//
// solder IR plus what surrounds it in importer output: func, arith
// (constants) and tensor. Every tool registers the same set.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_INITALLDIALECTS_H
#define SOLDER_INITALLDIALECTS_H

#include "solder/Dialect/Solder/IR/SolderDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::solder {

inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<SolderDialect, arith::ArithDialect, func::FuncDialect,
                  tensor::TensorDialect>();
}

} // namespace mlir::solder

#endif // SOLDER_INITALLDIALECTS_H
