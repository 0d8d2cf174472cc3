//===- RegionLaunch.cpp - Launch of a region without a conv ---------------===//

#include "solder/Analysis/RegionLaunch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::solder;

namespace {
/// Elements an elementwise thread loads before it stores; elements a
/// thread per output loads before it accumulates.
constexpr int64_t kElementwiseChunk = 4;
constexpr int64_t kVectorChunk = 2;
constexpr int64_t kReductionChunk = 8;
/// A block per output: fewer outputs than this (about twice an H100's SMs)
/// take kWideBlockThreads threads a block where the reduction is long.
constexpr int64_t kFewOutputs = 256;
constexpr int64_t kWideBlockThreads = 1024;
/// The blocks a reduction of few outputs is split into, at most (about a
/// wave of 256-thread blocks on an H100 or H200: 132 SMs of 8), and the
/// shares an output, at most (one thread merges them).
constexpr int64_t kSplitBlocks = 1024;
constexpr int64_t kMaxSplits = 64;
/// The chunks a thread reduces of a share, at least: fewer would pay the
/// shares' merge for a reduction short enough to take a block each.
constexpr int64_t kSplitChunks = 4;
/// Many outputs of at least this many consecutive elements take a warp each.
constexpr int64_t kWarpMinLength = 64;
/// A grid-stride elementwise kernel needs no more blocks than this.
constexpr int64_t kMaxElementwiseBlocks = 65536;
constexpr int64_t kVectorWidth = 4;
} // namespace

bool mlir::solder::isReadPerElement(BlockArgument argument) {
  // group_normalize reads its statistics and affine parameters per channel,
  // a pool its input per window.
  return llvm::any_of(argument.getUses(), [](OpOperand &use) {
    return !isa<PoolOp, AdaptivePoolOp>(use.getOwner()) &&
           (!isa<GroupNormalizeOp>(use.getOwner()) || use.getOperandNumber() == 0);
  });
}

namespace {
enum class TailAccess { dense, broadcast, mixed };

/// How a tensor of `dims`, broadcast to `shape`, covers the dims of `shape`
/// from `start` on: all of them (dense), none (broadcast), or some.
TailAccess getTailAccess(ArrayRef<int64_t> dims, ArrayRef<int64_t> shape,
                         int64_t start) {
  int64_t rank = shape.size();
  int64_t offset = rank - static_cast<int64_t>(dims.size());
  bool full = true, broadcast = true;
  for (int64_t d = start; d < rank; ++d) {
    int64_t size = d - offset >= 0 ? dims[d - offset] : 1;
    full &= size == shape[d];
    broadcast &= size == 1;
  }
  return full ? TailAccess::dense
              : broadcast ? TailAccess::broadcast : TailAccess::mixed;
}

ArrayRef<int64_t> getShape(BlockArgument argument) {
  return cast<RankedTensorType>(argument.getType()).getShape();
}
} // namespace

std::optional<int64_t> mlir::solder::getVectorTailStart(FusionOp fusion,
                                                        ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  for (int64_t start = rank - 1; start >= 0; --start) {
    int64_t tail = 1;
    for (int64_t d = start; d < rank; ++d)
      tail *= shape[d];
    if (tail % kVectorWidth != 0)
      continue;
    // Every tensor read per element is dense over the tail or broadcast
    // along all of it.
    if (llvm::all_of(fusion.getBodyBlock().getArguments(), [&](BlockArgument argument) {
          return !isReadPerElement(argument) ||
                 getTailAccess(getShape(argument), shape, start) != TailAccess::mixed;
        }))
      return start;
  }
  return std::nullopt;
}

bool mlir::solder::isBroadcastAlongTail(BlockArgument argument,
                                        ArrayRef<int64_t> shape,
                                        int64_t tailStart) {
  return getTailAccess(getShape(argument), shape, tailStart) == TailAccess::broadcast;
}

RegionLaunchAttr RegionLaunch::toAttr(function_ref<InFlightDiagnostic()> emitError,
                                      MLIRContext *context) const {
  return RegionLaunchAttr::getChecked(emitError, context, walk, chunk, vector, threads,
                                      {blocks, 1, 1});
}

RegionExtent mlir::solder::getRegionExtent(FusionOp fusion) {
  RegionExtent extent;
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (isa<ReduceOp, GroupStatsOp>(op))
      extent.reduction = &op;
  if (!extent.reduction) {
    extent.outputs =
        cast<RankedTensorType>(fusion.getYield().getValues()[0].getType()).getNumElements();
    return extent;
  }
  auto inType = cast<RankedTensorType>(extent.reduction->getOperand(0).getType());
  if (auto stats = dyn_cast<GroupStatsOp>(extent.reduction)) {
    extent.outputs = (stats.getAcrossBatch() ? 1 : inType.getDimSize(0)) *
                     stats.getNumGroups();
    extent.contiguous = !stats.getAcrossBatch();
  } else {
    auto reduce = cast<ReduceOp>(extent.reduction);
    extent.outputs = 1;
    for (int64_t d = 0; d < inType.getRank(); ++d)
      if (!llvm::is_contained(reduce.getDims(), d))
        extent.outputs *= inType.getDimSize(d);
    ArrayRef<int64_t> dims = reduce.getDims();
    extent.contiguous =
        !dims.empty() && llvm::equal(dims, llvm::seq<int64_t>(inType.getRank() - dims.size(),
                                                               inType.getRank()));
  }
  extent.length = inType.getNumElements() / extent.outputs;
  return extent;
}

RegionLaunch mlir::solder::getRowsLaunch(int64_t rows) {
  // A row's GEMM outputs take a warp each: 8 warps keep a squeeze-
  // excitation's 16 to 2048 outputs a row spread over the SM.
  RegionLaunch launch;
  launch.walk = RegionWalk::block_per_row;
  launch.blocks = rows;
  return launch;
}

int64_t mlir::solder::getReduceApplyLanes(int64_t rows, int64_t length) {
  // Enough lanes that each holds at most kReductionChunk elements of its row
  // (a warp a row of 64 left 256 bytes in flight a warp: 2.4 TB/s on an
  // H200 for LayerNorm over a conv output's last dim), at least 4; a warp's
  // rows all valid or all past the end.
  int64_t lanes = std::clamp<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(length, kReductionChunk)), 4, 32);
  while (rows % (32 / lanes) != 0)
    lanes *= 2;
  return lanes;
}

RegionLaunch mlir::solder::getReduceApplyLaunch(int64_t rows, int64_t length) {
  // A segment of lanes a row: its passes after the first read the row from
  // L1.
  RegionLaunch launch;
  launch.walk = RegionWalk::warp_per_row;
  int64_t lanes = getReduceApplyLanes(rows, length);
  launch.chunk = std::clamp<int64_t>(length / lanes, 1, kReductionChunk);
  launch.blocks = llvm::divideCeil(rows, launch.threads / lanes);
  return launch;
}

RegionLaunch mlir::solder::getRegionLaunch(FusionOp fusion) {
  RegionLaunch launch;
  RegionExtent extent = getRegionExtent(fusion);
  if (!extent.reduction) {
    auto type = cast<RankedTensorType>(fusion.getYield().getValues()[0].getType());
    if (getVectorTailStart(fusion, type.getShape()))
      launch.vector = kVectorWidth;
    launch.chunk = launch.vector > 1 ? kVectorChunk : kElementwiseChunk;
    launch.blocks = std::min<int64_t>(
        llvm::divideCeil(extent.outputs, launch.vector * launch.chunk * launch.threads),
        kMaxElementwiseBlocks);
    return launch;
  }
  if (extent.outputs >= 2048 && extent.contiguous && extent.length >= kWarpMinLength) {
    // Rows of consecutive elements (LayerNorm's statistics over a GEMM's
    // features): a thread per row strided its warp's loads a row apart
    // (vit_mlp's 6304 rows of 768: 0.111 ms for 19 MB on an H200).
    launch.walk = RegionWalk::warp_per_output;
    launch.chunk = std::clamp<int64_t>(extent.length / 32, 1, kReductionChunk);
    launch.blocks = llvm::divideCeil(extent.outputs, launch.threads / 32);
  } else if (extent.outputs >= 2048) {
    launch.walk = RegionWalk::thread_per_output;
    launch.chunk = std::min(kReductionChunk, extent.length);
    launch.blocks = llvm::divideCeil(extent.outputs, launch.threads);
  } else {
    // A block per output holds kReductionChunk loads a thread in flight
    // (one at a time left GroupNorm's statistics of a 4x320x64x64 input
    // latency-bound: 0.074 ms for 21 MB on an H100, 128 blocks), where the
    // reduction fills them.
    launch.walk = RegionWalk::block_per_output;
    launch.chunk = std::clamp<int64_t>(extent.length / launch.threads, 1, kReductionChunk);
    // Fewer outputs than kSplitBlocks: each output's elements in equal
    // shares, a block each, as many as make kSplitBlocks blocks (at most
    // kMaxSplits an output) and leave each share kSplitChunks chunks a
    // thread or more; the last block of an output merges its shares. A VAE
    // block's 32 statistics of 262144 elements each, a block of 1024
    // threads an output, took 112 us for 32 MB on an H200 (100 of its 132
    // SMs idle); in 32 shares of 8192 elements a 256-thread block, 51 us
    // (the block 0.560 -> 0.498 ms in tf32).
    int64_t splits = 1;
    while (splits * 2 <= kMaxSplits && extent.outputs * splits * 2 <= kSplitBlocks &&
           extent.length % (splits * 2) == 0 &&
           extent.length / (splits * 2) >= kSplitChunks * launch.threads * launch.chunk)
      splits *= 2;
    // Unsplit, few long reductions take 1024 threads a block.
    if (splits == 1 && extent.outputs < kFewOutputs &&
        extent.length >= kWideBlockThreads * kReductionChunk) {
      launch.threads = kWideBlockThreads;
      launch.chunk = std::clamp<int64_t>(extent.length / launch.threads, 1, kReductionChunk);
    }
    launch.blocks = extent.outputs * splits;
  }
  return launch;
}
