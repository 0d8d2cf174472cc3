//===- conv/depthwise_layout.h - The depthwise conv's tile (host, device) -===//
//
// Plain constexpr C++ that both the planner (lib/Analysis/ConvSchedule.cpp)
// and the depthwise main loop (conv/mainloop_depthwise.cuh) include: how a
// tile of output positions maps to its staged input window and to shared
// memory, and how many tiles cover the output. The plan's grid and shared
// bytes and the kernel's offsets are then the same numbers by construction.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_DEPTHWISE_LAYOUT_H
#define SOLDER_CONV_DEPTHWISE_LAYOUT_H

#include "solder/epilogue/accumulator_tile.h"

namespace solder {

/// A depthwise tile: `rows` x `columns` output positions of one output
/// plane, for `channels` output channels; `taps` weights a channel.
struct DepthwiseLayout {
  /// The staged input window of one channel: planes x rows x columns.
  int planes, inRows, inColumns;
  /// Floats from one channel's window to the next: the window padded so
  /// that consecutive channels' windows start 16 banks apart (with 8
  /// channels a block a warp holds two channels, which then read disjoint
  /// banks; with 16 or 32, four or eight, and pairs of them share banks).
  int channelPitch;
  /// Output positions a tile (rows x columns) and the accumulator tile's
  /// BM (that, rounded up to 32).
  int pixels, bm;
  /// Tiles along H and W, and in all (every output plane).
  int tilesY, tilesX, pixelTiles;
  /// Shared memory: the accumulator tile, then the windows, then the
  /// weights.
  int windowOffset, weightOffset, sharedBytes;
};

/// `kernel`, `stride`, `dilation` and `out`: (D, H, W).
constexpr DepthwiseLayout depthwiseLayout(const int *kernel, const int *stride,
                                          const int *dilation, const int *out, int rows,
                                          int columns, int channels) {
  DepthwiseLayout layout{};
  layout.planes = (kernel[0] - 1) * dilation[0] + 1;
  layout.inRows = (rows - 1) * stride[1] + (kernel[1] - 1) * dilation[1] + 1;
  layout.inColumns = (columns - 1) * stride[2] + (kernel[2] - 1) * dilation[2] + 1;
  const int window = layout.planes * layout.inRows * layout.inColumns;
  layout.channelPitch = window + ((16 - window % 32) + 32) % 32;
  layout.pixels = rows * columns;
  layout.bm = (layout.pixels + 31) / 32 * 32;
  layout.tilesY = (out[1] + rows - 1) / rows;
  layout.tilesX = (out[2] + columns - 1) / columns;
  layout.pixelTiles = out[0] * layout.tilesY * layout.tilesX;
  layout.windowOffset = accumulatorTileBytes(layout.bm, channels);
  layout.weightOffset = layout.windowOffset + channels * layout.channelPitch * 4;
  layout.sharedBytes =
      layout.weightOffset + channels * kernel[0] * kernel[1] * kernel[2] * 4;
  return layout;
}

} // namespace solder

#endif // SOLDER_CONV_DEPTHWISE_LAYOUT_H
