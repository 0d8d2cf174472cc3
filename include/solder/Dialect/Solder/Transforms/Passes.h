//===- Passes.h - Solder's passes -------------------------------*- C++ -*-===//

#ifndef SOLDER_DIALECT_SOLDER_TRANSFORMS_PASSES_H
#define SOLDER_DIALECT_SOLDER_TRANSFORMS_PASSES_H

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::solder {

#define GEN_PASS_DECL
#include "solder/Dialect/Solder/Transforms/Passes.h.inc"

struct PipelineOptions {
  /// auto, materialize or recompute (see solder-plan).
  std::string force = "auto";
  bool report = false;
  /// ieee or tf32 (see solder-plan).
  std::string precision = "ieee";
  /// auto, tensorop or fma: the conv main loop (see solder-plan).
  std::string mainLoop = "auto";
  /// auto, or a tensor-core tile BMxBNxBK/WMxWN/STAGES (see solder-plan).
  std::string convTile = "auto";
  /// The GPU the kernels are planned for (see solder-plan).
  std::string arch = "sm_90";
};

/// decompose, simplify, form-fusions, plan: the whole fusion pipeline.
void buildSolderPipeline(OpPassManager &pm, const PipelineOptions &options);

#define GEN_PASS_REGISTRATION
#include "solder/Dialect/Solder/Transforms/Passes.h.inc"

/// Registers the passes and `solder-pipeline`.
void registerSolderPassesAndPipeline();

} // namespace mlir::solder

#endif // SOLDER_DIALECT_SOLDER_TRANSFORMS_PASSES_H
