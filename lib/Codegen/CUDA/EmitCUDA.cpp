//===- EmitCUDA.cpp - Planned solder IR to CUDA C++ -----------------------===//
//
// One kernel per solder.fusion, of three shapes:
//  * conv: solder::ConvKernel of the plan's main loop and tile scheduler
//    (runtime/device/solder/kernel/conv_kernel.cuh) under a generated
//    epilogue functor: per output element, bias, the pointwise chain, stores
//    of the yielded tensors and partial reductions per (sample, pixel tile,
//    channel), which a second `_finalize` kernel combines in a fixed order;
//  * elementwise: one thread per element (grid-stride);
//  * reduction: a pointwise chain feeding one reduction, one thread per
//    output when there are many outputs, else one block per output with a
//    fixed-order tree in shared memory.
// No float atomics anywhere: results are bitwise reproducible.
//
//===----------------------------------------------------------------------===//

#include "solder/Codegen/CUDA/EmitCUDA.h"

#include "ElementEmitter.h"
#include "solder/Analysis/ConvSchedule.h"
#include "solder/Analysis/RegionLaunch.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <set>

using namespace mlir;
using namespace mlir::solder;

namespace {

int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t value : values)
    result *= value;
  return result;
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// Prints `iK = ...;` for the dims `dims` of `shape`, decomposing the
/// linear index `linear` row-major over those dims. The divisions are by
/// constants; in 32 bits (when `linear` fits, which the caller says) they
/// are a multiply-high each, in 64 bits several times that.
void emitIndexDecomposition(raw_ostream &os, StringRef indent,
                            ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                            StringRef linear, bool narrow = false) {
  StringRef type = narrow ? "int" : "long", suffix = narrow ? "" : "L";
  int64_t stride = 1;
  SmallVector<std::string> lines;
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    int64_t dim = dims[k];
    std::string expression = linear.str();
    if (stride != 1)
      expression = "(" + expression + " / " + std::to_string(stride) + suffix.str() + ")";
    if (k != 0)
      expression += " % " + std::to_string(shape[dim]) + suffix.str();
    lines.push_back(llvm::formatv("{0}[[maybe_unused]] const {1} i{2} = {3};\n",
                                  indent, type, dim, expression)
                        .str());
    stride *= shape[dim];
  }
  for (const std::string &line : llvm::reverse(lines))
    os << line;
}

/// Whether indices up to `bound` (plus a grid stride) fit 32-bit ints.
bool fitsInt(int64_t bound) { return bound < (int64_t(1) << 30); }

/// The plan's launch of a region without a conv (#solder.region_launch).
FailureOr<RegionLaunchAttr> getPlannedRegionLaunch(FusionOp fusion) {
  auto launch = fusion->getAttrOfType<RegionLaunchAttr>(SolderDialect::kScheduleAttrName);
  if (!launch)
    return fusion.emitError("the CUDA code generator needs the launch of solder-plan "
                            "(#solder.region_launch; run solder-pipeline first)");
  return launch;
}

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
static bool isEpilogueReduction(ArrayRef<EpilogueReduction> reductions, Value value) {
  return llvm::any_of(reductions, [&](const EpilogueReduction &r) {
    return r.op == value.getDefiningOp();
  });
}

class ProgramEmitter {
public:
  FailureOr<CudaProgram> run(func::FuncOp function);

private:
  LogicalResult emitFusion(FusionOp fusion);
  LogicalResult emitConvKernel(FusionOp fusion, Operation *anchor);
  LogicalResult emitElementwiseKernel(FusionOp fusion);
  LogicalResult emitReductionKernel(FusionOp fusion, Operation *reduction);
  /// In a thread-per-output reduction whose outputs keep the batch dim:
  /// each group_normalize's (scale, shift) for the block's samples, into
  /// shared memory at the kernel's start (W3's tail read them per element:
  /// 0.21 -> 0.17 ms).
  void emitCoefficientTables(FusionOp fusion, ElementEmitter &element,
                             ArrayRef<int64_t> keptDims, ArrayRef<int64_t> shape,
                             int64_t outputs, int64_t threads, bool narrow);

  /// Prints the kernel's comment, signature and opening brace; records its
  /// launch with arguments: captures, results, then `buffers`.
  void beginKernel(FusionOp fusion, StringRef kernel, StringRef summary,
                   std::array<int64_t, 3> grid, ArrayRef<unsigned> buffers,
                   SmallVectorImpl<std::string> &captureNames,
                   int64_t threads, int64_t sharedBytes = 0,
                   int64_t blocksPerSM = 0);
  /// The launch of a kernel outside any region's signature (layout
  /// conversions, finalize): its parameters and arguments.
  void beginHelperKernel(StringRef kernel, StringRef comment,
                         std::array<int64_t, 3> grid,
                         ArrayRef<std::pair<std::string, KernelArgRef>> params);
  /// The kernels that convert a conv's input to NDHWC and its weights to
  /// KTRSC for the tensor-core main loop; returns their two buffers.
  SmallVector<unsigned> emitLayoutConversions(FusionOp fusion, Operation *anchor,
                                              ImplicitGemmTileAttr tile);
  /// The epilogue functor of a conv region, which every main loop calls with
  /// each accumulator and its (n, channel, pixel): the region's ops, the
  /// stores of yielded tensors, the partial reductions (Welford or shifted
  /// moments for group statistics, as the plan's `epilogue` says) and where
  /// they go; for register_moments, it takes each tile's channel moments
  /// instead. Returns its members, which are the kernel's parameters in
  /// order.
  FailureOr<SmallVector<std::string>>
  emitConvEpilogue(FusionOp fusion, Operation *anchor,
                   ArrayRef<Operation *> pointwise,
                   ArrayRef<EpilogueReduction> reductions,
                   unsigned firstReductionBuffer, int64_t pixelTiles,
                   ConvEpilogueKind epilogueKind);
  /// The launch argument of the capture that region value `value` (a block
  /// argument of `fusion`) stands for.
  KernelArgRef getCaptureArg(FusionOp fusion, Value value) {
    return storage.lookup(
        fusion.getCaptures()[cast<BlockArgument>(value).getArgNumber()]);
  }
  unsigned addBuffer(std::string name, int64_t bytes, bool zeroed) {
    program.buffers.push_back({std::move(name), bytes, zeroed});
    return program.buffers.size() - 1;
  }
  /// The element type a kernel reads or writes `tensor` in: double for the
  /// plan's f64_results, else float.
  std::string getElementType(Value tensor) const {
    return doubleStorage.contains(tensor) ? "double" : "float";
  }
  /// A region kernel's parameter for capture `index` (`const T *inN`) and
  /// for result `index` (`T *outN`); the conv epilogue's members are these.
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

  CudaProgram program;
  std::string source;
  llvm::raw_string_ostream os{source};
  DenseMap<Value, KernelArgRef> storage;
  DenseSet<Value> doubleStorage;
};
} // namespace

void ProgramEmitter::beginKernel(FusionOp fusion, StringRef kernel,
                                 StringRef summary, std::array<int64_t, 3> grid,
                                 ArrayRef<unsigned> buffers,
                                 SmallVectorImpl<std::string> &captureNames,
                                 int64_t threads, int64_t sharedBytes,
                                 int64_t blocksPerSM) {
  KernelLaunch launch;
  launch.kernel = kernel.str();
  launch.grid = grid;
  launch.block = {threads, 1, 1};
  launch.sharedBytes = sharedBytes;
  os << "// " << kernel << ": " << summary << "\n";
  SmallVector<std::string> params;
  for (auto [index, capture] : llvm::enumerate(fusion.getCaptures())) {
    std::string name = "in" + std::to_string(index);
    captureNames.push_back(name);
    params.push_back(getCaptureParameter(fusion, index));
    launch.args.push_back(storage.lookup(capture));
    os << "//   " << name << ": " << typeString(capture.getType()) << "\n";
  }
  for (auto [index, result] : llvm::enumerate(fusion.getResults())) {
    params.push_back(getResultParameter(fusion, index));
    launch.args.push_back(storage.lookup(result));
    os << "//   out" << index << ": " << typeString(result.getType()) << "\n";
  }
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    params.push_back("float *__restrict__ ws" + std::to_string(index));
    launch.args.push_back({KernelArgRef::Kind::buffer, buffer});
    os << "//   ws" << index << ": " << program.buffers[buffer].name << "\n";
  }
  os << "extern \"C\" __global__ void __launch_bounds__(" << threads
     << (blocksPerSM ? ", " + std::to_string(blocksPerSM) : "") << ")\n"
     << kernel << "(" << llvm::join(params, ",\n    ") << ") {\n";
  program.launches.push_back(std::move(launch));
}

void ProgramEmitter::beginHelperKernel(
    StringRef kernel, StringRef comment, std::array<int64_t, 3> grid,
    ArrayRef<std::pair<std::string, KernelArgRef>> params) {
  KernelLaunch launch;
  launch.kernel = kernel.str();
  launch.grid = grid;
  launch.block = {kOperandPrepThreads, 1, 1};
  SmallVector<std::string> declarations;
  for (const auto &[declaration, arg] : params) {
    declarations.push_back(declaration);
    launch.args.push_back(arg);
  }
  os << "// " << kernel << ": " << comment << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kOperandPrepThreads << ")\n"
     << kernel << "(" << llvm::join(declarations, ",\n    ") << ") {\n";
  program.launches.push_back(std::move(launch));
}

LogicalResult ProgramEmitter::emitConvKernel(FusionOp fusion,
                                             Operation *anchor) {
  auto conv = dyn_cast<ConvOp>(anchor);
  auto convT = dyn_cast<ConvTransposeOp>(anchor);
  Value input = anchor->getOperand(0), weight = anchor->getOperand(1);
  Value bias = anchor->getNumOperands() > 2 ? anchor->getOperand(2) : Value();
  if (!isa<BlockArgument>(input) || !isa<BlockArgument>(weight) ||
      (bias && !isa<BlockArgument>(bias)))
    return anchor->emitError("the CUDA code generator does not support a "
                             "prologue on the input or weight of a conv yet");
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t numSpatial = outType.getRank() - 2;
  int64_t batch = outShape[0], channels = outShape[1];
  int64_t volume = product(outShape.drop_front(2));
  int64_t groups = conv ? conv.getGroups() : convT.getGroups();
  auto schedule =
      fusion->getAttrOfType<ConvScheduleAttr>(SolderDialect::kScheduleAttrName);
  if (!schedule)
    return fusion.emitError("the CUDA code generator needs the conv schedule "
                            "of solder-plan (run solder-pipeline first)");
  MainLoopKind mainLoop = schedule.getMainLoop();
  StringRef mainLoopName = getMainLoopName(mainLoop, schedule.getMath());
  bool threeTF32 = schedule.getMath() == TensorMath::tf32x3;
  bool persistent = schedule.getScheduler() == TileSchedulerKind::persistent;
  ArrayRef<int64_t> grid = schedule.getGrid();
  // The plan's grid: (pixel tiles of one sample, channel tiles, samples).
  int64_t pixelTiles = grid[0];
  if (grid[1] > 65535 || grid[2] > 65535)
    return anchor->emitError("the CUDA code generator launches a conv's ")
           << "channel tiles and samples on grid y and z, at most 65535 each; "
           << "this one needs " << grid[1] << " x " << grid[2];
  std::string name = fusion.getName().str();

  // Sort the epilogue: pointwise ops per element, reductions of them.
  SmallVector<Operation *> pointwise;
  SmallVector<EpilogueReduction> reductions;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    if (&op == anchor || isa<arith::ConstantOp>(op))
      continue;
    if (isElementwise(&op)) {
      if (cast<RankedTensorType>(op.getResult(0).getType()).getShape() !=
          outShape)
        return op.emitError("the CUDA code generator needs conv epilogue ops "
                            "shaped like the conv output");
      pointwise.push_back(&op);
      continue;
    }
    if (auto stats = dyn_cast<GroupStatsOp>(op)) {
      unsigned buffer = addBuffer(name + "_partial_stats" +
                                      std::to_string(reductions.size()),
                                  batch * pixelTiles * channels * 3 * 4, false);
      reductions.push_back({&op, buffer, true});
      continue;
    }
    // The per-channel reductions form-fusions lets into a conv region.
    if (isa<ReduceOp>(op) && isConvEpilogueOp(&op)) {
      unsigned buffer = addBuffer(name + "_partial_sums" +
                                      std::to_string(reductions.size()),
                                  batch * pixelTiles * channels * 4, false);
      reductions.push_back({&op, buffer, false});
      continue;
    }
    return op.emitError("the CUDA code generator cannot compute '")
           << op.getName() << "' in a conv epilogue (supported: pointwise "
              "ops, group_stats, sum/mean over all spatial dims)";
  }
  auto finalize =
      fusion->getAttrOfType<FinalizeLaunchAttr>(SolderDialect::kFinalizeAttrName);
  if (!reductions.empty() && !finalize)
    return fusion.emitError("the CUDA code generator needs the finalize launch of "
                            "solder-plan (run solder-pipeline first)");

  // Geometry, padded to 3 spatial dims.
  auto pad3 = [&](ArrayRef<int64_t> values, int64_t fill) {
    SmallVector<int64_t> result(3 - numSpatial, fill);
    llvm::append_range(result, values);
    return "{" + llvm::join(llvm::map_range(result, [](int64_t v) {
                              return std::to_string(v);
                            }),
                            ", ") +
           "}";
  };
  auto weightType = cast<RankedTensorType>(weight.getType());
  os << "struct " << name << "_geometry {\n"
     << "  static constexpr bool kTransposed = " << (convT ? "true" : "false")
     << ";\n"
     << "  static constexpr int kBatch = " << batch
     << ", kInChannels = " << inType.getDimSize(1)
     << ", kOutChannels = " << channels << ", kGroups = " << groups << ";\n"
     << "  static constexpr int kIn[3] = " << pad3(inType.getShape().drop_front(2), 1)
     << ", kOut[3] = " << pad3(outShape.drop_front(2), 1) << ";\n"
     << "  static constexpr int kKernel[3] = "
     << pad3(weightType.getShape().drop_front(2), 1) << ";\n"
     << "  static constexpr int kStride[3] = "
     << pad3(conv ? conv.getStrides() : convT.getStrides(), 1)
     << ", kPad[3] = " << pad3(conv ? conv.getPadding() : convT.getPadding(), 0)
     << ", kDilation[3] = "
     << pad3(conv ? conv.getDilations() : convT.getDilations(), 1) << ";\n"
     << "};\n\n";

  bool direct = mainLoop == MainLoopKind::direct_fma || mainLoop == MainLoopKind::direct_tensorop;
  bool tensorCores = schedule.getMath() != TensorMath::fma_f32;
  std::string summary =
      (direct ? "direct " : "implicit-GEMM ") + anchor->getName().stripDialect().str();
  summary += tensorCores ? " on tensor cores (" + mainLoopName.str() + ")"
                         : " with FMAs (" + schedule.getReason().str() + ")";
  for (Operation *op : pointwise)
    if (!isa<arith::ConstantOp>(op))
      summary += " -> " + op->getName().stripDialect().str();
  for (const EpilogueReduction &reduction : reductions)
    summary += " -> " + reduction.op->getName().stripDialect().str() + " (partial)";

  // Tensor cores read NDHWC input and KTRSC weights, converted first into
  // the kernel's first two buffers; the other main loops read PyTorch's.
  SmallVector<unsigned> buffers;
  std::string mainLoopInput =
      "in" + std::to_string(cast<BlockArgument>(input).getArgNumber());
  std::string mainLoopWeight =
      "in" + std::to_string(cast<BlockArgument>(weight).getArgNumber());
  if (auto tile = dyn_cast<ImplicitGemmTileAttr>(schedule.getConfig())) {
    buffers = emitLayoutConversions(fusion, anchor, tile);
    mainLoopInput = "ws0";
    mainLoopWeight = "ws1";
  }
  // The direct conv on tensor cores reads its weights split into TF32
  // fragments, written once a call by a kernel before it.
  auto directTile = dyn_cast<DirectTileAttr>(schedule.getConfig());
  if (directTile) {
    buffers.push_back(addBuffer(name + "_prepared", directTile.getPreparedBytes(), false));
    mainLoopWeight = "ws0";
  }
  unsigned firstReductionBuffer = buffers.size();
  for (const EpilogueReduction &reduction : reductions)
    buffers.push_back(reduction.buffer);

  FailureOr<SmallVector<std::string>> members = emitConvEpilogue(
      fusion, anchor, pointwise, reductions, firstReductionBuffer, pixelTiles,
      schedule.getEpilogue());
  if (failed(members))
    return failure();

  std::string memberList = "{" + llvm::join(*members, ", ") + "}";
  // The main loop, then the kernel that composes it with the epilogue and
  // the plan's tile scheduler (kernel/conv_kernel.cuh).
  StringRef math = threeTF32 ? "k3xTF32" : "kTF32";
  if (auto tile = dyn_cast<FmaTileAttr>(schedule.getConfig())) {
    ArrayRef<int64_t> block = tile.getTile();
    os << llvm::formatv("using {0}_mainloop = solder::ImplicitGemmFmaConv<{0}_geometry, {1}, "
                        "{2}, {3}>;\n",
                        name, block[0], block[1], block[2]);
  } else if (auto tile = dyn_cast<ImplicitGemmTileAttr>(schedule.getConfig())) {
    ArrayRef<int64_t> block = tile.getTile(), warp = tile.getWarp();
    os << llvm::formatv(
        "using {0}_mainloop = solder::TensorOpConv<\n"
        "    {0}_geometry, solder::TensorOpTile<{1}, {2}, {3}, {4}, {5}, {6}, "
        "solder::TensorMath::{7}>>;\n",
        name, block[0], block[1], block[2], warp[0], warp[1], tile.getStages(), math);
  } else if (directTile) {
    StringRef accumulation;
    switch (directTile.getAccumulation()) {
    case DirectAccumulation::plain: accumulation = "kPlain"; break;
    case DirectAccumulation::step_sums: accumulation = "kStepSums"; break;
    case DirectAccumulation::centered: accumulation = "kCentered"; break;
    }
    os << llvm::formatv("using {0}_mainloop = solder::DirectTensorOpConv<\n"
                        "    {0}_geometry, /*Rows=*/{1}, /*BN=*/{2}, /*Warps=*/{3}, "
                        "solder::TensorMath::{4}, solder::DirectAccumulation::{5}>;\n",
                        name, directTile.getRows(), directTile.getTile()[1],
                        directTile.getWarps(), math, accumulation);
  } else {
    ArrayRef<int64_t> tile = cast<DirectFmaTileAttr>(schedule.getConfig()).getTile();
    os << llvm::formatv("using {0}_mainloop = solder::DirectConv<{0}_geometry, {1}, {2}>;\n",
                        name, tile[0], tile[1]);
  }
  os << llvm::formatv("using {0}_kernel = solder::ConvKernel<{0}_mainloop, {0}_epilogue,\n"
                      "    solder::{1}<{2}, {3}, {4}>>;\n"
                      "static_assert({0}_kernel::kThreads == {5} && {0}_kernel::kSharedBytes == "
                      "{6},\n"
                      "              \"the plan's threads and shared memory\");\n",
                      name, persistent ? "PersistentTileScheduler" : "GridTileScheduler",
                      grid[0], grid[1], grid[2], schedule.getThreads(),
                      schedule.getSharedBytes());
  std::string mainLoopArgs;
  if (mainLoop == MainLoopKind::implicit_gemm_tensorop) {
    os << llvm::formatv(
        "\n// {0}_context: CUTLASS's problem and iterator parameters, in the constant\n"
        "// bank like a stock kernel's parameters; {0}_build_context fills it\n"
        "// once, when the runtime loads the bundle.\n"
        "__constant__ {0}_mainloop::ContextStorage {0}_context;\n"
        "extern \"C\" __global__ void __launch_bounds__(1)\n"
        "{0}_build_context({0}_mainloop::ContextStorage *context) {{\n"
        "  {0}_mainloop::buildContext(context);\n"
        "}\n",
        name);
    program.constants.push_back({name + "_context", name + "_build_context"});
    mainLoopArgs = ", " + name + "_context";
  }
  if (directTile) {
    os << llvm::formatv("static_assert({0}_mainloop::kPreparedBytes == {1}L &&\n"
                        "              {0}_mainloop::kPrepareThreads == {2}L,\n"
                        "              \"the plan's prepared operands\");\n\n",
                        name, directTile.getPreparedBytes(), directTile.getPrepareThreads());
    std::string what =
        directTile.getAccumulation() == DirectAccumulation::centered
            ? "the conv weights split into TF32 parts in the main loop's fragment "
              "order, their tap sums, and each input plane's shift"
            : "the conv weights, split into TF32 parts, in the main loop's fragment order";
    ArrayRef<int64_t> prepareGrid = directTile.getPrepareGrid();
    beginHelperKernel(
        name + "_prepare", what, {prepareGrid[0], prepareGrid[1], prepareGrid[2]},
        {{"const float *__restrict__ input", getCaptureArg(fusion, input)},
         {"const float *__restrict__ weight", getCaptureArg(fusion, weight)},
         {"float *__restrict__ prepared", {KernelArgRef::Kind::buffer, buffers[0]}}});
    os << llvm::formatv("  {0}_mainloop::prepare(input, weight, prepared);\n"
                        "}\n\n",
                        name);
  } else {
    os << "\n";
  }
  SmallVector<std::string> captureNames;
  beginKernel(fusion, name, summary, schedule.getLaunchGrid(), buffers, captureNames,
              schedule.getThreads(), schedule.getSharedBytes(), schedule.getMinBlocksPerSM());
  program.launches.back().mainLoop = mainLoopName.str();
  program.launches.back().persistent = persistent;
  os << "  extern __shared__ __align__(16) char shared[];\n"
     << "  " << name << "_kernel::run(" << mainLoopInput << ", " << mainLoopWeight << ", "
     << name << "_epilogue" << memberList << ", shared" << mainLoopArgs << ");\n}\n\n";
  if (reductions.empty())
    return success();
  YieldOp yield = fusion.getYield();
  auto isReduction = [&](Value value) {
    return isEpilogueReduction(reductions, value);
  };

  // The finalize kernel merges the partials of every pixel tile (and
  // channel of the group) in a fixed order, on the plan's launch: a block
  // per group statistic (strided over the block, then a fixed tree), a
  // thread per spatial sum. A statistic's partials are read channel-fastest,
  // eight loads in flight before their merges.
  int64_t threads = finalize.getThreads();
  KernelLaunch launch;
  launch.kernel = name + "_finalize";
  launch.grid = {finalize.getGrid()[0], finalize.getGrid()[1], finalize.getGrid()[2]};
  launch.block = {threads, 1, 1};
  SmallVector<std::string> params;
  os << "// " << launch.kernel
     << ": combines the partial reductions of " << name
     << " in a fixed order\n";
  for (auto [index, reduction] : llvm::enumerate(reductions)) {
    params.push_back("const float *__restrict__ ws" + std::to_string(index));
    launch.args.push_back({KernelArgRef::Kind::buffer, reduction.buffer});
  }
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    if (isReduction(value)) {
      params.push_back(getResultParameter(fusion, index));
      launch.args.push_back(storage.lookup(fusion.getResult(index)));
    }
  os << "extern \"C\" __global__ void __launch_bounds__(" << threads << ")\n"
     << launch.kernel << "(" << llvm::join(params, ",\n    ") << ") {\n";
  for (auto [index, reduction] : llvm::enumerate(reductions)) {
    unsigned out = llvm::find(yield.getValues(), reduction.op->getResult(0)) -
                   yield.getValues().begin();
    if (auto stats = dyn_cast<GroupStatsOp>(reduction.op)) {
      os << llvm::formatv("  // {0}: a block per statistic\n"
                          "  solder::finalizeGroupStatistic<{1}_partials, /*Groups=*/{2}, "
                          "/*AcrossBatch=*/{3}, {4}>(\n"
                          "      ws{5}, out{6}, {7});\n",
                          reduction.op->getName(), name, stats.getNumGroups(),
                          stats.getAcrossBatch() ? "true" : "false", threads, index, out,
                          formatFloat(stats.getEpsilon().convertToDouble()));
    } else {
      auto reduce = cast<ReduceOp>(reduction.op);
      os << llvm::formatv("  // {0} over the spatial dims: a thread per sum\n"
                          "  solder::finalizeChannelSum<{1}_partials, /*MeanOf=*/{2}, {3}>(ws{4}, "
                          "out{5});\n",
                          reduce->getName(), name,
                          reduce.getKind() == ReduceKind::mean ? volume : 0, threads, index,
                          out);
    }
  }
  os << "}\n\n";
  program.launches.push_back(std::move(launch));
  return success();
}

SmallVector<unsigned>
ProgramEmitter::emitLayoutConversions(FusionOp fusion, Operation *anchor,
                                      ImplicitGemmTileAttr tile) {
  std::string name = fusion.getName().str();
  auto inType = cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  int64_t batch = outType.getDimSize(0), channels = outType.getDimSize(1);
  int64_t inChannels = inType.getDimSize(1);
  int64_t inVolume = product(inType.getShape().drop_front(2));
  int64_t paddedIn = tile.getPaddedChannels();
  int64_t taps = product(cast<RankedTensorType>(anchor->getOperand(1).getType())
                             .getShape()
                             .drop_front(2));
  unsigned inputBuffer = addBuffer(name + "_input_ndhwc",
                                   batch * inVolume * paddedIn * 4, false);
  unsigned weightBuffer =
      addBuffer(name + "_weight_ktrsc", channels * taps * paddedIn * 4, false);
  auto toGrid = [](ArrayRef<int64_t> grid) {
    return std::array<int64_t, 3>{grid[0], grid[1], grid[2]};
  };
  beginHelperKernel(
      name + "_input_ndhwc",
      paddedIn == inChannels
          ? "the conv input, NCDHW to NDHWC"
          : llvm::formatv("the conv input, NCDHW to NDHWC with its {0} channels "
                          "zero-padded to {1}",
                          inChannels, paddedIn)
                .str(),
      toGrid(tile.getInputGrid()),
      {{"const float *__restrict__ input", getCaptureArg(fusion, anchor->getOperand(0))},
       {"float *__restrict__ inputNdhwc",
        {KernelArgRef::Kind::buffer, inputBuffer}}});
  os << llvm::formatv("  solder::toChannelsLast<{0}, {1}, {2}L>(input, inputNdhwc);\n}\n\n",
                      inChannels, paddedIn, inVolume);
  beginHelperKernel(
      name + "_weight_ktrsc",
      isa<ConvTransposeOp>(anchor)
          ? "the conv_transpose weights, flipped, to KTRSC: it runs as a conv"
          : "the conv weights to KTRSC",
      toGrid(tile.getWeightGrid()),
      {{"const float *__restrict__ weight", getCaptureArg(fusion, anchor->getOperand(1))},
       {"float *__restrict__ weightKtrsc",
        {KernelArgRef::Kind::buffer, weightBuffer}}});
  os << llvm::formatv("  solder::weightsToKtrsc<{0}_geometry, {1}>(weight, "
                      "weightKtrsc);\n}\n\n",
                      name, paddedIn);
  return {inputBuffer, weightBuffer};
}

FailureOr<SmallVector<std::string>> ProgramEmitter::emitConvEpilogue(
    FusionOp fusion, Operation *anchor, ArrayRef<Operation *> pointwise,
    ArrayRef<EpilogueReduction> reductions, unsigned firstReductionBuffer,
    int64_t pixelTiles, ConvEpilogueKind epilogueKind) {
  std::string name = fusion.getName().str();
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t channels = outShape[1];
  int64_t volume = product(outShape.drop_front(2));

  // Its members are the kernel's parameters: captures, results, partials.
  SmallVector<std::string> members, declarations;
  for (auto index : llvm::seq<unsigned>(0, fusion.getCaptures().size())) {
    members.push_back("in" + std::to_string(index));
    declarations.push_back(getCaptureParameter(fusion, index));
  }
  for (auto index : llvm::seq<unsigned>(0, fusion.getNumResults())) {
    members.push_back("out" + std::to_string(index));
    declarations.push_back(getResultParameter(fusion, index));
  }
  for (auto index : llvm::seq<size_t>(0, reductions.size())) {
    members.push_back("ws" + std::to_string(index + firstReductionBuffer));
    declarations.push_back("float *__restrict__ " + members.back());
  }

  std::string epilogueText;
  llvm::raw_string_ostream epilogue(epilogueText);
  // The partial reductions' one layout, for the epilogue that writes them and
  // the finalize kernel that reads them.
  if (!reductions.empty())
    epilogue << "using " << name << "_partials = solder::PartialLayout<" << outShape[0]
             << ", " << pixelTiles << ", " << channels << ">;\n\n";
  epilogue << "// " << name << "_epilogue: what " << name
           << " does with each accumulator (conv output element).\n"
           << "struct " << name << "_epilogue {\n";
  for (const std::string &declaration : declarations)
    epilogue << "  " << declaration << ";\n";
  YieldOp yield = fusion.getYield();
  auto isReduction = [&](Value value) {
    return isEpilogueReduction(reductions, value);
  };
  bool storesElements = !llvm::all_of(yield.getValues(), isReduction);
  // The plan's register_moments: the main loop hands the epilogue each
  // tile's channel moments instead of a tile to visit
  // (runtime/device/solder/epilogue/moments.cuh).
  bool convMoments = epilogueKind == ConvEpilogueKind::register_moments;
  bool shiftedMoments = epilogueKind != ConvEpilogueKind::element_welford;
  epilogue << "  // " << (storesElements ? "Stores conv-shaped tensors."
                                         : "Stores nothing per element: only "
                                           "partial reductions leave.")
           << "\n  static constexpr bool kStoresElements = "
           << (storesElements ? "true" : "false") << ";\n"
           << "  // "
           << (convMoments ? "Reduces the conv output alone: takes each tile's channel "
                             "moments from the main loop."
                           : "Visits each element of the main loop's tile.")
           << "\n  static constexpr bool kConvMoments = " << (convMoments ? "true" : "false")
           << ";\n";

  SmallVector<std::string> captureNames = llvm::to_vector(
      llvm::make_range(members.begin(), members.begin() + fusion.getCaptures().size()));
  Value bias = anchor->getNumOperands() > 2 ? anchor->getOperand(2) : Value();
  std::string biasElement =
      bias ? captureNames[cast<BlockArgument>(bias).getArgNumber()] + "[i1]" : "";
  // A pixel tile's partials of channel i1 of sample i0 into the reductions'
  // buffers: Welford (count, mean, M2) from `welford`, sums from `sum`.
  auto emitPartialStores = [&](llvm::function_ref<std::string(unsigned)> welford,
                               llvm::function_ref<std::string(unsigned)> sum) {
    if (!reductions.empty())
      epilogue << "    const long slot = " << name << "_partials::slot(i0, pixelTile, i1);\n";
    for (auto [index, reduction] : llvm::enumerate(reductions)) {
      std::string buffer = "ws" + std::to_string(index + firstReductionBuffer);
      epilogue << "    " << name << "_partials::"
               << (reduction.welford ? "storeWelford(" : "storeSum(") << buffer << ", slot, "
               << (reduction.welford ? welford(index) : sum(index)) << ");\n";
    }
  };

  if (convMoments) {
    epilogue << "\n  __device__ float channelOffset([[maybe_unused]] const long i0, "
                "[[maybe_unused]] const long i1) const {\n"
             << "    return " << (bias ? biasElement + ";  // the conv's bias"
                                       : std::string("0.0f;  // no bias"))
             << "\n  }\n\n"
             << "  __device__ void storeMoments(const long i0, const long i1, const long "
                "pixelTile,\n"
             << "                               const solder::ConvMoments &moments) const "
                "{\n";
    emitPartialStores([](unsigned) { return std::string("moments.welford()"); },
                      [](unsigned) { return std::string("float(moments.total())"); });
    epilogue << "  }\n";
  } else {
    epilogue << "  struct Partials {\n";
    SmallVector<std::string> shuffles, merges;
    for (auto [index, reduction] : llvm::enumerate(reductions)) {
      epilogue << "    " << reduction.accumulator(shiftedMoments) << " r" << index
               << ";\n";
      shuffles.push_back("r" + std::to_string(index) + ".shuffleDown(offset, width)");
      merges.push_back("r" + std::to_string(index) + ".merge(other.r" +
                       std::to_string(index) + ");");
    }
    epilogue << "    __device__ Partials shuffleDown([[maybe_unused]] unsigned "
                "offset, [[maybe_unused]] int width) const {\n"
             << "      return {" << llvm::join(shuffles, ", ") << "};\n    }\n"
             << "    __device__ void merge([[maybe_unused]] const Partials "
                "&other) {"
             << (merges.empty() ? "" : " " + llvm::join(merges, " ")) << " }\n"
             << "  };\n\n";

    ElementEmitter element(fusion, captureNames, outShape, getDoubleCaptures(fusion));
    element.bind(anchor->getResult(0), "conv");
    epilogue << "  __device__ void visit(const long i0, const long i1, const int "
                "pixel, const float acc,\n"
             << "                        [[maybe_unused]] Partials &partials) "
                "const {\n";
    emitIndexDecomposition(epilogue, "    ", outShape,
                           llvm::to_vector(llvm::seq<int64_t>(2, outType.getRank())),
                           "pixel", /*narrow=*/true);
    epilogue << "    const float conv = acc" << (bias ? " + " + biasElement : "") << ";  // "
             << anchor->getName() << "\n";
    for (Operation *op : pointwise)
      if (failed(element.emit(op, epilogue, "    ")))
        return failure();
    for (auto [index, value] : llvm::enumerate(yield.getValues()))
      if (!isReduction(value))
        epilogue << "    out" << index << "[(i0 * " << channels << "L + i1) * " << volume
                 << "L + pixel] = " << element.get(value) << ";\n";
    for (auto [index, reduction] : llvm::enumerate(reductions))
      epilogue << "    partials.r" << index << ".add("
               << element.get(reduction.op->getOperand(0)) << ");\n";
    epilogue << "  }\n\n"
             << "  __device__ void storePartials([[maybe_unused]] const long i0, "
                "[[maybe_unused]] const long i1,\n"
             << "                                [[maybe_unused]] const long "
                "pixelTile,\n"
             << "                                [[maybe_unused]] const Partials "
                "&partials) const {\n";
    emitPartialStores(
        [&](unsigned index) {
          return "partials.r" + std::to_string(index) +
                 (shiftedMoments ? ".welford()" : "");
        },
        [](unsigned index) { return "float(partials.r" + std::to_string(index) + ".sum)"; });
    epilogue << "  }\n";
  }
  epilogue << "};\n\n";
  os << epilogueText;
  return members;
}

LogicalResult ProgramEmitter::emitElementwiseKernel(FusionOp fusion) {
  YieldOp yield = fusion.getYield();
  auto shapeType = cast<RankedTensorType>(yield.getValues()[0].getType());
  ArrayRef<int64_t> shape = shapeType.getShape();
  for (Value value : yield.getValues())
    if (cast<RankedTensorType>(value.getType()).getShape() != shape)
      return fusion.emitError("the CUDA code generator needs every result of "
                              "an elementwise region to have one shape");
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (cast<RankedTensorType>(op.getResult(0).getType()).getShape() != shape &&
        !isa<arith::ConstantOp>(op))
      return op.emitError("the CUDA code generator needs every op of an "
                          "elementwise region to have the region's shape");
  int64_t total = shapeType.getNumElements();
  SmallVector<std::string> captureNames;
  std::string summary = "elementwise";
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (!isa<arith::ConstantOp>(op))
      summary += " -> " + op.getName().stripDialect().str();
  // Blocks walk tiles of chunk x 256 items (elements, or float4 vectors of
  // 4 consecutive elements), a thread one item of each 256: it loads and
  // computes its items of a tile before storing any, so they are all in
  // flight at once.
  FailureOr<RegionLaunchAttr> planned = getPlannedRegionLaunch(fusion);
  if (failed(planned))
    return failure();
  const int64_t chunk = planned->getChunk(), blocks = planned->getGrid()[0],
                width = planned->getVector(), threads = planned->getThreads();
  const int64_t items = total / width, tileItems = chunk * threads;
  if (width > 1)
    summary += " (float" + std::to_string(width) + ")";
  beginKernel(fusion, fusion.getName(), summary, {blocks, 1, 1}, {},
              captureNames, threads);
  ElementEmitter element(fusion, captureNames, shape, getDoubleCaptures(fusion));
  bool narrow = fitsInt(total + blocks * tileItems * width);
  StringRef type = narrow ? "int" : "long", suffix = narrow ? "" : "L";
  std::string itemType = width > 1 ? "float" + std::to_string(width) : "float";
  os << "  for (" << type << " tile = blockIdx.x * " << tileItems << suffix
     << "; tile < " << items << suffix << "; tile += " << (narrow ? "" : "(long)")
     << "gridDim.x * " << tileItems << ") {\n";
  unsigned numResults = yield.getNumOperands();
  for (unsigned index = 0; index < numResults; ++index)
    os << "    " << itemType << " result" << index << "[" << chunk << "];\n";
  // Both loops walk the thread's items of the tile, stopping at the end.
  StringRef item = width > 1 ? "v" : "e";
  auto beginItemLoop = [&] {
    os << "#pragma unroll\n"
       << "    for (int k = 0; k < " << chunk << "; ++k) {\n"
       << "      const " << type << " " << item << " = tile + k * " << threads
       << " + threadIdx.x;\n";
    if (items % tileItems != 0)
      os << "      if (" << item << " >= " << items << suffix
         << ")\n        break;\n";
  };
  beginItemLoop();
  auto emitBody = [&](StringRef indent) -> LogicalResult {
    for (Operation &op : fusion.getBodyBlock().without_terminator())
      if (failed(element.emit(&op, os, indent)))
        return failure();
    return success();
  };
  auto allDims = llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
  if (width == 1) {
    emitIndexDecomposition(os, "      ", shape, allDims, "e", narrow);
    if (failed(emitBody("      ")))
      return failure();
    for (auto [index, value] : llvm::enumerate(yield.getValues()))
      os << "      result" << index << "[k] = " << element.get(value) << ";\n";
  } else {
    // The dims before the tail are the vector's (its 4 elements share
    // them); the tail's dims are each lane's, from its position in the
    // tail: tailBase + lane.
    int64_t tailStart = *getVectorTailStart(fusion, shape);
    int64_t tail = product(shape.drop_front(tailStart));
    auto outerDims = ArrayRef(allDims).take_front(tailStart);
    auto tailDims = ArrayRef(allDims).drop_front(tailStart);
    emitIndexDecomposition(os, "      ", shape, outerDims,
                           llvm::formatv("(v / {0}{1})", tail / width, suffix).str(),
                           narrow);
    os << "      const " << type << " tailBase = (v % " << tail / width << suffix
       << ") * " << width << ";\n";
    // Captures read per element and dense over the tail: one vector load at
    // the first lane's offset, then a lane at a time.
    for (BlockArgument argument : fusion.getBodyBlock().getArguments()) {
      if (!isReadPerElement(argument) || isBroadcastAlongTail(argument, shape, tailStart))
        continue; // the same element for every lane
      ArrayRef<int64_t> dims = cast<RankedTensorType>(argument.getType()).getShape();
      const std::string &name = captureNames[argument.getArgNumber()];
      os << "      float " << name << "_lanes[" << width << "];\n"
         << "      {\n";
      emitIndexDecomposition(os, "        ", shape, tailDims, "tailBase", narrow);
      os << "        const " << itemType << " loaded = *reinterpret_cast<const "
         << itemType << " *>(" << name << " + " << element.getOffset(dims)
         << ");\n";
      for (int64_t lane = 0; lane < width; ++lane)
        os << "        " << name << "_lanes[" << lane << "] = loaded."
           << "xyzw"[lane] << ";\n";
      os << "      }\n";
      element.bind(argument, name + "_lanes[lane]");
    }
    for (unsigned index = 0; index < numResults; ++index)
      os << "      float result" << index << "_lanes[" << width << "];\n";
    os << "#pragma unroll\n"
       << "      for (int lane = 0; lane < " << width << "; ++lane) {\n";
    emitIndexDecomposition(os, "        ", shape, tailDims, "(tailBase + lane)",
                           narrow);
    if (failed(emitBody("        ")))
      return failure();
    for (auto [index, value] : llvm::enumerate(yield.getValues()))
      os << "        result" << index << "_lanes[lane] = " << element.get(value)
         << ";\n";
    os << "      }\n";
    for (unsigned index = 0; index < numResults; ++index) {
      os << "      result" << index << "[k] = make_" << itemType << "(";
      for (int64_t lane = 0; lane < width; ++lane)
        os << (lane ? ", " : "") << "result" << index << "_lanes[" << lane << "]";
      os << ");\n";
    }
  }
  os << "    }\n";
  beginItemLoop();
  for (unsigned index = 0; index < numResults; ++index)
    if (width == 1)
      os << "      out" << index << "[e] = result" << index << "[k];\n";
    else
      os << "      reinterpret_cast<" << itemType << " *>(out" << index << ")[v] = result"
         << index << "[k];\n";
  os << "    }\n  }\n}\n\n";
  return success();
}

void ProgramEmitter::emitCoefficientTables(FusionOp fusion,
                                           ElementEmitter &element,
                                           ArrayRef<int64_t> keptDims,
                                           ArrayRef<int64_t> shape,
                                           int64_t outputs, int64_t threads,
                                           bool narrow) {
  // A thread per output keeps the batch index of its output: a block's
  // outputs span at most two samples when a sample has 256 outputs or more.
  int64_t perSample = outputs / shape[0];
  bool batchKept = !keptDims.empty() && keptDims.front() == 0;
  if (!batchKept || perSample < threads)
    return;
  StringRef type = narrow ? "int" : "long", suffix = narrow ? "" : "L";
  // Tables take at most 16 KB of static shared memory together; a
  // group_normalize past that, or whose statistics, weight or bias are not
  // captures (emitCoefficients refuses those), computes per element.
  constexpr int64_t kTableBytes = 16 * 1024;
  int64_t tableBytes = 0;
  unsigned index = 0;
  bool firstSampleDeclared = false;
  auto isCapture = [](Value value) { return !value || isa<BlockArgument>(value); };
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    auto normalize = dyn_cast<GroupNormalizeOp>(op);
    if (!normalize || !isCapture(normalize.getStats()) ||
        !isCapture(normalize.getWeight()) || !isCapture(normalize.getBias()) ||
        element.isCentered(normalize))
      continue;
    int64_t channels = normalize.getInput().getType().getDimSize(1);
    bool acrossBatch = normalize.getStats().getType().getDimSize(0) == 1;
    int64_t samples = acrossBatch ? 1 : 2;
    if (tableBytes + samples * channels * 8 > kTableBytes)
      continue;
    tableBytes += samples * channels * 8;
    std::string table = "normalize" + std::to_string(index++) + "_coefficients";
    if (!acrossBatch && !firstSampleDeclared) {
      os << "  const " << type << " firstSample = blockIdx.x * " << threads
         << suffix << " / " << perSample << ";\n";
      firstSampleDeclared = true;
    }
    os << "  // group_normalize's (scale, shift) for each channel of the block's\n"
       << "  // samples, computed once instead of at every element.\n"
       << "  __shared__ float2 " << table << "[" << samples * channels << "];\n"
       << "  for (int t = threadIdx.x; t < " << samples * channels << "; t += "
       << threads << ") {\n";
    if (acrossBatch)
      os << "    [[maybe_unused]] const " << type << " i0 = 0;\n";
    else
      os << "    [[maybe_unused]] const " << type << " i0 = min(firstSample + t / "
         << channels << ", " << shape[0] - 1 << suffix << ");\n";
    os << "    const " << type << " i1 = t % " << channels << ";\n";
    (void)element.emitCoefficients(normalize, os, "    ", "c"); // captures: succeeds
    os << "    " << table << "[t] = make_float2(c_scale, c_shift);\n  }\n";
    element.useCoefficientTable(
        normalize, table,
        acrossBatch ? "i1" : "(i0 - firstSample) * " + std::to_string(channels) + " + i1");
  }
  if (index)
    os << "  __syncthreads();\n";
}

LogicalResult ProgramEmitter::emitReductionKernel(FusionOp fusion,
                                                  Operation *reduction) {
  YieldOp yield = fusion.getYield();
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0) != reduction->getResult(0))
    return fusion.emitError("the CUDA code generator needs a reduction region "
                            "to yield only its reduction");
  auto inType = cast<RankedTensorType>(reduction->getOperand(0).getType());
  ArrayRef<int64_t> shape = inType.getShape();
  auto stats = dyn_cast<GroupStatsOp>(reduction);
  auto reduce = dyn_cast<ReduceOp>(reduction);
  FailureOr<RegionLaunchAttr> planned = getPlannedRegionLaunch(fusion);
  if (failed(planned))
    return failure();
  const RegionExtent extent = getRegionExtent(fusion);
  const int64_t outputs = extent.outputs, length = extent.length;
  const int64_t threads = planned->getThreads();
  bool threadPerOutput = planned->getWalk() == RegionWalk::thread_per_output;
  SmallVector<int64_t> keptDims, reducedDims;
  if (reduce)
    for (int64_t d = 0; d < inType.getRank(); ++d)
      (llvm::is_contained(reduce.getDims(), d) ? reducedDims : keptDims)
          .push_back(d);
  // A float count is exact up to 2^24: statistics over more elements per
  // group (BatchNorm over a large batch x volume) keep count, mean and M2
  // in double.
  std::string accumulator = length >= (int64_t(1) << 24) ? "WelfordDouble" : "Welford";
  if (reduce) {
    switch (reduce.getKind()) {
    case ReduceKind::sum: accumulator = "SumAccumulator"; break;
    case ReduceKind::mean: accumulator = "MeanAccumulator"; break;
    case ReduceKind::max: accumulator = "MaxAccumulator"; break;
    case ReduceKind::min: accumulator = "MinAccumulator"; break;
    case ReduceKind::prod: accumulator = "ProdAccumulator"; break;
    case ReduceKind::logsumexp: accumulator = "LogSumExpAccumulator"; break;
    }
  }

  SmallVector<std::string> captureNames;
  std::string summary = "reduction";
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (!isa<arith::ConstantOp>(op))
      summary += " -> " + op.getName().stripDialect().str();
  summary += threadPerOutput ? " (one thread per output)"
                             : " (one block per output)";
  beginKernel(fusion, fusion.getName(), summary, {planned->getGrid()[0], 1, 1}, {},
              captureNames, threads);
  ElementEmitter element(fusion, captureNames, shape, getDoubleCaptures(fusion));
  // 32-bit indices where they fit (not for statistics, whose indexing
  // below is in 64 bits).
  bool narrowOutputs = !stats && fitsInt(outputs + threads);
  bool narrowLength = !stats && fitsInt(length + threads);
  StringRef outputType = narrowOutputs ? "int" : "long";
  StringRef lengthType = narrowLength ? "int" : "long";
  // One thread per output walks its reduction in chunks: a chunk's loads
  // and pointwise ops are independent of the accumulator, so they are all
  // in flight before its data-dependent adds (one load at a time left the
  // kernel latency-bound at a third of the memory bandwidth).
  const int64_t chunk = planned->getChunk();
  bool ragged = length % chunk != 0;
  if (threadPerOutput && reduce)
    emitCoefficientTables(fusion, element, keptDims, shape, outputs, threads, narrowOutputs);
  if (threadPerOutput) {
    os << "  const " << outputType << " o = blockIdx.x * " << threads
       << " + threadIdx.x;\n  if (o >= " << outputs << "L)\n    return;\n";
    if (!stats)
      emitIndexDecomposition(os, "  ", shape, keptDims, "o", narrowOutputs);
    os << "  solder::" << accumulator << " acc;\n"
       << "  for (" << lengthType << " r0 = 0; r0 < " << length
       << "; r0 += " << chunk << ") {\n"
       << "    " << (element.isDouble(reduction->getOperand(0)) ? "double" : "float")
       << " chunk[" << chunk << "];\n"
       << "#pragma unroll\n"
       << "    for (int k = 0; k < " << chunk << "; ++k) {\n"
       << "      const " << lengthType << " r = r0 + k;\n";
    if (ragged)
      os << "      if (r >= " << length << ")\n        break;\n";
  } else {
    os << "  const " << outputType << " o = blockIdx.x;\n"
       << "  solder::" << accumulator << " acc;\n"
       << "  for (" << lengthType << " r = threadIdx.x; r < " << length
       << "; r += " << threads << ") {\n";
  }
  std::string indent = threadPerOutput ? "      " : "    ";

  if (stats) {
    // o = (n, g) or g; r runs over the group's channels and spatial dims
    // (and the batch when across_batch).
    int64_t numGroups = stats.getNumGroups();
    int64_t perGroup = shape[1] / numGroups;
    int64_t volume = product(shape.drop_front(2));
    if (stats.getAcrossBatch())
      os << indent << "const long i0 = r / " << perGroup * volume << "L;\n";
    else
      os << indent << "const long i0 = o / " << numGroups << "L;\n";
    os << indent << "const long i1 = (o % " << numGroups << "L) * " << perGroup
       << "L + (r / " << volume << "L) % " << perGroup << "L;\n";
    emitIndexDecomposition(os, indent, shape,
                           llvm::to_vector(llvm::seq<int64_t>(2, shape.size())),
                           "(r % " + std::to_string(volume) + "L)");
  } else {
    if (!threadPerOutput)
      emitIndexDecomposition(os, indent, shape, keptDims, "o", narrowOutputs);
    emitIndexDecomposition(os, indent, shape, reducedDims, "r", narrowLength);
  }
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    if (&op == reduction)
      continue;
    if (!isElementwise(&op))
      return op.emitError("the CUDA code generator needs a reduction region to "
                          "hold pointwise ops and one reduction, not '")
             << op.getName() << "'";
    if (failed(element.emit(&op, os, indent)))
      return failure();
  }
  std::string value = element.get(reduction->getOperand(0));
  if (threadPerOutput) {
    os << "      chunk[k] = " << value << ";\n    }\n";
    // The last chunk of a ragged reduction adds its valid elements one by
    // one; whole chunks go to the accumulator at once (solder::addChunk).
    if (ragged)
      os << "    if (r0 + " << chunk << " > " << length << ") {\n"
         << "      for (int k = 0; r0 + k < " << length << "; ++k)\n"
         << "        acc.add(chunk[k]);\n"
         << "      break;\n    }\n";
    os << "    solder::addChunk(acc, chunk);\n  }\n";
  } else {
    os << "    acc.add(" << value << ");\n  }\n";
  }
  if (!threadPerOutput)
    os << "  acc = solder::combineBlock<" << threads << ">(acc);\n"
       << "  if (threadIdx.x != 0)\n    return;\n";
  if (stats)
    os << "  out0[o * 2] = acc.mean;\n  out0[o * 2 + 1] = acc.rstd("
       << formatFloat(stats.getEpsilon().convertToDouble()) << ");\n";
  else
    os << "  out0[o] = acc.result(" << length << ".0f);\n";
  os << "}\n\n";
  return success();
}

LogicalResult ProgramEmitter::emitFusion(FusionOp fusion) {
  Operation *anchor = nullptr;
  SmallVector<Operation *> reductions;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    if (isa<ConvOp, ConvTransposeOp>(op)) {
      if (anchor)
        return op.emitError("the CUDA code generator supports one conv per "
                            "region");
      anchor = &op;
    } else if (isa<ReduceOp, GroupStatsOp>(op)) {
      reductions.push_back(&op);
    } else if (!isElementwise(&op)) {
      return op.emitError("the CUDA code generator cannot compute '")
             << op.getName() << "' in a kernel";
    }
  }
  if (anchor)
    return emitConvKernel(fusion, anchor);
  if (reductions.empty())
    return emitElementwiseKernel(fusion);
  if (reductions.size() > 1)
    return fusion.emitError("the CUDA code generator supports one reduction "
                            "per region without a conv");
  return emitReductionKernel(fusion, reductions.front());
}

FailureOr<CudaProgram> ProgramEmitter::run(func::FuncOp function) {
  // Kernels and bundles assume every tensor holds an element (a reduction
  // over none has no chunk to load, an empty launch no grid).
  auto refuseEmpty = [](Type type, function_ref<InFlightDiagnostic()> emitError) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !llvm::is_contained(tensor.getShape(), 0))
      return success();
    emitError() << "the CUDA code generator needs every tensor to hold an "
                   "element; "
                << type << " is empty";
    return failure();
  };
  for (Type type : function.getFunctionType().getInputs())
    if (failed(refuseEmpty(type, [&] { return function.emitError(); })))
      return failure();
  WalkResult empty = function.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (failed(refuseEmpty(type, [&] { return op->emitError(); })))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (empty.wasInterrupted())
    return failure();
  for (BlockArgument argument : function.getArguments())
    storage[argument] = {KernelArgRef::Kind::input, argument.getArgNumber()};
  for (Operation &op : function.getBody().front().without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    auto fusion = dyn_cast<FusionOp>(op);
    if (!fusion)
      return op.emitError("the CUDA code generator runs fusion regions only; '")
             << op.getName() << "' is outside any (run solder-pipeline first, "
                                "or this op is not supported yet)";
  }
  // Returned fusion results are written straight into the outputs.
  Operation *terminator = function.getBody().front().getTerminator();
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    if (!value.getDefiningOp<FusionOp>() || storage.count(value))
      return terminator->emitError("the CUDA code generator needs every "
                                   "returned value to be a distinct fusion "
                                   "result (returned #")
             << index << " is not)";
    storage[value] = {KernelArgRef::Kind::output,
                      static_cast<unsigned>(index)};
  }
  // The plan's f64_results: statistics its finalize kernels store in double.
  for (FusionOp fusion : function.getBody().front().getOps<FusionOp>())
    if (auto finalize =
            fusion->getAttrOfType<FinalizeLaunchAttr>(SolderDialect::kFinalizeAttrName))
      for (int64_t index : finalize.getF64Results().asArrayRef())
        if (index < fusion.getNumResults())
          doubleStorage.insert(fusion.getResult(index));
  for (FusionOp fusion : function.getBody().front().getOps<FusionOp>()) {
    for (auto [index, result] : llvm::enumerate(fusion.getResults()))
      if (!storage.count(result))
        storage[result] = {
            KernelArgRef::Kind::buffer,
            addBuffer(fusion.getName().str() + "_result" + std::to_string(index),
                      cast<RankedTensorType>(result.getType()).getNumElements() *
                          (doubleStorage.contains(result) ? 8 : 4),
                      false)};
  }

  os << "// Generated by solder-compile from @" << function.getName()
     << ". Each kernel below is one solder.fusion region of the planned IR;\n"
     << "// its comment lists the fused ops and what each parameter holds.\n\n";
  // The device templates the kernels instantiate: a conv kernel's body and
  // each main loop used, the finalize of partial reductions.
  std::set<StringRef> headers;
  function.walk([&](FusionOp fusion) {
    if (fusion->getAttr(SolderDialect::kFinalizeAttrName))
      headers.insert("solder/epilogue/finalize.cuh");
    auto schedule =
        fusion->getAttrOfType<ConvScheduleAttr>(SolderDialect::kScheduleAttrName);
    if (!schedule)
      return;
    headers.insert("solder/kernel/conv_kernel.cuh");
    switch (schedule.getMainLoop()) {
    case MainLoopKind::implicit_gemm_fma:
      headers.insert("solder/conv/mainloop_implicit_gemm_fma.cuh");
      break;
    case MainLoopKind::implicit_gemm_tensorop:
      headers.insert("solder/conv/mainloop_implicit_gemm_tensorop.cuh");
      headers.insert("solder/conv/layout.cuh");
      break;
    case MainLoopKind::direct_fma:
      headers.insert("solder/conv/mainloop_direct_fma.cuh");
      break;
    case MainLoopKind::direct_tensorop:
      headers.insert("solder/conv/mainloop_direct_tensorop.cuh");
      break;
    }
  });
  for (StringRef header : headers)
    os << "#include <" << header << ">\n";
  os << "#include <solder/pointwise.cuh>\n"
     << "#include <solder/reduce.cuh>\n#include <solder/welford.cuh>\n\n";
  for (FusionOp fusion : function.getBody().front().getOps<FusionOp>())
    if (failed(emitFusion(fusion)))
      return failure();
  program.source = std::move(source);
  return std::move(program);
}

FailureOr<CudaProgram> mlir::solder::emitCuda(func::FuncOp function) {
  return ProgramEmitter().run(function);
}
