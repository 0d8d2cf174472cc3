//===- ConvSchedule.h - Main loop, tile and launch of a conv kernel -*- C++ -*-===//
//
// The one place a conv kernel's schedule is decided: which main loop runs it
// (tensor-core implicit GEMM from CUTLASS, the direct conv for few input
// channels, or the implicit-GEMM FMA fallback), its tile,
// warps, pipeline stages, grid, threads and shared memory, and the layout
// conversions it needs. `plan` calls getConvSchedule and stores the result
// on the fusion as a #solder.conv_schedule, which emit-cuda only reads.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_CONVSCHEDULE_H
#define SOLDER_ANALYSIS_CONVSCHEDULE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "solder/Analysis/GpuTarget.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

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

/// Threads a block of the kernels that prepare a conv's operands (layout
/// conversions, the direct conv's weight fragments).
constexpr int64_t kOperandPrepThreads = 256;

/// The builder of a conv region's #solder.conv_schedule: getConvSchedule
/// fills it, the plan turns it into the attribute (toAttr), and the report
/// reads its estimate fields (conversionBytes, teraFlops).
struct ConvSchedule {
  MainLoopKind kind = MainLoopKind::implicit_gemm_fma;
  TensorMath math = TensorMath::fma_f32;
  /// Why this main loop (printed by the report).
  std::string reason;
  /// The implicit GEMMs' tile: BM output pixels x BN output channels x BK
  /// reduction elements a step. The direct conv on tensor cores: BM x BN x
  /// its whole reduction, padded to 8. The direct conv on FMAs: pixels x
  /// channels (tile[2] unused).
  std::array<int64_t, 3> tile = {0, 0, 0};
  /// The depthwise conv: rows x columns output positions a tile, a
  /// thread's rows down a column, channels a block (tile holds BM, their
  /// positions rounded up to 32, and the channels).
  struct DepthwiseTile {
    int64_t rows = 0, columns = 0, threadRows = 0, channels = 0;
  } depthwise;
  /// The direct conv on tensor cores: whole output rows per tile (BM is
  /// tileRows x the output width, rounded up to 32), and its warps.
  int64_t tileRows = 0, warps = 0;
  /// The implicit GEMM on tensor cores: its warp tile (WM x WN) and
  /// cp.async stages.
  std::array<int64_t, 2> warp = {0, 0};
  int64_t stages = 0;
  /// (pixel tiles of one sample, channel tiles x groups, samples x
  /// kSplits); where acrossSamples, (tiles of every sample's pixels,
  /// channel tiles, kSplits).
  std::array<int64_t, 3> grid = {0, 0, 0};
  /// The implicit GEMM on tensor cores of a conv with one input and output
  /// pixel a sample and a 1x1 kernel (a Linear, squeeze-excitation's convs):
  /// its tiles run over the samples, BM of them a tile, as the GEMM it is.
  /// The Hopper main loop's, where the epilogue reduces nothing: its tiles
  /// run over every sample's pixels as one row.
  bool acrossSamples = false;
  /// The Hopper main loop: the shares each tile's K steps split into, a CTA
  /// each (split-K).
  int64_t kSplits = 1;
  int64_t threads = 0;
  int64_t sharedBytes = 0;
  /// The direct conv on tensor cores: plain, step sums (3xTF32 under a
  /// cancelling sum: each reduction step's products summed apart, then
  /// added in fp32, as tensor cores truncate what they accumulate) or
  /// centered (tf32 under a cancelling sum, unpadded: one product on its
  /// input less a shift per sample and input channel, given back exactly).
  DirectAccumulation accumulation = DirectAccumulation::plain;
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
  /// The implicit GEMM on tensor cores: the grids of its NCDHW -> NDHWC
  /// input and KTRSC weight conversions; zeros where the operand is in
  /// that layout already (rows of one pixel a sample, a 1x1 conv's
  /// weights, no channel padded) and the main loop reads it as it is.
  std::array<int64_t, 3> inputConversionGrid = {0, 0, 0};
  std::array<int64_t, 3> weightConversionGrid = {0, 0, 0};
  /// The direct conv on tensor cores: its prepare kernel's threads and
  /// grid, and the bytes it writes (weight fragments; centered, tap sums
  /// and shifts).
  int64_t prepareThreads = 0;
  std::array<int64_t, 3> prepareGrid = {0, 0, 0};
  int64_t preparedBytes = 0;
  /// Where the region computes the conv's input (a prologue) and the main
  /// loop reads PyTorch's layout: the grid of the kernel that writes that
  /// input, a thread an element (the tensor-core implicit GEMM applies the
  /// prologue in its input conversion instead).
  std::array<int64_t, 3> prologueGrid = {0, 0, 0};
  /// Bytes that kernel reads and writes (part of conversionBytes).
  int64_t prologueBytes = 0;
  /// Bytes read + written by the layout conversions (NCDHW -> NDHWC input,
  /// weights -> KTRSC) or, for the direct conv on tensor cores, by its
  /// prepare kernel, and by the prologue kernel; 0 for the FMA main loops
  /// without a prologue, which read PyTorch's layouts.
  int64_t conversionBytes = 0;
  /// The part of conversionBytes computed from the weights alone (KTRSC, the
  /// direct conv's fragments but for its input shifts): a preparation the
  /// runtime runs once while the weights are unchanged parameters.
  int64_t weightConversionBytes = 0;
  /// The main loop's rate, from the measured table: the cost model's FLOP rate.
  double teraFlops = 0.0;

  /// "direct_3xtf32", "tensorop_tf32", "fma", ... (reports and manifests).
  StringRef getMainLoopName() const { return solder::getMainLoopName(kind, math); }
  /// Implicit GEMM on tensor cores, sm80's or Hopper's (reads converted
  /// NDHWC / KTRSC operands).
  bool isTensorOp() const {
    return kind == MainLoopKind::implicit_gemm_tensorop || isWgmma();
  }
  /// The Hopper main loop (wgmma fed by TMA), which reads its operands
  /// through tensor maps over their converted buffers.
  bool isWgmma() const { return kind == MainLoopKind::implicit_gemm_wgmma; }
  bool isDirect() const { return isDirectTensorOp() || isDirectFma(); }
  bool isDirectTensorOp() const { return kind == MainLoopKind::direct_tensorop; }
  bool isDirectFma() const { return kind == MainLoopKind::direct_fma; }
  bool isThreeTF32() const { return math == TensorMath::tf32x3; }
  bool isCentered() const { return accumulation == DirectAccumulation::centered; }

  /// The attribute the plan sets, with the region's epilogue; null, after a
  /// diagnostic through `emitError`, when it does not verify.
  ConvScheduleAttr toAttr(function_ref<InFlightDiagnostic()> emitError,
                          MLIRContext *context, ConvEpilogueKind epilogue) const;
};

/// Input channels under which a conv runs the direct conv on tensor cores
/// (its main loop's own choice), the one main loop that keeps 3xTF32 in
/// tf32 where a sum downstream can cancel: every other rounds its input to
/// one TF32 product.
constexpr int64_t kDirectTensorOpInChannels = 16;

/// Whether conv or conv_transpose `anchor` is a GEMM: one input and output
/// pixel a sample, a 1x1 kernel, one group, more than one sample, no
/// padding (a conv_transpose of stride 1). Its tiles run over the samples
/// as one sample's pixels (SamplesAsPixels<G>).
bool isGemmShapedConv(Operation *anchor);

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
/// where the conv is unpadded. `prologue`: its region computes the conv's
/// input (getConvPrologue), which every main loop but the tensor-core
/// implicit GEMM reads from a kernel of its own. `inputChannelsLast`: the
/// producer stores the input NDHWC (the plan's solder.channels_last, only
/// where no channel is padded and no prologue applies), so the tensor-core
/// implicit GEMM reads it as it is. `epilogueReducesPerSample`: the
/// region's epilogue reduces the conv's output per sample (GroupNorm's
/// statistics, spatial sums), which keeps each tile's pixels in one sample
/// (epilogueReducesPerSample); a BatchNorm's statistics do not.
ConvSchedule getConvSchedule(Operation *anchor, const GpuTarget &target, Precision precision,
                             MainLoopChoice choice = MainLoopChoice::automatic,
                             std::optional<ConvTile> tile = std::nullopt,
                             bool cancellingSum = false, bool prologue = false,
                             bool inputChannelsLast = false, bool epilogueReducesPerSample = true);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_CONVSCHEDULE_H
