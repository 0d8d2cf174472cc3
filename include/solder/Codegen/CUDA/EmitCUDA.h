//===- EmitCUDA.h - Planned solder IR to CUDA C++ ---------------*- C++ -*-===//
//
// Prints each solder.fusion of a planned function as CUDA C++ kernels that
// instantiate the device templates of runtime/device/solder, and describes
// how to run them: the launch sequence, and the device buffers that hold
// tensors passed between kernels and partial reductions.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CODEGEN_CUDA_EMITCUDA_H
#define SOLDER_CODEGEN_CUDA_EMITCUDA_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "solder/conv/wgmma_layout.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::solder {

/// Where a kernel argument points: a function input, a function output, or
/// a buffer the runtime allocates.
struct KernelArgRef {
  enum class Kind { input, output, buffer };
  Kind kind;
  unsigned index;
};

struct KernelLaunch {
  std::string kernel;
  std::array<int64_t, 3> grid, block;
  int64_t sharedBytes = 0;
  /// A conv kernel's main loop as the plan chose it (ConvSchedule::mainLoop:
  /// "tensorop_3xtf32", "direct_tf32", "fma", ...); empty for other kernels.
  std::string mainLoop;
  /// Its blocks take tiles one after another (gridDim.x apart): the
  /// runtime launches at most as many as the GPU holds at once.
  bool persistent = false;
  SmallVector<KernelArgRef> args;
  /// Per argument: whether the kernel writes it (a non-const pointer).
  SmallVector<bool> writes;
  /// A preparation: the launch writes only workspace buffers that no other
  /// launch writes, computed from these parameters alone (solder.parameter
  /// arguments, through the buffers of earlier preparations): the weights to
  /// KTRSC or to TF32 fragments. Its buffers stay valid while these inputs
  /// hold what they held, so the runtime may skip it (solderRunVersioned).
  /// Empty for every other launch.
  SmallVector<unsigned> preparedFrom;
};

struct DeviceBuffer {
  std::string name;
  int64_t bytes;
  bool zeroed; // cleared before each run
};

/// A __constant__ variable of the generated code that a kernel builds on
/// the device: the runtime runs `builder` (one thread, its one argument a
/// device buffer of the variable's size) once when it loads the bundle, and
/// copies the result to `symbol`. TensorOpConv's CUTLASS parameters.
struct ModuleConstant {
  std::string symbol, builder;
};

/// A tensor map (CUtensorMap) in a __device__ variable of the generated
/// code, at `offset` bytes into `symbol`: the runtime encodes `spec` over
/// workspace buffer `buffer` when it loads the bundle and copies it there.
/// The Hopper main loop's copies read them.
struct TensorMap {
  std::string symbol;
  int64_t offset = 0;
  unsigned buffer = 0;
  ::solder::TensorMapSpec spec;
};

struct CudaProgram {
  std::string source;
  std::vector<KernelLaunch> launches;
  SmallVector<DeviceBuffer> buffers;
  SmallVector<ModuleConstant> constants;
  SmallVector<TensorMap> tensorMaps;
};

/// Emits `function`, which must be planned (solder-pipeline): every op a
/// solder.fusion, arith.constant or the return. Emits a diagnostic at the op
/// the code generator cannot handle and fails.
FailureOr<CudaProgram> emitCuda(func::FuncOp function);

/// Sets the preparations' KernelLaunch::preparedFrom from the launches'
/// arguments; `parameters`: per function argument, whether it is a
/// parameter (solder.parameter). emitCuda calls it.
void markPreparations(CudaProgram &program, ArrayRef<bool> parameters);

} // namespace mlir::solder

#endif // SOLDER_CODEGEN_CUDA_EMITCUDA_H
