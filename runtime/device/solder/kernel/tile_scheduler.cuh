//===- kernel/tile_scheduler.cuh - Which tiles a conv block computes ------===//
//
// A conv kernel's tiles are (pixel tile, sample, channel tile) triples, as
// many as the plan's `tiles` (#solder.conv_schedule). Its tile scheduler
// says which of them a block takes, in which order:
//   * GridTileScheduler: a block a tile, on the grid (pixel tiles, channel
//     tiles, samples x K splits); with K splits (split-K), each of a
//     tile's Splits blocks reduces its share of the K steps, and the last
//     of them to finish sums all shares in a fixed order (reduceSplits)
//     before it alone runs the epilogue;
//   * PersistentTileScheduler: as many blocks as the GPU holds at once (the
//     runtime sizes the grid), each taking tiles blockIdx.x, + gridDim.x,
//     ..., channel tile slowest, so that a block keeps its channel tile's
//     weights for many tiles.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_TILE_SCHEDULER_CUH
#define SOLDER_KERNEL_TILE_SCHEDULER_CUH

#include "solder/conv/geometry.cuh"
#include "solder/reduce.cuh"

namespace solder {

/// Where the blocks of split tiles leave their shares of the accumulators
/// (a BM x BN tile a block, channel-major, for every split of every tile)
/// and count their arrivals (a counter a tile, zero at the module's load;
/// the last arrival wraps it back to zero). Launches of one kernel must not
/// overlap: the runtime orders a bundle's calls (its workspace is one).
struct SplitKWorkspace {
  float *__restrict__ shares;
  unsigned *__restrict__ arrivals;
};

template <int PixelTiles, int ChannelTiles, int Samples, int Splits = 1>
struct GridTileScheduler {
  static constexpr bool kPersistent = false;
  static constexpr int kPixelTiles = PixelTiles, kChannelTiles = ChannelTiles;
  static constexpr int kSamples = Samples, kSplits = Splits;
  /// The block's tile: grid z is the sample, then the split.
  __device__ static WorkTile current() {
    return {int(blockIdx.x), int(blockIdx.z % Samples), int(blockIdx.y),
            int(blockIdx.z / Samples)};
  }

  /// Split-K's reduction of `work`'s shares, each a block's accumulator
  /// tile (Tile: channel-major [BN][Tile::kStride], in shared memory):
  /// every block stores its share, and the last to arrive adds all of them
  /// into its tile, split 0 first, whichever block that is: the sum does
  /// not depend on the order the blocks finish in (bitwise deterministic).
  /// True in that block only, which then runs the epilogue; a tile's shares
  /// cost its blocks BM x BN x 4 bytes written and the last (Splits - 1)
  /// times that read, in L2 mostly.
  template <class Tile, int Threads>
  __device__ __forceinline__ static bool reduceSplits(float *tile, const WorkTile &work,
                                                      const SplitKWorkspace &workspace) {
    static_assert(Splits > 1, "a tile of one split has nothing to reduce");
    constexpr int BM = Tile::BM, BN = Tile::BN, kVectors = BM * BN / 4;
    static_assert(BM % 4 == 0 && Tile::kStride % 4 == 0, "float4 rows");
    const long index = (long(work.n) * ChannelTiles + work.channelTile) * PixelTiles +
                       work.pixelTile;
    float4 *shares = reinterpret_cast<float4 *>(workspace.shares) + index * Splits * kVectors;
    const auto element = [&](int v) -> float4 & {
      return reinterpret_cast<float4 *>(tile + v / (BM / 4) * Tile::kStride)[v % (BM / 4)];
    };
    for (int v = threadIdx.x; v < kVectors; v += Threads)
      __stcg(&shares[work.split * kVectors + v], element(v));
    if (!arrivesLast(&workspace.arrivals[index], Splits))
      return false;
    // Loads of kUnroll vectors of every share in flight before their sums:
    // one vector at a time, each thread waited out the L2's latency for
    // each (ResNet-50's layer4 3x3 conv in 5 shares took 44 us, 22 of them
    // its main loop's).
    constexpr int kUnroll = Splits >= 16 ? 1 : 16 / Splits;
    for (int first = threadIdx.x; first < kVectors; first += kUnroll * Threads) {
      float4 loaded[kUnroll][Splits];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int v = first + u * Threads;
#pragma unroll
        for (int s = 0; s < Splits; ++s)
          if (v < kVectors)
            loaded[u][s] = s == work.split ? element(v) : __ldcg(&shares[s * kVectors + v]);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int v = first + u * Threads;
        if (v >= kVectors)
          continue;
        float4 sum = loaded[u][0];
#pragma unroll
        for (int s = 1; s < Splits; ++s) {
          sum.x += loaded[u][s].x;
          sum.y += loaded[u][s].y;
          sum.z += loaded[u][s].z;
          sum.w += loaded[u][s].w;
        }
        element(v) = sum;
      }
    }
    __syncthreads();
    return true;
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
