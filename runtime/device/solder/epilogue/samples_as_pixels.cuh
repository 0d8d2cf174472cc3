//===- epilogue/samples_as_pixels.cuh - A GEMM-shaped conv's epilogue -----===//
//
// A conv whose main loop runs SamplesAsPixels<G> (conv/geometry.cuh) sees
// its samples as the pixels of one sample. SamplesAsPixelsEpilogue wraps the
// generated epilogue functor, written for the conv's own geometry, and hands
// it each element as (sample, channel, pixel 0). A tile now spans samples,
// while partial reductions are per sample: each element's partial is stored
// where it is visited, in the one pixel tile a sample has, so the finalize
// kernel reads the slots it would read for the conv's own tiles.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH
#define SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH

namespace solder {

template <class Epilogue> struct SamplesAsPixelsEpilogue {
  Epilogue inner;
  static constexpr bool kStoresElements = Epilogue::kStoresElements;
  static constexpr bool kConvMoments = false;
  static_assert(!Epilogue::kConvMoments, "the main loop hands over a tile");

  /// Nothing is carried across elements: each one's partial is stored at once.
  struct Partials {
    __device__ Partials shuffleDown(unsigned, int) const { return {}; }
    __device__ void merge(const Partials &) {}
  };

  __device__ __forceinline__ void visit(long, long channel, int sample, float acc,
                                        Partials &) const {
    typename Epilogue::Partials partials{};
    inner.visit(sample, channel, 0, acc, partials);
    inner.storePartials(sample, channel, /*pixelTile=*/0, partials);
  }
  __device__ __forceinline__ void storePartials(long, long, long, const Partials &) const {}
};

} // namespace solder

#endif // SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH
