//===- kernel/conv_kernel.cuh - Main loop x epilogue x tile scheduler -----===//
//
// ConvKernel<MainLoop, Epilogue, TileScheduler> is the body of every conv
// kernel, as CUTLASS 3.x composes ConvUniversal from a collective main
// loop, an epilogue and a tile scheduler: the scheduler says which tiles a
// block computes (kernel/tile_scheduler.cuh), the main loop computes a
// tile's accumulators (conv/mainloop_*.cuh), and the generated epilogue
// functor says what the region does with each (epilogue/). The generated
// code renders only the `using` line of its instantiation and an entry
// point that forwards the kernel's parameters.
//
// A main loop hands its accumulators over in one of three ways:
//   * as the accumulator tile in shared memory (computeTile), which the
//     epilogue visits (visitTile): every tiled main loop;
//   * as its registers' channel moments (kTileMoments, computeTileMoments),
//     where the epilogue only reduces the conv output (kConvMoments): the
//     direct conv on tensor cores;
//   * as a register fragment the epilogue visits in place
//     (kFragmentEpilogue, computeFragment, visitFragment): the FMA fallback.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_CONV_KERNEL_CUH
#define SOLDER_KERNEL_CONV_KERNEL_CUH

#include "solder/epilogue/fragment_visit.cuh"
#include "solder/epilogue/samples_as_pixels.cuh"
#include "solder/epilogue/tile_visit.cuh"
#include "solder/kernel/tile_scheduler.cuh"

#include <type_traits>

namespace solder {

/// Whether main loop MainLoop sums its tiles' channel moments in registers
/// (MainLoop::kTileMoments) for an epilogue that takes them
/// (Epilogue::kConvMoments).
template <class MainLoop, class Epilogue, class = void>
struct TakesTileMoments : std::false_type {};
template <class MainLoop, class Epilogue>
struct TakesTileMoments<MainLoop, Epilogue, std::void_t<decltype(MainLoop::kTileMoments)>>
    : std::bool_constant<MainLoop::kTileMoments && Epilogue::kConvMoments> {};

/// Whether MainLoop's epilogue visits its register fragment in place.
template <class MainLoop, class = void> struct HasFragmentEpilogue : std::false_type {};
template <class MainLoop>
struct HasFragmentEpilogue<MainLoop, std::void_t<decltype(MainLoop::kFragmentEpilogue)>>
    : std::bool_constant<MainLoop::kFragmentEpilogue> {};

/// The samples MainLoop's grid of tiles runs over: 1 where its tiles run
/// across samples (MainLoop::kSamples), else every sample's tiles apart.
template <class MainLoop, class = void> struct SamplesOf {
  static constexpr int value = MainLoop::Geometry::kBatch;
};
template <class MainLoop> struct SamplesOf<MainLoop, std::void_t<decltype(MainLoop::kSamples)>> {
  static constexpr int value = MainLoop::kSamples;
};

/// The shares a main loop or tile scheduler splits a tile's K steps into
/// (T::kSplits; 1 where it has none).
template <class T, class = void> struct SplitsOf {
  static constexpr int value = 1;
};
template <class T> struct SplitsOf<T, std::void_t<decltype(T::kSplits)>> {
  static constexpr int value = T::kSplits;
};

/// MainLoop's dynamic shared memory under a scheduler.
template <class MainLoop, bool Persistent> struct SharedBytesOf {
  static constexpr int value = MainLoop::kSharedBytes;
};
template <class MainLoop> struct SharedBytesOf<MainLoop, true> {
  static constexpr int value = MainLoop::kPersistentSharedBytes;
};

/// MainLoop provides Geometry, kThreads, kPixelTiles, kChannelTiles, its
/// dynamic shared memory (kSharedBytes; a persistent one
/// kPersistentSharedBytes) and one of the hand-offs above:
///   float *computeTile(input, weight, work, shared, mainLoopArgs...)
///       the accumulator tile (MainLoop::Tile) of `work` in shared memory;
///       mainLoopArgs: what that main loop needs besides (TensorOpConv's
///       constants);
///   void computeTileMoments(input, weight, epilogue, work, shared)
///   Fragment computeFragment(input, weight, work)
/// and, for the persistent scheduler, its producer steps: issueWindow,
/// waitWindow, loadChannelTile, convertWindow, then computeStagedTile or
/// computeStagedMoments.
template <class MainLoop, class Epilogue, class TileScheduler> struct ConvKernel {
  static_assert(TileScheduler::kPixelTiles == MainLoop::kPixelTiles &&
                    TileScheduler::kChannelTiles == MainLoop::kChannelTiles &&
                    TileScheduler::kSamples == SamplesOf<MainLoop>::value &&
                    SplitsOf<TileScheduler>::value == SplitsOf<MainLoop>::value,
                "the plan's tiles are the main loop's");
  static constexpr int kSplits = SplitsOf<MainLoop>::value;
  static constexpr int kThreads = MainLoop::kThreads;
  static constexpr int kSharedBytes =
      SharedBytesOf<MainLoop, TileScheduler::kPersistent>::value;
  static constexpr bool kTakesTileMoments = TakesTileMoments<MainLoop, Epilogue>::value;

  template <class... MainLoopArgs>
  __device__ __forceinline__ static void run(const float *__restrict__ input,
                                             const float *__restrict__ weight,
                                             const Epilogue &epilogue, char *shared,
                                             const MainLoopArgs &...mainLoopArgs) {
    static_assert(kSplits == 1, "split-K tiles run through runSplitK");
    if constexpr (TileScheduler::kPersistent)
      runPersistent(input, weight, epilogue, shared);
    else
      runTile(input, weight, epilogue, TileScheduler::current(), shared, mainLoopArgs...);
  }

  /// Split-K: the block's share of its tile's K steps, then the scheduler's
  /// reduction of the shares, after which the last block of the tile
  /// visits it.
  template <class... MainLoopArgs>
  __device__ __forceinline__ static void
  runSplitK(const float *__restrict__ input, const float *__restrict__ weight,
            const Epilogue &epilogue, char *shared, const SplitKWorkspace &workspace,
            const MainLoopArgs &...mainLoopArgs) {
    static_assert(kSplits > 1 && !TileScheduler::kPersistent, "a grid of split tiles");
    const WorkTile work = TileScheduler::current();
    float *tile = MainLoop::computeTile(input, weight, work, shared, mainLoopArgs...);
    if (TileScheduler::template reduceSplits<typename MainLoop::Tile, kThreads>(tile, work,
                                                                                workspace))
      visitTile<MainLoop>(epilogue, tile, work);
  }

private:
  /// One tile, computed by this block alone.
  template <class... MainLoopArgs>
  __device__ __forceinline__ static void runTile(const float *__restrict__ input,
                                                 const float *__restrict__ weight,
                                                 const Epilogue &epilogue, const WorkTile &work,
                                                 char *shared,
                                                 const MainLoopArgs &...mainLoopArgs) {
    if constexpr (HasFragmentEpilogue<MainLoop>::value) {
      visitFragment(epilogue, MainLoop::computeFragment(input, weight, work), work);
    } else if constexpr (kTakesTileMoments) {
      MainLoop::computeTileMoments(input, weight, epilogue, work, shared);
    } else {
      float *tile = MainLoop::computeTile(input, weight, work, shared, mainLoopArgs...);
      visitTile<MainLoop>(epilogue, tile, work);
    }
  }

  /// Tile after tile: the next tile's window is copied while the current
  /// one is computed and visited.
  __device__ __forceinline__ static void runPersistent(const float *__restrict__ input,
                                                       const float *__restrict__ weight,
                                                       const Epilogue &epilogue, char *shared) {
    using TileIndex = typename TileScheduler::TileIndex;
    TileIndex tile = TileScheduler::first();
    if (tile >= TileScheduler::kTiles)
      return;
    const TileIndex step = TileScheduler::step();
    MainLoop::issueWindow(input, weight, TileScheduler::at(tile), shared);
    int loadedChannelBase = -1;
    for (; tile < TileScheduler::kTiles; tile += step) {
      const WorkTile work = TileScheduler::at(tile);
      MainLoop::waitWindow();
      __syncthreads(); // the raw window has landed; the last tile's visit is done
      // By its first channel: so computed, the persistent loop's tile
      // arithmetic stays on the uniform datapath (by the channel tile's
      // index, ptxas moved it to vector registers: W1's ieee conv alone
      // 2.7% slower on an H100; docs/perf-log/2026-11.md, 2026-11-25).
      const int channelBase = work.channelTile * MainLoop::BN;
      if (channelBase != loadedChannelBase) {
        MainLoop::loadChannelTile(weight, channelBase, shared);
        loadedChannelBase = channelBase;
        __syncthreads();
      }
      MainLoop::convertWindow(shared);
      __syncthreads(); // the window is ready and the raw buffer free
      if (tile + step < TileScheduler::kTiles)
        MainLoop::issueWindow(input, weight, TileScheduler::at(tile + step), shared);
      if constexpr (kTakesTileMoments)
        MainLoop::computeStagedMoments(epilogue, work, shared);
      else
        visitTile<MainLoop>(epilogue, MainLoop::computeStagedTile(shared), work);
    }
  }
};

} // namespace solder

#endif // SOLDER_KERNEL_CONV_KERNEL_CUH
