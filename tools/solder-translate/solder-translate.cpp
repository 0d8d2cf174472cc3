//===- solder-translate.cpp - Planned solder IR to CUDA C++ ---------------===//
//
//   solder-opt chain.mlir --solder-pipeline | solder-translate --emit-cuda
//
//===----------------------------------------------------------------------===//

#include "solder/Codegen/CUDA/EmitCUDA.h"
#include "solder/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration emitCuda(
      "emit-cuda", "print each planned function as CUDA C++ kernels",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module");
        for (auto function : module.getOps<func::FuncOp>()) {
          FailureOr<mlir::solder::CudaProgram> program = mlir::solder::emitCuda(function);
          if (failed(program))
            return failure();
          os << program->source;
        }
        return success();
      },
      [](DialectRegistry &registry) {
        mlir::solder::registerAllDialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "Solder translation tool"));
}
