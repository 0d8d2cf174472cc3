//===- epilogue/samples_as_pixels.cuh - A GEMM-shaped conv's epilogue -----===//
//
// A conv whose main loop runs SamplesAsPixels<G> (conv/geometry.cuh) sees
// its samples as the pixels of one sample. SamplesAsPixelsEpilogue wraps the
// generated epilogue functor, written for the conv's own geometry, and hands
// it each element as (sample, channel, pixel 0). Such an epilogue reduces
// nothing: a statistic over a GEMM's rows would leave a partial per element,
// so the plan leaves it to a reduction kernel (isConvEpilogueOp).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH
#define SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH

#include <type_traits>

namespace solder {

template <class Epilogue> struct SamplesAsPixelsEpilogue {
  Epilogue inner;
  static constexpr bool kStoresElements = Epilogue::kStoresElements;
  static constexpr bool kConvMoments = false;
  static_assert(!Epilogue::kConvMoments, "the main loop hands over a tile");
  using Partials = typename Epilogue::Partials;
  static_assert(std::is_empty_v<Partials>, "a GEMM-shaped conv's epilogue reduces nothing");

  __device__ __forceinline__ void visit(long, long channel, int sample, float acc,
                                        Partials &partials) const {
    inner.visit(sample, channel, 0, acc, partials);
  }
  __device__ __forceinline__ void storePartials(long, long, long, const Partials &) const {}
};

} // namespace solder

#endif // SOLDER_EPILOGUE_SAMPLES_AS_PIXELS_CUH
