//===- ConvSchedule.h - Main loop, tile and launch of a conv kernel -*- C++ -*-===//
//
// The one place a conv kernel's schedule is decided: which main loop runs it
// (tensor-core implicit GEMM from CUTLASS, the direct conv for few input
// channels, or the implicit-GEMM FMA fallback), its tile,
// warps, pipeline stages, grid, threads and shared memory, and the layout
// conversions it needs. `plan` calls getConvSchedule and stores the result
// in the fusion's `solder.plan`; emit-cuda reads it back and launches
// exactly that.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_CONVSCHEDULE_H
#define SOLDER_ANALYSIS_CONVSCHEDULE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <array>
#include <optional>
#include <string>

namespace mlir::solder {

/// ieee: fp32 accuracy (3xTF32 tensor cores, or FMA). tf32: one TF32
/// product, like PyTorch's cuDNN default.
enum class Precision { ieee, tf32 };
std::optional<Precision> parsePrecision(StringRef text);
StringRef stringifyPrecision(Precision precision);

/// Which main loop a conv kernel runs: `auto` lets the schedule choose;
/// `direct` is the direct conv on tensor cores, `directFma` on FMAs.
enum class MainLoopChoice { automatic, tensorOp, direct, directFma, fma };
std::optional<MainLoopChoice> parseMainLoopChoice(StringRef text);

struct ConvSchedule {
  /// "tensorop_3xtf32", "tensorop_tf32" (implicit GEMM on tensor cores),
  /// "direct_3xtf32", "direct_tf32" (short reductions: a direct conv on
  /// tensor cores over a shared-memory input window), "direct_fma" (the
  /// direct conv on fp32 FMAs) or "fma" (the implicit-GEMM FMA fallback).
  std::string mainLoop;
  /// Why this main loop (printed by the report).
  std::string reason;
  /// Tile: BM output pixels x BN output channels x BK reduction elements
  /// (the direct conv on tensor cores: its whole reduction, padded to 8).
  std::array<int64_t, 3> tile = {0, 0, 0};
  /// The direct conv on tensor cores: whole output rows per tile (BM is
  /// tileRows x the output width, rounded up to 32); 0 for the others.
  int64_t tileRows = 0;
  /// Warp tile (WM x WN): tensor-core main loops only; cp.async stages:
  /// the implicit GEMM only.
  std::array<int64_t, 2> warp = {0, 0};
  int64_t stages = 0;
  /// (pixel tiles of one sample, channel tiles x groups, samples); a
  /// persistent kernel launches launchGrid().
  std::array<int64_t, 3> grid = {0, 0, 0};
  int64_t threads = 0;
  int64_t sharedBytes = 0;
  /// The direct conv in 3xTF32 under a cancelling sum: each reduction
  /// step's products summed apart, then added in fp32 (tensor cores
  /// truncate what they accumulate).
  bool stepSums = false;
  /// tf32, the direct conv under a cancelling sum, unpadded: one product on
  /// its input centered (a shift per sample and input channel, given back
  /// exactly).
  bool centered = false;
  /// The direct conv on tensor cores, persistent: a block runs tile after
  /// tile, its weights staged once and its next input window copied
  /// (cp.async) while it computes the current tile. Its launch is every
  /// tile in one dimension, which the runtime shrinks to the blocks the GPU
  /// holds at once.
  bool persistent = false;
  /// Blocks an SM the kernel's registers must allow (the second argument
  /// of __launch_bounds__); 0: no bound, the compiler's choice.
  int64_t blocksPerSM = 0;
  /// Input channels as the main loop reads them (padded to 4 for NDHWC).
  int64_t paddedInChannels = 0;
  /// Bytes read + written by the layout conversions (NCDHW -> NDHWC input,
  /// weights -> KTRSC) or, for the direct conv on tensor cores, by its
  /// prepare kernel; 0 for the FMA main loops, which read PyTorch's layouts.
  int64_t conversionBytes = 0;
  /// The direct conv on tensor cores: bytes its prepare kernel writes
  /// (weight fragments; centered, tap sums and shifts); 0 for the others.
  int64_t preparedBytes = 0;
  /// The main loop's rate, from the measured table: the cost model's FLOP rate.
  double teraFlops = 0.0;

  /// The grid emit-cuda launches: `grid`, or its tiles in one dimension.
  std::array<int64_t, 3> launchGrid() const {
    return persistent ? std::array<int64_t, 3>{grid[0] * grid[1] * grid[2], 1, 1} : grid;
  }

  /// Implicit GEMM on tensor cores (reads converted NDHWC / KTRSC operands).
  bool isTensorOp() const { return StringRef(mainLoop).starts_with("tensorop"); }
  bool isDirect() const { return StringRef(mainLoop).starts_with("direct"); }
  bool isDirectTensorOp() const { return isDirect() && !isDirectFma(); }
  bool isDirectFma() const { return mainLoop == "direct_fma"; }
  bool usesTensorCores() const { return isTensorOp() || isDirectTensorOp(); }
  bool isThreeTF32() const { return StringRef(mainLoop).ends_with("3xtf32"); }

  /// As attributes of `solder.plan`, and back (nullopt when a key is missing).
  void addAttributes(Builder &builder, SmallVectorImpl<NamedAttribute> &attributes) const;
  static std::optional<ConvSchedule> fromPlan(DictionaryAttr plan);
};

/// A tensor-core tile given by hand (benchmarks, tuning): "BMxBNxBK/WMxWN/S"
/// (e.g. "128x128x32/64x64/3"); nullopt when the text is not of that form or
/// the tile is not one CUTLASS's multistage main loop takes.
struct ConvTile {
  int64_t bm, bn, bk, wm, wn, stages;
};
std::optional<ConvTile> parseConvTile(StringRef text);

/// The schedule of the conv or conv_transpose `anchor`; `tile` replaces the
/// measured table's choice when the tensor-core main loop runs.
/// `cancellingSum`: a sum or mean reads the conv's result downstream, so
/// tf32's one product could lose every digit: the direct conv keeps 3xTF32
/// (with step sums), or in tf32 runs one product on its input centered
/// where the conv is unpadded.
ConvSchedule getConvSchedule(Operation *anchor, Precision precision,
                             MainLoopChoice choice = MainLoopChoice::automatic,
                             std::optional<ConvTile> tile = std::nullopt,
                             bool cancellingSum = false);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_CONVSCHEDULE_H
