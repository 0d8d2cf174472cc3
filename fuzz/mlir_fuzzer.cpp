//===- mlir_fuzzer.cpp - libFuzzer target: parse, verify, --solder-pipeline ===//
//
// Any text as solder IR: the parser and the verifiers must reject it with
// diagnostics, and what verifies must go through the whole pipeline
// (decompose, simplify, form-fusions, plan) and verify again, never crash.
// Diagnostics are swallowed: failing is fine, aborting is not.
//
//===----------------------------------------------------------------------===//

#include "solder/Dialect/Solder/Transforms/Passes.h"
#include "solder/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *registry = new mlir::DialectRegistry();
    mlir::solder::registerAllDialects(*registry);
    return registry;
  }();
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  // MLIR's lexer reads up to a NUL terminator, as every file buffer has:
  // the fuzzer's bytes are not terminated, a std::string's are.
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  mlir::solder::buildSolderPipeline(pm, mlir::solder::PipelineOptions{});
  if (mlir::succeeded(pm.run(*module)) && mlir::failed(mlir::verify(*module)))
    __builtin_trap(); // the pipeline succeeded with invalid IR
  return 0;
}
