//===- conv/direct_layout.h - The direct convs' layouts (host, device) ----===//
//
// Plain constexpr C++ that both the planner (lib/Analysis/ConvSchedule.cpp,
// compiled for the host) and the device templates (mainloop_direct_*.cuh)
// include: the one place where the direct conv's input window, its strides
// against bank conflicts, its shared-memory layouts and the operands its
// prepare kernel writes are worked out. The plan's shared bytes and the
// kernel's offsets are then the same numbers by construction.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_DIRECT_LAYOUT_H
#define SOLDER_CONV_DIRECT_LAYOUT_H

#include "solder/epilogue/accumulator_tile.h"

namespace solder {

/// A conv as the direct main loops see it: groups == 1, not transposed,
/// spatial dims padded to (D, H, W).
struct DirectConvShape {
  long batch;
  int inChannels, outChannels;
  int in[3], out[3], kernel[3], stride[3], pad[3], dilation[3];
};

/// The direct conv on tensor cores' tile: `rows` whole output rows of one
/// output plane by `bn` output channels (a multiple of 8), `warps` warps;
/// `parts` TF32 parts an operand element keeps (2 for 3xTF32, 1 for one
/// product); `centered`: the input less a shift per (sample, channel).
struct DirectTensorOpTile {
  int rows, bn, warps, parts;
  bool centered;
};

namespace detail {
constexpr long maxOf(long a, long b) { return a > b ? a : b; }
constexpr long ceilDiv(long a, long b) { return (a + b - 1) / b; }
constexpr long alignUp(long a, long b) { return ceilDiv(a, b) * b; }
} // namespace detail

/// Every size and offset of DirectTensorOpConv (conv/mainloop_direct_tensorop.cuh).
struct DirectTensorOpLayout {
  // The tile and its MMA steps: 16 pixels x 8 channels x 8 reduction
  // elements. Pixels p of a tile are row-major over rows x out[2].
  int tilePixels = 0, bm = 0, rowTiles = 0, pixelTiles = 0, channelTiles = 0;
  int mmaRows = 0, mmaRowsPerWarp = 0, mmaCols = 0;
  int taps = 0, reduction = 0, kSteps = 0;
  /// With a multiple of 8 input channels the reduction runs channel-fastest
  /// (k = tap x C + c): every step's window offsets are then constants.
  bool channelFastest = false;

  /// The weights in MMA-fragment order: a fragment a (k-step, column block,
  /// lane), 2 x parts floats.
  int weightFragments = 0, weightFloats = 0;

  /// The input window of a tile (every input row its rows read, every
  /// column), in 4-byte elements: a row pitch of 16 or 20 mod 32 unless
  /// channel-fastest (the next kernel row's 8 pixels off this row's banks),
  /// a channel stride of 8 mod 32 (4 channels on distinct banks).
  int winD = 0, winH = 0, winW = 0, winRows = 0;
  int winPitch = 0, winPlane = 0, winChannel = 0, windowElements = 0;
  /// Each reduction element's window offset, unless channel-fastest.
  int offsetTableBytes = 0;

  /// One tile a block: [fragments][window parts][offsets], the accumulator
  /// tile (or the moments' slots) over them once the MMAs are done, and,
  /// centered, each channel's correction (a float pair) past both.
  int mainLoopBytes = 0, tileBytes = 0, correctionOffset = 0, sharedBytes = 0;

  /// Persistent: [fragments][offsets][window | tile][raw window][tap sums]
  /// [shifts][correction], each 16-byte aligned. The raw window's rows are
  /// whole 16-byte chunks where they start at an input row's first column
  /// and input rows are 16-byte aligned; else one float a copy.
  bool chunkedRows = false;
  int rawPitch = 0, chunkFloats = 0, rowChunks = 0;
  int persistentOffsetsOffset = 0, persistentWindowOffset = 0, windowOrTileBytes = 0;
  int rawOffset = 0, tapSumsOffset = 0, shiftsOffset = 0, persistentCorrectionOffset = 0;
  int persistentSharedBytes = 0;

  /// What the prepare kernel writes: every channel tile's
  /// fragments; centered, each padded channel's tap sums per input channel
  /// (double) and each sample's shift per input channel (float). Its
  /// threads: one per fragment and per tap sum, a warp per shift.
  long fragmentBytes = 0, tapSums = 0, shifts = 0, preparedBytes = 0, prepareThreads = 0;

  constexpr DirectTensorOpLayout(const DirectConvShape &conv, const DirectTensorOpTile &tile) {
    using namespace detail;
    const int outH = conv.out[1], outW = conv.out[2];
    tilePixels = tile.rows * outW;
    bm = int(alignUp(tilePixels, 32)); // the epilogue's lanes take BM / 32 pixels of a channel
    rowTiles = int(ceilDiv(outH, tile.rows));
    pixelTiles = rowTiles * conv.out[0];
    channelTiles = int(ceilDiv(conv.outChannels, tile.bn));
    mmaRows = int(ceilDiv(tilePixels, 16));
    mmaRowsPerWarp = int(ceilDiv(mmaRows, tile.warps));
    mmaCols = tile.bn / 8;
    taps = conv.kernel[0] * conv.kernel[1] * conv.kernel[2];
    reduction = conv.inChannels * taps;
    kSteps = int(ceilDiv(reduction, 8));
    channelFastest = conv.inChannels % 8 == 0;

    weightFragments = kSteps * mmaCols * 32;
    weightFloats = weightFragments * 2 * tile.parts;

    winD = (conv.kernel[0] - 1) * conv.dilation[0] + 1;
    winH = (tile.rows - 1) * conv.stride[1] + (conv.kernel[1] - 1) * conv.dilation[1] + 1;
    winW = (outW - 1) * conv.stride[2] + (conv.kernel[2] - 1) * conv.dilation[2] + 1;
    winRows = conv.inChannels * winD * winH;
    winPitch = int(alignUp(winW, 4));
    while (!channelFastest && winPitch % 32 != 16 && winPitch % 32 != 20)
      winPitch += 4;
    winPlane = winH * winPitch;
    winChannel = winD * winPlane + (40 - winD * winPlane % 32) % 32;
    windowElements = conv.inChannels * winChannel;
    offsetTableBytes = channelFastest ? 0 : kSteps * 8 * 4;

    mainLoopBytes = (weightFloats + windowElements * tile.parts) * 4 + offsetTableBytes;
    tileBytes = accumulatorTileBytes(bm, tile.bn);
    const int mainLoopOrTile = int(maxOf(mainLoopBytes, tileBytes));
    correctionOffset = int(alignUp(mainLoopOrTile, 8));
    sharedBytes = tile.centered ? correctionOffset + tile.bn * 8 : mainLoopOrTile;

    chunkedRows = conv.pad[2] == 0 && conv.in[2] % 4 == 0;
    rawPitch = int(alignUp(winW, 4));
    chunkFloats = chunkedRows ? 4 : 1;
    rowChunks = rawPitch / chunkFloats;
    persistentOffsetsOffset = int(alignUp(long(weightFloats) * 4, 16));
    persistentWindowOffset = persistentOffsetsOffset + int(alignUp(offsetTableBytes, 16));
    windowOrTileBytes =
        int(alignUp(maxOf(long(tile.parts) * windowElements * 4, long(tileBytes)), 16));
    rawOffset = persistentWindowOffset + windowOrTileBytes;
    tapSumsOffset = rawOffset + int(alignUp(long(winRows) * rawPitch * 4, 16));
    shiftsOffset = tapSumsOffset +
                   (tile.centered ? int(alignUp(long(tile.bn) * conv.inChannels * 8, 16)) : 0);
    persistentCorrectionOffset =
        shiftsOffset + (tile.centered ? int(alignUp(conv.inChannels * 4, 16)) : 0);
    persistentSharedBytes = persistentCorrectionOffset + (tile.centered ? tile.bn * 8 : 0);

    fragmentBytes = long(channelTiles) * weightFragments * 2 * tile.parts * 4;
    tapSums = tile.centered ? long(channelTiles) * tile.bn * conv.inChannels : 0;
    shifts = tile.centered ? conv.batch * conv.inChannels : 0;
    preparedBytes = fragmentBytes + tapSums * 8 + shifts * 4;
    prepareThreads =
        maxOf(maxOf(long(channelTiles) * weightFragments, tapSums), 32 * shifts);
  }
};

/// Input elements of a plane that a centered conv's shift averages:
/// spread over the plane, so the shift is near the plane's mean wherever the
/// data's offset lies.
constexpr int directShiftSamples(long inVolume) { return inVolume < 256 ? int(inVolume) : 256; }

/// The direct conv on FMAs (conv/mainloop_direct_fma.cuh): a block's
/// weights, the (channel, tap) window x BN channels, and then the
/// accumulator tile over them.
constexpr int directFmaSharedBytes(int inChannels, int taps, int bm, int bn) {
  return int(detail::maxOf(long(inChannels) * taps * bn * 4, accumulatorTileBytes(bm, bn)));
}

} // namespace solder

#endif // SOLDER_CONV_DIRECT_LAYOUT_H
