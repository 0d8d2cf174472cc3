//===- Interpreter.h - CPU reference interpreter of solder IR ---*- C++ -*-===//
//
// Executes a function of solder IR at any stage of the pipeline (user ops,
// decomposed ops, fusion regions) on the CPU, computing in float64. It is the
// oracle every pass and every kernel is checked against, so it is written for
// obvious correctness, not speed: direct loops, PyTorch's formulas.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_REFERENCE_INTERPRETER_H
#define SOLDER_REFERENCE_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <vector>

namespace mlir::solder::reference {

/// A dense row-major tensor of doubles.
struct Tensor {
  SmallVector<int64_t> shape;
  std::vector<double> data;

  Tensor() = default;
  explicit Tensor(ArrayRef<int64_t> shape, double fill = 0.0);
  int64_t getNumElements() const { return data.size(); }
  int64_t getRank() const { return shape.size(); }
};

/// How the interpreter rounds: `f64` keeps every value in double; `f32`
/// rounds each op's result to float, as a float32 execution would.
enum class Precision { f64, f32 };

/// Runs `function` on `inputs` (one per argument, shapes checked). Emits a
/// diagnostic at the offending op and fails on an op it does not support.
FailureOr<SmallVector<Tensor>> runFunction(func::FuncOp function,
                                           ArrayRef<Tensor> inputs,
                                           Precision precision);

/// Inputs for `function` drawn uniformly from [low, high) with `seed`.
SmallVector<Tensor> makeRandomInputs(func::FuncOp function, uint64_t seed,
                                     double low = -1.0, double high = 1.0);

} // namespace mlir::solder::reference

#endif // SOLDER_REFERENCE_INTERPRETER_H
