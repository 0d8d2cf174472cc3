//===- ConvEpilogue.h - What a conv region's epilogue does ------*- C++ -*-===//
//
// The plan's decisions about a conv region's epilogue, made once here and
// recorded on the fusion (#solder.conv_schedule's `epilogue`,
// #solder.finalize_launch) for emit-cuda to read: how the epilogue reads
// the main loop's accumulators, the launch of the kernel that combines its
// partial reductions, and which of its statistics are stored in double.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_CONVEPILOGUE_H
#define SOLDER_ANALYSIS_CONVEPILOGUE_H

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

#include <array>

namespace mlir::solder {

/// The partial reductions of conv region `fusion`'s epilogue (group
/// statistics, per-channel sums and means), in the region's order: the
/// plan's "the epilogue reduces", the finalize kernel's statistics.
SmallVector<Operation *> getEpilogueReductions(FusionOp fusion);

/// Whether a reduction of `fusion`'s epilogue keeps the samples apart (a
/// GroupNorm's statistics, a sum per sample and channel), which holds each
/// tile's pixels in one sample; statistics across the batch (a training
/// BatchNorm's) do not care which sample a pixel is.
bool epilogueReducesPerSample(FusionOp fusion);

/// How `fusion`'s epilogue reads the accumulators of `mainLoop` (anchor:
/// its conv): the FMA fallback visits each element with Welford partials;
/// the direct conv on tensor cores hands each tile's channel moments from
/// its registers where the region only reduces the conv output (stores no
/// element, runs no pointwise op); otherwise the tile is visited with
/// shifted moments.
ConvEpilogueKind getConvEpilogueKind(FusionOp fusion, Operation *anchor,
                                     MainLoopKind mainLoop);

/// The samples of a conv epilogue's partial reductions: the conv's batch,
/// or one where its tiles run across samples (then its reductions span the
/// batch, and a pixel tile's partials are sample 0's).
int64_t getPartialSamples(Operation *anchor, bool acrossSamples);

/// The `_finalize` kernel of a conv region whose epilogue reduces (group
/// statistics, per-channel sums or means): a block per group statistic, a
/// thread per spatial sum. nullopt when the region has no reduction. Its
/// partials are getPartialSamples x `pixelTiles` x the channels.
struct FinalizeLaunch {
  int64_t threads = 0;
  std::array<int64_t, 3> grid = {0, 0, 0};
};
std::optional<FinalizeLaunch> getFinalizeLaunch(FusionOp fusion, Operation *anchor,
                                                int64_t pixelTiles, bool acrossSamples);

/// The conv-region results that are stored in double: a channel mean and
/// the group statistics whose difference a later group_normalize takes.
DenseSet<Value> findCancellingStatistics(func::FuncOp function);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_CONVEPILOGUE_H
