//===- solder-opt.cpp - Solder's mlir-opt ---------------------------------===//
//
// Parses, verifies, transforms and prints solder IR: the solder dialect plus
// the func, arith and tensor dialects that surround it in importer output.
//
//===----------------------------------------------------------------------===//

#include "solder/InitAllDialects.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::solder::registerSolderPassesAndPipeline();

  mlir::DialectRegistry registry;
  mlir::solder::registerAllDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Solder optimizer driver\n", registry));
}
