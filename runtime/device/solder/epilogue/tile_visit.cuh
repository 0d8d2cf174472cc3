//===- epilogue/tile_visit.cuh - The conv epilogue's walk of a tile -------===//
//
// Every tiled conv main loop (implicit GEMM on tensor cores, the direct
// convs) leaves its BM x BN tile in shared memory as the accumulator tile
// (accumulator_tile.h, channel-major [BN][BM + 4]); the generated epilogue
// functor then visits it, eight lanes a channel on consecutive pixels (32
// when the tile has fewer than eight channels a warp). Stores to NCDHW then
// go in runs of 32 bytes or more, and the per-channel partial reductions
// combine across the channel's lanes in a fixed order.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_TILE_VISIT_CUH
#define SOLDER_EPILOGUE_TILE_VISIT_CUH

#include "solder/conv/geometry.cuh"
#include "solder/reduce.cuh"

#include <type_traits>

namespace solder {

/// Whether MainLoop's tile rows are not consecutive pixels (the positions
/// of one output phase, PhasePixelTiles; a rectangle of positions,
/// DepthwiseConv): they map to pixels through MainLoop::rows, -1 for a row
/// past the output.
template <class MainLoop, class = void> struct HasMappedRows : std::false_type {};
template <class MainLoop>
struct HasMappedRows<MainLoop, std::void_t<decltype(MainLoop::rows(0))>> : std::true_type {};

/// Whether MainLoop says where each channel tile's channels end
/// (MainLoop::channelRange: a grouped conv's tiles stop at their group's
/// end); else a tile's columns run to the conv's last channel.
template <class MainLoop, class = void> struct HasChannelRange : std::false_type {};
template <class MainLoop>
struct HasChannelRange<MainLoop, std::void_t<decltype(MainLoop::channelRange(0))>>
    : std::true_type {};
template <class MainLoop> __device__ __forceinline__ ChannelRange channelRangeOf(int channelTile) {
  if constexpr (HasChannelRange<MainLoop>::value)
    return MainLoop::channelRange(channelTile);
  else
    return {channelTile * MainLoop::BN, MainLoop::Geometry::kOutChannels};
}

/// Whether Epilogue stores tensors channels-last (NDHWC): then its visit
/// walks a tile's channels fastest.
template <class Epilogue, class = void> struct VisitsChannelsLast : std::false_type {};
template <class Epilogue>
struct VisitsChannelsLast<Epilogue, std::void_t<decltype(Epilogue::kChannelsLast)>>
    : std::bool_constant<Epilogue::kChannelsLast> {};

/// Whether MainLoop's full tiles take the unguarded visit (below); with
/// mapped rows, its rows(tile) says whole() where every row is a pixel.
template <class MainLoop, class = void> struct VisitsFullTilesUnguarded : std::false_type {};
template <class MainLoop>
struct VisitsFullTilesUnguarded<MainLoop, std::void_t<decltype(MainLoop::kUnguardedFullTiles)>>
    : std::bool_constant<MainLoop::kUnguardedFullTiles> {};

/// A tile's rows as consecutive pixels from MainLoop::pixelBase.
template <class MainLoop> struct LinearRows {
  int base, count;
  __device__ explicit LinearRows(int tile)
      : base(MainLoop::pixelBase(tile)), count(MainLoop::pixelCount(tile)) {}
  __device__ int pixel(int row) const { return base + row; }
};

/// The generated epilogue's visit of the accumulator tile of `work`
/// (MainLoop::Tile: channels channelRangeOf(work.channelTile), pixels from
/// MainLoop::pixelBase(work.pixelTile)): its partial reductions may reuse
/// the tile's shared memory. Epilogue provides:
///   struct Partials { shuffleDown(offset, width); merge(other); };
///   void visit(long n, long channel, int pixel, float acc, Partials &) const;
///   void storePartials(long n, long channel, long pixelTile, const Partials &) const;
template <class MainLoop, class Epilogue>
__device__ __forceinline__ void visitTile(const Epilogue &epilogue, float *tile,
                                          const WorkTile &work) {
  constexpr int BM = MainLoop::BM, BN = MainLoop::BN, kTileStride = MainLoop::Tile::kStride;
  const ChannelRange channels = channelRangeOf<MainLoop>(work.channelTile);
  const int n = work.n, pixelTile = work.pixelTile, channelBase = channels.base;
  static_assert(BM % 32 == 0, "a lane visits BM / 8 pixels of each channel");
  constexpr bool kMappedRows = HasMappedRows<MainLoop>::value;
  const auto rows = [&] {
    if constexpr (kMappedRows)
      return MainLoop::rows(pixelTile);
    else
      return LinearRows<MainLoop>(pixelTile);
  }();
  const int pixels = rows.count;
  using Partials = typename Epilogue::Partials;
  constexpr bool kChannelsLast = VisitsChannelsLast<Epilogue>::value;
  if constexpr (kChannelsLast && std::is_empty_v<Partials> && BN % 32 == 0 && !kMappedRows) {
    // Channels-last and nothing reduced: the tile's elements in storage
    // order, a warp on 32 channels of one pixel, every thread busy (a
    // thread a channel down the pixels left a third of them idle at BN =
    // 256, each waiting out its loads one at a time: ResNet-50's 1x1 64 ->
    // 256 conv with its residual, channels-last, took 175 us where its
    // NCDHW twin took 98). The rows that are pixels as a trip count, eight
    // elements a step with no check between them, so that their loads are
    // in flight together (a check an element made each a block of its
    // own: slower than a thread a channel).
    Partials none;
    const int columns = channels.end - channelBase; // BN or more but in the last tile
    const auto visitElements = [&](auto allColumns) {
      if constexpr (MainLoop::kThreads % BN == 0) {
        // A thread keeps its channel: what the epilogue reads of it
        // (BatchNorm's scale and shift) loads once.
        const int column = threadIdx.x % BN;
        if (!decltype(allColumns)::value && column >= columns)
          return;
#pragma unroll 8
        for (int local = threadIdx.x / BN; local < pixels; local += MainLoop::kThreads / BN)
          epilogue.visit(n, channelBase + column, rows.pixel(local),
                         tile[column * kTileStride + local], none);
      } else {
        const int elements = pixels * BN;
#pragma unroll 8
        for (int element = threadIdx.x; element < elements; element += MainLoop::kThreads) {
          const int column = element % BN, local = element / BN;
          if (decltype(allColumns)::value || column < columns)
            epilogue.visit(n, channelBase + column, rows.pixel(local),
                           tile[column * kTileStride + local], none);
        }
      }
    };
    if (columns >= BN)
      visitElements(std::true_type{});
    else
      visitElements(std::false_type{});
    return;
  } else if constexpr ((!Epilogue::kStoresElements || kChannelsLast) &&
                       BN <= MainLoop::kThreads &&
                sizeof(Partials) * MainLoop::kThreads <= MainLoop::Tile::kBytes) {
    // A thread per (channel, slice of the pixels) keeps its partial in
    // registers, and the slices merge through shared memory in a fixed
    // order, instead of a warp combining every channel across its lanes.
    // Where nothing is stored per element (W1: statistics only), coalescing
    // does not matter: each thread starts its slice at a pixel staggered by
    // its channel, so a warp's reads of the channel-major tile spread over
    // the banks. Channels-last, a warp's lanes take consecutive channels of
    // one pixel: its stores and reads run along the channels (a lane a
    // channel down the pixels wrote 4 bytes a 32-byte sector).
    constexpr int kSlices = MainLoop::kThreads / BN;
    const int column = threadIdx.x % BN, slice = threadIdx.x / BN;
    const int channel = channelBase + column;
    Partials partials;
    if (slice < kSlices && channel < channels.end) {
      const int count = (pixels - slice + kSlices - 1) / kSlices;
      int j = count > 0 && !kChannelsLast ? column % count : 0;
      // Rows mapped to positions all inside the output (a main loop's
      // whole tile, below): no check an element, so what the epilogue
      // reads of the thread's channel loads once, out of the loop.
      bool whole = false;
      if constexpr (kMappedRows && VisitsFullTilesUnguarded<MainLoop>::value)
        whole = rows.whole();
      if (whole) {
        for (int visited = 0; visited < count; ++visited) {
          const int local = slice + kSlices * j;
          epilogue.visit(n, channel, rows.pixel(local), tile[column * kTileStride + local],
                         partials);
          j = j + 1 == count ? 0 : j + 1;
        }
      } else {
        for (int visited = 0; visited < count; ++visited) {
          const int local = slice + kSlices * j, pixel = rows.pixel(local);
          if (!kMappedRows || pixel >= 0)
            epilogue.visit(n, channel, pixel, tile[column * kTileStride + local], partials);
          j = j + 1 == count ? 0 : j + 1;
        }
      }
    }
    __syncthreads(); // the slices' partials reuse the tile
    Partials *slots = reinterpret_cast<Partials *>(tile);
    if (slice < kSlices)
      slots[slice * BN + column] = partials;
    __syncthreads();
    if (threadIdx.x < BN && channelBase + int(threadIdx.x) < channels.end) {
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
  constexpr int kLanesPerChannel = BN >= 8 * MainLoop::kWarps ? 8 : 32;
  constexpr int kChannelsPerStep = 2 * (32 / kLanesPerChannel);
  static_assert(kTileStride % 32 == 4, "the bank spread assumes BM + 4");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int laneGroup = lane / kLanesPerChannel, laneInGroup = lane % kLanesPerChannel;
  for (int c0 = warp * kChannelsPerStep; c0 < BN;
       c0 += MainLoop::kWarps * kChannelsPerStep) {
    Partials partials[2];
    const int firstLocal = c0 + 2 * laneGroup;
    // A full tile (every row a pixel, both channels in range) of a main
    // loop that asks for it (the depthwise conv) is visited unguarded: then
    // what the epilogue reads a channel (a bias, BatchNorm's scale and
    // shift) loads once, not once an element behind its own branch (a
    // depthwise 3x3 with BatchNorm and ReLU6: 15 instructions an element, 3
    // of them loads of the same three floats). Unrolled by 4, not whole: a
    // GELU's erf 28 times over made the 7x7's kernel 16% slower; and the
    // implicit GEMM's store epilogues ran 4-6% slower unguarded (tf32).
    bool full = false;
    if constexpr (VisitsFullTilesUnguarded<MainLoop>::value) {
      bool inside = true; // rows mapped to positions: all of them in the output
      if constexpr (kMappedRows)
        inside = rows.whole();
      full = inside && pixels >= BM && firstLocal + 1 < BN &&
             channelBase + firstLocal + 1 < channels.end;
    }
    if (full) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll 4
        for (int i = 0; i < BM / kLanesPerChannel; ++i) {
          const int row = laneInGroup + kLanesPerChannel * i;
          epilogue.visit(n, channelBase + firstLocal + h, rows.pixel(row),
                         tile[(firstLocal + h) * kTileStride + row], partials[h]);
        }
    } else {
      // The lane's rows as a trip count, not a check an element, and both
      // channels of a row in one step: a check an element made each visit
      // a block of its own, so an epilogue that reads an element (a
      // residual) waited out each load before issuing the next. ResNet-50's
      // 1x1 64 -> 256 conv with its residual took 0.27 ms, 4x the same conv
      // storing alone (H200, tf32). Eight rows a step: sixteen loads in
      // flight a thread (that conv 98 -> 87 us against four rows).
      const int below = laneInGroup < pixels
                            ? (pixels - laneInGroup + kLanesPerChannel - 1) / kLanesPerChannel
                            : 0;
      const int count = below < BM / kLanesPerChannel ? below : BM / kLanesPerChannel;
      const int channel = channelBase + firstLocal;
      const int channelsHere = firstLocal >= BN || channel >= channels.end ? 0
                               : firstLocal + 1 < BN && channel + 1 < channels.end ? 2
                                                                                   : 1;
      const auto visitRows = [&](auto channelCount) {
#pragma unroll 8
        for (int i = 0; i < count; ++i) {
          const int row = laneInGroup + kLanesPerChannel * i;
          const int pixel = rows.pixel(row);
          if (!kMappedRows || pixel >= 0) {
#pragma unroll
            for (int h = 0; h < decltype(channelCount)::value; ++h)
              epilogue.visit(n, channel + h, pixel, tile[(firstLocal + h) * kTileStride + row],
                             partials[h]);
          }
        }
      };
      if (channelsHere == 2)
        visitRows(std::integral_constant<int, 2>{});
      else if (channelsHere == 1)
        visitRows(std::integral_constant<int, 1>{});
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
      partials[h] = combineLanes<kLanesPerChannel>(partials[h]);
    if (laneInGroup == 0)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int local = c0 + 2 * laneGroup + h;
        if (local < BN && channelBase + local < channels.end)
          epilogue.storePartials(n, channelBase + local, pixelTile, partials[h]);
      }
  }
}

} // namespace solder

#endif // SOLDER_EPILOGUE_TILE_VISIT_CUH
