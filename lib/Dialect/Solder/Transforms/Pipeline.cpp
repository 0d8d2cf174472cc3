//===- Pipeline.cpp - solder-pipeline: every pass in order ----------------===//

#include "solder/Dialect/Solder/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::solder;

void mlir::solder::buildSolderPipeline(OpPassManager &pm,
                                       const PipelineOptions &options) {
  OpPassManager &functionPm = pm.nest<func::FuncOp>();
  functionPm.addPass(createSolderDecompose());
  functionPm.addPass(createSolderSimplify());
  functionPm.addPass(createCSEPass());
  functionPm.addPass(createSolderFormFusions());
  SolderPlanOptions planOptions;
  planOptions.force = options.force;
  planOptions.report = options.report;
  planOptions.precision = options.precision;
  planOptions.mainLoop = options.mainLoop;
  planOptions.convTile = options.convTile;
  planOptions.arch = options.arch;
  pm.addPass(createSolderPlan(planOptions));
}

namespace {
struct PipelineCommandLineOptions
    : public PassPipelineOptions<PipelineCommandLineOptions> {
  Option<std::string> force{*this, "force",
                            llvm::cl::desc("auto, materialize or recompute"),
                            llvm::cl::init("auto")};
  Option<bool> report{*this, "report",
                      llvm::cl::desc("print the plan table"),
                      llvm::cl::init(false)};
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("ieee or tf32"),
                                llvm::cl::init("ieee")};
  Option<std::string> mainLoop{*this, "mainloop",
                               llvm::cl::desc("auto, tensorop, direct, direct_fma or fma"),
                               llvm::cl::init("auto")};
  Option<std::string> convTile{*this, "conv-tile",
                               llvm::cl::desc("auto or BMxBNxBK/WMxWN/STAGES"),
                               llvm::cl::init("auto")};
  Option<std::string> arch{*this, "arch", llvm::cl::desc("the GPU planned for, e.g. sm_90"),
                           llvm::cl::init("sm_90")};
};
} // namespace

void mlir::solder::registerSolderPassesAndPipeline() {
  registerSolderPasses();
  PassPipelineRegistration<PipelineCommandLineOptions>(
      "solder-pipeline",
      "decompose, simplify, form-fusions and plan: the fusion pipeline",
      [](OpPassManager &pm, const PipelineCommandLineOptions &options) {
        buildSolderPipeline(pm, PipelineOptions{options.force, options.report,
                                                options.precision,
                                                options.mainLoop,
                                                options.convTile, options.arch});
      });
}
