//===- epilogue/partials.cuh - Where a conv epilogue leaves its partials --===//
//
// A conv epilogue that reduces (group statistics, per-channel sums) writes one
// partial per (sample, pixel tile, channel) and the `_finalize` kernel combines
// them. PartialLayout is that buffer's one layout, used by both: channels run
// fastest, so a group's channels of one tile are adjacent for the reader.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_PARTIALS_CUH
#define SOLDER_EPILOGUE_PARTIALS_CUH

#include "solder/welford.cuh"

namespace solder {

template <long Samples, long PixelTiles, long Channels>
struct PartialLayout {
  static constexpr long kSamples = Samples, kPixelTiles = PixelTiles, kChannels = Channels;

  __device__ __forceinline__ static long slot(long n, long pixelTile, long c) {
    return (n * PixelTiles + pixelTile) * Channels + c;
  }

  /// Welford partials: (count, mean, M2), three floats a slot.
  __device__ __forceinline__ static void storeWelford(float *partials, long slot,
                                                      const Welford &stats) {
    float *to = partials + slot * 3;
    to[0] = stats.count;
    to[1] = stats.mean;
    to[2] = stats.m2;
  }
  __device__ __forceinline__ static Welford loadWelford(const float *partials, long slot) {
    const float *from = partials + slot * 3;
    return Welford{from[0], from[1], from[2]};
  }

  /// Sums: one float a slot.
  __device__ __forceinline__ static void storeSum(float *partials, long slot, float sum) {
    partials[slot] = sum;
  }
};

} // namespace solder

#endif // SOLDER_EPILOGUE_PARTIALS_CUH
