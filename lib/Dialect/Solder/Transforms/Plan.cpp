//===- Plan.cpp - Kernel plans and materialize-or-recompute ---------------===//

#include "solder/Analysis/ConvEpilogue.h"
#include "solder/Analysis/ConvSchedule.h"
#include "solder/Analysis/CostModel.h"
#include "solder/Analysis/RegionLaunch.h"
#include "solder/Analysis/ValueRange.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::solder {
#define GEN_PASS_DEF_SOLDERPLAN
#include "solder/Dialect/Solder/Transforms/Passes.h.inc"
} // namespace mlir::solder

using namespace mlir;
using namespace mlir::solder;

namespace {
/// Captures read once, results written once, every op's FLOPs.
KernelCost getFusionCost(FusionOp fusion) {
  KernelCost cost;
  for (Value capture : fusion.getCaptures())
    cost.bytes += getTensorBytes(capture);
  for (Value result : fusion.getResults())
    cost.bytes += getTensorBytes(result);
  fusion.getBodyBlock().walk(
      [&](Operation *op) { cost.flops += getOpFlops(op); });
  return cost;
}

/// Whether result `index` of `producer` is a full tensor that a consumer
/// could recompute: computed by an anchor and pointwise ops only.
bool isRecomputable(FusionOp producer, unsigned index) {
  Value inner = producer.getYield().getValues()[index];
  bool hasAnchor = false;
  for (Operation *op : getProducingSlice(inner)) {
    FusionRole role = getFusionRole(op);
    if (role == FusionRole::reduction || role == FusionRole::opaque ||
        role == FusionRole::rows)
      return false;
    hasAnchor |= role == FusionRole::anchor;
  }
  return hasAnchor;
}

constexpr StringLiteral kRecomputedFrom = "solder.recomputed_from";

/// Clones the ops computing `producer`'s result `index` into `consumer` and
/// makes the consumer read the producer's inputs instead of that result.
void recomputeInConsumer(RewriterBase &rewriter, FusionOp producer,
                         unsigned index, FusionOp consumer) {
  Value inner = producer.getYield().getValues()[index];
  Value outer = producer.getResult(index);
  Block &body = consumer.getBodyBlock();
  IRMapping mapping;
  SmallVector<Operation *> slice = getProducingSlice(inner);
  for (Operation *op : slice)
    for (Value operand : op->getOperands()) {
      auto argument = dyn_cast<BlockArgument>(operand);
      if (!argument || mapping.contains(argument))
        continue;
      Value source = producer.getCaptures()[argument.getArgNumber()];
      auto existing = llvm::find(consumer.getCaptures(), source);
      if (existing != consumer.getCaptures().end()) {
        mapping.map(argument, body.getArgument(
                                  existing - consumer.getCaptures().begin()));
        continue;
      }
      consumer->insertOperands(consumer->getNumOperands(), source);
      mapping.map(argument, body.addArgument(source.getType(), source.getLoc()));
    }
  rewriter.setInsertionPointToStart(&body);
  // Marked with their origin: a later recompute from the same producer may
  // add to them, and CSE then merges the copies.
  for (Operation *op : slice)
    rewriter.clone(*op, mapping)
        ->setAttr(kRecomputedFrom, producer.getNameAttr());
  for (int64_t i = consumer.getCaptures().size() - 1; i >= 0; --i) {
    if (consumer.getCaptures()[i] != outer)
      continue;
    rewriter.replaceAllUsesWith(body.getArgument(i), mapping.lookup(inner));
    body.eraseArgument(i);
    consumer->eraseOperand(i);
  }
}

/// Whether `anchor`'s result reaches a sum or mean of values of both signs,
/// through any chain of ops and fusion regions. Such a reduction can
/// cancel: its relative error is the inputs' times sum|x| / |sum x|,
/// without bound (W1, GroupNorm then mean: 2.5e-3 with one TF32 product,
/// past tf32's 1e-3). A heuristic for the precision policy: a sum of values
/// of one sign (after sigmoid, relu, exp, a pool of them: ValueRange, which
/// looks through fusion captures) does not cancel (ResNet's global average
/// pool of ReLU outputs, which its stem reaches); a later conv of many
/// input channels runs one TF32 product in tf32 whatever follows, rounding
/// its input again, so 3xTF32 here would not bound a sum past it (a few-
/// channel one is followed: it may keep 3xTF32 itself); what a caller does
/// with the outputs is not followed.
bool reachesCancellingSum(Operation *anchor) {
  SmallVector<Value> worklist = {anchor->getResult(0)};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user != anchor && getFusionRole(user) == FusionRole::anchor &&
          cast<RankedTensorType>(user->getOperand(0).getType()).getDimSize(1) >=
              kDirectTensorOpInChannels)
        continue;
      if (auto reduce = dyn_cast<ReduceOp>(user))
        if (reduce.getKind() == ReduceKind::sum ||
            reduce.getKind() == ReduceKind::mean) {
          std::optional<ElementRange> range = getElementRange(reduce.getX());
          if (!range || (range->low < 0.0 && range->high > 0.0))
            return true;
        }
      if (auto yield = dyn_cast<YieldOp>(user)) {
        worklist.push_back(
            yield->getParentOp()->getResult(use.getOperandNumber()));
      } else if (auto fusion = dyn_cast<FusionOp>(user)) {
        // A capture: its block argument inside the region.
        worklist.push_back(
            fusion.getBodyBlock().getArgument(use.getOperandNumber()));
      } else {
        llvm::append_range(worklist, user->getResults());
      }
    }
  }
  return false;
}

KernelKind getKernelKind(FusionOp fusion) {
  if (isRowRegion(fusion))
    return KernelKind::rows;
  KernelKind kind = KernelKind::pointwise;
  fusion.getBodyBlock().walk([&](Operation *op) {
    if (isa<ConvOp>(op))
      kind = KernelKind::conv;
    else if (isa<ConvTransposeOp>(op))
      kind = KernelKind::conv_transpose;
    else if (kind == KernelKind::pointwise && getFusionRole(op) == FusionRole::reduction)
      kind = KernelKind::reduction;
  });
  return kind;
}

/// The conv or conv_transpose a region is built around, or null.
Operation *getAnchor(FusionOp fusion) {
  Operation *anchor = nullptr;
  fusion.getBodyBlock().walk([&](Operation *op) {
    if (getFusionRole(op) == FusionRole::anchor)
      anchor = op;
  });
  return anchor;
}

/// Whether the weights of `anchor` (a region's conv) are a parameter of
/// the function (solder.parameter): their conversion is then a preparation,
/// which runs once while they are unchanged.
bool hasParameterWeights(FusionOp fusion, Operation *anchor) {
  auto argument = dyn_cast<BlockArgument>(anchor->getOperand(1));
  if (!argument || argument.getOwner() != &fusion.getBodyBlock())
    return false;
  auto weight = dyn_cast<BlockArgument>(fusion.getCaptures()[argument.getArgNumber()]);
  auto function = weight ? dyn_cast<func::FuncOp>(weight.getOwner()->getParentOp()) : nullptr;
  return function &&
         function.getArgAttr(weight.getArgNumber(), SolderDialect::kParameterAttrName);
}

struct SharedValueDecision {
  std::string producer;
  unsigned index;
  Type type;
  double bytes;
  SmallVector<std::string> consumers;
  double materializeSeconds, recomputeSeconds;
  bool recompute;
  std::string reason;
};

struct SolderPlanPass : solder::impl::SolderPlanBase<SolderPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    if (force != "auto" && force != "materialize" && force != "recompute") {
      getOperation().emitError("solder-plan: force must be auto, materialize "
                               "or recompute, got '")
          << force << "'";
      return signalPassFailure();
    }
    std::optional<GpuTarget> parsedTarget = getGpuTarget(arch);
    if (!parsedTarget) {
      getOperation().emitError("solder-plan: arch must be one of ")
          << getKnownGpuArchs() << ", got '" << arch << "'";
      return signalPassFailure();
    }
    target = *parsedTarget;
    std::optional<Precision> parsedPrecision = parsePrecision(precision);
    std::optional<MainLoopChoice> parsedMainLoop = parseMainLoopChoice(mainLoop);
    if (!parsedPrecision || !parsedMainLoop) {
      getOperation().emitError("solder-plan: ")
          << (parsedPrecision ? "mainloop must be auto, tensorop, direct, direct_fma or fma, got '" +
                                    mainLoop + "'"
                              : "precision must be ieee or tf32, got '" +
                                    precision + "'");
      return signalPassFailure();
    }
    precisionValue = *parsedPrecision;
    mainLoopValue = *parsedMainLoop;
    if (convTile != "auto") {
      tileValue = parseConvTile(convTile);
      if (!tileValue) {
        getOperation().emitError("solder-plan: conv-tile must be auto or "
                                 "BMxBNxBK/WMxWN/STAGES with 16-row x 8-column "
                                 "warps tiling the block, BM a multiple of 32, "
                                 "BK a multiple of 16, "
                                 "2 to 8 stages and at most 8 warps, got '")
            << convTile << "'";
        return signalPassFailure();
      }
    }
    rates.bytesPerSecond = bandwidthGBs * 1e9;
    rates.flopsPerSecond = fp32TFlops * 1e12;
    for (auto function : llvm::to_vector(getOperation().getOps<func::FuncOp>()))
      if (!function.isDeclaration() && failed(planFunction(function)))
        return signalPassFailure();
  }

  /// Whether a tensor of `fusion` holds no element: no kernel runs it (the
  /// CUDA code generator says so), so it gets no schedule.
  static bool hasEmptyTensor(FusionOp fusion) {
    auto isEmpty = [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && tensor.getNumElements() == 0;
    };
    WalkResult result = fusion.getBodyBlock().walk([&](Operation *op) {
      return llvm::any_of(op->getOperandTypes(), isEmpty) ||
                     llvm::any_of(op->getResultTypes(), isEmpty)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return result.wasInterrupted();
  }

  LogicalResult planFunction(func::FuncOp function) {
    IRRewriter rewriter(&getContext());
    SmallVector<SharedValueDecision> decisions;
    for (FusionOp producer : getFusions(function))
      decideSharedValues(rewriter, producer, decisions);

    // Statistics a later group_normalize subtracts are stored in double.
    DenseSet<Value> doubleStatistics = findCancellingStatistics(function);
    SmallVector<std::string> scheduleNotes = decideChannelsLast(function, doubleStatistics);
    double totalSeconds = 0.0;
    SmallVector<SmallVector<std::string>> rows;
    SmallVector<std::string> attributeLines;
    MLIRContext *context = &getContext();
    for (FusionOp fusion : getFusions(function)) {
      FusionEstimate estimate = estimateOf(fusion);
      const KernelCost &cost = estimate.cost;
      double seconds = estimate.getSeconds();
      totalSeconds += seconds;
      KernelKind kind = getKernelKind(fusion);
      fusion->setAttr(SolderDialect::kEstimateAttrName,
                      EstimateAttr::get(context, kind, cost.bytes, cost.flops,
                                        static_cast<int64_t>(std::round(seconds * 1e9))));
      std::string schedule = "-";
      Attribute launch;
      auto emitError = [&] { return fusion.emitError("solder-plan: "); };
      if (hasEmptyTensor(fusion)) {
        // No launch: emit-cuda refuses empty tensors.
      } else if (const std::optional<ConvSchedule> &conv = estimate.schedule) {
        Operation *anchor = getAnchor(fusion);
        launch = conv->toAttr(emitError, context,
                              getConvEpilogueKind(fusion, anchor, conv->kind));
        if (!launch)
          return failure();
        if (std::optional<FinalizeLaunch> finalize =
                getFinalizeLaunch(fusion, anchor, conv->grid[0], conv->acrossSamples)) {
          SmallVector<int64_t> f64Results;
          for (auto [index, result] : llvm::enumerate(fusion.getResults()))
            if (doubleStatistics.contains(result))
              f64Results.push_back(index);
          fusion->setAttr(SolderDialect::kFinalizeAttrName,
                          FinalizeLaunchAttr::get(context, finalize->threads, finalize->grid,
                                                  DenseI64ArrayAttr::get(context, f64Results)));
        }
        schedule = conv->kind == MainLoopKind::depthwise
                       ? llvm::formatv("{0} {1}x{2}x{3} rows{4}", conv->getMainLoopName(),
                                       conv->depthwise.rows, conv->depthwise.columns,
                                       conv->depthwise.channels, conv->depthwise.threadRows)
                             .str()
                   : conv->isDirectFma()
                       ? llvm::formatv("{0} {1}x{2}", conv->getMainLoopName(),
                                       conv->tile[0], conv->tile[1])
                             .str()
                       : llvm::formatv("{0} {1}x{2}x{3}", conv->getMainLoopName(),
                                       conv->tile[0], conv->tile[1],
                                       conv->tile[2])
                             .str();
        if (conv->isTensorOp())
          schedule += llvm::formatv(" s{0}", conv->stages).str();
        if (conv->isDirectTensorOp())
          schedule += llvm::formatv(" {0} row{1}", conv->tileRows,
                                    conv->tileRows == 1 ? "" : "s")
                          .str();
        std::string note = llvm::formatv(
            "{0}: {1} ({2}); {8} {3}x{4}x{5}, {6} threads, {7} B shared",
            fusion.getName(), conv->getMainLoopName(), conv->reason, conv->grid[0],
            conv->grid[1], conv->grid[2], conv->threads, conv->sharedBytes,
            conv->persistent ? "tiles" : "grid");
        if (conv->blocksPerSM)
          note += llvm::formatv(" (registers bounded for {0} block{1} an SM)",
                                conv->blocksPerSM, conv->blocksPerSM == 1 ? "" : "s")
                      .str();
        // The prologue, where the region computes the conv's input: in the
        // input conversion, or in a kernel of its own.
        std::string prologue = joinOpNames(getConvPrologue(anchor), ", ");
        // Weights that are parameters are converted once, not a call.
        int64_t onceBytes =
            hasParameterWeights(fusion, anchor) ? conv->weightConversionBytes : 0;
        int64_t layoutBytes = conv->conversionBytes - conv->prologueBytes - onceBytes;
        if (layoutBytes && conv->isDirect())
          note += llvm::formatv("; weights -> split TF32 fragments{0}: {1:F2} MB",
                                conv->isCentered() ? ", tap sums, input shifts" : "",
                                layoutBytes / 1e6)
                      .str();
        else if (layoutBytes) {
          SmallVector<std::string> conversions;
          if (conv->inputConversionGrid[0])
            conversions.push_back(
                llvm::formatv("input NCDHW -> NDHWC with {0} channels{1}",
                              conv->paddedInChannels,
                              prologue.empty() ? "" : " through its prologue: " + prologue)
                    .str());
          if (conv->weightConversionGrid[0] && !onceBytes)
            conversions.push_back("weights -> KTRSC");
          note += llvm::formatv("; layout conversions ({0}): {1:F1} MB",
                                llvm::join(conversions, ", "), layoutBytes / 1e6)
                      .str();
        }
        if (onceBytes)
          note += llvm::formatv("; weights -> {0} once (a parameter): {1:F2} MB",
                                conv->isDirect() ? "split TF32 fragments" : "KTRSC",
                                onceBytes / 1e6)
                      .str();
        if (Value source = channelsLastInputs.lookup(fusion)) {
          auto producer = source.getDefiningOp<FusionOp>();
          note += "; its input read as it is (stored channels-last by " +
                  (producer ? producer.getName().str()
                            : llvm::formatv("the caller, input #{0}",
                                            cast<BlockArgument>(source).getArgNumber())
                                  .str()) +
                  ")";
        } else if (conv->isTensorOp() && !conv->inputConversionGrid[0])
          note += "; its input read as it is (rows of one pixel, no channel padded)";
        if (conv->isTensorOp() && !conv->weightConversionGrid[0])
          note += "; its weights read as they are (1x1, no channel padded)";
        // Result numbers as the report names them: "#0, #2".
        auto numbered = [](DenseI64ArrayAttr results) {
          return llvm::join(llvm::map_range(results.asArrayRef(),
                                            [](int64_t index) {
                                              return "#" + std::to_string(index);
                                            }),
                            ", ");
        };
        if (auto channelsLast =
                fusion->getAttrOfType<DenseI64ArrayAttr>(SolderDialect::kChannelsLastAttrName))
          note += llvm::formatv("; stores result{0} {1} channels-last (NDHWC)",
                                channelsLast.size() == 1 ? "" : "s", numbered(channelsLast))
                      .str();
        if (auto rounded =
                fusion->getAttrOfType<DenseI64ArrayAttr>(SolderDialect::kRoundedTF32AttrName))
          note += "; rounds " + numbered(rounded) + " to TF32 for the Hopper convs that read it";
        // A value yielded twice: decideChannelsLast's copy for the Hopper convs.
        ValueRange yielded = fusion.getYield().getValues();
        for (auto [copy, value] : llvm::enumerate(yielded))
          if (auto first = llvm::find(yielded, value); first != yielded.begin() + copy)
            note += llvm::formatv("; #{1} is #{0} again, for the Hopper convs (#{0} stays "
                                  "exact for its other readers)",
                                  first - yielded.begin(), copy)
                        .str();
        if (conv->prologueBytes)
          note += llvm::formatv("; the input through its prologue ({0}) first: {1:F1} MB",
                                prologue, conv->prologueBytes / 1e6)
                      .str();
        scheduleNotes.push_back(std::move(note));
      } else if (isRowRegion(fusion)) {
        int64_t rows = cast<RankedTensorType>(fusion.getResult(0).getType()).getDimSize(0);
        RegionLaunch rowsLaunch = getRowsLaunch(rows);
        launch = rowsLaunch.toAttr(emitError, context);
        if (!launch)
          return failure();
        schedule = "fma rows";
        scheduleNotes.push_back(
            llvm::formatv("{0}: a block per row ({1} rows, {2} threads): each output of a "
                          "small GEMM a dot product of a weight row and the row, the row's "
                          "values in shared memory",
                          fusion.getName(), rows, rowsLaunch.threads)
                .str());
      } else if (std::optional<ReduceApplyRow> row = getReduceApplyRow(fusion)) {
        RegionLaunch rowLaunch = getReduceApplyLaunch(row->getRows(), row->getLength());
        launch = rowLaunch.toAttr(emitError, context);
        if (!launch)
          return failure();
        bool pools = !fusion.getBodyBlock().getOps<PoolOp>().empty();
        scheduleNotes.push_back(
            llvm::formatv("{0}: {3} lanes a row ({1} rows of {2}): each reduction of the row "
                          "in turn, then the values that read them, the row read from memory "
                          "once{4}",
                          fusion.getName(), row->getRows(), row->getLength(),
                          getReduceApplyLanes(row->getRows(), row->getLength()),
                          pools ? "; its pool's windows combined across a warp's lanes, "
                                  "a window's rows those of one warp"
                                : "")
                .str());
      } else {
        launch = getRegionLaunch(fusion).toAttr(emitError, context);
        if (!launch)
          return failure();
        // A pool of a conv's output costs that output's store and load: say
        // so (ResNet's stem is two kernels).
        for (Operation &pool : fusion.getBodyBlock()) {
          if (getFusionRole(&pool) != FusionRole::window)
            continue;
          PoolKind kind = isa<PoolOp>(pool) ? cast<PoolOp>(pool).getKind()
                                            : cast<AdaptivePoolOp>(pool).getKind();
          if (auto argument = dyn_cast<BlockArgument>(pool.getOperand(0)))
            if (auto producer =
                    fusion.getCaptures()[argument.getArgNumber()].getDefiningOp<FusionOp>())
              if (getAnchor(producer))
                scheduleNotes.push_back(
                    llvm::formatv("{0}: the {1} pool of {2}'s output runs in a kernel of its "
                                  "own (pools in a conv's epilogue are not generated yet)",
                                  fusion.getName(), stringifyPoolKind(kind),
                                  producer.getName())
                        .str());
        }
      }
      std::string attributeText;
      if (launch) {
        fusion->setAttr(SolderDialect::kScheduleAttrName, launch);
        llvm::raw_string_ostream(attributeText) << fusion.getName() << ": " << launch;
      }
      if (Attribute finalize = fusion->getAttr(SolderDialect::kFinalizeAttrName))
        llvm::raw_string_ostream(attributeText) << "\n    then " << finalize;
      if (!attributeText.empty())
        attributeLines.push_back(std::move(attributeText));

      SmallVector<StringRef> ops;
      for (Operation &op : fusion.getBodyBlock().without_terminator())
        if (!isa<arith::ConstantOp>(op))
          ops.push_back(op.getName().stripDialect());
      rows.push_back({fusion.getName().str(), stringifyKernelKind(kind).str(), schedule,
                      llvm::join(ops, ", "),
                      llvm::formatv("{0:F1}", cost.bytes / 1e6).str(),
                      llvm::formatv("{0:F2}", cost.flops / 1e9).str(),
                      llvm::formatv("{0:F1}", seconds * 1e6).str()});
    }
    if (report)
      printReport(function, rows, scheduleNotes, attributeLines, decisions, totalSeconds);
    return success();
  }

  SmallVector<FusionOp> getFusions(func::FuncOp function) {
    return llvm::to_vector(function.getBody().front().getOps<FusionOp>());
  }

  /// The conv schedule of a region with a conv anchor.
  std::optional<ConvSchedule> scheduleOf(FusionOp fusion) {
    Operation *anchor = getAnchor(fusion);
    if (!anchor)
      return std::nullopt;
    return getConvSchedule(anchor, target, precisionValue, mainLoopValue, tileValue,
                           reachesCancellingSum(anchor), !getConvPrologue(anchor).empty(),
                           channelsLastInputs.contains(fusion), epilogueReducesPerSample(fusion));
  }

  /// Conv results that every reader takes channels-last (NDHWC): a
  /// tensor-core conv that would convert it to NDHWC as its input (no
  /// prologue, no channel padded), a depthwise conv's input where the
  /// caller's (no prologue), a conv epilogue's pointwise op at its
  /// own element (a residual), or the function's return where the caller
  /// wants it channels-last. The producer's epilogue stores them so
  /// (solder.channels_last) and those convs read them as they are: a
  /// ResNet's activations between convs skip the NCDHW -> NDHWC pass (4
  /// bytes read and written an element). A result that TF32 Hopper convs
  /// read is so stored only where it is the bundle's own (their tensor
  /// maps cover it), rounded to TF32 by its producer (solder.rounded_tf32)
  /// as their conversions would; where other readers take it too, the
  /// producer yields it twice, the copy rounded for the Hopper convs. The
  /// caller's channels-last arguments and results (the function's
  /// solder.channels_last) stay so where the same holds, and are dropped
  /// elsewhere: the caller passes or gets that tensor in NCDHW. Returns the
  /// report's notes on them.
  SmallVector<std::string> decideChannelsLast(func::FuncOp function,
                                              DenseSet<Value> &doubleStatistics) {
    channelsLastInputs.clear();
    MLIRContext *context = &getContext();
    auto returnOp = cast<func::ReturnOp>(function.getBody().front().getTerminator());
    auto returnedChannelsLast = [&](unsigned index) {
      return function.getResultAttr(index, SolderDialect::kChannelsLastAttrName) != nullptr;
    };
    // Whether reader `use` of `value` (with the iteration shape `type` of
    // the convs that compute it) takes it channels-last, counting its reads
    // by TF32 Hopper convs and by others; the convs that read it as their
    // input go to `inputOf`.
    auto readsChannelsLast = [&](OpOperand &use, Value value, RankedTensorType type,
                                 SmallVectorImpl<FusionOp> &inputOf, int &hopperReads,
                                 int &otherReads) {
      if (use.getOwner() == returnOp.getOperation()) {
        ++otherReads;
        return returnedChannelsLast(use.getOperandNumber());
      }
      auto consumer = dyn_cast<FusionOp>(use.getOwner());
      Operation *consumerAnchor = consumer ? getAnchor(consumer) : nullptr;
      if (!consumerAnchor)
        return false;
      SmallVector<Operation *> prologue = getConvPrologue(consumerAnchor);
      BlockArgument argument = consumer.getBodyBlock().getArgument(use.getOperandNumber());
      return llvm::all_of(argument.getUses(), [&](OpOperand &inner) {
        Operation *user = inner.getOwner();
        if (user == consumerAnchor && inner.getOperandNumber() == 0 && isa<ConvOp>(user) &&
            prologue.empty()) {
          // The tensor cores' main loop would convert it (no channel
          // padded). The depthwise loop stages an NDHWC window as it is,
          // but slower than an NCDHW one (H200: 3x3 1.7x, 7x7 1.3x), so
          // only the caller's: the other way is the caller's copy. The
          // Hopper main loop in TF32 reads a tensor map over it, rounded
          // by its producer as its conversion would (the bottleneck's
          // 1x1 -> 3x3 -> 1x1 convs in a ResNet); in 3xTF32 it reads its
          // conversion's two parts.
          std::optional<ConvSchedule> schedule = scheduleOf(consumer);
          bool unpadded = schedule && schedule->isTensorOp() &&
                          schedule->inputConversionGrid[0] &&
                          schedule->paddedInChannels == type.getDimSize(1);
          bool hopper = unpadded && schedule->isWgmma() &&
                        schedule->math == TensorMath::tf32 && !isa<BlockArgument>(value);
          bool takesItAsItIs =
              hopper ||
              (schedule && schedule->kind == MainLoopKind::depthwise &&
               isa<BlockArgument>(value)) ||
              (unpadded && !schedule->isWgmma());
          if (!takesItAsItIs)
            return false;
          ++(hopper ? hopperReads : otherReads);
          inputOf.push_back(consumer);
          return true;
        }
        // An epilogue op reading it at the conv output's own element.
        ++otherReads;
        return getFusionRole(user) == FusionRole::pointwise &&
               !llvm::is_contained(prologue, user) &&
               consumerAnchor->getResult(0).getType() == type &&
               user->getResult(0).getType() == type;
      });
    };
    // Whether every reader of `value` takes it channels-last, and all of
    // them are TF32 Hopper convs or none is. `rounded`: every reader is a
    // TF32 Hopper conv, which takes it rounded to TF32 (through a tensor
    // map: a tensor of the bundle's own, not the caller's). `mixedHopperUses`,
    // where given: if every reader takes it channels-last but only some
    // are TF32 Hopper convs, the uses whose every read is one.
    auto readChannelsLast = [&](Value value, RankedTensorType type,
                                SmallVectorImpl<FusionOp> &inputOf, bool &rounded,
                                SmallVectorImpl<OpOperand *> *mixedHopperUses = nullptr) {
      rounded = false;
      if (value.use_empty() || ShapedType::getNumElements(type.getShape().drop_front(2)) == 1)
        return false; // one pixel a sample: NCDHW is NDHWC
      int hopperReads = 0, otherReads = 0;
      SmallVector<OpOperand *> hopperUses;
      bool all = llvm::all_of(value.getUses(), [&](OpOperand &use) {
        int hopperBefore = hopperReads, otherBefore = otherReads;
        bool takes = readsChannelsLast(use, value, type, inputOf, hopperReads, otherReads);
        if (takes && hopperReads > hopperBefore && otherReads == otherBefore)
          hopperUses.push_back(&use);
        return takes;
      });
      bool mixed = hopperReads > 0 && otherReads > 0;
      if (all && mixed && mixedHopperUses)
        *mixedHopperUses = std::move(hopperUses);
      // Rounded for one reader is rounded for all: the Hopper convs' only.
      rounded = hopperReads > 0;
      return all && !mixed;
    };

    SmallVector<std::string> notes;
    for (BlockArgument argument : function.getArguments()) {
      unsigned number = argument.getArgNumber();
      if (!function.getArgAttr(number, SolderDialect::kChannelsLastAttrName))
        continue;
      SmallVector<FusionOp> inputOf;
      bool rounded = false;
      if (readChannelsLast(argument, cast<RankedTensorType>(argument.getType()), inputOf,
                           rounded)) {
        for (FusionOp consumer : inputOf)
          channelsLastInputs[consumer] = argument;
        notes.push_back(llvm::formatv("input #{0}: channels-last, as the caller stores it",
                                      number)
                            .str());
        continue;
      }
      function.removeArgAttr(number, SolderDialect::kChannelsLastAttrName);
      notes.push_back(llvm::formatv("input #{0}: NCDHW (the caller's is channels-last, but a "
                                    "reader takes NCDHW: the caller converts it)",
                                    number)
                          .str());
    }

    DenseSet<Value> storedChannelsLast;
    IRRewriter rewriter(context);
    for (FusionOp producer : getFusions(function)) {
      Operation *anchor = getAnchor(producer);
      if (!anchor)
        continue;
      auto convType = cast<RankedTensorType>(anchor->getResult(0).getType());
      // A result that every reader takes channels-last, but only some are
      // TF32 Hopper convs: stored twice, channels-last for the others and
      // channels-last rounded for the Hopper convs (a copy their uses move
      // to), not NCDHW with a conversion a Hopper conv. ResNet's block
      // outputs, read by the next block's first conv and as its residual:
      // the conversion read and wrote 4 bytes an element, the copy writes 4.
      for (unsigned index = 0, results = producer.getNumResults(); index < results; ++index) {
        Value result = producer.getResult(index);
        SmallVector<FusionOp> inputOf;
        SmallVector<OpOperand *> hopperUses;
        bool rounded = false;
        if (result.getType() != convType || doubleStatistics.contains(result) ||
            readChannelsLast(result, convType, inputOf, rounded, &hopperUses) ||
            hopperUses.empty())
          continue;
        FusionOp replaced = producer; // erased: its pointers are keys only
        SmallVector<Value> replacedResults = llvm::to_vector_of<Value>(producer.getResults());
        producer = duplicateFusionResult(rewriter, producer, index, hopperUses);
        if (Value input = channelsLastInputs.lookup(replaced)) {
          channelsLastInputs.erase(replaced);
          channelsLastInputs[producer] = input;
        }
        for (auto [kept, replacedResult] : llvm::enumerate(replacedResults))
          if (doubleStatistics.erase(replacedResult))
            doubleStatistics.insert(producer.getResult(kept));
      }
      SmallVector<int64_t> channelsLast, roundedTF32;
      for (auto [index, result] : llvm::enumerate(producer.getResults())) {
        SmallVector<FusionOp> inputOf;
        bool rounded = false;
        if (result.getType() != convType || doubleStatistics.contains(result) ||
            !readChannelsLast(result, convType, inputOf, rounded))
          continue;
        channelsLast.push_back(index);
        if (rounded)
          roundedTF32.push_back(index);
        storedChannelsLast.insert(result);
        for (FusionOp consumer : inputOf)
          channelsLastInputs[consumer] = result;
      }
      if (!channelsLast.empty())
        producer->setAttr(SolderDialect::kChannelsLastAttrName,
                          DenseI64ArrayAttr::get(context, channelsLast));
      if (!roundedTF32.empty())
        producer->setAttr(SolderDialect::kRoundedTF32AttrName,
                          DenseI64ArrayAttr::get(context, roundedTF32));
    }

    for (auto [index, returned] : llvm::enumerate(returnOp.getOperands())) {
      if (!returnedChannelsLast(index))
        continue;
      if (storedChannelsLast.contains(returned)) {
        notes.push_back(
            llvm::formatv("output #{0}: channels-last, as the caller wants it", index).str());
        continue;
      }
      function.removeResultAttr(index, StringAttr::get(context,
                                                       SolderDialect::kChannelsLastAttrName));
      notes.push_back(llvm::formatv("output #{0}: NCDHW (the caller wants it channels-last, "
                                    "but it is not a conv region's result that every reader "
                                    "takes so)",
                                    index)
                          .str());
    }
    return notes;
  }

  /// A region's bytes and FLOPs (with a conv's layout conversions) and its
  /// roofline (a conv computes at its main loop's measured rate).
  struct FusionEstimate {
    std::optional<ConvSchedule> schedule;
    KernelCost cost;
    GpuRates rates;
    double getSeconds() const { return cost.getSeconds(rates); }
  };
  FusionEstimate estimateOf(FusionOp fusion) {
    FusionEstimate estimate{scheduleOf(fusion), getFusionCost(fusion), rates};
    if (estimate.schedule) {
      // A call moves its conversions but those of weights that are
      // parameters (prepared once).
      estimate.cost.bytes += estimate.schedule->conversionBytes;
      if (hasParameterWeights(fusion, getAnchor(fusion)))
        estimate.cost.bytes -= estimate.schedule->weightConversionBytes;
      estimate.rates.flopsPerSecond = estimate.schedule->teraFlops * 1e12;
    }
    return estimate;
  }

  /// For each recomputable result of `producer` read only by later fusions,
  /// compare the two plans on the roofline and apply the chosen one.
  void decideSharedValues(IRRewriter &rewriter, FusionOp producer,
                          SmallVectorImpl<SharedValueDecision> &decisions) {
    unsigned dropped = 0; // results removed so far: report original numbers
    for (unsigned index = 0; index < producer.getNumResults(); ++index) {
      Value result = producer.getResult(index);
      if (result.use_empty() || !isRecomputable(producer, index))
        continue;
      SmallVector<FusionOp> consumers;
      bool onlyFusions = true;
      for (Operation *user : result.getUsers()) {
        auto consumer = dyn_cast<FusionOp>(user);
        onlyFusions &= static_cast<bool>(consumer);
        if (consumer && !llvm::is_contained(consumers, consumer))
          consumers.push_back(consumer);
      }
      if (!onlyFusions || consumers.empty())
        continue;

      SharedValueDecision decision;
      decision.producer = producer.getName().str();
      decision.index = index + dropped;
      decision.type = result.getType();
      decision.bytes = getTensorBytes(result);
      for (FusionOp consumer : consumers)
        decision.consumers.push_back(consumer.getName().str());

      // Materialize: the plan as it stands.
      FusionEstimate producerEstimate = estimateOf(producer);
      decision.materializeSeconds = producerEstimate.getSeconds();
      for (FusionOp consumer : consumers)
        decision.materializeSeconds += estimateOf(consumer).getSeconds();
      // Recompute: the producer no longer writes the tensor; each consumer
      // reads the producer's inputs instead and redoes the slice's FLOPs.
      KernelCost producerCost = producerEstimate.cost;
      producerCost.bytes -= decision.bytes;
      decision.recomputeSeconds = producerCost.getSeconds(producerEstimate.rates);
      Value inner = producer.getYield().getValues()[index];
      KernelCost slice;
      llvm::SetVector<Value> sliceInputs;
      for (Operation *op : getProducingSlice(inner)) {
        slice.flops += getOpFlops(op);
        for (Value operand : op->getOperands())
          if (auto argument = dyn_cast<BlockArgument>(operand))
            sliceInputs.insert(producer.getCaptures()[argument.getArgNumber()]);
      }
      // Each consumer becomes a conv kernel at the producer's main-loop rate.
      for (FusionOp consumer : consumers) {
        KernelCost cost = getFusionCost(consumer);
        cost.bytes -= decision.bytes;
        cost.flops += slice.flops;
        for (Value input : sliceInputs)
          if (!llvm::is_contained(consumer.getCaptures(), input))
            cost.bytes += getTensorBytes(input);
        decision.recomputeSeconds += cost.getSeconds(producerEstimate.rates);
      }

      // The consumer would become a conv kernel: it must hold no conv of its
      // own and only ops a conv epilogue can run, on the conv's output shape
      // (a squeeze-excitation's scale broadcast over a larger tensor is
      // not).
      std::string obstacle;
      ArrayRef<int64_t> convShape = cast<RankedTensorType>(decision.type).getShape();
      for (FusionOp consumer : consumers)
        if (obstacle.empty() && getReduceApplyRow(consumer))
          obstacle = consumer.getName().str() +
                     " reads its reductions back (a reduce-and-apply row), which a conv "
                     "epilogue cannot";
      for (FusionOp consumer : consumers)
        consumer.getBodyBlock().walk([&](Operation *op) {
          if (!obstacle.empty() || isa<YieldOp>(op))
            return;
          if (getFusionRole(op) == FusionRole::anchor ||
              getFusionRole(op) == FusionRole::rows) {
            // A conv this producer already recomputed there is shared.
            if (op->getAttr(kRecomputedFrom) != producer.getNameAttr())
              obstacle = consumer.getName().str() + " has a conv of its own";
          } else if (!isConvEpilogueOp(op)) {
            obstacle = consumer.getName().str() + " runs '" +
                       op->getName().getStringRef().str() +
                       "', which a conv epilogue cannot (it reduces across "
                       "channels or reads windows)";
          } else if (getFusionRole(op) == FusionRole::pointwise &&
                     cast<RankedTensorType>(op->getResult(0).getType()).getShape() !=
                         convShape) {
            obstacle = consumer.getName().str() + " runs '" +
                       op->getName().getStringRef().str() +
                       "' on a tensor of another shape than the conv's output";
          }
        });

      if (!obstacle.empty()) {
        decision.recompute = false;
        decision.reason = "recompute impossible: " + obstacle;
        if (force == "recompute")
          producer.emitRemark("solder-plan: cannot recompute ")
              << decision.producer << "#" << index << ": " << obstacle;
      } else if (force == "auto") {
        decision.recompute =
            decision.recomputeSeconds < decision.materializeSeconds;
        decision.reason = "cost model";
      } else {
        decision.recompute = force == "recompute";
        decision.reason = "forced";
      }
      if (decision.recompute) {
        DominanceInfo dominance;
        for (FusionOp consumer : consumers) {
          recomputeInConsumer(rewriter, producer, index, consumer);
          eliminateCommonSubExpressions(rewriter, dominance, consumer);
        }
        SmallVector<bool> keep(producer.getNumResults(), true);
        keep[index] = false;
        producer = dropFusionResults(rewriter, producer, keep);
        decisions.push_back(std::move(decision));
        if (producer.getNumResults() == 0) {
          // Every consumer recomputes it: the kernel has nothing left to do.
          rewriter.eraseOp(producer);
          return;
        }
        --index; // the next result moved into this slot
        ++dropped;
        continue;
      }
      decisions.push_back(std::move(decision));
    }
  }

  void printReport(func::FuncOp function,
                   ArrayRef<SmallVector<std::string>> rows,
                   ArrayRef<std::string> scheduleNotes,
                   ArrayRef<std::string> attributeLines,
                   ArrayRef<SharedValueDecision> decisions,
                   double totalSeconds) {
    raw_ostream &os = llvm::outs();
    os << "Solder plan for @" << function.getName() << " (" << arch << ", precision "
       << precision << "; roofline: "
       << llvm::formatv("{0:F0}", bandwidthGBs.getValue()) << " GB/s, "
       << llvm::formatv("{0:F1}", fp32TFlops.getValue())
       << " TFLOP/s fp32, conv main loops at their measured rates)\n";
    SmallVector<std::string> header = {"kernel", "kind", "main loop", "ops",
                                       "MB moved", "GFLOP", "est. us"};
    SmallVector<size_t> widths;
    for (size_t column = 0; column < header.size(); ++column) {
      size_t width = header[column].size();
      for (const auto &row : rows)
        width = std::max(width, row[column].size());
      widths.push_back(width);
    }
    auto printRow = [&](ArrayRef<std::string> row) {
      os << " ";
      for (size_t column = 0; column < row.size(); ++column) {
        // Text columns left-aligned, numbers right-aligned.
        if (column < 4)
          os << " " << llvm::left_justify(row[column], widths[column]);
        else
          os << "  " << llvm::right_justify(row[column], widths[column]);
      }
      os << "\n";
    };
    printRow(header);
    for (const auto &row : rows)
      printRow(row);
    os << "  total: " << rows.size() << " kernel" << (rows.size() == 1 ? "" : "s")
       << ", est. " << llvm::formatv("{0:F1}", totalSeconds * 1e6) << " us\n";
    for (const std::string &note : scheduleNotes)
      os << "  " << note << "\n";
    for (const SharedValueDecision &decision : decisions) {
      std::string typeText;
      llvm::raw_string_ostream(typeText) << decision.type;
      os << "  shared " << decision.producer << "#" << decision.index << " "
         << typeText << " ("
         << llvm::formatv("{0:F1}", decision.bytes / 1e6) << " MB) -> "
         << llvm::join(decision.consumers, ", ") << ": "
         << (decision.recompute ? "recompute" : "materialize") << " ("
         << decision.reason << "; materialize "
         << llvm::formatv("{0:F1}", decision.materializeSeconds * 1e6)
         << " us, recompute "
         << llvm::formatv("{0:F1}", decision.recomputeSeconds * 1e6)
         << " us)\n";
    }
    for (const std::string &line : attributeLines)
      os << "  " << line << "\n";
  }

  GpuRates rates;
  GpuTarget target;
  Precision precisionValue = Precision::ieee;
  MainLoopChoice mainLoopValue = MainLoopChoice::automatic;
  std::optional<ConvTile> tileValue;
  /// Conv regions whose input a producer stores channels-last, and that
  /// producer or the caller (decideChannelsLast): the value it reads.
  DenseMap<FusionOp, Value> channelsLastInputs;
};
} // namespace
