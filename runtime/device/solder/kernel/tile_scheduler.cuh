//===- kernel/tile_scheduler.cuh - Which tiles a conv block computes ------===//
//
// A conv kernel's tiles are (pixel tile, sample, channel tile) triples, as
// many as the plan's `tiles` (#solder.conv_schedule). Its tile scheduler
// says which of them a block takes, in which order:
//   * GridTileScheduler: a block a tile, on the grid (pixel tiles, channel
//     tiles, samples);
//   * PersistentTileScheduler: as many blocks as the GPU holds at once (the
//     runtime sizes the grid), each taking tiles blockIdx.x, + gridDim.x,
//     ..., channel tile slowest, so that a block keeps its channel tile's
//     weights for many tiles.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_TILE_SCHEDULER_CUH
#define SOLDER_KERNEL_TILE_SCHEDULER_CUH

#include "solder/conv/geometry.cuh"

namespace solder {

template <int PixelTiles, int ChannelTiles, int Samples> struct GridTileScheduler {
  static constexpr bool kPersistent = false;
  static constexpr int kPixelTiles = PixelTiles, kChannelTiles = ChannelTiles;
  static constexpr int kSamples = Samples;
  /// The block's tile.
  __device__ static WorkTile current() {
    return {int(blockIdx.x), int(blockIdx.z), int(blockIdx.y)};
  }
};

template <int PixelTiles, int ChannelTiles, int Samples> struct PersistentTileScheduler {
  static constexpr bool kPersistent = true;
  static constexpr int kPixelTiles = PixelTiles, kChannelTiles = ChannelTiles;
  static constexpr int kSamples = Samples;
  static constexpr long kTiles = long(PixelTiles) * Samples * ChannelTiles;
  /// A tile's index in the order. 64-bit, as the compiler narrows its
  /// divisions by constants where the tile count allows: an unsigned 32-bit
  /// index measured W1's tf32 conv 4.6% slower on an H100 (more spills at
  /// its 80-register bound).
  using TileIndex = long;
  /// The block's first tile and the step to its next.
  __device__ static TileIndex first() { return blockIdx.x; }
  __device__ static TileIndex step() { return gridDim.x; }
  /// Tile `tile` of the order: pixel tile fastest, channel tile slowest.
  __device__ static WorkTile at(TileIndex tile) {
    return {int(tile % PixelTiles), int(tile / PixelTiles % Samples),
            int(tile / (TileIndex(PixelTiles) * Samples))};
  }
};

} // namespace solder

#endif // SOLDER_KERNEL_TILE_SCHEDULER_CUH
