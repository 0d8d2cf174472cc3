//===- ConvSchedule.cpp - Main loop, tile and launch of a conv kernel -----===//

#include "solder/Analysis/ConvSchedule.h"
#include "solder/Analysis/WgmmaConvForm.h"

#include "solder/Dialect/Solder/IR/SolderOps.h"
#include "solder/conv/depthwise_layout.h"
#include "solder/conv/direct_layout.h"
#include "solder/conv/implicit_gemm_layout.h"
#include "solder/conv/phases.h"
#include "solder/conv/wgmma_layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <string_view>
#include <variant>

using namespace mlir;
using namespace mlir::solder;

std::optional<Precision> mlir::solder::parsePrecision(StringRef text) {
  return llvm::StringSwitch<std::optional<Precision>>(text)
      .Case("ieee", Precision::ieee)
      .Case("tf32", Precision::tf32)
      .Default(std::nullopt);
}

StringRef mlir::solder::stringifyPrecision(Precision precision) {
  return precision == Precision::ieee ? "ieee" : "tf32";
}

std::optional<MainLoopChoice> mlir::solder::parseMainLoopChoice(StringRef text) {
  return llvm::StringSwitch<std::optional<MainLoopChoice>>(text)
      .Case("auto", MainLoopChoice::automatic)
      .Case("tensorop", MainLoopChoice::tensorOp)
      .Case("direct", MainLoopChoice::direct)
      .Case("direct_fma", MainLoopChoice::directFma)
      .Case("fma", MainLoopChoice::fma)
      .Default(std::nullopt);
}

/// Neither constexpr nor defined: the tiles below are built at compile
/// time, where a call to it (a tile from another main loop's rate) fails.
void rateOfAnotherMainLoop();

namespace {
/// A main loop's tile and its measured rate (TFLOP/s on an H200, full K
/// steps: the conv alone, with its layout conversions for the sm80 loops,
/// without them for the Hopper main loop's harness), as
/// bench/mainloop/rates.json lists them (MainLoopRates.def, generated from
/// it); each entry's `source` says where it was measured, and
/// bench/scripts/rates.py rewrites the rates from a sweep of the main-loop
/// benchmark (test/gpu/prepare_bundles.sh, bench/scripts/mainloop.py, and
/// bench/mainloop/wgmma_conv.cu for the Hopper main loop).
struct MeasuredRate {
  std::string_view mainLoop;
  int64_t bm, bn, bk, wm, wn, stages, blocksPerSM;
  double teraFlops;
};
namespace rates {
#define SOLDER_RATE(NAME, LOOP, BM, BN, BK, WM, WN, STAGES, BLOCKS, TFLOPS)                        \
  constexpr MeasuredRate NAME = {LOOP, BM, BN, BK, WM, WN, STAGES, BLOCKS, TFLOPS};
#include "solder/Analysis/MainLoopRates.def"
#undef SOLDER_RATE
} // namespace rates

/// An sm80 tensor-core tile (CUTLASS's implicit GEMM) and its rate.
struct TensorOpTile {
  int64_t bm, bn, bk, wm, wn, stages;
  double teraFlops;
};
constexpr TensorOpTile tensorOpTile(const MeasuredRate &rate, std::string_view mainLoop) {
  if (rate.mainLoop != mainLoop)
    rateOfAnotherMainLoop();
  return {rate.bm, rate.bn, rate.bk, rate.wm, rate.wn, rate.stages, rate.teraFlops};
}
constexpr std::string_view kThreeTF32 = "tensorop_3xtf32", kTF32 = "tensorop_tf32";

// Each precision's tiles are the best of the sweep for the output channels
// they serve. 3xTF32 at 128 x 128 spills (26 TFLOP/s): the widest ieee tile
// is 64 x 128 (66.5 on the 3x3 256 -> 256 conv, 64 on W2's).
constexpr TensorOpTile kThreeTF32Wide = tensorOpTile(rates::ThreeTF32Wide, kThreeTF32);
constexpr TensorOpTile kThreeTF32Mid = tensorOpTile(rates::ThreeTF32Mid, kThreeTF32);
constexpr TensorOpTile kThreeTF32Narrow = tensorOpTile(rates::ThreeTF32Narrow, kThreeTF32);
constexpr TensorOpTile kThreeTF32Narrow16 = tensorOpTile(rates::ThreeTF32Narrow16, kThreeTF32);
// TF32: 128 x 128 x 32 wins with 256 input channels (190) and loses with 64
// (W2: 113 against 147 for 64 x 128 x 16).
constexpr TensorOpTile kTF32Large = tensorOpTile(rates::TF32Large, kTF32);
constexpr TensorOpTile kTF32Wide = tensorOpTile(rates::TF32Wide, kTF32);
constexpr TensorOpTile kTF32Mid = tensorOpTile(rates::TF32Mid, kTF32);
constexpr TensorOpTile kTF32Narrow = tensorOpTile(rates::TF32Narrow, kTF32);
constexpr TensorOpTile kTF32Narrow16 = tensorOpTile(rates::TF32Narrow16, kTF32);
// A grid that would leave most SMs idle: 64 x 64 tiles. At full occupancy
// they trail the tiles above; on a Linear of 1024 rows x 1024 -> 512 (the
// KernelBench GEMMs: 64 CTAs of 64 x 128 in ieee, 32 of 128 x 128 in tf32 on
// 132 SMs), 128 CTAs of 64 x 64 took the chain 0.046 -> 0.029 ms in ieee
// and 0.042 -> 0.019 in tf32 (H200, 2026-11-27).
constexpr TensorOpTile kThreeTF32Small = tensorOpTile(rates::ThreeTF32Small, kThreeTF32);
constexpr TensorOpTile kTF32Small = tensorOpTile(rates::TF32Small, kTF32);
/// The Hopper main loop (conv/mainloop_implicit_gemm_wgmma.cuh, sm_90a):
/// BM pixels x BN channels, the stages and CTAs an SM of its rates.json
/// entry (as many stages as 192 KB hold at one CTA, but TF32's 128 x 64,
/// below); the main loop alone with its accumulator tile stored
/// (bench/mainloop/wgmma_conv.cu).
/// TF32 on the 3x3 256 -> 256 conv; W2's conv_transpose (128 channels) ran
/// at 317 on 256 x 128 against 269 on 128 x 128. Its 3xTF32 form (ieee)
/// takes twice the stages' bytes (both TF32 parts of both operands) and
/// holds each stage's products apart from the accumulators: 128 rows, at
/// most 128 channels; W2's conv_transpose at 129 on 128 x 128. (Two stages
/// of 128 x 256 or 256 x 128 reached 82-91: too few to hide the copies.)
/// TF32's 128 x 64 runs two CTAs an SM on half the stages (4), so that
/// one's epilogue and pipeline fill overlap the other's MMAs: the
/// 64-channel conv_transpose of KernelBench's LayerNorm chain (8 K steps a
/// phase) took its chain 1.035 -> 0.915 ms, ResNet-18 0.884 -> 0.842,
/// ResNet's 3x3 64 -> 64 at 56^2 3% less, its 1x1 256 -> 64 (bound by its
/// copies) 1% more, the 3x3 256 -> 256 191 -> 196 TFLOP/s (H200,
/// 2026-11-29). 3xTF32's stays one CTA: at two (2 stages, 80 registers)
/// ptxas serializes the wgmmas of some kernels, and ResNet-50 and the 1x1
/// conv ran slower (the LayerNorm chain 12% faster, ResNet-18 2%).
struct WgmmaTile {
  int64_t bm, bn, stages, blocksPerSM;
  double teraFlops;
};
constexpr WgmmaTile wgmmaTile(const MeasuredRate &rate, std::string_view mainLoop) {
  if (rate.mainLoop != mainLoop)
    rateOfAnotherMainLoop();
  return {rate.bm, rate.bn, rate.stages, rate.blocksPerSM, rate.teraFlops};
}
constexpr WgmmaTile kWgmmaTiles[] = {wgmmaTile(rates::WgmmaTF32_128x256, "wgmma_tf32"),
                                     wgmmaTile(rates::WgmmaTF32_256x128, "wgmma_tf32"),
                                     wgmmaTile(rates::WgmmaTF32_128x128, "wgmma_tf32"),
                                     wgmmaTile(rates::WgmmaTF32_128x64, "wgmma_tf32")};
constexpr WgmmaTile kWgmmaThreeTF32Tiles[] = {
    wgmmaTile(rates::WgmmaThreeTF32_128x128, "wgmma_3xtf32"),
    wgmmaTile(rates::WgmmaThreeTF32_128x64, "wgmma_3xtf32")};
/// The FMA fallback (conv/mainloop_implicit_gemm_fma.cuh).
constexpr double kFmaTeraFlops = rates::Fma.teraFlops;
/// The direct conv on FMAs (conv/mainloop_direct_fma.cuh), on W1's conv.
constexpr double kDirectFmaTeraFlops = rates::DirectFma.teraFlops;
/// The direct conv on tensor cores (conv/mainloop_direct_tensorop.cuh), the
/// conv alone with its output stores, W1's and W3's.
constexpr double kDirectThreeTF32TeraFlops = rates::DirectThreeTF32.teraFlops;
constexpr double kDirectTF32TeraFlops = rates::DirectTF32.teraFlops;
TensorOpTile chooseTile(Precision precision, int64_t outChannels, int64_t inChannels,
                        int64_t groups) {
  TensorOpTile tile;
  // 16 channels or fewer (one group): 64 x 16 tiles of two warps, where
  // 128 x 32 left half of each MMA, B copy and conversion on zeros and half
  // the epilogue's warps idle (KernelBench's 3-d conv_transposes 32 -> 16).
  bool narrow16 = outChannels <= 16 && groups == 1;
  if (precision == Precision::ieee)
    tile = outChannels > 64   ? kThreeTF32Wide
           : outChannels > 32 ? kThreeTF32Mid
           : narrow16         ? kThreeTF32Narrow16
                              : kThreeTF32Narrow;
  else
    tile = outChannels > 64 && inChannels >= 128 ? kTF32Large
           : outChannels > 64                    ? kTF32Wide
           : outChannels > 32                    ? kTF32Mid
           : narrow16                            ? kTF32Narrow16
                                                 : kTF32Narrow;
  // One K step covers BK channels of one kernel tap, so fewer than 16 input
  // channels leave part of each step zero; BK stays 16 all the same, since
  // CUTLASS's multistage main loop needs two 8-deep MMA steps per stage.
  return tile;
}

/// The most output phases a conv_transpose runs on tensor cores (3-d
/// stride (2, 2, 4), 2-d stride 4).
constexpr int64_t kMaxConvTransposePhases = 16;

/// A conv's output as its main loops' tiles cut it: a conv_transpose with a
/// stride > 1 runs its output phases (one residue of the output position
/// mod the stride per dim) in separate tiles, each over its valid taps only
/// (conv/geometry.cuh, Phases): stride^d phases of ceil(out / stride)
/// positions per dim. Anything else is one phase, the whole output.
struct OutputPhases {
  int64_t count = 1, volume = 1;
};
OutputPhases getOutputPhases(Operation *anchor) {
  auto output = cast<RankedTensorType>(anchor->getResult(0).getType());
  auto transposed = dyn_cast<ConvTransposeOp>(anchor);
  ArrayRef<int64_t> strides = transposed ? transposed.getStrides() : ArrayRef<int64_t>();
  OutputPhases phases;
  for (auto [index, extent] : llvm::enumerate(output.getShape().drop_front(2))) {
    int64_t stride = index < strides.size() ? strides[index] : 1;
    phases.count *= stride;
    phases.volume *= llvm::divideCeil(extent, stride);
  }
  return phases;
}

/// Why the tensor-core main loop cannot run this conv, or should not, or "".
/// `paddedInChannels`: the input channels of a group as it reads them.
std::string getTensorOpObstacle(Operation *anchor, Precision precision,
                                int64_t paddedInChannels, int64_t taps) {
  auto conv = dyn_cast<ConvOp>(anchor);
  auto convT = cast_if_present<ConvTransposeOp>(conv ? nullptr : anchor);
  int64_t groups = conv ? conv.getGroups() : convT.getGroups();
  // A group's channels start on a 16-byte cp.async boundary of each pixel,
  // and none is padded.
  int64_t inChannels = cast<RankedTensorType>(anchor->getOperand(0).getType()).getDimSize(1);
  if (groups > 1 && (inChannels / groups) % 4 != 0)
    return llvm::formatv("groups > 1 with {0} input channels a group (not a multiple of 4)",
                         inChannels / groups)
        .str();
  auto weight = cast<RankedTensorType>(anchor->getOperand(1).getType());
  for (int64_t k : weight.getShape().drop_front(2))
    if (k > 32)
      return "a kernel dim > 32";
  // A conv_transpose runs each output phase as a conv of stride 1 over its
  // taps (conv/phases.h): every phase needs a tap, and reads some of the
  // input (a negative padding skips its first positions, an input offset
  // that only the phased main loop applies). Each phase's CUTLASS
  // parameters take a few hundred bytes of the 64 KB constant bank.
  if (convT) {
    auto input = cast<RankedTensorType>(convT.getInput().getType());
    int64_t phases = getOutputPhases(convT).count;
    if (phases > kMaxConvTransposePhases)
      return llvm::formatv("conv_transpose with {0} output phases (more than {1})", phases,
                           kMaxConvTransposePhases)
          .str();
    for (auto [k, stride, pad, dilation, extent] :
         llvm::zip(weight.getShape().drop_front(2), convT.getStrides(),
                   convT.getPadding(), convT.getDilations(),
                   input.getShape().drop_front(2)))
      for (int64_t residue = 0; residue < stride; ++residue) {
        ::solder::PhaseDim phase = ::solder::transposedPhaseDim(
            static_cast<int>(residue), static_cast<int>(stride), static_cast<int>(k),
            static_cast<int>(pad), static_cast<int>(dilation));
        if (phase.tapCount == 0)
          return "conv_transpose with an output phase that no kernel tap reaches";
        if (phases == 1 && phase.convPad < 0)
          return "conv_transpose padding beyond the kernel";
        if (-phase.convPad >= extent)
          return "conv_transpose padding beyond the input";
      }
  }
  if (paddedInChannels * taps < 16)
    return "reduction depth < 16";
  // CUTLASS's NDHWC layouts compute offsets in 32 bits.
  auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
  if (input.getNumElements() / (input.getDimSize(0) * input.getDimSize(1)) *
          paddedInChannels >= (int64_t(1) << 31))
    return "an input sample of 2^31 or more elements";
  // Measured on an H200 (bench/mainloop): W1's conv, 3 channels padded to 4,
  // runs 1.62 ms on 3xTF32 against 1.34 ms on FMAs (TF32: 1.00 ms). Each
  // 16-deep K step is three quarters zeros there.
  if (precision == Precision::ieee && paddedInChannels < 8)
    return groups > 1 ? "fewer than 8 input channels a group (3xTF32 measured slower than FMA)"
                      : "fewer than 8 input channels (3xTF32 measured slower than FMA)";
  return "";
}
} // namespace

/// The direct conv on tensor cores: the plan's tile (rows, channels, warps)
/// and what DirectTensorOpLayout (conv/direct_layout.h, which the device
/// template includes too) makes of it.
struct DirectTile {
  int64_t rows, bn, warps;
  ::solder::DirectTensorOpLayout layout;
};
/// Its largest reduction (weights of 64 channels in shared memory), widest
/// output row (a tile holds whole rows) and shared memory per block.
constexpr int64_t kDirectMaxReduction = 256;
constexpr int64_t kDirectMaxRowWidth = 256;
/// (at most what the target gives a block).
constexpr int64_t kDirectMaxSharedBytes = 100 * 1024;
/// Registers a thread of the one-product direct conv may take, and what a
/// thread of the 3xTF32 one takes about (110 to 141 for W1 and W3).
constexpr int64_t kDirectTF32Registers = 80;
constexpr int64_t kDirectThreeTF32Registers = 128;
/// On wgmma (sm_90a), the accumulators a thread may have under the
/// one-product bound.
constexpr int64_t kDirectWgmmaBoundedAccumulators = 48;

bool mlir::solder::isGemmShapedConv(Operation *anchor) {
  auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto weight = cast<RankedTensorType>(anchor->getOperand(1).getType());
  auto output = cast<RankedTensorType>(anchor->getResult(0).getType());
  auto isZero = [](int64_t v) { return v == 0; };
  auto isOne = [](int64_t v) { return v == 1; };
  bool onePixel = llvm::all_of(input.getShape().drop_front(2), isOne) &&
                  llvm::all_of(output.getShape().drop_front(2), isOne) &&
                  llvm::all_of(weight.getShape().drop_front(2), isOne);
  if (!onePixel || output.getDimSize(0) <= 1 ||
      cast<IntegerAttr>(anchor->getAttr("groups")).getInt() != 1)
    return false;
  if (auto conv = dyn_cast<ConvOp>(anchor))
    return conv.isUnpadded();
  auto transposed = cast<ConvTransposeOp>(anchor);
  return llvm::all_of(transposed.getStrides(), isOne) &&
         llvm::all_of(transposed.getPadding(), isZero) &&
         llvm::all_of(transposed.getOutputPadding(), isZero);
}

/// Spatial dims padded to (D, H, W) as the geometry structs have them.
static std::array<int, 3> padSpatial(ArrayRef<int64_t> dims, int fill) {
  std::array<int, 3> padded = {fill, fill, fill};
  for (auto [to, dim] : llvm::zip(llvm::drop_begin(padded, 3 - dims.size()), dims))
    to = static_cast<int>(dim);
  return padded;
}

::solder::WgmmaConvForm mlir::solder::getWgmmaConvForm(Operation *anchor, bool samplesAsPixels) {
  auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto weight = cast<RankedTensorType>(anchor->getOperand(1).getType());
  auto output = cast<RankedTensorType>(anchor->getResult(0).getType());
  int paddedChannels = ::solder::paddedInputChannels(static_cast<int>(input.getDimSize(1)));
  int outChannels = static_cast<int>(output.getDimSize(1));
  if (samplesAsPixels) {
    // SamplesAsPixels<G> (conv/geometry.cuh): a 1x1 conv over one sample
    // whose row of pixels is the samples (a conv_transpose's weights
    // converted to a conv's).
    const int samples[3] = {1, 1, static_cast<int>(output.getDimSize(0))};
    const int ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
    return ::solder::wgmmaConvForm(false, 1, 1, paddedChannels, outChannels, samples, samples, ones,
                                   ones, zeros, ones);
  }
  auto conv = dyn_cast<ConvOp>(anchor);
  auto convT = dyn_cast<ConvTransposeOp>(anchor);
  std::array<int, 3> in = padSpatial(input.getShape().drop_front(2), 1),
                     out = padSpatial(output.getShape().drop_front(2), 1),
                     kernel = padSpatial(weight.getShape().drop_front(2), 1),
                     stride = padSpatial(conv ? conv.getStrides() : convT.getStrides(), 1),
                     pad = padSpatial(conv ? conv.getPadding() : convT.getPadding(), 0),
                     dilation = padSpatial(conv ? conv.getDilations() : convT.getDilations(), 1);
  int64_t groups = conv ? conv.getGroups() : convT.getGroups();
  return ::solder::wgmmaConvForm(static_cast<bool>(convT), static_cast<int>(groups),
                                 static_cast<int>(output.getDimSize(0)), paddedChannels,
                                 outChannels, in.data(), out.data(), kernel.data(), stride.data(),
                                 pad.data(), dilation.data());
}

SmallVector<::solder::WgmmaConvForm> mlir::solder::getWgmmaPhaseForms(Operation *anchor) {
  auto convT = dyn_cast<ConvTransposeOp>(anchor);
  if (!convT)
    return {};
  auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto weight = cast<RankedTensorType>(anchor->getOperand(1).getType());
  auto output = cast<RankedTensorType>(anchor->getResult(0).getType());
  std::array<int, 3> in = padSpatial(input.getShape().drop_front(2), 1),
                     out = padSpatial(output.getShape().drop_front(2), 1),
                     kernel = padSpatial(weight.getShape().drop_front(2), 1),
                     stride = padSpatial(convT.getStrides(), 1),
                     pad = padSpatial(convT.getPadding(), 0),
                     dilation = padSpatial(convT.getDilations(), 1);
  int64_t phases = getOutputPhases(anchor).count;
  if (phases == 1)
    return {};
  SmallVector<::solder::WgmmaConvForm> forms;
  for (int phase = 0; phase < phases; ++phase)
    forms.push_back(::solder::wgmmaPhaseForm(
        static_cast<int>(convT.getGroups()), static_cast<int>(output.getDimSize(0)),
        ::solder::paddedInputChannels(static_cast<int>(input.getDimSize(1))),
        static_cast<int>(output.getDimSize(1)), in.data(), out.data(), kernel.data(), stride.data(),
        pad.data(), dilation.data(), phase));
  return forms;
}

bool mlir::solder::runsOnWgmma(Operation *anchor, bool samplesAsPixels) {
  SmallVector<::solder::WgmmaConvForm> phases = getWgmmaPhaseForms(anchor);
  if (phases.empty())
    return getWgmmaConvForm(anchor, samplesAsPixels).fits;
  return ::solder::wgmmaPhasesFit(phases.data(), static_cast<int>(phases.size()));
}

/// The direct tensor-core tile of `conv`, or the reason it cannot run it.
std::variant<DirectTile, std::string> getDirectTensorOpTile(Operation *anchor,
                                                           bool threeTF32,
                                                           bool centered,
                                                           int64_t maxSharedBytes) {
  auto conv = dyn_cast<ConvOp>(anchor);
  if (!conv)
    return std::string("conv_transpose");
  if (conv.getGroups() != 1)
    return std::string("groups > 1");
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  auto output = cast<RankedTensorType>(conv.getResult().getType());
  std::array<int, 3> in = padSpatial(input.getShape().drop_front(2), 1),
                     out = padSpatial(output.getShape().drop_front(2), 1),
                     kernel = padSpatial(weight.getShape().drop_front(2), 1),
                     stride = padSpatial(conv.getStrides(), 1),
                     pad = padSpatial(conv.getPadding(), 0),
                     dilation = padSpatial(conv.getDilations(), 1);
  int64_t inChannels = input.getDimSize(1);
  int64_t reduction = inChannels * kernel[0] * kernel[1] * kernel[2];
  if (reduction > kDirectMaxReduction)
    return llvm::formatv("a reduction of {0} > {1} elements", reduction,
                         kDirectMaxReduction)
        .str();
  if (out[2] > kDirectMaxRowWidth)
    return llvm::formatv("output rows of {0} > {1} pixels", out[2],
                         kDirectMaxRowWidth)
        .str();
  // Whole rows, at most 256 pixels a tile: the fewest rows computed past the
  // output (W1: 6 of its 30 rows a tile, not 8), tiles of fewer than 128
  // pixels counted as wasting the rest of the 4 warps; then the most rows.
  int64_t maxRows = std::max<int64_t>(1, std::min<int64_t>(out[1], kDirectMaxRowWidth / out[2]));
  int64_t rows = 1;
  double bestScore = 0.0;
  for (int64_t candidate = 1; candidate <= maxRows; ++candidate) {
    double score = static_cast<double>(out[1]) / llvm::alignTo(out[1], candidate) *
                   std::min(1.0, candidate * out[2] / 128.0);
    if (score >= bestScore) {
      bestScore = score;
      rows = candidate;
    }
  }
  int64_t bn = std::min<int64_t>(64, llvm::alignTo(output.getDimSize(1), 8));
  ::solder::DirectConvShape shape{output.getDimSize(0),
                                  static_cast<int>(inChannels),
                                  static_cast<int>(output.getDimSize(1)),
                                  {in[0], in[1], in[2]},
                                  {out[0], out[1], out[2]},
                                  {kernel[0], kernel[1], kernel[2]},
                                  {stride[0], stride[1], stride[2]},
                                  {pad[0], pad[1], pad[2]},
                                  {dilation[0], dilation[1], dilation[2]}};
  auto tileOf = [&](int64_t rows, int64_t bn) {
    int64_t warps = llvm::divideCeil(rows * out[2], 16) > 12 ? 8 : 4;
    return DirectTile{rows, bn, warps,
                      ::solder::DirectTensorOpLayout(
                          shape, ::solder::DirectTensorOpTile{
                                     static_cast<int>(rows), static_cast<int>(bn),
                                     static_cast<int>(warps), threeTF32 ? 2 : 1, centered})};
  };
  DirectTile tile = tileOf(rows, bn);
  // Weights and window past the shared memory (ResNet's 7x7 stride-2 stem
  // in 3xTF32: 131 KB for 64 channels and two rows of 112): fewer channels a
  // tile down to 16, then fewer rows, then 8 channels.
  while (tile.layout.sharedBytes > maxSharedBytes && (bn > 8 || rows > 1)) {
    if (bn > 16)
      bn = llvm::alignTo(bn / 2, 8);
    else if (rows > 1)
      --rows;
    else
      bn = 8;
    tile = tileOf(rows, bn);
  }
  if (tile.layout.sharedBytes > maxSharedBytes)
    return llvm::formatv("an input window of {0} B > {1} B of shared memory",
                         tile.layout.sharedBytes, maxSharedBytes)
        .str();
  return tile;
}

std::optional<ConvTile> mlir::solder::parseConvTile(StringRef text) {
  SmallVector<StringRef> parts, block, warp;
  text.split(parts, '/');
  if (parts.size() != 3)
    return std::nullopt;
  parts[0].split(block, 'x');
  parts[1].split(warp, 'x');
  ConvTile tile;
  if (block.size() != 3 || warp.size() != 2 ||
      block[0].getAsInteger(10, tile.bm) || block[1].getAsInteger(10, tile.bn) ||
      block[2].getAsInteger(10, tile.bk) || warp[0].getAsInteger(10, tile.wm) ||
      warp[1].getAsInteger(10, tile.wn) || parts[2].getAsInteger(10, tile.stages))
    return std::nullopt;
  // Warps of 16 x 8 MMA steps that tile the block, two or more 8-deep
  // steps per stage, two or more stages, at most 8 warps; BM a multiple of
  // 32 (the epilogue's lanes take BM / 32 pixels each).
  bool valid = tile.wm > 0 && tile.wn > 0 && tile.wm % 16 == 0 &&
               tile.bm % 32 == 0 &&
               tile.wn % 8 == 0 && tile.bm % tile.wm == 0 &&
               tile.bn % tile.wn == 0 && tile.bk >= 16 && tile.bk % 16 == 0 &&
               tile.stages >= 2 && tile.stages <= 8 &&
               (tile.bm / tile.wm) * (tile.bn / tile.wn) <= 8;
  return valid ? std::optional<ConvTile>(tile) : std::nullopt;
}

/// The depthwise conv's schedule (conv/mainloop_depthwise.cuh), or why it
/// cannot run `conv`.
static std::variant<ConvSchedule, std::string>
getDepthwiseSchedule(ConvOp conv, const GpuTarget &target, bool forced) {
  auto output = cast<RankedTensorType>(conv.getResult().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t batch = output.getDimSize(0), outChannels = output.getDimSize(1);
  int64_t taps = weight.getNumElements() / (weight.getDimSize(0) * weight.getDimSize(1));
  // The taps live in a thread's registers.
  constexpr int64_t kMaxTaps = 64;
  if (taps > kMaxTaps)
    return llvm::formatv("{0} taps > {1} (a thread keeps them in registers)", taps, kMaxTaps)
        .str();
  std::array<int, 3> out = padSpatial(output.getShape().drop_front(2), 1),
                     kernel = padSpatial(weight.getShape().drop_front(2), 1),
                     stride = padSpatial(conv.getStrides(), 1),
                     dilation = padSpatial(conv.getDilations(), 1);
  int outH = out[1], outW = out[2];
  // A thread's outputs down a column: the count of 8 or fewer that wastes
  // the fewest rows, the larger on a tie (more FMAs a load: 112 and 56
  // rows take 8, 28, 14 and 7 take 7), within the registers that the taps,
  // the column of window values and the accumulators hold (a tall stride
  // or dilation makes the column long).
  constexpr int64_t kMaxThreadRegisters = 160;
  auto columnValues = [&](int rows) {
    return (rows - 1) * stride[1] + (kernel[1] - 1) * dilation[1] + 1;
  };
  int threadRows = 0;
  for (int rows = 1; rows <= std::min(outH, 8); ++rows)
    if (taps + columnValues(rows) + rows <= kMaxThreadRegisters &&
        (!threadRows || llvm::alignTo(outH, rows) <= llvm::alignTo(outH, threadRows)))
      threadRows = rows;
  if (!threadRows)
    return llvm::formatv("a column of {0} window values and {1} taps > {2} registers a "
                         "thread",
                         columnValues(1), taps, kMaxThreadRegisters)
        .str();
  // Columns: the whole row up to 64, else the row cut evenly into pieces of
  // 64 or fewer. Rows: runs of the thread's rows up to about 448 positions
  // a tile, the row tiles evened out.
  int columns = outW <= 64 ? outW : static_cast<int>(llvm::divideCeil(outW, llvm::divideCeil(outW, 64)));
  int runs = static_cast<int>(llvm::divideCeil(outH, threadRows));
  int runsPerTile = std::clamp(448 / (threadRows * columns), 1, runs);
  runsPerTile = static_cast<int>(llvm::divideCeil(runs, llvm::divideCeil(runs, runsPerTile)));
  // Channels a block: 128 threads, as many a channel as it has columns of
  // outputs to share, 8 to 32.
  int units = runsPerTile * columns;
  int channels = units >= 64 ? 8 : units >= 32 ? 16 : 32;
  // Within 48 KB a block where it can be (several blocks an SM hide each
  // other's staging): fewer rows, then fewer channels, then fewer columns,
  // where the windows take more; past that up to the direct convs' 100 KB.
  ::solder::DepthwiseLayout layout;
  while (true) {
    layout = ::solder::depthwiseLayout(kernel.data(), stride.data(), dilation.data(),
                                       out.data(), threadRows * runsPerTile, columns,
                                       channels);
    if (layout.sharedBytes <= 48 * 1024)
      break;
    if (runsPerTile > 1)
      runsPerTile = (runsPerTile + 1) / 2;
    else if (channels > 8)
      channels /= 2;
    else if (columns > 8)
      columns = (columns + 1) / 2;
    else
      break;
  }
  if (layout.sharedBytes > std::min<int64_t>(kDirectMaxSharedBytes, target.maxSharedBytesPerBlock))
    return llvm::formatv("an input window of {0} B > the shared memory a block", layout.sharedBytes)
        .str();
  ConvSchedule schedule;
  schedule.kind = MainLoopKind::depthwise;
  schedule.reason = forced ? "forced"
                           : "one input channel a group: each output channel reduces over "
                             "its channel's taps alone";
  schedule.depthwise = {threadRows * runsPerTile, columns, threadRows, channels};
  schedule.tile = {layout.bm, channels, 0};
  schedule.threads = 128;
  schedule.grid = {layout.pixelTiles,
                   static_cast<int64_t>(llvm::divideCeil(outChannels, channels)), batch};
  schedule.sharedBytes = layout.sharedBytes;
  schedule.paddedInChannels = conv.getInput().getType().getDimSize(1);
  schedule.teraFlops = kDirectFmaTeraFlops;
  return schedule;
}

/// The schedule of the main loop alone (getConvSchedule adds its prologue).
static ConvSchedule getMainLoopSchedule(Operation *anchor, const GpuTarget &target,
                                        Precision precision, MainLoopChoice choice,
                                        std::optional<ConvTile> tileOverride, bool cancellingSum,
                                        bool prologue, bool inputChannelsLast,
                                        bool epilogueReducesPerSample) {
  auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto weight = cast<RankedTensorType>(anchor->getOperand(1).getType());
  auto output = cast<RankedTensorType>(anchor->getResult(0).getType());
  int64_t batch = output.getDimSize(0), outChannels = output.getDimSize(1);
  int64_t inChannels = input.getDimSize(1);
  int64_t volume = output.getNumElements() / (batch * outChannels);
  int64_t inVolume = input.getNumElements() / (batch * inChannels);
  int64_t taps = weight.getNumElements() /
                 (weight.getDimSize(0) * weight.getDimSize(1));
  int64_t paddedInChannels = ::solder::paddedInputChannels(static_cast<int>(inChannels));

  OutputPhases outputPhases = getOutputPhases(anchor);
  int64_t phases = outputPhases.count, phaseVolume = outputPhases.volume;

  ConvSchedule schedule;
  int64_t groups = cast<IntegerAttr>(anchor->getAttr("groups")).getInt();
  // Few input channels (W1's 3, W3's 8): a short reduction that implicit
  // GEMM tiles would fill with zeros. The direct conv on tensor cores takes
  // it whole from an input window in shared memory. In tf32 it runs one
  // TF32 product, unless a sum or mean downstream can cancel (W1, GroupNorm
  // then mean: rel L2 2.5e-3 with one product on an H200, past tf32's
  // 1e-3); then 3xTF32, as cuDNN keeps such convs in fp32 under TF32.
  // `--mainloop=direct` in tf32 forces one product. In tf32 an unpadded
  // conv under a cancelling sum runs one product on its input centered
  // instead (a shift per sample and input channel, given back exactly in
  // the epilogue): the tensor cores then round the data's spread, not its
  // offset (W1: rel L2 <= 8.7e-4 over 104 small-W1 draws against 2.5e-3 for
  // one product of the raw input). ieee keeps the raw input: centered
  // 3xTF32 without step sums drew up to 17x eager's error on small W1 at
  // x + 0 (the truncation bias is of the spread there too), and with them
  // it ran 0.466 ms against 0.418.
  auto conv = dyn_cast<ConvOp>(anchor);
  bool centered = precision == Precision::tf32 && cancellingSum && conv &&
                  conv.isUnpadded();
  bool threeTF32 = precision == Precision::ieee ||
                   (choice != MainLoopChoice::direct && cancellingSum && !centered);
  int64_t directMaxSharedBytes =
      std::min(kDirectMaxSharedBytes, target.maxSharedBytesPerBlock);
  std::variant<DirectTile, std::string> direct =
      getDirectTensorOpTile(anchor, threeTF32, centered, directMaxSharedBytes);
  if (auto *tile = std::get_if<DirectTile>(&direct);
      tile && (choice == MainLoopChoice::direct ||
               (choice == MainLoopChoice::automatic && inChannels < kDirectTensorOpInChannels))) {
    schedule.kind = MainLoopKind::direct_tensorop;
    schedule.math = threeTF32 ? TensorMath::tf32x3 : TensorMath::tf32;
    std::string precisionNote;
    if (precision == Precision::tf32)
      precisionNote = threeTF32 ? "; 3xTF32 in tf32: a sum or mean downstream "
                                  "can cancel one product's rounding"
                                : "; one TF32 product";
    if (centered)
      precisionNote += "; input centered (a sum downstream cancels its offset)";
    schedule.reason =
        choice == MainLoopChoice::direct
            ? "forced"
            : llvm::formatv("{0} input channels: a reduction of {1}, whole{2}",
                            inChannels, inChannels * taps, precisionNote)
                  .str();
    // A cancelling sum downstream also sees the bias of the tensor cores'
    // truncating accumulation (up to 13x eager's error in small W1's
    // mean): each step's products summed apart.
    schedule.accumulation = threeTF32 && cancellingSum ? DirectAccumulation::step_sums
                            : centered               ? DirectAccumulation::centered
                                                     : DirectAccumulation::plain;
    if (schedule.accumulation == DirectAccumulation::step_sums)
      schedule.reason += "; each step's products summed apart (a sum downstream "
                         "cancels the tensor cores' truncation bias)";
    const ::solder::DirectTensorOpLayout &layout = tile->layout;
    schedule.tile = {layout.bm, tile->bn, 8 * layout.kSteps};
    schedule.tileRows = tile->rows;
    schedule.warps = tile->warps;
    schedule.threads = 32 * tile->warps;
    schedule.grid = {layout.pixelTiles, layout.channelTiles, batch};
    schedule.sharedBytes = layout.sharedBytes;
    // One TF32 product keeps a fragment of each operand, not two: bound the
    // registers so that as many blocks run as shared memory allows, up to
    // 80 registers a thread (W3: 94 -> 80 registers, 20 bytes spilled, 2 ->
    // 3 blocks an SM, its conv 353 -> 322 us on an H200). 3xTF32 spills
    // past 100 KB at such bounds (W3: 788 bytes at 80): no bound, about
    // 128 registers.
    // On sm_90a the MMAs are warpgroup MMAs (conv/direct_traits.cuh,
    // kWgmma: the tile's warps make warpgroups), whose accumulators and A
    // fragments take registers of their own: under the bound of 80, 64
    // accumulators spilled 1.3 KB a thread (W3's conv 0.51 -> 1.30 ms, the
    // stem's 0.11 -> 0.46 on an H200); without one they take 98 registers,
    // and 3xTF32 runs faster unbounded too (W1 0.254 -> 0.243 ms, against
    // 0.250 bounded at 128). W1's 36 accumulators keep the bound in tf32.
    const bool onWgmma = target.hasWgmma;
    const int64_t accumulators = int64_t(layout.mmaRowsPerWarp) * layout.mmaCols * 4;
    const bool bounded =
        !onWgmma || (!threeTF32 && accumulators <= kDirectWgmmaBoundedAccumulators);
    // The blocks an SM below (and so the persistent choice) are still
    // counted at the mma.sync loop's registers: the wgmma loop was measured
    // with those schedules.
    int64_t registers = threeTF32 ? kDirectThreeTF32Registers : kDirectTF32Registers;
    if (onWgmma)
      schedule.reason += "; on wgmma (sm_90a: a warpgroup's products of one B in shared memory)";
    auto blocksPerSM = [&](int64_t sharedBytes) {
      return std::min(target.sharedBytesPerSM /
                          (sharedBytes + target.sharedBytesReservedPerBlock),
                      target.registersPerSM / (schedule.threads * registers));
    };
    if (!threeTF32 && bounded)
      schedule.blocksPerSM = blocksPerSM(layout.sharedBytes);
    // Persistent where its shared memory (a raw window besides the split
    // one, the tile apart from the weights) holds as many blocks an SM as
    // one tile a block does: the copy of the next window then overlaps the
    // current tile for free (W1 in tf32 0.267 -> 0.238 ms on an H200, in
    // ieee 0.419 -> 0.392 at 4 blocks of <= 128 registers). W3's tile of
    // 64 channels x 256 pixels leaves room for 2 persistent blocks against
    // 3: 0.504 -> 0.538 ms, one tile a block kept.
    if (layout.persistentSharedBytes <= directMaxSharedBytes &&
        blocksPerSM(layout.persistentSharedBytes) >= blocksPerSM(layout.sharedBytes)) {
      schedule.persistent = true;
      schedule.sharedBytes = layout.persistentSharedBytes;
      schedule.blocksPerSM = bounded ? blocksPerSM(layout.persistentSharedBytes) : 0;
      schedule.reason += "; persistent blocks (each copies its next tile's input "
                         "during the current one)";
    }
    schedule.paddedInChannels = inChannels;
    // The prepare kernel (when the weights change): the weights split into
    // fragments for every channel tile; centered, each channel's tap sums
    // (double) and each sample's shifts, from 256 input elements a plane.
    schedule.preparedBytes = layout.preparedBytes;
    schedule.prepareThreads = layout.prepareThreads;
    schedule.prepareGrid = {
        static_cast<int64_t>(llvm::divideCeil(schedule.prepareThreads, kOperandPrepThreads)),
        1, 1};
    int64_t shiftSamples = ::solder::directShiftSamples(inVolume);
    schedule.conversionBytes = outChannels * inChannels * taps * 4 +
                               (centered ? batch * inChannels * shiftSamples * 4 : 0) +
                               schedule.preparedBytes;
    // Centered, one kernel also takes each sample's shifts from the input.
    schedule.weightConversionBytes = centered ? 0 : schedule.conversionBytes;
    schedule.teraFlops =
        threeTF32 ? kDirectThreeTF32TeraFlops : kDirectTF32TeraFlops;
    return schedule;
  }
  std::string directObstacle = std::holds_alternative<std::string>(direct)
                                   ? std::get<std::string>(direct)
                                   : "";
  // A depthwise conv (one input channel a group, any multiplier): each
  // output reduces over its own channel's taps alone, a reduction no GEMM
  // tile fills (the FMA fallback's tiles ran them at a 16th of its
  // columns). Its own main loop stages each channel's input window once and
  // keeps the taps in registers.
  int64_t inPerGroup = inChannels / groups;
  std::string depthwiseObstacle;
  if (conv && groups > 1 && inPerGroup == 1 &&
      (choice == MainLoopChoice::automatic || choice == MainLoopChoice::directFma)) {
    std::variant<ConvSchedule, std::string> depthwise =
        getDepthwiseSchedule(conv, target, choice == MainLoopChoice::directFma);
    if (auto *chosen = std::get_if<ConvSchedule>(&depthwise))
      return *chosen;
    depthwiseObstacle = std::get<std::string>(depthwise);
  }
  // Otherwise the direct conv on FMAs, each thread one pixel and all of a
  // tile's channels, the window walked once. Its weights, the (channel,
  // tap) window x 32 channels, must fit shared memory.
  constexpr int64_t kDirectChannels = 32;
  bool directFits = groups == 1 && conv && inChannels < 8 &&
                    inChannels * taps * kDirectChannels * 4 <= 48 * 1024;
  if (directFits && (choice == MainLoopChoice::directFma ||
                     (choice == MainLoopChoice::automatic))) {
    int64_t tileN = std::min<int64_t>(llvm::alignTo(outChannels, 4), kDirectChannels);
    schedule.kind = MainLoopKind::direct_fma;
    schedule.reason = choice == MainLoopChoice::directFma
                          ? "forced"
                          : "fewer than 8 input channels; not on tensor cores: " +
                                directObstacle;
    schedule.tile = {128, tileN, 0};
    schedule.threads = 128;
    schedule.grid = {static_cast<int64_t>(llvm::divideCeil(volume, 128)),
                     static_cast<int64_t>(llvm::divideCeil(outChannels, tileN)),
                     batch};
    schedule.sharedBytes = ::solder::directFmaSharedBytes(
        static_cast<int>(inChannels), static_cast<int>(taps), 128, static_cast<int>(tileN));
    schedule.paddedInChannels = inChannels;
    schedule.teraFlops = kDirectFmaTeraFlops;
    return schedule;
  }
  // A grouped conv runs on tensor cores group by group: the GEMM of one
  // group is (pixels x its input channels x taps) x (its output channels).
  int64_t outPerGroup = outChannels / groups;
  int64_t groupInChannels = groups == 1 ? paddedInChannels : inPerGroup;
  std::string obstacle =
      getTensorOpObstacle(anchor, precision, groupInChannels, taps);
  TensorOpTile tile = chooseTile(precision, outPerGroup, groupInChannels, groups);
  // One pixel a sample and a 1x1 kernel: a GEMM, whose tiles would hold
  // one row of BM a sample; they run over the samples instead. A
  // conv_transpose of stride 1 so (a matmul by a caller's (C, K) tensor) is
  // the conv by its converted weights.
  bool samplesAsPixels = isGemmShapedConv(anchor);
  // The grid of tiles of BM pixels (or samples) x BN channels, either main
  // loop's; on the Hopper main loop, with tiles across samples (their
  // pixels one row) and K splits.
  auto gridOf = [&](int64_t bm, int64_t bn, bool across = false,
                    int64_t splits = 1) -> std::array<int64_t, 3> {
    int64_t columns = groups * static_cast<int64_t>(llvm::divideCeil(outPerGroup, bn));
    if (samplesAsPixels || across)
      return {static_cast<int64_t>(llvm::divideCeil(samplesAsPixels ? batch : batch * volume, bm)),
              columns, splits};
    return {phases * static_cast<int64_t>(llvm::divideCeil(phaseVolume, bm)), columns,
            batch * splits};
  };
  auto ctas = [](std::array<int64_t, 3> grid) { return grid[0] * grid[1] * grid[2]; };
  // A GEMM of fewer CTAs than half the SMs: the small tile, whose more
  // CTAs fill them (at most 4x as many, two of which an SM holds at once).
  // Convs keep their measured tiles: the same holds for them, but no conv
  // of the catalogs has been timed on it yet. Its 32-deep K steps run
  // where they are whole (the GPU checks so far: 96, 160 and 1024
  // channels); other channel counts keep the 16-deep tiles.
  bool smallGrid = false;
  if (!tileOverride && samplesAsPixels && groupInChannels % 32 == 0 &&
      tile.bm * tile.bn > 64 * 64 && 2 * ctas(gridOf(tile.bm, tile.bn)) <= target.multiprocessors) {
    TensorOpTile small = precision == Precision::ieee ? kThreeTF32Small : kTF32Small;
    smallGrid = ctas(gridOf(small.bm, small.bn)) > ctas(gridOf(tile.bm, tile.bn));
    if (smallGrid)
      tile = small;
  }
  if (tileOverride)
    tile = {tileOverride->bm, tileOverride->bn, tileOverride->bk,
            tileOverride->wm, tileOverride->wn, tileOverride->stages,
            tile.teraFlops};
  // A K step covers BK channels of one tap, and a tile BN channels of one
  // group: fewer leave them part zero (W3's 8 channels fill half of a
  // 16-deep step; ResNeXt's groups of 4 -> 4 channels would fill an eighth
  // of a 32-wide tile and a quarter of its steps).
  double tensorOpTeraFlops =
      tile.teraFlops * groupInChannels /
      static_cast<double>(llvm::alignTo(groupInChannels, tile.bk)) *
      (groups == 1 ? 1.0 : outPerGroup / static_cast<double>(llvm::alignTo(outPerGroup, tile.bn)));
  if (obstacle.empty() && groups > 1 && choice == MainLoopChoice::automatic &&
      tensorOpTeraFlops < kFmaTeraFlops)
    obstacle = llvm::formatv("groups of {0} -> {1} channels: tensor-core tiles {2} channels "
                             "wide and {3} deep would run at about {4:F0} TFLOP/s",
                             inPerGroup, outPerGroup, tile.bn, tile.bk, tensorOpTeraFlops)
                   .str();
  bool tensorOp = obstacle.empty() && (choice == MainLoopChoice::automatic ||
                                        choice == MainLoopChoice::tensorOp);
  // On sm_90a, the Hopper main loop where it runs the conv (one group, no
  // output phases, tensor maps over both converted operands; a GEMM-shaped
  // conv as its samples in a row) and its tile of the measured table (TF32,
  // or 3xTF32 for ieee) is faster than the sm80 one.
  const WgmmaTile *wgmmaTile = nullptr;
  bool wgmmaAcross = false; // its tiles across samples
  int64_t wgmmaSplits = 1;  // its K splits
  double wgmmaTeraFlops = 0;
  std::string wgmmaFill; // why a tile of a lower rate, if so
  // What its conversions store of each operand: the TF32 value, or for
  // 3xTF32 its big and small TF32 parts (twice the stages' bytes and the
  // conversions' writes).
  const int wgmmaOperandParts = precision == Precision::ieee ? 2 : 1;
  // An input its producer stored channels-last: in TF32 the producer
  // rounded it too, and the tensor map reads it as it is; 3xTF32 reads the
  // two parts of a conversion.
  // A conv_transpose of stride > 1 as its output phases where each has as
  // many taps (their weight blocks are rows of one map), phase after phase,
  // a tile one sample's, unsplit; and where a phase's reduction is 8 K
  // steps of 32 or more: a tile's copies, fill and epilogue are paid for
  // every few K steps. KernelBench's ConvTranspose3d(32 -> 64, kernel 4,
  // stride 2), 8 steps, ran in 0.90x sm80's time in tf32 and 0.73x in
  // ieee; its 2-d ones (4 steps) 1.05-1.61x in tf32 (H200, 2026-11-29,
  // bench/history/2026-11-29/phases-wgmma/).
  constexpr int64_t kMinPhaseSteps = 8;
  const int64_t phaseSteps =
      taps / phases * llvm::divideCeil(paddedInChannels, ::solder::kWgmmaStepChannels);
  if (tensorOp && target.hasWgmma && !tileOverride && groups == 1 &&
      (phases == 1 || phaseSteps >= kMinPhaseSteps) &&
      (!inputChannelsLast || precision == Precision::tf32) &&
      runsOnWgmma(anchor, samplesAsPixels)) {
    // A K step is 32 channels of a tap, a tile BN channels: fewer leave
    // them part zero. A GEMM whose grid leaves SMs idle (one CTA an SM)
    // stays on sm80's tiles: the KernelBench GEMMs (1024 rows x 1024 ->
    // 512, 64 CTAs of 128 x 64) ran 1.1-2.0x slower on it than on sm80's
    // 64 x 64 tiles, whose input and weights need no conversion (H200,
    // 2026-11-27); the 8192^3 GEMM (2048-4096 CTAs) ran 1.5-1.6x faster.
    // Convs keep the table's rates at any grid against sm80's loop: the
    // suite's eight small cases (grids under the SMs, conversions included)
    // took 0.73-1.51x sm80's time on it, half of the 16 faster, 1.0x at the
    // geomean (H200, 2026-11-27,
    // bench/history/2026-11-27/small-convs-wgmma-vs-sm80-h200.txt).
    // Among its tiles, the one that finishes first: the table's rate (from
    // a grid of many waves) times the share of its grid's last wave that
    // works (waves of one CTA an SM, below) and of its rows that are
    // pixels, among the tiles whose rate beats sm80's (weighed the same
    // way, a small tile of many CTAs would win the weighing and then lose
    // to sm80's rate).
    // Two more ways to fill the SMs, weighed with each tile (ResNet-50's
    // layer3 and layer4 at batch 32: a tile held one sample's 196 or 49
    // pixels, 77% or 38% of its 128 rows, and 128 CTAs of 128 x 128 left
    // their reductions of 4608 to one wave):
    //   * tiles across samples, where the epilogue reduces nothing per
    //     sample (a GroupNorm's partials would be a tile's, not a sample's;
    //     a training BatchNorm's statistics span the batch anyway): a
    //     tile's rows run on into the next sample's pixels, so only the
    //     last tile has rows past the output;
    //   * K splits (split-K, convs only: the GEMMs stay on sm80's loop
    //     where their grid leaves SMs idle): each tile's K steps in S
    //     shares, a CTA each, whose last to finish adds the S shares in a
    //     fixed order and runs the epilogue. A share costs its CTA a tile
    //     of accumulators stored, and the last CTA S tiles read: counted
    //     as S x BM x BN / (32 (BM + BN)) K steps, a K step's copies being
    //     (BM + BN) x 32 floats.
    ArrayRef<WgmmaTile> tiles =
        precision == Precision::ieee ? ArrayRef(kWgmmaThreeTF32Tiles) : ArrayRef(kWgmmaTiles);
    const int64_t steps = phaseSteps;
    // What each way must win by over the plain grid: tiles across samples
    // divide each pixel by a sample's volume in the epilogue, and the
    // shares' cost is an estimate. The epilogue weighs on short reductions
    // alone: ResNet-50's 1x1 convs (2 to 8 K steps, bound by their copies
    // and epilogues more than by their MMAs) ran up to 11% slower across
    // samples, where the estimate had them 2-30% faster; a long reduction
    // pays its MMAs for every row, pixel or not.
    constexpr int64_t kLongReductionSteps = 32;
    const double kAcrossMargin = steps >= kLongReductionSteps ? 1.02 : 1.25;
    constexpr double kSplitMargin = 1.1;
    constexpr int64_t kMaxGridZ = 65535;
    // A tile's pixels are ints on the device (AcrossSamplePixelTiles).
    const bool mayTileAcross = !samplesAsPixels && !epilogueReducesPerSample && batch > 1 &&
                               phases == 1 &&
                               batch * volume + 256 <= std::numeric_limits<int32_t>::max();
    double bestEffective = 0;
    const WgmmaTile *fastest = nullptr; // the best rate, whatever its grid
    double fastestRate = 0;
    for (const WgmmaTile &candidate : tiles) {
      if (samplesAsPixels && ctas(gridOf(candidate.bm, candidate.bn)) < target.multiprocessors)
        continue;
      double rate = candidate.teraFlops * groupInChannels /
                    static_cast<double>(llvm::alignTo(groupInChannels, 32)) * outChannels /
                    static_cast<double>(llvm::alignTo(outChannels, candidate.bn));
      if (rate <= tensorOpTeraFlops)
        continue;
      if (rate > fastestRate) {
        fastest = &candidate;
        fastestRate = rate;
      }
      // Per sample first, one share first: a way that only ties keeps them.
      for (bool across : {false, true}) {
        if (across && !mayTileAcross)
          continue;
        int64_t rows = samplesAsPixels ? batch : across ? batch * volume : phaseVolume;
        double pixelRows = rows / static_cast<double>(llvm::alignTo(rows, candidate.bm));
        // Grid z holds the samples (one across samples) times the splits.
        int64_t maxSplits =
            samplesAsPixels || phases > 1
                ? 1
                : std::min<int64_t>(SolderDialect::kMaxKSplits, kMaxGridZ / (across ? 1 : batch));
        int64_t tilesOfGrid = ctas(gridOf(candidate.bm, candidate.bn, across));
        for (int64_t splits = 1; splits <= maxSplits && (splits == 1 || steps / splits >= 4);
             ++splits) {
          // Waves of an SM's tile time: two CTAs an SM take twice as long
          // each, and a last round that leaves SMs a CTA runs it alone.
          int64_t waves = llvm::divideCeil(tilesOfGrid * splits, target.multiprocessors);
          double shareSteps =
              steps / static_cast<double>(splits) +
              (splits > 1 ? splits * candidate.bm * candidate.bn /
                                (32.0 * (candidate.bm + candidate.bn))
                          : 0.0);
          // The ideal time over the one the waves take, both in K steps.
          double busy = tilesOfGrid * steps /
                        static_cast<double>(target.multiprocessors) / (waves * shareSteps);
          double effective = rate * busy * pixelRows / (across ? kAcrossMargin : 1.0) /
                             (splits > 1 ? kSplitMargin : 1.0);
          if (effective > bestEffective) {
            wgmmaTile = &candidate;
            wgmmaAcross = across;
            wgmmaSplits = splits;
            wgmmaTeraFlops = rate;
            bestEffective = effective;
          }
        }
      }
    }
    if (wgmmaTile && wgmmaTile != fastest)
      wgmmaFill = llvm::formatv("; {0} x {1} tiles: {2} CTAs for {3} SMs ({4} x {5}: {6})",
                                wgmmaTile->bm, wgmmaTile->bn,
                                ctas(gridOf(wgmmaTile->bm, wgmmaTile->bn, wgmmaAcross,
                                            wgmmaSplits)),
                                target.multiprocessors, fastest->bm, fastest->bn,
                                ctas(gridOf(fastest->bm, fastest->bn)))
                      .str();
    if (wgmmaAcross)
      wgmmaFill += llvm::formatv("; tiles across samples ({0} pixels a sample: {1} x {2} "
                                 "rows hold {3:P0} pixels, one sample's a tile {4:P0})",
                                 volume, gridOf(wgmmaTile->bm, wgmmaTile->bn, true)[0],
                                 wgmmaTile->bm,
                                 batch * volume /
                                     static_cast<double>(
                                         llvm::alignTo(batch * volume, wgmmaTile->bm)),
                                 volume / static_cast<double>(
                                              llvm::alignTo(volume, wgmmaTile->bm)))
                       .str();
    if (wgmmaSplits > 1)
      wgmmaFill += llvm::formatv("; K split {0} ways: {1} steps a share, {2} CTAs for {3} SMs "
                                 "({4} unsplit)",
                                 wgmmaSplits,
                                 steps % wgmmaSplits
                                     ? llvm::formatv("{0}-{1}", steps / wgmmaSplits,
                                                     steps / wgmmaSplits + 1)
                                           .str()
                                     : std::to_string(steps / wgmmaSplits),
                                 ctas(gridOf(wgmmaTile->bm, wgmmaTile->bn, wgmmaAcross,
                                             wgmmaSplits)),
                                 target.multiprocessors,
                                 ctas(gridOf(wgmmaTile->bm, wgmmaTile->bn, wgmmaAcross)))
                       .str();
  }
  if (tensorOp) {
    schedule.kind = MainLoopKind::implicit_gemm_tensorop;
    schedule.math = precision == Precision::ieee ? TensorMath::tf32x3 : TensorMath::tf32;
    schedule.reason = choice == MainLoopChoice::tensorOp ? "forced"
                      : tileOverride                     ? "tensor cores, tile given"
                                                         : "tensor cores";
    schedule.tile = {tile.bm, tile.bn, tile.bk};
    schedule.warp = {tile.wm, tile.wn};
    schedule.stages = tile.stages;
    schedule.threads = 32 * (tile.bm / tile.wm) * (tile.bn / tile.wn);
    schedule.grid = gridOf(tile.bm, tile.bn);
    if (groups > 1)
      schedule.reason += llvm::formatv("; {0} groups of {1} -> {2} channels, each a GEMM of "
                                       "its own",
                                       groups, inPerGroup, outPerGroup)
                             .str();
    if (phases > 1)
      schedule.reason += llvm::formatv("; {0} output phases, each a conv of stride 1 "
                                       "over its taps",
                                       phases)
                             .str();
    if (samplesAsPixels) {
      schedule.acrossSamples = true;
      schedule.reason += "; a GEMM (one pixel a sample, tiles of BM samples)";
    }
    if (smallGrid && !wgmmaTile)
      schedule.reason += llvm::formatv("; 64 x 64 tiles: {0} CTAs for {1} SMs",
                                       ctas(schedule.grid), target.multiprocessors)
                             .str();
    schedule.sharedBytes = ::solder::implicitGemmSharedBytes(
        static_cast<int>(tile.bm), static_cast<int>(tile.bn), static_cast<int>(tile.bk),
        static_cast<int>(tile.stages));
    schedule.paddedInChannels = paddedInChannels;
    if (wgmmaTile) {
      schedule.kind = MainLoopKind::implicit_gemm_wgmma;
      schedule.reason +=
          llvm::formatv(": wgmma fed by TMA (sm_90a){0}, {1} stages{2}, about "
                        "{3:F0} TFLOP/s against {4:F0} for sm80's mma.sync",
                        precision == Precision::ieee ? ", 3xTF32" : "", wgmmaTile->stages,
                        wgmmaTile->blocksPerSM > 1
                            ? llvm::formatv(", {0} CTAs an SM", wgmmaTile->blocksPerSM).str()
                            : std::string(),
                        wgmmaTeraFlops, tensorOpTeraFlops)
              .str() +
          wgmmaFill;
      schedule.tile = {wgmmaTile->bm, wgmmaTile->bn, ::solder::kWgmmaStepChannels};
      schedule.warp = {wgmmaTile->bm / ::solder::kWgmmaConsumerGroups, wgmmaTile->bn};
      schedule.stages = wgmmaTile->stages;
      schedule.threads = ::solder::kWgmmaThreads;
      schedule.grid = gridOf(wgmmaTile->bm, wgmmaTile->bn, wgmmaAcross, wgmmaSplits);
      schedule.acrossSamples |= wgmmaAcross;
      schedule.kSplits = wgmmaSplits;
      schedule.sharedBytes = ::solder::wgmmaSharedBytes(
          static_cast<int>(wgmmaTile->bm), static_cast<int>(wgmmaTile->bn),
          static_cast<int>(wgmmaTile->stages), wgmmaOperandParts);
      schedule.blocksPerSM = wgmmaTile->blocksPerSM;
      tensorOpTeraFlops = wgmmaTeraFlops;
    }
    // An input its producer stored channels-last: none. One pixel a
    // sample: a row copy, four elements a thread (rowsToChannelsLast), and
    // none at all where no channel is padded and no prologue applies: the
    // rows are NDHWC already. Else tiles of pixels x channels.
    bool unpadded = paddedInChannels == inChannels;
    if (inputChannelsLast)
      assert(unpadded && !prologue && "an input stored channels-last is read as it is");
    else if (inVolume != 1)
      schedule.inputConversionGrid = {
          static_cast<int64_t>(llvm::divideCeil(inVolume, ::solder::kChannelsLastTile)),
          static_cast<int64_t>(llvm::divideCeil(paddedInChannels, ::solder::kChannelsLastTile)),
          batch};
    else if (!unpadded || prologue || schedule.isWgmma())
      schedule.inputConversionGrid = {
          static_cast<int64_t>(
              llvm::divideCeil(batch * paddedInChannels, 4 * kOperandPrepThreads)),
          1, 1};
    // A 1x1 conv's (K, C / groups, 1, ...) weights are KTRSC already where
    // no channel is padded (a conv_transpose's are (C, K / groups, ...):
    // converted).
    // The Hopper main loop reads both through tensor maps over the
    // bundle's buffers: converted always.
    if (!(conv && taps == 1 && unpadded) || schedule.isWgmma())
      schedule.weightConversionGrid = {
          static_cast<int64_t>(
              llvm::divideCeil(outChannels * taps * groupInChannels, kOperandPrepThreads)),
          1, 1};
    // Read once, written once a part the main loop reads.
    int64_t writes = schedule.isWgmma() ? wgmmaOperandParts : 1;
    schedule.weightConversionBytes =
        schedule.weightConversionGrid[0]
            ? outChannels * taps * (inPerGroup + writes * groupInChannels) * 4
            : 0;
    schedule.conversionBytes =
        (schedule.inputConversionGrid[0]
             ? batch * inVolume * (inChannels + writes * paddedInChannels) * 4
             : 0) +
        schedule.weightConversionBytes;
    schedule.teraFlops = tensorOpTeraFlops;
    return schedule;
  }
  // The FMA fallback: 128 pixels x (16..64) channels of one group, 256
  // threads, its tiles in static shared memory.
  int64_t tileN = std::clamp<int64_t>(llvm::alignTo(outPerGroup, 16), 16, 64);
  schedule.kind = MainLoopKind::implicit_gemm_fma;
  schedule.reason =
      choice == MainLoopChoice::fma ? "forced"
      : !depthwiseObstacle.empty()
          ? "a depthwise conv its main loop cannot run: " + depthwiseObstacle
      : choice == MainLoopChoice::direct
          ? "the direct conv cannot run it: " + directObstacle
      : choice == MainLoopChoice::directFma || obstacle.empty()
          ? std::string("the direct conv on FMAs cannot run it")
          : obstacle;
  schedule.tile = {128, tileN, 16};
  schedule.threads = 256;
  schedule.grid = {phases * static_cast<int64_t>(llvm::divideCeil(phaseVolume, 128)),
                   groups * static_cast<int64_t>(llvm::divideCeil(outPerGroup, tileN)),
                   batch};
  schedule.paddedInChannels = inChannels;
  schedule.teraFlops = kFmaTeraFlops;
  return schedule;
}

ConvSchedule mlir::solder::getConvSchedule(Operation *anchor, const GpuTarget &target,
                                           Precision precision, MainLoopChoice choice,
                                           std::optional<ConvTile> tileOverride, bool cancellingSum,
                                           bool prologue, bool inputChannelsLast,
                                           bool epilogueReducesPerSample) {
  ConvSchedule schedule =
      getMainLoopSchedule(anchor, target, precision, choice, tileOverride, cancellingSum, prologue,
                          inputChannelsLast, epilogueReducesPerSample);
  // The tensor-core implicit GEMM applies a prologue as it converts its
  // input to NDHWC; the other main loops read PyTorch's layout, written
  // first by a kernel of its own.
  if (prologue && !schedule.isTensorOp()) {
    auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
    schedule.prologueGrid = {
        static_cast<int64_t>(llvm::divideCeil(input.getNumElements(), kOperandPrepThreads)),
        1, 1};
    schedule.prologueBytes = 2 * input.getNumElements() * 4;
    schedule.conversionBytes += schedule.prologueBytes;
  }
  return schedule;
}

ConvScheduleAttr ConvSchedule::toAttr(function_ref<InFlightDiagnostic()> emitError,
                                      MLIRContext *context,
                                      ConvEpilogueKind epilogue) const {
  // ArrayRefs spelled out: getChecked's generic overload would take the
  // std::arrays as they are.
  ArrayRef<int64_t> tileDims(tile), gridDims(grid);
  Attribute config;
  switch (kind) {
  case MainLoopKind::implicit_gemm_fma:
    config = FmaTileAttr::getChecked(emitError, context, tileDims);
    break;
  case MainLoopKind::implicit_gemm_tensorop:
  case MainLoopKind::implicit_gemm_wgmma:
    config = ImplicitGemmTileAttr::getChecked(
        emitError, context, tileDims, ArrayRef<int64_t>(warp), stages, paddedInChannels,
        inputConversionGrid[0] ? ArrayRef<int64_t>(inputConversionGrid) : ArrayRef<int64_t>(),
        weightConversionGrid[0] ? ArrayRef<int64_t>(weightConversionGrid) : ArrayRef<int64_t>(),
        acrossSamples ? PixelTiling::across_samples : PixelTiling::per_sample, kSplits);
    break;
  case MainLoopKind::direct_fma:
    config = DirectFmaTileAttr::getChecked(emitError, context, tileDims.take_front(2));
    break;
  case MainLoopKind::depthwise:
    config = DepthwiseTileAttr::getChecked(emitError, context, depthwise.rows,
                                           depthwise.columns, depthwise.threadRows,
                                           depthwise.channels);
    break;
  case MainLoopKind::direct_tensorop:
    config = DirectTileAttr::getChecked(emitError, context, tileRows, tileDims, warps,
                                        accumulation, preparedBytes, prepareThreads,
                                        ArrayRef<int64_t>(prepareGrid));
    break;
  }
  if (!config)
    return nullptr;
  return ConvScheduleAttr::getChecked(
      emitError, context, kind, math, config,
      persistent ? TileSchedulerKind::persistent : TileSchedulerKind::grid, gridDims,
      threads, sharedBytes, blocksPerSM, epilogue, StringRef(reason),
      prologueGrid[0] ? ArrayRef<int64_t>(prologueGrid) : ArrayRef<int64_t>());
}
