//===- epilogue/fragment_visit.cuh - The conv epilogue's walk of registers ===//
//
// A main loop that keeps each thread's accumulators in registers without a
// tile (the FMA fallback) hands the epilogue its Fragment, which says the
// output pixel of each row and the channel of each column; a channel's
// column lies across kLanesPerChannel lanes, which combine its partial
// reductions in a fixed order before the first stores them.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_FRAGMENT_VISIT_CUH
#define SOLDER_EPILOGUE_FRAGMENT_VISIT_CUH

#include "solder/conv/geometry.cuh"
#include "solder/reduce.cuh"

namespace solder {

/// Visits every valid accumulator of `fragment` (tile `work`) with the
/// generated epilogue (see visitTile for what Epilogue provides).
template <class Fragment, class Epilogue>
__device__ __forceinline__ void visitFragment(const Epilogue &epilogue, const Fragment &fragment,
                                              const WorkTile &work) {
#pragma unroll
  for (int j = 0; j < Fragment::kColumns; ++j) {
    bool channelValid;
    const long channel = fragment.channel(j, channelValid);
    typename Epilogue::Partials partials;
#pragma unroll
    for (int i = 0; i < Fragment::kRows; ++i) {
      const int pixel = fragment.pixel(i);
      if (channelValid && pixel >= 0)
        epilogue.visit(work.n, channel, pixel, fragment.acc[i][j], partials);
    }
    partials = combineLanes<Fragment::kLanesPerChannel>(partials);
    if (threadIdx.x % Fragment::kLanesPerChannel == 0 && channelValid)
      epilogue.storePartials(work.n, channel, work.pixelTile, partials);
  }
}

} // namespace solder

#endif // SOLDER_EPILOGUE_FRAGMENT_VISIT_CUH
