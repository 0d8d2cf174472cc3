//===- EmitProgram.cpp - Planned solder IR to CUDA C++ --------------------===//
//
// emitCuda: a kernel per solder.fusion, each the instantiation of a device
// template of runtime/device/solder under what the region computes:
//  * conv: solder::ConvKernel of the plan's main loop and tile scheduler
//    under a generated epilogue functor (ConvKernel.cpp, ConvEpilogue.cpp),
//    and a `_finalize` kernel that combines its partial reductions in a
//    fixed order;
//  * elementwise: solder::runElementwise over a generated Region functor
//    (ElementwiseKernel.cpp);
//  * reduction: a pointwise chain feeding one reduction, a thread or a
//    block per output (ReductionKernel.cpp).
// Here: the program's buffers and includes, each kernel's signature and
// launch. No float atomics anywhere: results are bitwise reproducible.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Analysis/ConvSchedule.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace mlir;
using namespace mlir::solder;

int64_t mlir::solder::product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t value : values)
    result *= value;
  return result;
}

std::string mlir::solder::typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

void mlir::solder::emitIndexDecomposition(raw_ostream &os, StringRef indent,
                                          ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                                          StringRef linear, bool narrow) {
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

FailureOr<RegionLaunchAttr> mlir::solder::getPlannedRegionLaunch(FusionOp fusion) {
  auto launch = fusion->getAttrOfType<RegionLaunchAttr>(SolderDialect::kScheduleAttrName);
  if (!launch)
    return fusion.emitError("the CUDA code generator needs the launch of solder-plan "
                            "(#solder.region_launch; run solder-pipeline first)");
  return launch;
}

bool mlir::solder::isEpilogueReduction(ArrayRef<EpilogueReduction> reductions, Value value) {
  return llvm::any_of(reductions,
                      [&](const EpilogueReduction &r) { return r.op == value.getDefiningOp(); });
}

/// Whether a kernel parameter's declaration is of memory it writes.
static bool isWritten(StringRef declaration) { return !declaration.starts_with("const "); }

void ProgramEmitter::beginKernel(FusionOp fusion, StringRef kernel, StringRef summary,
                                 std::array<int64_t, 3> grid, ArrayRef<unsigned> buffers,
                                 int64_t threads, int64_t sharedBytes, int64_t blocksPerSM,
                                 unsigned readBuffers) {
  KernelLaunch launch;
  launch.kernel = kernel.str();
  launch.grid = grid;
  launch.block = {threads, 1, 1};
  launch.sharedBytes = sharedBytes;
  os << "// " << kernel << ": " << summary << "\n";
  SmallVector<std::string> params;
  SmallVector<RegionParameter> parameters = getRegionParameters(fusion);
  auto tensors = llvm::concat<Value>(fusion.getCaptures(), fusion.getResults());
  for (auto [parameter, tensor] : llvm::zip_equal(parameters, tensors)) {
    params.push_back(parameter.declaration);
    launch.args.push_back(storage.lookup(tensor));
    launch.writes.push_back(isWritten(parameter.declaration));
    os << "//   " << parameter.name << ": " << typeString(tensor.getType()) << "\n";
  }
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    params.push_back("float *__restrict__ ws" + std::to_string(index));
    launch.args.push_back({KernelArgRef::Kind::buffer, buffer});
    launch.writes.push_back(index >= readBuffers);
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
    launch.writes.push_back(isWritten(declaration));
  }
  os << "// " << kernel << ": " << comment << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kOperandPrepThreads << ")\n"
     << kernel << "(" << llvm::join(declarations, ",\n    ") << ") {\n";
  program.launches.push_back(std::move(launch));
}

SmallVector<ProgramEmitter::RegionParameter>
ProgramEmitter::getRegionParameters(FusionOp fusion) const {
  SmallVector<RegionParameter> parameters;
  for (auto index : llvm::seq<unsigned>(0, fusion.getCaptures().size()))
    parameters.push_back({"in" + std::to_string(index), getCaptureParameter(fusion, index)});
  for (auto index : llvm::seq<unsigned>(0, fusion.getNumResults()))
    parameters.push_back({"out" + std::to_string(index), getResultParameter(fusion, index)});
  return parameters;
}

SmallVector<std::string> ProgramEmitter::getCaptureNames(FusionOp fusion) {
  return llvm::to_vector(llvm::map_range(llvm::seq<unsigned>(0, fusion.getCaptures().size()),
                                         [](unsigned index) { return "in" + std::to_string(index); }));
}

std::string ProgramEmitter::getRegionMembers(FusionOp fusion) const {
  std::string members;
  for (const RegionParameter &parameter : getRegionParameters(fusion))
    members += "  " + parameter.declaration + ";\n";
  return members;
}

std::string ProgramEmitter::getRegionInitializer(FusionOp fusion) const {
  SmallVector<RegionParameter> parameters = getRegionParameters(fusion);
  auto names = llvm::map_range(parameters,
                               [](const RegionParameter &parameter) { return parameter.name; });
  return "{" + llvm::join(names, ", ") + "}";
}

LogicalResult ProgramEmitter::emitFusion(FusionOp fusion) {
  // A channels-last tensor is read only where the plan put its readers: a
  // tensor-core conv's input and its epilogue (checked there).
  bool convRegion = !isRowRegion(fusion) &&
                    llvm::any_of(fusion.getBodyBlock(), llvm::IsaPred<ConvOp, ConvTransposeOp>);
  if (!convRegion && llvm::is_contained(getChannelsLastCaptures(fusion), true))
    return fusion.emitError("the CUDA code generator reads a tensor stored channels-last only "
                            "in a conv region");
  if (isRowRegion(fusion))
    return emitRowsKernel(fusion);
  if (std::optional<ReduceApplyRow> row = getReduceApplyRow(fusion))
    return emitReduceApplyKernel(fusion, *row);
  Operation *anchor = nullptr;
  SmallVector<Operation *> reductions, pools;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    if (isa<ConvOp, ConvTransposeOp>(op)) {
      if (anchor)
        return op.emitError("the CUDA code generator supports one conv per "
                            "region");
      anchor = &op;
    } else if (isa<ReduceOp, GroupStatsOp>(op)) {
      reductions.push_back(&op);
    } else if (isa<PoolOp, AdaptivePoolOp>(op)) {
      pools.push_back(&op);
    } else if (!isElementwise(&op)) {
      return op.emitError("the CUDA code generator cannot compute '")
             << op.getName() << "' in a kernel";
    }
  }
  if (anchor && !pools.empty())
    return pools.front()->emitError("the CUDA code generator runs a pool in a "
                                    "region of its own, not in a conv's epilogue");
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
  if (function.isDeclaration())
    return function.emitError("the CUDA code generator needs a function with a body; '")
           << function.getName() << "' is a declaration";
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
    if (!isa<FusionOp, ReshapeOp>(op))
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
  for (FusionOp fusion : function.getBody().front().getOps<FusionOp>())
    if (auto channelsLast =
            fusion->getAttrOfType<DenseI64ArrayAttr>(SolderDialect::kChannelsLastAttrName))
      for (int64_t index : channelsLast.asArrayRef())
        channelsLastStorage.insert(fusion.getResult(index));
  for (BlockArgument argument : function.getArguments())
    if (function.getArgAttr(argument.getArgNumber(), SolderDialect::kChannelsLastAttrName))
      channelsLastStorage.insert(argument);
  // The caller gets each result in the layout the function says.
  for (auto [index, returned] :
       llvm::enumerate(function.getBody().front().getTerminator()->getOperands())) {
    bool wanted = function.getResultAttr(index, SolderDialect::kChannelsLastAttrName) != nullptr;
    if (wanted != channelsLastStorage.contains(returned))
      return function.emitError("the CUDA code generator returns result #")
             << index << (wanted ? " channels-last, as the function says, but " : " NCDHW, but ")
             << returned.getDefiningOp<FusionOp>().getName() << " stores it "
             << (wanted ? "NCDHW" : "channels-last");
  }
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
  // A reshape is its input's storage seen with another shape: no kernel, no
  // copy. Its input is stored as the reshape reads it (the plan keeps a
  // reshaped tensor NCDHW, and finalize stores no such tensor in double).
  for (ReshapeOp reshape : function.getBody().front().getOps<ReshapeOp>()) {
    Value input = reshape.getInput();
    if (!storage.count(input))
      return reshape.emitError("the CUDA code generator reshapes a kernel's result or an "
                               "argument, not a constant");
    if (channelsLastStorage.contains(input) || doubleStorage.contains(input))
      return reshape.emitError("the CUDA code generator reshapes only a tensor stored NCDHW "
                               "in float; its input is stored ")
             << (doubleStorage.contains(input) ? "in double" : "channels-last");
    storage[reshape.getResult()] = storage.lookup(input);
  }

  os << "// Generated by solder-compile from @" << function.getName()
     << ". Each kernel below is one solder.fusion region of the planned IR;\n"
     << "// its comment lists the fused ops and what each parameter holds.\n\n";
  // The device templates the kernels instantiate: each kind of kernel body,
  // each main loop used, the finalize of partial reductions.
  std::set<StringRef> headers;
  function.walk([&](FusionOp fusion) {
    if (fusion->getAttr(SolderDialect::kFinalizeAttrName))
      headers.insert("solder/epilogue/finalize.cuh");
    if (!fusion.getBodyBlock().getOps<PoolOp>().empty() ||
        !fusion.getBodyBlock().getOps<AdaptivePoolOp>().empty())
      headers.insert("solder/pool.cuh");
    if (auto launch =
            fusion->getAttrOfType<RegionLaunchAttr>(SolderDialect::kScheduleAttrName))
      headers.insert(launch.getWalk() == RegionWalk::elementwise
                         ? "solder/kernel/elementwise_kernel.cuh"
                     : launch.getWalk() == RegionWalk::block_per_row
                         ? "solder/kernel/rows_kernel.cuh"
                     : launch.getWalk() == RegionWalk::warp_per_row
                         ? "solder/kernel/reduce_apply_kernel.cuh"
                         : "solder/kernel/reduction_kernel.cuh");
    auto schedule =
        fusion->getAttrOfType<ConvScheduleAttr>(SolderDialect::kScheduleAttrName);
    if (!schedule)
      return;
    headers.insert("solder/kernel/conv_kernel.cuh");
    if (!schedule.getPrologueGrid().empty())
      headers.insert("solder/conv/layout.cuh"); // applyPrologue
    switch (schedule.getMainLoop()) {
    case MainLoopKind::implicit_gemm_fma:
      headers.insert("solder/conv/mainloop_implicit_gemm_fma.cuh");
      break;
    case MainLoopKind::implicit_gemm_tensorop:
      headers.insert("solder/conv/mainloop_implicit_gemm_tensorop.cuh");
      headers.insert("solder/conv/layout.cuh");
      break;
    case MainLoopKind::implicit_gemm_wgmma:
      headers.insert("solder/conv/mainloop_implicit_gemm_wgmma.cuh");
      headers.insert("solder/conv/layout.cuh");
      break;
    case MainLoopKind::direct_fma:
      headers.insert("solder/conv/mainloop_direct_fma.cuh");
      break;
    case MainLoopKind::direct_tensorop:
      headers.insert("solder/conv/mainloop_direct_tensorop.cuh");
      break;
    case MainLoopKind::depthwise:
      headers.insert("solder/conv/mainloop_depthwise.cuh");
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
  SmallVector<bool> parameters;
  for (unsigned index : llvm::seq<unsigned>(0, function.getNumArguments()))
    parameters.push_back(function.getArgAttr(index, SolderDialect::kParameterAttrName) !=
                         nullptr);
  markPreparations(program, parameters);
  return std::move(program);
}

/// Which launches are preparations (KernelLaunch::preparedFrom): walking
/// the launches in stream order, the parameters each buffer's contents were
/// computed from.
void mlir::solder::markPreparations(CudaProgram &program, ArrayRef<bool> parameters) {
  SmallVector<unsigned> writers(program.buffers.size(), 0);
  for (const KernelLaunch &launch : program.launches)
    for (auto [arg, written] : llvm::zip_equal(launch.args, launch.writes))
      if (written && arg.kind == KernelArgRef::Kind::buffer)
        ++writers[arg.index];
  // Per buffer: the parameters its contents come from, or nullopt where a
  // launch that is no preparation wrote it (or none did).
  SmallVector<std::optional<llvm::SmallSetVector<unsigned, 4>>> sources(
      program.buffers.size());
  for (KernelLaunch &launch : program.launches) {
    llvm::SmallSetVector<unsigned, 4> from;
    bool prepares = true;
    for (auto [arg, written] : llvm::zip_equal(launch.args, launch.writes)) {
      switch (arg.kind) {
      case KernelArgRef::Kind::input:
        from.insert(arg.index);
        prepares &= arg.index < parameters.size() && parameters[arg.index];
        break;
      case KernelArgRef::Kind::output:
        prepares = false; // an output is the caller's, fresh each call
        break;
      case KernelArgRef::Kind::buffer:
        if (written) {
          prepares &= writers[arg.index] == 1 && !program.buffers[arg.index].zeroed;
        } else if (sources[arg.index]) {
          from.insert(sources[arg.index]->begin(), sources[arg.index]->end());
        } else {
          prepares = false;
        }
        break;
      }
    }
    prepares &= !from.empty();
    for (auto [arg, written] : llvm::zip_equal(launch.args, launch.writes))
      if (written && arg.kind == KernelArgRef::Kind::buffer) {
        if (prepares)
          sources[arg.index] = from;
        else
          sources[arg.index].reset();
      }
    if (prepares)
      launch.preparedFrom.assign(from.begin(), from.end());
  }
}

FailureOr<CudaProgram> mlir::solder::emitCuda(func::FuncOp function) {
  return ProgramEmitter().run(function);
}
