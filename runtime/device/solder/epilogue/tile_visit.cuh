//===- epilogue/tile_visit.cuh - The conv epilogue's walk of a tile -------===//
//
// Every tiled conv main loop (tensor cores: conv_tensorop.cuh; direct on
// tensor cores or FMAs for few input channels: conv_direct_tensorop.cuh,
// conv_direct.cuh) leaves its BM x BN tile in shared
// memory, channel-major ([BN][BM + 4]); a generated epilogue functor then
// visits it, eight lanes a channel on consecutive pixels (32 when the tile
// has fewer than eight channels a warp). Stores to NCDHW then go in runs of
// 32 bytes or more, and the per-channel partial reductions combine across
// the channel's lanes in a fixed order.
// An epilogue whose reductions are all of the conv output alone (acc plus a
// per-channel offset: W1's statistics) may instead take each tile's channel
// moments (kConvMoments), which a main loop that keeps its accumulators in
// registers (DirectTensorOpConv) sums there: no tile, no per-element visit.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_TILE_VISIT_CUH
#define SOLDER_EPILOGUE_TILE_VISIT_CUH

#include "solder/conv/geometry.cuh"
#include "solder/reduce.cuh"
#include "solder/welford.cuh"

#include <type_traits>

namespace solder {

/// One channel's conv outputs over a tile, as moments about a shift: the
/// channel's offset (bias, centering's correction) plus a sample of its
/// accumulators, in double so that the offset is exact. The sums are of
/// the data's spread, not of its offset, as ShiftedMoments' are.
struct ConvMoments {
  float count = 0;
  double shift = 0;
  float sum = 0;        // of value - shift
  float sumSquares = 0; // of (value - shift)^2

  __device__ __forceinline__ Welford welford() const {
    return welfordFromShiftedSums(count, shift, sum, sumSquares);
  }
  /// The sum of the values.
  __device__ __forceinline__ double total() const { return count * shift + sum; }
};

/// Whether main loop Conv sums its tiles' channel moments in registers
/// (Conv::kTileMoments: computeTileMoments, computeStagedMoments) for an
/// epilogue that takes them.
template <class Conv, class Epilogue, class = void>
struct TakesTileMoments : std::false_type {};
template <class Conv, class Epilogue>
struct TakesTileMoments<Conv, Epilogue, std::void_t<decltype(Conv::kTileMoments)>>
    : std::bool_constant<Conv::kTileMoments && Epilogue::kConvMoments> {};

/// The generated epilogue's visit of a computed tile (pixel tile pixelTile
/// of sample n, channels from channelBase; tile[channel * kTileStride +
/// pixel - pixelBase]): its partial reductions may reuse the tile's shared
/// memory. Epilogue provides:
///   struct Partials { shuffleDown(offset, width); merge(other); };
///   void visit(long n, long channel, int pixel, float acc, Partials &) const;
///   void storePartials(long n, long channel, long pixelTile, const Partials &) const;
template <class Conv, class Epilogue>
__device__ __forceinline__ void visitTile(const Epilogue &epilogue, float *tile, int n,
                                          int pixelTile, int channelBase) {
  using G = typename Conv::Geometry;
  constexpr int BM = Conv::BM, BN = Conv::BN;
  static_assert(BM % 32 == 0, "a lane visits BM / 8 pixels of each channel");
  const int pixelBase = Conv::pixelBase(pixelTile), pixels = Conv::pixelCount(pixelTile);
  using Partials = typename Epilogue::Partials;
  if constexpr (!Epilogue::kStoresElements && BN <= Conv::kThreads &&
                sizeof(Partials) * Conv::kThreads <= Conv::kTileBytes) {
    // Nothing is stored per element (W1: statistics only), so coalescing
    // does not matter: a thread per (channel, slice of the pixels) keeps
    // its partial in registers, and the slices merge through shared memory
    // in a fixed order, instead of a warp combining every channel across
    // its lanes. Each thread starts its slice at a pixel staggered by its
    // channel, so a warp's reads of the channel-major tile spread over the
    // banks.
    constexpr int kSlices = Conv::kThreads / BN;
    const int column = threadIdx.x % BN, slice = threadIdx.x / BN;
    const int channel = channelBase + column;
    Partials partials;
    if (slice < kSlices && channel < G::kOutChannels) {
      const int count = (pixels - slice + kSlices - 1) / kSlices;
      int j = count > 0 ? column % count : 0;
      for (int visited = 0; visited < count; ++visited) {
        const int local = slice + kSlices * j;
        epilogue.visit(n, channel, pixelBase + local,
                       tile[column * Conv::kTileStride + local], partials);
        j = j + 1 == count ? 0 : j + 1;
      }
    }
    __syncthreads(); // the slices' partials reuse the tile
    Partials *slots = reinterpret_cast<Partials *>(tile);
    if (slice < kSlices)
      slots[slice * BN + column] = partials;
    __syncthreads();
    if (threadIdx.x < BN && channelBase + int(threadIdx.x) < G::kOutChannels) {
      Partials merged = slots[threadIdx.x];
      for (int s = 1; s < kSlices; ++s)
        merged.merge(slots[s * BN + threadIdx.x]);
      epilogue.storePartials(n, channelBase + threadIdx.x, pixelTile, merged);
    }
    return;
  }
  // Eight lanes a channel, on eight consecutive pixels: each store is four
  // 32-byte runs, and each lane adds BM / 8 pixels of two channels before
  // three shuffle levels combine them (a warp on 32 pixels of a channel
  // spent more on combining than on visiting at BM = 64: W2). The four
  // channels of a step are two apart: with the tile's stride of BM + 4
  // floats their runs of eight pixels fall on distinct banks. A tile of
  // fewer than eight channels a warp keeps 32 lanes a channel, so that
  // every warp has channels to visit.
  constexpr int kLanesPerChannel = BN >= 8 * Conv::kWarps ? 8 : 32;
  constexpr int kChannelsPerStep = 2 * (32 / kLanesPerChannel);
  static_assert(Conv::kTileStride % 32 == 4, "the bank spread assumes BM + 4");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int laneGroup = lane / kLanesPerChannel, laneInGroup = lane % kLanesPerChannel;
  for (int c0 = warp * kChannelsPerStep; c0 < BN;
       c0 += Conv::kWarps * kChannelsPerStep) {
    Partials partials[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int local = c0 + 2 * laneGroup + h, channel = channelBase + local;
#pragma unroll
      for (int i = 0; i < BM / kLanesPerChannel; ++i) {
        const int pixel = laneInGroup + kLanesPerChannel * i;
        if (local < BN && channel < G::kOutChannels && pixel < pixels)
          epilogue.visit(n, channel, pixelBase + pixel,
                         tile[local * Conv::kTileStride + pixel], partials[h]);
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
      partials[h] = combineLanes<kLanesPerChannel>(partials[h]);
    if (laneInGroup == 0)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int local = c0 + 2 * laneGroup + h;
        if (local < BN && channelBase + local < G::kOutChannels)
          epilogue.storePartials(n, channelBase + local, pixelTile, partials[h]);
      }
  }
}

} // namespace solder

#endif // SOLDER_EPILOGUE_TILE_VISIT_CUH
