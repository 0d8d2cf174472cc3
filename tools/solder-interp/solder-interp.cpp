//===- solder-interp.cpp - Run solder IR on the CPU reference -------------===//
//
//   solder-interp chain.mlir --seed=1                 run on random inputs
//   solder-interp chain.mlir --inputs=x.npy,w.npy --output-dir=out
//   solder-interp chain.mlir --check-pipeline='func.func(solder-decompose)'
//
// --check-pipeline runs the function before and after the pass pipeline on
// the same inputs and fails unless every output agrees within the tolerances:
// the proof that a pass preserves results.
//
//===----------------------------------------------------------------------===//

#include "solder/InitAllDialects.h"
#include "solder/ParsedSource.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"
#include "solder/Reference/Interpreter.h"
#include "solder/Support/Npy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::solder;
namespace cl = llvm::cl;

// Only these options show in --help (HideUnrelatedOptions), grouped.
static cl::OptionCategory runCategory("Running a function");
static cl::OptionCategory checkCategory("Checking a pass pipeline");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::init("-"), cl::cat(runCategory));
static cl::opt<std::string>
    functionName("function", cl::desc("function to run (default: the first)"), cl::cat(runCategory));
static cl::list<std::string>
    inputPaths("inputs", cl::CommaSeparated,
               cl::desc("one .npy per function argument, in order"), cl::cat(runCategory));
static cl::opt<uint64_t>
    seed("seed", cl::init(0),
         cl::desc("seed of the random inputs used without --inputs"), cl::cat(runCategory));
static cl::opt<double> inputLow("input-low", cl::init(-1.0),
                                cl::desc("random inputs are drawn from "
                                         "[input-low, input-high)"), cl::cat(runCategory));
static cl::opt<double> inputHigh("input-high", cl::init(1.0),
                                 cl::desc("upper end of the random inputs' range"),
                                 cl::cat(runCategory));
static cl::opt<std::string>
    precisionName("precision", cl::init("f64"),
                  cl::desc("f64, or f32 to round every op's result to float"), cl::cat(runCategory));
static cl::opt<std::string>
    outputDir("output-dir", cl::desc("write each output as DIR/output<i>.npy"), cl::cat(runCategory));
static cl::opt<std::string> checkPipeline(
    "check-pipeline",
    cl::desc("pass pipeline whose result must agree with the input IR"), cl::cat(checkCategory));
static cl::opt<double> relativeTolerance("rtol", cl::init(1e-9),
                            cl::desc("relative tolerance of --check-pipeline"), cl::cat(checkCategory));
static cl::opt<double> absoluteTolerance("atol", cl::init(1e-12),
                            cl::desc("absolute tolerance of --check-pipeline"), cl::cat(checkCategory));

using reference::Tensor;

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream(text) << "(" << llvm::interleaved(shape) << ")";
  return text;
}

static LogicalResult loadInputs(func::FuncOp function,
                                SmallVectorImpl<Tensor> &inputs) {
  if (inputPaths.empty()) {
    inputs = reference::makeRandomInputs(function, seed, inputLow, inputHigh);
    return success();
  }
  for (const std::string &path : inputPaths) {
    ::solder::NpyArray array;
    std::string error;
    if (!::solder::readNpy(path, array, error)) {
      llvm::errs() << "error: " << error << "\n";
      return failure();
    }
    Tensor tensor;
    tensor.shape.assign(array.shape.begin(), array.shape.end());
    tensor.data = std::move(array.values);
    inputs.push_back(std::move(tensor));
  }
  return success();
}

/// Elementwise |a - b| <= atol + rtol * |b| (NaN matches NaN); prints one
/// line per output. Returns whether all agree.
static bool compareOutputs(ArrayRef<Tensor> actual, ArrayRef<Tensor> expected) {
  if (actual.size() != expected.size()) {
    llvm::outs() << "FAIL: " << actual.size() << " outputs, expected "
                 << expected.size() << "\n";
    return false;
  }
  bool allAgree = true;
  for (auto [index, a, b] : llvm::enumerate(actual, expected)) {
    if (a.shape != b.shape) {
      llvm::outs() << "output #" << index << ": shape " << formatShape(a.shape)
                   << ", expected " << formatShape(b.shape) << ": FAIL\n";
      allAgree = false;
      continue;
    }
    double maxAbs = 0.0, diffSquares = 0.0, refSquares = 0.0;
    bool agree = true;
    for (int64_t i = 0, e = a.getNumElements(); i < e; ++i) {
      double x = a.data[i], y = b.data[i];
      if (std::isnan(x) || std::isnan(y)) {
        agree &= std::isnan(x) && std::isnan(y);
        continue;
      }
      double diff = x == y ? 0.0 : std::fabs(x - y);
      maxAbs = std::max(maxAbs, diff);
      diffSquares += diff * diff;
      refSquares += y * y;
      agree &= diff <= absoluteTolerance + relativeTolerance * std::fabs(y);
    }
    double relL2 = refSquares > 0 ? std::sqrt(diffSquares / refSquares)
                                  : std::sqrt(diffSquares);
    llvm::outs() << "output #" << index << " " << formatShape(a.shape)
                 << ": max abs err " << llvm::format("%.3g", maxAbs)
                 << ", rel L2 err " << llvm::format("%.3g", relL2) << ": "
                 << (agree ? "OK" : "FAIL") << "\n";
    allAgree &= agree;
  }
  return allAgree;
}

static void printSummary(ArrayRef<Tensor> outputs) {
  for (auto [index, tensor] : llvm::enumerate(outputs)) {
    double sum = 0.0;
    for (double value : tensor.data)
      sum += value;
    llvm::outs() << "output #" << index << " " << formatShape(tensor.shape)
                 << ": mean " << llvm::format("%.9g", sum / std::max<int64_t>(
                                                           1, tensor.getNumElements()))
                 << ", first " << llvm::format("%.9g", tensor.data.empty()
                                                       ? 0.0
                                                       : tensor.data.front())
                 << "\n";
  }
}

static func::FuncOp findFunction(ModuleOp module) {
  func::FuncOp found;
  module.walk([&](func::FuncOp function) {
    if (!found && (functionName.empty() || function.getName() == functionName))
      found = function;
  });
  return found;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerTransformsPasses();
  registerSolderPassesAndPipeline();
  cl::HideUnrelatedOptions({&runCategory, &checkCategory});
  cl::ParseCommandLineOptions(argc, argv,
                              "Solder CPU reference interpreter\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics are one located line, without a dump of the op.
  context.printOpOnDiagnostic(false);

  ParsedSource source(inputFile, context);
  if (!source.openError.empty()) {
    llvm::errs() << "error: " << source.openError << "\n";
    return 1;
  }
  OwningOpRef<ModuleOp> &module = source.module;
  if (!module)
    return 1;

  reference::Precision precision;
  if (precisionName == "f64")
    precision = reference::Precision::f64;
  else if (precisionName == "f32")
    precision = reference::Precision::f32;
  else {
    llvm::errs() << "error: --precision must be f64 or f32, got '"
                 << precisionName << "'\n";
    return 1;
  }

  func::FuncOp function = findFunction(*module);
  if (!function) {
    llvm::errs() << "error: no function"
                 << (functionName.empty() ? "" : " named '" + functionName + "'")
                 << " in " << inputFile << "\n";
    return 1;
  }
  std::string name = function.getName().str();
  SmallVector<Tensor> inputs;
  if (failed(loadInputs(function, inputs)))
    return 1;
  FunctionType type = function.getFunctionType();
  if (inputs.size() != type.getNumInputs()) {
    llvm::errs() << "error: @" << name << " takes " << type.getNumInputs()
                 << " inputs, got " << inputs.size() << "\n";
    return 1;
  }
  for (auto [index, input, inputType] :
       llvm::enumerate(inputs, type.getInputs()))
    if (cast<ShapedType>(inputType).getShape() != ArrayRef(input.shape)) {
      llvm::errs() << "error: input #" << index << " of @" << name
                   << " has shape " << formatShape(input.shape)
                   << " but the function takes " << inputType << "\n";
      return 1;
    }
  FailureOr<SmallVector<Tensor>> outputs =
      reference::runFunction(function, inputs, precision);
  if (failed(outputs))
    return 1;

  if (!checkPipeline.empty()) {
    PassManager pm(&context);
    // 'builtin.module(...)' names the anchor; anything else is a pass list
    // on the module, as in mlir-opt's --pass-pipeline and -p.
    StringRef text = checkPipeline;
    if (text.starts_with("builtin.module(")) {
      FailureOr<OpPassManager> parsed = parsePassPipeline(text, llvm::errs());
      if (failed(parsed))
        return 1;
      static_cast<OpPassManager &>(pm) = *parsed;
    } else if (failed(parsePassPipeline(text, pm, llvm::errs()))) {
      return 1;
    }
    if (failed(pm.run(*module)))
      return 1;
    functionName = name;
    FailureOr<SmallVector<Tensor>> transformed =
        reference::runFunction(findFunction(*module), inputs, precision);
    if (failed(transformed))
      return 1;
    llvm::outs() << "pipeline '" << checkPipeline << "' on @" << name << ":\n";
    bool agree = compareOutputs(*transformed, *outputs);
    llvm::outs() << (agree ? "PASS" : "FAIL") << "\n";
    return agree ? 0 : 1;
  }

  printSummary(*outputs);
  if (!outputDir.empty()) {
    llvm::sys::fs::create_directories(outputDir);
    for (auto [index, tensor] : llvm::enumerate(*outputs)) {
      ::solder::NpyArray array;
      array.shape.assign(tensor.shape.begin(), tensor.shape.end());
      array.dtype = ::solder::NpyDtype::f64;
      array.values = tensor.data;
      std::string path = outputDir + "/output" + std::to_string(index) + ".npy";
      std::string error;
      if (!::solder::writeNpy(path, array, error)) {
        llvm::errs() << "error: " << error << "\n";
        return 1;
      }
    }
  }
  return 0;
}
