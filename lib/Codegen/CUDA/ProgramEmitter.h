//===- ProgramEmitter.h - The CUDA code generator's state -------*- C++ -*-===//
//
// emitCuda's one object: the program being printed (its source, launches,
// buffers and constants) and where each tensor lives. Each kind of kernel is
// printed by its own file: ConvKernel.cpp (a conv region's main loop and
// kernel, its operand preparation and finalize), ConvEpilogue.cpp (its
// epilogue functor), ElementwiseKernel.cpp, ReductionKernel.cpp and
// RowsKernel.cpp (the Region functors of regions without a conv anchor); EmitProgram.cpp prints the
// rest and drives them. Every kernel body is a device template of
// runtime/device/solder; what is printed is only what differs per chain.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_LIB_CODEGEN_CUDA_PROGRAMEMITTER_H
#define SOLDER_LIB_CODEGEN_CUDA_PROGRAMEMITTER_H

#include "ElementEmitter.h"
#include "solder/Codegen/CUDA/EmitCUDA.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::solder {

int64_t product(ArrayRef<int64_t> values);
std::string typeString(Type type);

/// Prints `iK = ...;` for the dims `dims` of `shape`, decomposing the
/// linear index `linear` row-major over those dims. The divisions are by
/// constants; in 32 bits (when `linear` fits, which the caller says) they
/// are a multiply-high each, in 64 bits several times that.
void emitIndexDecomposition(raw_ostream &os, StringRef indent, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> dims, StringRef linear, bool narrow = false);

/// Whether an optional operand is absent or read from the region's inputs
/// (a capture), not computed in the region.
inline bool isAbsentOrCapture(Value value) { return !value || isa<BlockArgument>(value); }

/// Whether indices up to `bound` (plus a grid stride) fit 32-bit ints.
inline bool fitsInt(int64_t bound) { return bound < (int64_t(1) << 30); }

/// The device accumulator (runtime/device/solder/reduce.cuh) of a
/// solder.reduce of `kind`.
StringRef getReduceAccumulator(ReduceKind kind);

/// The plan's launch of a region without a conv (#solder.region_launch).
FailureOr<RegionLaunchAttr> getPlannedRegionLaunch(FusionOp fusion);

/// One reduction computed in a conv epilogue: its partials per (sample,
/// pixel tile, channel) live in a workspace buffer.
struct EpilogueReduction {
  Operation *op;
  unsigned buffer;
  bool welford; // group_stats; otherwise sum/mean over the spatial dims
  std::string accumulator(bool shiftedMoments) const {
    if (!welford)
      return "solder::SumAccumulator";
    return shiftedMoments ? "solder::ShiftedMoments" : "solder::Welford";
  }
};

/// Whether `value` is the result of one of a conv epilogue's reductions.
bool isEpilogueReduction(ArrayRef<EpilogueReduction> reductions, Value value);

class ProgramEmitter {
public:
  FailureOr<CudaProgram> run(func::FuncOp function);

private:
  /// A conv region's prologue: the functor that gives the conv's input at
  /// an element from `source` there, and the parameters (captures) that the
  /// kernel applying it passes to its members.
  struct ConvPrologue {
    Value source;
    std::string functor; // "<fusion>_prologue{in1, in2}"
    std::string summary; // "group_normalize -> silu"
    SmallVector<std::pair<std::string, KernelArgRef>> parameters;
  };
  LogicalResult emitFusion(FusionOp fusion);
  LogicalResult emitConvKernel(FusionOp fusion, Operation *anchor);
  LogicalResult emitElementwiseKernel(FusionOp fusion);
  LogicalResult emitReductionKernel(FusionOp fusion, Operation *reduction);
  /// A rows region (RowsKernel.cpp): a block per row of its small GEMMs.
  LogicalResult emitRowsKernel(FusionOp fusion);
  /// A reduce-and-apply region (ReduceApplyKernel.cpp): a warp per `row`.
  LogicalResult emitReduceApplyKernel(FusionOp fusion, const ReduceApplyRow &row);
  /// The `_finalize` kernel of a conv region whose epilogue reduces: one
  /// device template call per reduction, on the plan's launch.
  void emitFinalizeKernel(FusionOp fusion, ArrayRef<EpilogueReduction> reductions,
                          FinalizeLaunchAttr finalize, int64_t volume);
  /// A thread-per-output reduction's group_normalize (scale, shift) tables:
  /// their fields of the Region's SharedStorage, and its prologue, which
  /// fills them for the block's samples (W3's tail read them per element:
  /// 0.21 -> 0.17 ms). `firstSample` is set when a table is per sample.
  void emitCoefficientTables(FusionOp fusion, ElementEmitter &element,
                             ArrayRef<int64_t> keptDims, ArrayRef<int64_t> shape,
                             int64_t outputs, int64_t threads, bool narrow,
                             std::string &storageFields, std::string &prologue,
                             bool &firstSample);

  /// Prints the kernel's comment, signature and opening brace; records its
  /// launch with arguments: captures, results, then `buffers`.
  /// The first `readBuffers` of `buffers` the kernel only reads (a conv's
  /// converted operands); it writes the others (partial reductions).
  void beginKernel(FusionOp fusion, StringRef kernel, StringRef summary,
                   std::array<int64_t, 3> grid, ArrayRef<unsigned> buffers, int64_t threads,
                   int64_t sharedBytes = 0, int64_t blocksPerSM = 0,
                   unsigned readBuffers = 0);
  /// The launch of a kernel outside any region's signature (layout
  /// conversions, prepare): its parameters and arguments.
  void beginHelperKernel(StringRef kernel, StringRef comment, std::array<int64_t, 3> grid,
                         ArrayRef<std::pair<std::string, KernelArgRef>> params);
  /// How the conversions store the main loop's operands (conv/layout.cuh):
  /// as they are, rounded to TF32 (the Hopper main loop, whose wgmma would
  /// truncate them), or as big and small TF32 parts (its 3xTF32 form).
  enum class OperandStore { asIs, tf32, tf32Parts };
  /// The buffers a conv's conversions write: none for an operand the main
  /// loop reads as it is; the small TF32 parts' for tf32Parts.
  struct ConvertedOperands {
    std::optional<unsigned> input, weight, inputSmall, weightSmall;
  };
  /// The kernels that convert a conv's input to NDHWC and its weights to
  /// KTRSC for the tensor-core main loop, where the plan gives them a grid.
  ConvertedOperands emitLayoutConversions(FusionOp fusion, Operation *anchor,
                                          ImplicitGemmTileAttr tile,
                                          const std::optional<ConvPrologue> &prologue,
                                          OperandStore store);
  /// The epilogue functor of a conv region, which every main loop calls with
  /// each accumulator and its (n, channel, pixel): the region's ops, the
  /// stores of yielded tensors, the partial reductions (Welford or shifted
  /// moments for group statistics, as the plan's `epilogue` says) and where
  /// they go (partialSamples x pixelTiles x channels slots); for
  /// register_moments, it takes each tile's channel moments instead.
  /// Returns its members, which are the kernel's parameters in order.
  FailureOr<SmallVector<std::string>>
  emitConvEpilogue(FusionOp fusion, Operation *anchor, ArrayRef<Operation *> pointwise,
                   ArrayRef<EpilogueReduction> reductions, unsigned firstReductionBuffer,
                   int64_t partialSamples, int64_t pixelTiles, ConvEpilogueKind epilogueKind,
                   MainLoopKind mainLoop);
  /// Prints the prologue functor of `ops`, the region's pointwise ops that
  /// compute `anchor`'s input (ConvPrologue.cpp).
  FailureOr<ConvPrologue> emitConvPrologue(FusionOp fusion, Operation *anchor,
                                           ArrayRef<Operation *> ops);
  /// A region kernel's parameters, which its functor's members repeat in
  /// order: a pointer per capture (`inN`), then per result (`outN`).
  struct RegionParameter {
    std::string name, declaration;
  };
  SmallVector<RegionParameter> getRegionParameters(FusionOp fusion) const;
  /// The captures' parameter names: what ElementEmitter reads them through.
  static SmallVector<std::string> getCaptureNames(FusionOp fusion);
  /// A region functor's member declarations and its aggregate initializer.
  std::string getRegionMembers(FusionOp fusion) const;
  std::string getRegionInitializer(FusionOp fusion) const;

  /// The launch argument of the capture that region value `value` (a block
  /// argument of `fusion`) stands for.
  KernelArgRef getCaptureArg(FusionOp fusion, Value value) {
    return storage.lookup(fusion.getCaptures()[cast<BlockArgument>(value).getArgNumber()]);
  }
  unsigned addBuffer(std::string name, int64_t bytes, bool zeroed) {
    program.buffers.push_back({std::move(name), bytes, zeroed});
    return program.buffers.size() - 1;
  }
  /// The split-K shares of every conv kernel that splits its K steps (each
  /// writes them and reads them back before it ends: one buffer, the size
  /// of the largest's, serves all of them).
  unsigned getSplitKSharesBuffer(int64_t bytes) {
    if (!splitKShares)
      splitKShares = addBuffer("split_k_shares", bytes, false);
    int64_t &held = program.buffers[*splitKShares].bytes;
    held = std::max(held, bytes);
    return *splitKShares;
  }
  /// The element type a kernel reads or writes `tensor` in: double for the
  /// plan's f64_results, else float.
  std::string getElementType(Value tensor) const {
    return doubleStorage.contains(tensor) ? "double" : "float";
  }
  /// A region kernel's parameter for capture `index` (`const T *inN`) and
  /// for result `index` (`T *outN`); the region functors' members are these.
  std::string getCaptureParameter(FusionOp fusion, unsigned index) const {
    return "const " + getElementType(fusion.getCaptures()[index]) + " *__restrict__ in" +
           std::to_string(index);
  }
  std::string getResultParameter(FusionOp fusion, unsigned index) const {
    return getElementType(fusion.getResult(index)) + " *__restrict__ out" +
           std::to_string(index);
  }
  SmallVector<bool> getDoubleCaptures(FusionOp fusion) const {
    return llvm::to_vector(llvm::map_range(
        fusion.getCaptures(), [&](Value capture) { return doubleStorage.contains(capture); }));
  }
  /// The captures a producer stores channels-last (solder.channels_last).
  SmallVector<bool> getChannelsLastCaptures(FusionOp fusion) const {
    return llvm::to_vector(llvm::map_range(fusion.getCaptures(), [&](Value capture) {
      return channelsLastStorage.contains(capture);
    }));
  }

  /// Whether `fusion` stores its result `index` rounded to TF32
  /// (solder.rounded_tf32: every reader a TF32 Hopper conv).
  static bool isRoundedTF32(FusionOp fusion, unsigned index) {
    auto rounded = fusion->getAttrOfType<DenseI64ArrayAttr>(SolderDialect::kRoundedTF32AttrName);
    return rounded && llvm::is_contained(rounded.asArrayRef(), static_cast<int64_t>(index));
  }

  CudaProgram program;
  std::string source;
  llvm::raw_string_ostream os{source};
  DenseMap<Value, KernelArgRef> storage;
  DenseSet<Value> doubleStorage;
  /// Tensors stored NDHWC: results a conv region lists in
  /// solder.channels_last, and the function's arguments that carry it.
  DenseSet<Value> channelsLastStorage;
  /// getSplitKSharesBuffer's buffer, once a kernel asks for it.
  std::optional<unsigned> splitKShares;
};

} // namespace mlir::solder

#endif // SOLDER_LIB_CODEGEN_CUDA_PROGRAMEMITTER_H
