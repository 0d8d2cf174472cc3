//===- epilogue/samples_as_pixels.cuh - Tiles across samples' epilogue ----===//
//
// A conv whose main loop runs its samples' pixels as one row sees one
// sample: a GEMM-shaped conv as SamplesAsPixels<G> (conv/geometry.cuh),
// its samples the pixels, or the Hopper main loop's tiles across samples
// (AcrossSamplePixelTiles), each sample's Volume pixels after the last's.
// SamplesAsPixelsEpilogue wraps the generated epilogue functor, written for
// the conv's own geometry, and hands it each element as (pixel / Volume,
// channel, pixel % Volume). Its partials are a tile's, not a sample's: the
// plan tiles across samples only where the region's epilogue reduces
// nothing per sample, only statistics across the batch (a training
// BatchNorm's), whose partials it stores as sample 0's
// (epilogueReducesPerSample); it leaves a GEMM's statistics to a reduction
// kernel (isConvEpilogueOp).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH
#define SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH

#include "solder/epilogue/tile_visit.cuh"

namespace solder {

template <class Epilogue, int Volume = 1> struct SamplesAsPixelsEpilogue {
  Epilogue inner;
  static constexpr bool kStoresElements = Epilogue::kStoresElements;
  static constexpr bool kChannelsLast = VisitsChannelsLast<Epilogue>::value;
  static constexpr bool kConvMoments = false;
  static_assert(!Epilogue::kConvMoments, "the main loop hands over a tile");
  using Partials = typename Epilogue::Partials;

  __device__ __forceinline__ void visit(long, long channel, int pixel, float acc,
                                        Partials &partials) const {
    inner.visit(pixel / Volume, channel, pixel % Volume, acc, partials);
  }
  /// A tile's partials of statistics across the batch: every sample's are
  /// sample 0's (the partial layout has one sample).
  __device__ __forceinline__ void storePartials(long, long channel, long pixelTile,
                                                const Partials &partials) const {
    inner.storePartials(0, channel, pixelTile, partials);
  }
};

} // namespace solder

#endif // SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH
