//===- ConvEpilogue.cpp - What a conv region's epilogue does --------------===//

#include "solder/Analysis/ConvEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::solder;

/// Whether `op` of a conv region is one of its epilogue's partial
/// reductions.
static bool isEpilogueReductionOp(Operation *op) { return isa<GroupStatsOp, ReduceOp>(op); }

SmallVector<Operation *> mlir::solder::getEpilogueReductions(FusionOp fusion) {
  SmallVector<Operation *> reductions;
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (isEpilogueReductionOp(&op))
      reductions.push_back(&op);
  return reductions;
}

bool mlir::solder::epilogueReducesPerSample(FusionOp fusion) {
  return llvm::any_of(getEpilogueReductions(fusion), [](Operation *reduction) {
    auto stats = dyn_cast<GroupStatsOp>(reduction);
    return !stats || !stats.getAcrossBatch();
  });
}

ConvEpilogueKind mlir::solder::getConvEpilogueKind(FusionOp fusion, Operation *anchor,
                                                   MainLoopKind mainLoop) {
  if (mainLoop == MainLoopKind::implicit_gemm_fma)
    return ConvEpilogueKind::element_welford;
  if (mainLoop != MainLoopKind::direct_tensorop)
    return ConvEpilogueKind::tile_shifted_moments;
  // Reductions of the conv output alone (plus its bias) that leave nothing
  // else: the main loop's registers hold all the epilogue needs.
  bool onlyReductionsOfConv =
      llvm::all_of(fusion.getBodyBlock().without_terminator(), [&](Operation &op) {
        return &op == anchor || isa<arith::ConstantOp>(op) ||
               (isEpilogueReductionOp(&op) && op.getOperand(0) == anchor->getResult(0));
      });
  bool storesElements = llvm::any_of(fusion.getYield().getValues(), [](Value value) {
    Operation *producer = value.getDefiningOp();
    return !producer || !isEpilogueReductionOp(producer);
  });
  return !getEpilogueReductions(fusion).empty() && onlyReductionsOfConv && !storesElements
             ? ConvEpilogueKind::register_moments
             : ConvEpilogueKind::tile_shifted_moments;
}

int64_t mlir::solder::getPartialSamples(Operation *anchor, bool acrossSamples) {
  return acrossSamples ? 1 : cast<RankedTensorType>(anchor->getResult(0).getType()).getDimSize(0);
}

std::optional<FinalizeLaunch> mlir::solder::getFinalizeLaunch(FusionOp fusion, Operation *anchor,
                                                              int64_t pixelTiles,
                                                              bool acrossSamples) {
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  int64_t channels = outType.getDimSize(1);
  int64_t partialSamples = getPartialSamples(anchor, acrossSamples);
  SmallVector<Operation *> reductions = getEpilogueReductions(fusion);
  if (reductions.empty())
    return std::nullopt;
  // A statistic's partials are read channel-fastest (a group's channels of
  // a tile are adjacent), eight loads in flight before their merges: one
  // partial a lane 1.5 KB apart took W2's finalize 20 us on an H200. The
  // block takes about 8 partials a thread of the largest statistic, 32 to
  // 1024 threads: W3's 252 partials a statistic on 256 threads left most
  // idle and paid an 8-level tree (13 us on an H200), W2's 9840 took 38
  // serial merges a thread on 128 blocks (24 us).
  int64_t partialsPerStatistic = 0;
  for (Operation *reduction : reductions)
    if (auto stats = dyn_cast<GroupStatsOp>(reduction))
      partialsPerStatistic = std::max<int64_t>(partialsPerStatistic,
                                               channels / stats.getNumGroups() * pixelTiles *
                                                   (stats.getAcrossBatch() ? partialSamples : 1));
  FinalizeLaunch launch;
  launch.threads = std::clamp<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(partialsPerStatistic, 8)), 32, 1024);
  int64_t blocks = 0;
  for (Operation *reduction : reductions) {
    bool welford = isa<GroupStatsOp>(reduction);
    int64_t outputs =
        cast<RankedTensorType>(reduction->getResult(0).getType()).getNumElements() /
        (welford ? 2 : 1);
    blocks = std::max<int64_t>(
        blocks, welford ? outputs : llvm::divideCeil(outputs, launch.threads));
  }
  launch.grid = {blocks, 1, 1};
  return launch;
}

/// Statistics handed between kernels in double. simplify turns a mean of a
/// GroupNorm into the GroupNorm of channel means, so a later kernel takes a
/// group mean from a channel mean, both near the data's mean: in float each
/// carries half an ulp of it (3e-5 at 1000), which the difference does not
/// cancel (W1 at x + 1000 strayed 1.4e-5 from float64). A conv's finalize
/// kernel holds both sums in double: it stores them in double when they are
/// a group_normalize's input and statistics and not returned, and the
/// group_normalize subtracts them in double (ElementEmitter::isCentered).
DenseSet<Value> mlir::solder::findCancellingStatistics(func::FuncOp function) {
  // The op computing `value` in a conv region's epilogue, whose finalize
  // kernel stores it; null for values of other regions.
  auto getEpilogueOp = [](Value value) -> Operation * {
    auto producer = value.getDefiningOp<FusionOp>();
    if (!producer ||
        llvm::none_of(producer.getBodyBlock(), llvm::IsaPred<ConvOp, ConvTransposeOp>))
      return nullptr;
    return producer.getYield()
        .getValues()[cast<OpResult>(value).getResultNumber()]
        .getDefiningOp();
  };
  Operation *terminator = function.getBody().front().getTerminator();
  DenseSet<Value> result;
  function.walk([&](GroupNormalizeOp normalize) {
    auto fusion = normalize->getParentOfType<FusionOp>();
    auto input = dyn_cast<BlockArgument>(normalize.getInput());
    auto stats = dyn_cast<BlockArgument>(normalize.getStats());
    if (!fusion || !input || !stats || input.getOwner() != &fusion.getBodyBlock() ||
        stats.getOwner() != &fusion.getBodyBlock())
      return;
    Value means = fusion.getCaptures()[input.getArgNumber()];
    Value statistics = fusion.getCaptures()[stats.getArgNumber()];
    // Kernels read double storage; a reshape (or another op outside a
    // kernel) would see float.
    auto readByKernelsOnly = [](Value value) {
      return llvm::all_of(value.getUsers(), llvm::IsaPred<FusionOp>);
    };
    if (isa_and_present<ReduceOp>(getEpilogueOp(means)) &&
        isa_and_present<GroupStatsOp>(getEpilogueOp(statistics)) &&
        !llvm::is_contained(terminator->getOperands(), means) &&
        !llvm::is_contained(terminator->getOperands(), statistics) &&
        readByKernelsOnly(means) && readByKernelsOnly(statistics)) {
      result.insert(means);
      result.insert(statistics);
    }
  });
  return result;
}
