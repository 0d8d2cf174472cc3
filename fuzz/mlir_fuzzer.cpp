//===- mlir_fuzzer.cpp - libFuzzer target: parse, verify, pipeline, emit --===//
//
// Any text as solder IR: the parser and the verifiers must reject it with
// diagnostics; what verifies must go through the whole pipeline (decompose,
// simplify, form-fusions, plan) and verify again, and what is planned must
// be emitted as CUDA or refused by the code generator with a diagnostic,
// as solder-compile does, never crash. Each input runs twice: ieee with the
// main loops the planner picks, and tf32 with the FMA loop, so that both
// kinds of conv kernel and both precisions' epilogues are emitted.
// Diagnostics are swallowed: failing is fine, aborting is not.
//
//===----------------------------------------------------------------------===//

#include "solder/Codegen/CUDA/EmitCUDA.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"
#include "solder/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

using namespace mlir;

static void compile(ModuleOp module,
                    const mlir::solder::PipelineOptions &options) {
  PassManager pm(module.getContext());
  mlir::solder::buildSolderPipeline(pm, options);
  if (failed(pm.run(module)))
    return;
  if (failed(verify(module)))
    __builtin_trap(); // the pipeline succeeded with invalid IR
  // solder-compile emits a module of one function.
  auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
  if (functions.size() == 1)
    (void)mlir::solder::emitCuda(functions.front());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry();
    mlir::solder::registerAllDialects(*registry);
    return registry;
  }();
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  // MLIR's lexer reads up to a NUL terminator, as every file buffer has:
  // the fuzzer's bytes are not terminated, a std::string's are.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;
  OwningOpRef<ModuleOp> copy = module->clone();
  mlir::solder::PipelineOptions tf32Fma;
  tf32Fma.precision = "tf32";
  tf32Fma.mainLoop = "fma";
  compile(*module, mlir::solder::PipelineOptions{});
  compile(*copy, tf32Fma);
  return 0;
}
