//===- SolderAttrs.cpp - Verifiers of the kernel plan's attributes --------===//
//
// The plan's attributes are verified where they are built and parsed, so the
// CUDA code generator reads only schedules whose fields fit each other.
//
//===----------------------------------------------------------------------===//

#include "solder/Dialect/Solder/IR/SolderDialect.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::solder;

namespace {
using EmitError = function_ref<InFlightDiagnostic()>;

LogicalResult verifyDims(EmitError emitError, StringRef name, ArrayRef<int64_t> values,
                         size_t rank) {
  if (values.size() != rank || llvm::any_of(values, [](int64_t v) { return v <= 0; }))
    return emitError() << "expects " << name << " to have " << rank
                       << " positive dims, got [" << values << "]";
  return success();
}

LogicalResult verifyThreads(EmitError emitError, int64_t threads, bool powerOfTwo) {
  if (threads < 32 || threads > 1024 || threads % 32 != 0 ||
      (powerOfTwo && !llvm::isPowerOf2_64(threads)))
    return emitError() << "expects threads to be a "
                       << (powerOfTwo ? "power of two" : "multiple of 32")
                       << " from 32 to 1024, got " << threads;
  return success();
}
} // namespace

LogicalResult ImplicitGemmTileAttr::verify(EmitError emitError, ArrayRef<int64_t> tile,
                                           ArrayRef<int64_t> warp, int64_t stages,
                                           int64_t paddedChannels,
                                           ArrayRef<int64_t> inputGrid,
                                           ArrayRef<int64_t> weightGrid, PixelTiling,
                                           int64_t kSplits) {
  if (failed(verifyDims(emitError, "tile", tile, 3)) ||
      failed(verifyDims(emitError, "warp", warp, 2)) ||
      (!inputGrid.empty() && failed(verifyDims(emitError, "input_grid", inputGrid, 3))) ||
      (!weightGrid.empty() && failed(verifyDims(emitError, "weight_grid", weightGrid, 3))))
    return failure();
  // CUTLASS's multistage main loop: warps of 16 x 8 MMA steps tiling the
  // block, two 8-deep steps a stage or more; the epilogue's lanes take
  // BM / 32 pixels each.
  int64_t bm = tile[0], bn = tile[1], bk = tile[2], wm = warp[0], wn = warp[1];
  if (wm % 16 != 0 || wn % 8 != 0 || bm % wm != 0 || bn % wn != 0 || bm % 32 != 0 ||
      bk % 16 != 0 || (bm / wm) * (bn / wn) > 8)
    return emitError() << "expects warps of 16 x 8 MMA steps tiling the block, at most 8, "
                          "BM a multiple of 32 and BK of 16, got tile ["
                       << tile << "] and warp [" << warp << "]";
  if (stages < 2 || stages > 8)
    return emitError() << "expects 2 to 8 stages, got " << stages;
  if (paddedChannels <= 0 || paddedChannels % 4 != 0)
    return emitError() << "expects padded_channels to be a positive multiple of 4, got "
                       << paddedChannels;
  if (kSplits < 1 || kSplits > SolderDialect::kMaxKSplits)
    return emitError() << "expects k_splits from 1 to " << SolderDialect::kMaxKSplits << ", got " << kSplits;
  return success();
}

LogicalResult FmaTileAttr::verify(EmitError emitError, ArrayRef<int64_t> tile) {
  if (failed(verifyDims(emitError, "tile", tile, 3)))
    return failure();
  // 256 threads as 16 x 16, each (BM / 16) x (BN / 16) outputs.
  if (tile[0] % 16 != 0 || tile[1] % 16 != 0)
    return emitError() << "expects BM and BN to be multiples of 16, got tile [" << tile
                       << "]";
  return success();
}

LogicalResult DirectFmaTileAttr::verify(EmitError emitError, ArrayRef<int64_t> tile) {
  return verifyDims(emitError, "tile", tile, 2);
}

LogicalResult DepthwiseTileAttr::verify(EmitError emitError, int64_t rows, int64_t columns,
                                        int64_t threadRows, int64_t channels) {
  if (rows <= 0 || columns <= 0 || threadRows <= 0 || rows % threadRows != 0)
    return emitError() << "expects positive rows, columns and thread_rows, thread_rows "
                          "dividing rows, got "
                       << rows << ", " << columns << " and " << threadRows;
  // 128 threads, the same number a channel.
  if (channels <= 0 || 128 % channels != 0)
    return emitError() << "expects channels to divide the block's 128 threads, got "
                       << channels;
  return success();
}

LogicalResult DirectTileAttr::verify(EmitError emitError, int64_t rows,
                                     ArrayRef<int64_t> tile, int64_t warps,
                                     DirectAccumulation, int64_t preparedBytes,
                                     int64_t prepareThreads, ArrayRef<int64_t> prepareGrid) {
  if (failed(verifyDims(emitError, "tile", tile, 3)) ||
      failed(verifyDims(emitError, "prepare_grid", prepareGrid, 3)))
    return failure();
  if (rows <= 0)
    return emitError() << "expects at least one row a tile, got " << rows;
  // Pixels in 32-lane multiples, channels and the reduction in 8-wide MMA steps.
  if (tile[0] % 32 != 0 || tile[1] % 8 != 0 || tile[2] % 8 != 0)
    return emitError() << "expects BM a multiple of 32, BN and the reduction multiples "
                          "of 8, got tile ["
                       << tile << "]";
  if (warps != 4 && warps != 8)
    return emitError() << "expects 4 or 8 warps, got " << warps;
  if (preparedBytes <= 0 || prepareThreads <= 0)
    return emitError() << "expects the prepare kernel's bytes and threads, got "
                       << preparedBytes << " and " << prepareThreads;
  return success();
}

LogicalResult ConvScheduleAttr::verify(EmitError emitError, MainLoopKind mainLoop,
                                       TensorMath math, Attribute config,
                                       TileSchedulerKind scheduler, ArrayRef<int64_t> grid,
                                       int64_t threads, int64_t sharedBytes,
                                       int64_t minBlocksPerSM, ConvEpilogueKind epilogue,
                                       StringRef, ArrayRef<int64_t> prologueGrid) {
  bool configMatches = false;
  int64_t warps = 0;
  switch (mainLoop) {
  case MainLoopKind::implicit_gemm_fma:
    configMatches = isa<FmaTileAttr>(config);
    break;
  case MainLoopKind::implicit_gemm_tensorop:
    if (auto tile = dyn_cast<ImplicitGemmTileAttr>(config)) {
      configMatches = true;
      warps = (tile.getTile()[0] / tile.getWarp()[0]) * (tile.getTile()[1] / tile.getWarp()[1]);
    }
    break;
  case MainLoopKind::implicit_gemm_wgmma:
    // A producer warpgroup and two consumer warpgroups, each a warp tile
    // of half the rows; the copies read tensor maps of the converted
    // weights and the converted input (in tf32 an input its producer
    // stored channels-last and rounded needs none).
    if (auto tile = dyn_cast<ImplicitGemmTileAttr>(config)) {
      configMatches = true;
      ArrayRef<int64_t> block = tile.getTile(), warp = tile.getWarp();
      if ((block[0] != 128 && block[0] != 256) || warp[0] * 2 != block[0] || warp[1] != block[1] ||
          block[2] != 32 || (tile.getInputGrid().empty() && math != TensorMath::tf32) ||
          tile.getWeightGrid().empty())
        return emitError() << "main loop implicit_gemm_wgmma takes tiles of 128 or 256 rows, "
                              "warp tiles of [BM / 2, BN], 32-deep K steps, converted weights "
                              "(weight_grid) and, but in tf32, a converted input (input_grid), "
                              "got "
                           << config;
      if (math == TensorMath::tf32x3 && (block[0] != 128 || block[1] > 128))
        return emitError() << "main loop implicit_gemm_wgmma in tf32x3 takes tiles of 128 rows "
                              "and at most 128 channels (a stage's products held apart from "
                              "the accumulators), got "
                           << config;
      warps = 12;
    }
    break;
  case MainLoopKind::direct_fma:
    configMatches = isa<DirectFmaTileAttr>(config);
    break;
  case MainLoopKind::direct_tensorop:
    if (auto tile = dyn_cast<DirectTileAttr>(config)) {
      configMatches = true;
      warps = tile.getWarps();
    }
    break;
  case MainLoopKind::depthwise:
    configMatches = isa<DepthwiseTileAttr>(config);
    warps = 4;
    break;
  }
  if (!configMatches)
    return emitError() << "main loop " << stringifyMainLoopKind(mainLoop)
                       << " does not take the config " << config;
  bool tensorCores = mainLoop == MainLoopKind::implicit_gemm_tensorop ||
                     mainLoop == MainLoopKind::implicit_gemm_wgmma ||
                     mainLoop == MainLoopKind::direct_tensorop;
  if (tensorCores == (math == TensorMath::fma_f32))
    return emitError() << "main loop " << stringifyMainLoopKind(mainLoop)
                       << (tensorCores ? " computes in tf32 or tf32x3" : " computes in fma_f32")
                       << ", not " << stringifyTensorMath(math);
  if (auto direct = dyn_cast<DirectTileAttr>(config)) {
    if (direct.getAccumulation() == DirectAccumulation::step_sums && math != TensorMath::tf32x3)
      return emitError() << "step_sums accumulation needs tf32x3 math";
    if (direct.getAccumulation() == DirectAccumulation::centered && math != TensorMath::tf32)
      return emitError() << "centered accumulation needs tf32 math";
  }
  if (scheduler == TileSchedulerKind::persistent && mainLoop != MainLoopKind::direct_tensorop)
    return emitError() << "only the direct conv on tensor cores takes the persistent "
                          "tile scheduler";
  if (failed(verifyDims(emitError, "tiles", grid, 3)) ||
      failed(verifyThreads(emitError, threads, /*powerOfTwo=*/false)))
    return failure();
  if (warps && threads != 32 * warps)
    return emitError() << "expects 32 threads a warp of the config's " << warps
                       << " warps, got " << threads << " threads";
  if (sharedBytes < 0 || minBlocksPerSM < 0)
    return emitError() << "expects shared_bytes and min_blocks_per_sm >= 0";
  if ((epilogue == ConvEpilogueKind::element_welford) !=
      (mainLoop == MainLoopKind::implicit_gemm_fma))
    return emitError() << "the element_welford epilogue is the implicit_gemm_fma main "
                          "loop's, and only its";
  if (epilogue == ConvEpilogueKind::register_moments &&
      mainLoop != MainLoopKind::direct_tensorop)
    return emitError() << "only the direct conv on tensor cores hands its epilogue "
                          "register_moments";
  if (auto tile = dyn_cast<ImplicitGemmTileAttr>(config)) {
    int64_t splits = tile.getKSplits();
    if (splits > 1 && mainLoop != MainLoopKind::implicit_gemm_wgmma)
      return emitError() << "only the Hopper main loop (implicit_gemm_wgmma) splits its K "
                            "steps, got k_splits = "
                         << splits << " for " << stringifyMainLoopKind(mainLoop);
    if (tile.getPixels() == PixelTiling::across_samples && grid[2] != splits)
      return emitError() << "pixel tiles across samples take the samples in their tiles: "
                            "expects tiles [..., "
                         << splits << "]" << (splits > 1 ? " (its k_splits)" : "") << ", got ["
                         << grid << "]";
    if (grid[2] % splits != 0)
      return emitError() << "expects the tiles' third dim to be the samples times k_splits ("
                         << splits << "), got [" << grid << "]";
  }
  if (!prologueGrid.empty()) {
    if (mainLoop == MainLoopKind::implicit_gemm_tensorop ||
        mainLoop == MainLoopKind::implicit_gemm_wgmma)
      return emitError() << "the tensor-core implicit GEMM applies its prologue in its "
                            "input conversion: no prologue_grid";
    if (failed(verifyDims(emitError, "prologue_grid", prologueGrid, 3)))
      return failure();
  }
  return success();
}

std::array<int64_t, 3> ConvScheduleAttr::getLaunchGrid() const {
  ArrayRef<int64_t> grid = getGrid();
  if (getScheduler() == TileSchedulerKind::persistent)
    return {grid[0] * grid[1] * grid[2], 1, 1};
  return {grid[0], grid[1], grid[2]};
}

LogicalResult RegionLaunchAttr::verify(EmitError emitError, RegionWalk walk, int64_t chunk,
                                       int64_t vector, int64_t threads,
                                       ArrayRef<int64_t> grid) {
  if (failed(verifyDims(emitError, "grid", grid, 3)) ||
      failed(verifyThreads(emitError, threads, /*powerOfTwo=*/true)))
    return failure();
  if (chunk < 1)
    return emitError() << "expects a chunk of at least one item, got " << chunk;
  if (vector != 1 && (vector != 4 || walk != RegionWalk::elementwise))
    return emitError() << "expects vector 1, or 4 when elementwise, got " << vector;
  return success();
}

LogicalResult FinalizeLaunchAttr::verify(EmitError emitError, int64_t threads,
                                         ArrayRef<int64_t> grid, DenseI64ArrayAttr f64Results) {
  if (failed(verifyDims(emitError, "grid", grid, 3)) ||
      failed(verifyThreads(emitError, threads, /*powerOfTwo=*/true)))
    return failure();
  if (!f64Results || llvm::any_of(f64Results.asArrayRef(), [](int64_t r) { return r < 0; }))
    return emitError() << "expects f64_results to list result numbers";
  return success();
}

StringRef mlir::solder::getMainLoopName(MainLoopKind mainLoop, TensorMath math) {
  switch (mainLoop) {
  case MainLoopKind::implicit_gemm_fma: return "fma";
  case MainLoopKind::direct_fma: return "direct_fma";
  case MainLoopKind::depthwise: return "depthwise";
  case MainLoopKind::implicit_gemm_tensorop:
    return math == TensorMath::tf32x3 ? "tensorop_3xtf32" : "tensorop_tf32";
  case MainLoopKind::implicit_gemm_wgmma:
    return math == TensorMath::tf32x3 ? "wgmma_3xtf32" : "wgmma_tf32";
  case MainLoopKind::direct_tensorop:
    return math == TensorMath::tf32x3 ? "direct_3xtf32" : "direct_tf32";
  }
  llvm_unreachable("unknown main loop");
}

/// solder.channels_last on a function argument or result: a unit
/// attribute of a tensor with channels and at least one spatial dim.
static LogicalResult verifyChannelsLastLayout(Operation *op, NamedAttribute attribute,
                                              StringRef what, Type type) {
  auto tensor = dyn_cast_or_null<RankedTensorType>(type);
  if (!isa<func::FuncOp>(op) || !isa<UnitAttr>(attribute.getValue()) || !tensor ||
      tensor.getRank() < 3)
    return op->emitError() << "'" << SolderDialect::kChannelsLastAttrName
                           << "' is a unit attribute of a func.func " << what
                           << " of rank 3 or more";
  return success();
}

LogicalResult SolderDialect::verifyRegionArgAttribute(Operation *op, unsigned region,
                                                     unsigned argument,
                                                     NamedAttribute attribute) {
  if (attribute.getName() == kParameterAttrName &&
      !(isa<func::FuncOp>(op) && isa<UnitAttr>(attribute.getValue())))
    return op->emitError() << "'" << kParameterAttrName
                           << "' is a unit attribute of a func.func argument";
  if (attribute.getName() == kChannelsLastAttrName) {
    auto function = dyn_cast<func::FuncOp>(op);
    return verifyChannelsLastLayout(
        op, attribute, "argument",
        function && region == 0 && argument < function.getNumArguments()
            ? function.getArgumentTypes()[argument]
            : Type());
  }
  return success();
}

LogicalResult SolderDialect::verifyRegionResultAttribute(Operation *op, unsigned region,
                                                        unsigned result,
                                                        NamedAttribute attribute) {
  if (attribute.getName() != kChannelsLastAttrName)
    return success();
  auto function = dyn_cast<func::FuncOp>(op);
  return verifyChannelsLastLayout(op, attribute, "result",
                                  function && result < function.getNumResults()
                                      ? function.getResultTypes()[result]
                                      : Type());
}

LogicalResult SolderDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto fusion = dyn_cast<FusionOp>(op);
  if (name == kScheduleAttrName || name == kFinalizeAttrName || name == kEstimateAttrName) {
    if (!fusion)
      return op->emitError() << "'" << name << "' belongs on a solder.fusion";
    bool hasConv = llvm::any_of(fusion.getBodyBlock(), llvm::IsaPred<ConvOp, ConvTransposeOp>);
    // A region of small GEMMs (convs on one pixel a sample) runs a block
    // per row; any other region with a conv runs its conv schedule.
    auto launch = dyn_cast<RegionLaunchAttr>(value);
    bool perRow = launch && launch.getWalk() == RegionWalk::block_per_row;
    if (name == kScheduleAttrName && perRow &&
        !(hasConv && llvm::none_of(fusion.getBodyBlock(), llvm::IsaPred<ConvTransposeOp>)))
      return op->emitError() << "'" << name
                             << "' block_per_row belongs on a region of small GEMMs (convs, no "
                                "conv_transpose)";
    if (name == kScheduleAttrName && !perRow &&
        !(hasConv ? isa<ConvScheduleAttr>(value) : isa<RegionLaunchAttr>(value)))
      return op->emitError() << "'" << name << "' of a region "
                             << (hasConv ? "with a conv must be a #solder.conv_schedule"
                                         : "without a conv must be a #solder.region_launch");
    if (name == kFinalizeAttrName && !(hasConv && isa<FinalizeLaunchAttr>(value)))
      return op->emitError() << "'" << name
                             << "' must be a #solder.finalize_launch on a region with a conv";
    if (name == kEstimateAttrName && !isa<EstimateAttr>(value))
      return op->emitError() << "'" << name << "' must be a #solder.estimate";
  }
  if (name == kChannelsLastAttrName) {
    auto results = dyn_cast<DenseI64ArrayAttr>(value);
    if (!fusion || !results ||
        !llvm::any_of(fusion.getBodyBlock(), llvm::IsaPred<ConvOp, ConvTransposeOp>) ||
        llvm::any_of(results.asArrayRef(), [&](int64_t index) {
          return index < 0 || index >= fusion.getNumResults();
        }))
      return op->emitError() << "'" << name
                             << "' lists result numbers of a solder.fusion with a conv";
  }
  if (name == kRoundedTF32AttrName) {
    auto results = dyn_cast<DenseI64ArrayAttr>(value);
    auto channelsLast = op->getAttrOfType<DenseI64ArrayAttr>(kChannelsLastAttrName);
    if (!fusion || !results || !channelsLast ||
        llvm::any_of(results.asArrayRef(), [&](int64_t index) {
          return !llvm::is_contained(channelsLast.asArrayRef(), index);
        }))
      return op->emitError() << "'" << name << "' lists result numbers of a solder.fusion's '"
                             << kChannelsLastAttrName << "'";
  }
  return success();
}
