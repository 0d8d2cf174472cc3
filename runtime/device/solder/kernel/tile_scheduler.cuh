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
  /// The block's first tile and the step to its next.
  __device__ static long first() { return blockIdx.x; }
  __device__ static long step() { return gridDim.x; }
  /// Tile `tile` of the order: pixel tile fastest, channel tile slowest.
  __device__ static WorkTile at(long tile) {
    return {int(tile % PixelTiles), int(tile / PixelTiles % Samples),
            int(tile / (long(PixelTiles) * Samples))};
  }
};

} // namespace solder

#endif // SOLDER_KERNEL_TILE_SCHEDULER_CUH
