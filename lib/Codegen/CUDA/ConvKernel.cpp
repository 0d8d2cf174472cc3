//===- ConvKernel.cpp - A conv region's kernels ---------------------------===//
//
// A conv region becomes solder::ConvKernel<MainLoop, Epilogue,
// TileScheduler> (runtime/device/solder/kernel/conv_kernel.cuh) of the
// plan's #solder.conv_schedule: the geometry struct, the main loop's and the
// kernel's `using` lines with static_asserts that the device templates agree
// with the plan, the kernels that prepare its operands (layout conversions
// for the implicit GEMM on tensor cores, the direct conv's weight
// fragments), CUTLASS's parameters in the constant bank, the entry point,
// and the `_finalize` kernel of its partial reductions.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Analysis/ConvEpilogue.h"
#include "solder/Analysis/ConvSchedule.h"
#include "solder/Analysis/WgmmaConvForm.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::solder;

LogicalResult ProgramEmitter::emitConvKernel(FusionOp fusion,
                                             Operation *anchor) {
  auto conv = dyn_cast<ConvOp>(anchor);
  auto convT = dyn_cast<ConvTransposeOp>(anchor);
  Value input = anchor->getOperand(0), weight = anchor->getOperand(1);
  Value bias = anchor->getNumOperands() > 2 ? anchor->getOperand(2) : Value();
  if (!isa<BlockArgument>(weight) || (bias && !isa<BlockArgument>(bias)))
    return anchor->emitError("the CUDA code generator needs a conv's weight and bias "
                             "computed before its kernel");
  // The pointwise ops that compute the conv's input (its prologue), applied
  // by the kernel that prepares the main loop's input.
  SmallVector<Operation *> prologueOps = getConvPrologue(anchor);
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
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
  // The plan's grid: (pixel tiles of one sample, channel tiles, samples x K
  // splits), or (tiles of every sample's pixels, channel tiles, K splits)
  // where the tiles run across samples: a GEMM-shaped conv's samples as
  // its pixels (SamplesAsPixels), or the Hopper main loop's tiles running
  // on from one sample into the next.
  int64_t pixelTiles = grid[0];
  auto gemmTile = dyn_cast<ImplicitGemmTileAttr>(schedule.getConfig());
  bool acrossSamples = gemmTile && gemmTile.getPixels() == PixelTiling::across_samples;
  bool samplesAsPixels = acrossSamples && isGemmShapedConv(anchor);
  // Tiles across samples in the conv's own geometry (the Hopper main loop's).
  bool ownGeometryAcross = acrossSamples && !samplesAsPixels;
  int64_t splits = gemmTile ? gemmTile.getKSplits() : 1;
  if (ownGeometryAcross && mainLoop != MainLoopKind::implicit_gemm_wgmma)
    return fusion.emitError("the CUDA code generator runs tiles across the samples of a conv "
                            "with more than one output pixel a sample on the Hopper main loop "
                            "(implicit_gemm_wgmma) only");
  if (grid[1] > 65535 || grid[2] > 65535)
    return anchor->emitError("the CUDA code generator launches a conv's ")
           << "channel tiles and samples on grid y and z, at most 65535 each; "
           << "this one needs " << grid[1] << " x " << grid[2];
  std::string name = fusion.getName().str();

  // Sort the epilogue: pointwise ops per element, reductions of them, whose
  // partials are a (sample, pixel tile, channel)'s (getPartialSamples).
  int64_t partialSamples = getPartialSamples(anchor, acrossSamples);
  SmallVector<Operation *> pointwise;
  SmallVector<EpilogueReduction> reductions;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    if (&op == anchor || isa<arith::ConstantOp>(op) || llvm::is_contained(prologueOps, &op))
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
      unsigned buffer = addBuffer(name + "_partial_stats" + std::to_string(reductions.size()),
                                  partialSamples * pixelTiles * channels * 3 * 4, false);
      reductions.push_back({&op, buffer, true});
      continue;
    }
    // The per-channel reductions form-fusions lets into a conv region.
    if (isa<ReduceOp>(op) && isConvEpilogueOp(&op)) {
      unsigned buffer = addBuffer(name + "_partial_sums" + std::to_string(reductions.size()),
                                  partialSamples * pixelTiles * channels * 4, false);
      reductions.push_back({&op, buffer, false});
      continue;
    }
    return op.emitError("the CUDA code generator cannot compute '")
           << op.getName() << "' in a conv epilogue (supported: pointwise "
              "ops, group_stats, sum/mean over all spatial dims)";
  }
  if (acrossSamples && epilogueReducesPerSample(fusion))
    return reductions.front().op->emitError(
        "the CUDA code generator reduces nothing per sample in the epilogue of a conv "
        "whose tiles span samples (pixels = across_samples), only statistics across the "
        "batch; a reduction kernel reads its output");
  auto finalize =
      fusion->getAttrOfType<FinalizeLaunchAttr>(SolderDialect::kFinalizeAttrName);
  if (!reductions.empty() && !finalize)
    return fusion.emitError("the CUDA code generator needs the finalize launch of "
                            "solder-plan (run solder-pipeline first)");

  // Geometry, padded to 3 spatial dims.
  auto weightType = cast<RankedTensorType>(weight.getType());
  os << "struct " << name << "_geometry {\n"
     << "  static constexpr bool kTransposed = " << (convT ? "true" : "false")
     << ";\n"
     << "  static constexpr int kBatch = " << batch
     << ", kInChannels = " << inType.getDimSize(1)
     << ", kOutChannels = " << channels << ", kGroups = " << groups << ";\n"
     << "  static constexpr int kIn[3] = " << formatSpatial3(inType.getShape().drop_front(2), 1)
     << ", kOut[3] = " << formatSpatial3(outShape.drop_front(2), 1) << ";\n"
     << "  static constexpr int kKernel[3] = "
     << formatSpatial3(weightType.getShape().drop_front(2), 1) << ";\n"
     << "  static constexpr int kStride[3] = "
     << formatSpatial3(conv ? conv.getStrides() : convT.getStrides(), 1)
     << ", kPad[3] = " << formatSpatial3(conv ? conv.getPadding() : convT.getPadding(), 0)
     << ", kDilation[3] = "
     << formatSpatial3(conv ? conv.getDilations() : convT.getDilations(), 1) << ";\n"
     << "};\n\n";

  bool direct = mainLoop == MainLoopKind::direct_fma || mainLoop == MainLoopKind::direct_tensorop;
  bool tensorCores = schedule.getMath() != TensorMath::fma_f32;
  std::optional<ConvPrologue> prologue;
  if (!prologueOps.empty()) {
    FailureOr<ConvPrologue> emitted = emitConvPrologue(fusion, anchor, prologueOps);
    if (failed(emitted))
      return failure();
    prologue = std::move(*emitted);
  }
  std::string summary =
      (prologue ? prologue->summary + " -> " : std::string()) +
      (mainLoop == MainLoopKind::depthwise ? "depthwise "
       : direct                             ? "direct "
                                            : "implicit-GEMM ") +
      anchor->getName().stripDialect().str();
  summary += tensorCores ? " on tensor cores (" + mainLoopName.str() + ")"
                         : " with FMAs (" + schedule.getReason().str() + ")";
  if (samplesAsPixels)
    summary += ", a GEMM: tiles of samples";
  else if (acrossSamples)
    summary += ", tiles across samples";
  if (splits > 1)
    summary += llvm::formatv(", K split {0} ways", splits).str();
  for (Operation *op : pointwise)
    if (!isa<arith::ConstantOp>(op))
      summary += " -> " + op->getName().stripDialect().str();
  for (const EpilogueReduction &reduction : reductions)
    summary += " -> " + reduction.op->getName().stripDialect().str() + " (partial)";

  // Tensor cores read NDHWC input and KTRSC weights, converted first into
  // the kernel's first two buffers; the other main loops read PyTorch's.
  // A prologue for a main loop that reads PyTorch's layout: a kernel writes
  // the input it reads first.
  SmallVector<unsigned> buffers;
  auto workspace = [&](unsigned buffer) {
    buffers.push_back(buffer);
    return "ws" + std::to_string(buffers.size() - 1);
  };
  std::string mainLoopInput, mainLoopWeight =
      "in" + std::to_string(cast<BlockArgument>(weight).getArgNumber());
  KernelArgRef inputArg;
  if (!prologue) {
    mainLoopInput = "in" + std::to_string(cast<BlockArgument>(input).getArgNumber());
    inputArg = getCaptureArg(fusion, input);
  } else if (!isa<ImplicitGemmTileAttr>(schedule.getConfig())) {
    ArrayRef<int64_t> prologueGrid = schedule.getPrologueGrid();
    if (prologueGrid.empty())
      return fusion.emitError("the CUDA code generator needs the prologue launch of "
                              "solder-plan (run solder-pipeline first)");
    if (prologueGrid[0] * prologueGrid[1] * prologueGrid[2] * kOperandPrepThreads <
        inType.getNumElements())
      return fusion.emitError("the plan's prologue_grid covers fewer than the conv "
                              "input's ")
             << inType.getNumElements() << " elements (a thread an element)";
    unsigned buffer = addBuffer(name + "_input", inType.getNumElements() * 4, false);
    SmallVector<std::pair<std::string, KernelArgRef>> params = {
        {"const float *__restrict__ input", getCaptureArg(fusion, prologue->source)},
        {"float *__restrict__ prologued", {KernelArgRef::Kind::buffer, buffer}}};
    llvm::append_range(params, prologue->parameters);
    beginHelperKernel(name + "_input",
                      "the conv input as its main loop reads it: " + prologue->summary,
                      {prologueGrid[0], prologueGrid[1], prologueGrid[2]}, params);
    os << llvm::formatv("  solder::applyPrologue<{0}, {1}L, {2}L>(input, prologued, {3});\n}\n\n",
                        inType.getDimSize(1), product(inType.getShape().drop_front(2)),
                        inType.getNumElements(), prologue->functor);
    mainLoopInput = workspace(buffer);
    inputArg = {KernelArgRef::Kind::buffer, buffer};
  }
  // A channels-last input is read as it is, by the tensor-core and the
  // depthwise main loops only; a channels-last capture elsewhere only by
  // the epilogue.
  bool inputChannelsLast = false;
  auto implicitGemmTile = dyn_cast<ImplicitGemmTileAttr>(schedule.getConfig());
  // sm80's TF32 loop reads operands rounded to TF32 where Solder's
  // conversions write both (an input grid and a weight grid), which then
  // round them (TensorOpTile's OperandsTF32); it rounds them itself where
  // it reads one as its producer stored it. Its 3xTF32 loop splits floats.
  bool sm80OperandsTF32 = mainLoop == MainLoopKind::implicit_gemm_tensorop && !threeTF32 &&
                          implicitGemmTile && !implicitGemmTile.getInputGrid().empty() &&
                          !implicitGemmTile.getWeightGrid().empty();
  bool depthwise = isa<DepthwiseTileAttr>(schedule.getConfig());
  for (auto [index, channelsLast] : llvm::enumerate(getChannelsLastCaptures(fusion))) {
    if (!channelsLast)
      continue;
    BlockArgument argument = fusion.getBodyBlock().getArgument(index);
    bool isInput = argument == input && !prologue;
    inputChannelsLast |= isInput;
    bool readByPrologue = llvm::any_of(argument.getUsers(), [&](Operation *user) {
      return llvm::is_contained(prologueOps, user);
    });
    bool readByAnchor = llvm::any_of(argument.getUses(), [&](OpOperand &use) {
      return use.getOwner() == anchor && use.getOperandNumber() != 0;
    });
    // The epilogue indexes it at the conv output's own element.
    bool broadcast = llvm::any_of(argument.getUsers(), [&](Operation *user) {
      return user != anchor && argument.getType() != anchor->getResult(0).getType();
    });
    if ((isInput && !depthwise &&
         (!implicitGemmTile || !implicitGemmTile.getInputGrid().empty())) ||
        readByPrologue ||
        (argument == input && prologue) || readByAnchor || broadcast)
      return fusion.emitError("the CUDA code generator reads a tensor stored channels-last as "
                              "a tensor-core conv's input with no input_grid, a depthwise "
                              "conv's input, or in its epilogue");
  }
  // The layout conversions of a tensor-core main loop's operands (the
  // Hopper one's tensor maps cover them, or an input its producer stored).
  ConvertedOperands converted;
  if (implicitGemmTile) {
    if (prologue && implicitGemmTile.getInputGrid().empty())
      return fusion.emitError("the CUDA code generator applies a tensor-core conv's prologue "
                              "in its input conversion: the plan gives it no input_grid");
    bool hopper = mainLoop == MainLoopKind::implicit_gemm_wgmma;
    OperandStore store = hopper && threeTF32          ? OperandStore::tf32Parts
                         : hopper || sm80OperandsTF32 ? OperandStore::tf32
                                                      : OperandStore::asIs;
    converted = emitLayoutConversions(fusion, anchor, implicitGemmTile, prologue, store);
    if (converted.input)
      mainLoopInput = workspace(*converted.input);
    if (converted.weight)
      mainLoopWeight = workspace(*converted.weight);
  }
  // The direct conv on tensor cores reads its weights split into TF32
  // fragments, written by a kernel before it (a preparation, which the
  // runtime skips while the weights are unchanged parameters).
  auto directTile = dyn_cast<DirectTileAttr>(schedule.getConfig());
  unsigned preparedBuffer = 0;
  if (directTile) {
    preparedBuffer = addBuffer(name + "_prepared", directTile.getPreparedBytes(), false);
    mainLoopWeight = workspace(preparedBuffer);
  }
  unsigned firstReductionBuffer = buffers.size();
  for (const EpilogueReduction &reduction : reductions)
    buffers.push_back(reduction.buffer);

  FailureOr<SmallVector<std::string>> members =
      emitConvEpilogue(fusion, anchor, pointwise, reductions, firstReductionBuffer, partialSamples,
                       pixelTiles, schedule.getEpilogue(), mainLoop);
  if (failed(members))
    return failure();

  std::string memberList = "{" + llvm::join(*members, ", ") + "}";
  // The main loop, then the kernel that composes it with the epilogue and
  // the plan's tile scheduler (kernel/conv_kernel.cuh).
  StringRef math = threeTF32 ? "k3xTF32" : "kTF32";
  // The geometry a tensor-core main loop runs: a GEMM-shaped conv's
  // samples as one sample's pixels.
  std::string mainLoopGeometry =
      samplesAsPixels ? "solder::SamplesAsPixels<" + name + "_geometry>" : name + "_geometry";
  if (auto tile = dyn_cast<FmaTileAttr>(schedule.getConfig())) {
    ArrayRef<int64_t> block = tile.getTile();
    os << llvm::formatv("using {0}_mainloop = solder::ImplicitGemmFmaConv<{0}_geometry, {1}, "
                        "{2}, {3}>;\n",
                        name, block[0], block[1], block[2]);
  } else if (mainLoop == MainLoopKind::implicit_gemm_wgmma) {
    ArrayRef<int64_t> block = implicitGemmTile.getTile();
    // The tile's template arguments past the defaults it needs.
    std::string tileTail;
    if (threeTF32 || splits > 1 || ownGeometryAcross)
      tileTail += threeTF32 ? ", solder::TensorMath::k3xTF32" : ", solder::TensorMath::kTF32";
    if (splits > 1 || ownGeometryAcross)
      tileTail += llvm::formatv(", /*Splits=*/{0}", splits).str();
    if (ownGeometryAcross)
      tileTail += ", /*AcrossSamples=*/true";
    os << llvm::formatv("using {0}_mainloop = solder::WgmmaConv<\n"
                        "    {5}, solder::WgmmaTile<{1}, {2}, {3}{4}>>;\n",
                        name, block[0], block[1], implicitGemmTile.getStages(), tileTail,
                        mainLoopGeometry);
  } else if (implicitGemmTile) {
    ArrayRef<int64_t> block = implicitGemmTile.getTile(), warp = implicitGemmTile.getWarp();
    os << llvm::formatv("using {0}_mainloop = solder::TensorOpConv<\n"
                        "    {8}, solder::TensorOpTile<{1}, {2}, {3}, {4}, {5}, {6}, "
                        "solder::TensorMath::{7}{9}>>;\n",
                        name, block[0], block[1], block[2], warp[0], warp[1],
                        implicitGemmTile.getStages(), math, mainLoopGeometry,
                        sm80OperandsTF32 ? ", /*OperandsTF32=*/true" : "");
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
  } else if (auto depthwiseTile = dyn_cast<DepthwiseTileAttr>(schedule.getConfig())) {
    os << llvm::formatv("using {0}_mainloop = solder::DepthwiseConv<\n"
                        "    {0}_geometry, /*TileRows=*/{1}, /*TileColumns=*/{2}, "
                        "/*ThreadRows=*/{3}, /*BN=*/{4}{5}>;\n",
                        name, depthwiseTile.getRows(), depthwiseTile.getColumns(),
                        depthwiseTile.getThreadRows(), depthwiseTile.getChannels(),
                        inputChannelsLast ? ", /*InputChannelsLast=*/true" : "");
  } else {
    ArrayRef<int64_t> tile = cast<DirectFmaTileAttr>(schedule.getConfig()).getTile();
    os << llvm::formatv("using {0}_mainloop = solder::DirectConv<{0}_geometry, {1}, {2}>;\n",
                        name, tile[0], tile[1]);
  }
  // Across samples, the epilogue takes each pixel's sample back.
  std::string epilogueType =
      samplesAsPixels     ? "solder::SamplesAsPixelsEpilogue<" + name + "_epilogue>"
      : ownGeometryAcross ? llvm::formatv("solder::SamplesAsPixelsEpilogue<{0}_epilogue, "
                                          "/*Volume=*/{1}>",
                                          name, volume)
                                .str()
                          : name + "_epilogue";
  os << llvm::formatv("using {0}_kernel = solder::ConvKernel<{0}_mainloop, {7},\n"
                      "    solder::{1}<{2}, {3}, {4}{8}>>;\n"
                      "static_assert({0}_kernel::kThreads == {5} && {0}_kernel::kSharedBytes == "
                      "{6},\n"
                      "              \"the plan's threads and shared memory\");\n",
                      name, persistent ? "PersistentTileScheduler" : "GridTileScheduler",
                      grid[0], grid[1], grid[2] / splits, schedule.getThreads(),
                      schedule.getSharedBytes(), epilogueType,
                      splits > 1 ? ", /*Splits=*/" + std::to_string(splits) : "");
  std::string mainLoopArg; // what the main loop reads besides its operands
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
    mainLoopArg = name + "_context";
  }
  if (mainLoop == MainLoopKind::implicit_gemm_wgmma) {
    // A conv_transpose of stride > 1: its output phases, a conv of stride 1
    // each, with as many taps (the first's form stands for their steps and
    // their weights).
    SmallVector<::solder::WgmmaConvForm> phaseForms = getWgmmaPhaseForms(anchor);
    ::solder::WgmmaConvForm form =
        phaseForms.empty() ? getWgmmaConvForm(anchor, samplesAsPixels) : phaseForms.front();
    form.fits = runsOnWgmma(anchor, samplesAsPixels);
    if (splits > form.taps() * form.channelSteps())
      return fusion.emitError("the CUDA code generator splits a conv's K steps into at most as "
                              "many shares as it has (")
             << form.taps() * form.channelSteps() << "), got k_splits = " << splits;
    // Its input: the conversion's, or in TF32 a tensor of the bundle's own
    // that its producer stored channels-last and rounded (a tensor map over
    // the caller's tensor would not follow it from call to call).
    std::optional<unsigned> inputMapBuffer = converted.input;
    if (!converted.input && inputChannelsLast && !threeTF32 &&
        inputArg.kind == KernelArgRef::Kind::buffer) {
      Value stored = fusion.getCaptures()[cast<BlockArgument>(input).getArgNumber()];
      auto producer = stored.getDefiningOp<FusionOp>();
      if (!producer || !isRoundedTF32(producer, cast<OpResult>(stored).getResultNumber()))
        return fusion.emitError("the CUDA code generator reads a Hopper conv's channels-last "
                                "input through its tensor map only where its producer rounds "
                                "it to TF32 (solder.rounded_tf32)");
      inputMapBuffer = inputArg.index;
    }
    if (!form.fits || !inputMapBuffer || !converted.weight)
      return fusion.emitError("the CUDA code generator runs the Hopper main loop on a conv it "
                              "fits with both operands converted, or in TF32 its input "
                              "stored channels-last by its producer (plan it for sm_90a with "
                              "solder-plan)");
    int phases = phaseForms.empty() ? 1 : static_cast<int>(phaseForms.size());
    os << llvm::formatv(
        "\n// {0}_maps: the tensor maps its copies read, over {2}\n"
        "// weights{1} when it loads the bundle.\n"
        "__device__ solder::{3} {0}_maps;\n",
        name,
        threeTF32 ? ", their big TF32 parts then their small ones; the runtime\n"
                    "// encodes them"
                  : "; the runtime encodes them",
        converted.input ? phases > 1 ? "the converted input (an im2col map each output phase) and"
                                     : "the converted input and"
                        : "the input its producer stored channels-last, rounded, and the converted",
        phases > 1 ? llvm::formatv("WgmmaPhaseTensorMaps<{0}>", phases).str()
                   : std::string("WgmmaTensorMaps"));
    ArrayRef<int64_t> block = implicitGemmTile.getTile();
    ::solder::TensorMapSpec weightMap =
        ::solder::wgmmaWeightMap(form, static_cast<int>(block[1]), phases);
    auto addMap = [&](int offset, unsigned buffer, const ::solder::TensorMapSpec &spec) {
      program.tensorMaps.push_back({name + "_maps", offset, buffer, spec});
    };
    auto inputMap = [&](int phase) {
      return ::solder::wgmmaInputMap(phases > 1 ? phaseForms[phase] : form,
                                     static_cast<int>(block[0]));
    };
    // The input's, the weights', then for 3xTF32 their small parts'; then
    // the other phases' inputs.
    for (int part = 0; part < (threeTF32 ? 2 : 1); ++part) {
      addMap(::solder::wgmmaPhaseInputMapOffset(0, part, phases),
             part ? *converted.inputSmall : *inputMapBuffer, inputMap(0));
      addMap(::solder::wgmmaMapOffset(part ? ::solder::kWgmmaWeightSmallMap
                                           : ::solder::kWgmmaWeightMap),
             part ? *converted.weightSmall : *converted.weight, weightMap);
    }
    for (int part = 0; part < (threeTF32 ? 2 : 1); ++part)
      for (int phase = 1; phase < phases; ++phase)
        addMap(::solder::wgmmaPhaseInputMapOffset(phase, part, phases),
               part ? *converted.inputSmall : *inputMapBuffer, inputMap(phase));
    mainLoopArg = name + "_maps";
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
    // Centered, the input's shifts too; else the weights alone, which the
    // runtime then prepares only when they change.
    bool centered = directTile.getAccumulation() == DirectAccumulation::centered;
    SmallVector<std::pair<std::string, KernelArgRef>> params;
    if (centered)
      params.push_back({"const float *__restrict__ input", inputArg});
    params.push_back({"const float *__restrict__ weight", getCaptureArg(fusion, weight)});
    params.push_back(
        {"float *__restrict__ prepared", {KernelArgRef::Kind::buffer, preparedBuffer}});
    beginHelperKernel(name + "_prepare", what, {prepareGrid[0], prepareGrid[1], prepareGrid[2]},
                      params);
    os << llvm::formatv("  {0}_mainloop::prepare({1}, weight, prepared);\n"
                        "}\n\n",
                        name, centered ? "input" : "nullptr");
  } else {
    os << "\n";
  }
  // Split-K: the tiles' shares in the bundle's split-K buffer, and a
  // counter a tile of the blocks that have stored theirs (zero as the
  // module loads; the last block of a tile sets it back).
  std::string splitKWorkspace;
  if (splits > 1) {
    ArrayRef<int64_t> block = implicitGemmTile.getTile();
    int64_t tiles = grid[0] * grid[1] * (grid[2] / splits);
    std::string shares =
        workspace(getSplitKSharesBuffer(tiles * splits * block[0] * block[1] * 4));
    os << llvm::formatv("// {0}_arrivals: a tile's blocks that have stored their share of "
                        "its K steps.\n"
                        "__device__ unsigned {0}_arrivals[{1}];\n\n",
                        name, tiles);
    splitKWorkspace =
        llvm::formatv("solder::SplitKWorkspace{{{0}, {1}_arrivals}", shares, name).str();
  }
  beginKernel(fusion, name, summary, schedule.getLaunchGrid(), buffers, schedule.getThreads(),
              schedule.getSharedBytes(), schedule.getMinBlocksPerSM(), firstReductionBuffer);
  program.launches.back().mainLoop = mainLoopName.str();
  program.launches.back().persistent = persistent;
  SmallVector<std::string> runArgs = {
      mainLoopInput, mainLoopWeight,
      epilogueType + (acrossSamples ? "{" + name + "_epilogue" + memberList + "}" : memberList),
      "shared"};
  if (!splitKWorkspace.empty())
    runArgs.push_back(splitKWorkspace);
  if (!mainLoopArg.empty())
    runArgs.push_back(mainLoopArg);
  os << "  extern __shared__ __align__(16) char shared[];\n"
     << "  " << name << (splits > 1 ? "_kernel::runSplitK(" : "_kernel::run(")
     << llvm::join(runArgs, ", ") << ");\n}\n\n";
  if (!reductions.empty())
    emitFinalizeKernel(fusion, reductions, finalize, volume);
  return success();
}

void ProgramEmitter::emitFinalizeKernel(FusionOp fusion, ArrayRef<EpilogueReduction> reductions,
                                        FinalizeLaunchAttr finalize, int64_t volume) {
  std::string name = fusion.getName().str();
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
    launch.writes.push_back(false);
  }
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    if (isReduction(value)) {
      params.push_back(getResultParameter(fusion, index));
      launch.args.push_back(storage.lookup(fusion.getResult(index)));
      launch.writes.push_back(true);
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
}

ProgramEmitter::ConvertedOperands
ProgramEmitter::emitLayoutConversions(FusionOp fusion, Operation *anchor, ImplicitGemmTileAttr tile,
                                      const std::optional<ConvPrologue> &prologue,
                                      OperandStore store) {
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
  auto toGrid = [](ArrayRef<int64_t> grid) {
    return std::array<int64_t, 3>{grid[0], grid[1], grid[2]};
  };
  // Where and how each conversion stores (conv/layout.cuh), and what its
  // comment says of it.
  bool parts = store == OperandStore::tf32Parts;
  StringRef storeComment = store == OperandStore::asIs ? ""
                           : parts                     ? ", split into big and small TF32 parts"
                                                       : ", rounded to TF32";
  auto destination = [&](StringRef buffer) {
    return store == OperandStore::asIs ? buffer.str()
           : parts ? llvm::formatv("solder::StoreTF32Parts{{{0}, {0}Small}", buffer).str()
                   : llvm::formatv("solder::StoreTF32{{{0}}", buffer).str();
  };
  // The destination parameter `buffer`, the workspace buffer name + suffix,
  // and for tf32Parts its small parts' after them.
  auto addDestinations = [&](StringRef buffer, StringRef suffix, int64_t bytes,
                             SmallVector<std::pair<std::string, KernelArgRef>> &params,
                             std::optional<unsigned> &big, std::optional<unsigned> &small) {
    std::string param = llvm::formatv("float *__restrict__ {0}", buffer).str();
    big = addBuffer(name + suffix.str(), bytes, false);
    params.push_back({param, {KernelArgRef::Kind::buffer, *big}});
    if (parts) {
      small = addBuffer(name + suffix.str() + "_small", bytes, false);
      params.push_back({param + "Small", {KernelArgRef::Kind::buffer, *small}});
    }
  };
  ConvertedOperands converted;
  if (!tile.getInputGrid().empty()) {
    std::string comment =
        paddedIn == inChannels
            ? "the conv input, NCDHW to NDHWC"
            : llvm::formatv("the conv input, NCDHW to NDHWC with its {0} channels "
                            "zero-padded to {1}",
                            inChannels, paddedIn)
                  .str();
    SmallVector<std::pair<std::string, KernelArgRef>> params = {
        {"const float *__restrict__ input",
         getCaptureArg(fusion, prologue ? prologue->source : anchor->getOperand(0))}};
    addDestinations("inputNdhwc", "_input_ndhwc", batch * inVolume * paddedIn * 4, params,
                    converted.input, converted.inputSmall);
    if (prologue) {
      comment += ", through its prologue: " + prologue->summary;
      llvm::append_range(params, prologue->parameters);
    }
    comment += storeComment;
    beginHelperKernel(name + "_input_ndhwc", comment, toGrid(tile.getInputGrid()), params);
    // One pixel a sample: each row is channels-last already, and is copied.
    os << llvm::formatv("  solder::{0}<{1}, {2}, {3}L>(input, {4}{5});\n}\n\n",
                        inVolume == 1 ? "rowsToChannelsLast" : "toChannelsLast", inChannels,
                        paddedIn, inVolume == 1 ? batch : inVolume, destination("inputNdhwc"),
                        prologue ? ", " + prologue->functor : std::string());
  }
  if (!tile.getWeightGrid().empty()) {
    // A grouped conv's KTRSC rows hold its group's channels (a multiple of
    // 4: none padded).
    int64_t groups = cast<IntegerAttr>(anchor->getAttr("groups")).getInt();
    int64_t rowChannels = groups == 1 ? paddedIn : inChannels / groups;
    SmallVector<std::pair<std::string, KernelArgRef>> params = {
        {"const float *__restrict__ weight", getCaptureArg(fusion, anchor->getOperand(1))}};
    addDestinations("weightKtrsc", "_weight_ktrsc", channels * taps * rowChannels * 4, params,
                    converted.weight, converted.weightSmall);
    beginHelperKernel(
        name + "_weight_ktrsc",
        std::string(!isa<ConvTransposeOp>(anchor)
                        ? (groups == 1 ? "the conv weights to KTRSC"
                                       : "the conv weights to KTRSC, each output channel's row its "
                                         "group's channels")
                    : llvm::any_of(cast<ConvTransposeOp>(anchor).getStrides(),
                                   [](int64_t stride) { return stride > 1; })
                        ? "the conv_transpose weights to KTRSC, a block of each output phase's "
                          "taps reversed: each phase runs as a conv of stride 1"
                        : "the conv_transpose weights, flipped, to KTRSC: it runs as a conv") +
            storeComment.str(),
        toGrid(tile.getWeightGrid()), params);
    os << llvm::formatv("  solder::weightsToKtrsc<{0}_geometry, {1}>(weight, {2});\n}\n\n", name,
                        rowChannels, destination("weightKtrsc"));
  }
  return converted;
}
