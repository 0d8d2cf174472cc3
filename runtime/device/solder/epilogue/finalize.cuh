//===- epilogue/finalize.cuh - Combining a conv epilogue's partials -------===//
//
// The body of a conv region's `_finalize` kernel: each statistic or sum
// merges its partials (PartialLayout) over every pixel tile in a fixed order,
// in double, so results are bitwise reproducible without atomics. The
// generated kernel calls one function per reduction of the region.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_FINALIZE_CUH
#define SOLDER_EPILOGUE_FINALIZE_CUH

#include "solder/epilogue/partials.cuh"
#include "solder/reduce.cuh"
#include "solder/welford.cuh"

namespace solder {

/// Group statistic `blockIdx.x` (a block per statistic: sample x group, or
/// group when AcrossBatch) into out[2 o] (mean) and out[2 o + 1] (rstd);
/// blocks past the statistics return. The block strides over the group's
/// partials channel-fastest, eight loads in flight before their merges (one
/// partial a lane 1.5 KB apart left W2's finalize latency-bound), then
/// combines its threads in a fixed tree.
template <class Layout, long Groups, bool AcrossBatch, int Threads, class Out>
__device__ __forceinline__ void finalizeGroupStatistic(const float *__restrict__ partials,
                                                       Out *__restrict__ out, float epsilon) {
  constexpr long kStatistics = (AcrossBatch ? 1 : Layout::kSamples) * Groups;
  if (blockIdx.x >= kStatistics)
    return;
  const long o = blockIdx.x, g = o % Groups, firstSample = AcrossBatch ? 0 : o / Groups;
  constexpr long kPerGroup = Layout::kChannels / Groups;
  constexpr long kPerSample = kPerGroup * Layout::kPixelTiles;
  constexpr long kPartials = (AcrossBatch ? Layout::kSamples : 1) * kPerSample;
  WelfordDouble stats; // hundreds of merges or more: double
  for (long e0 = threadIdx.x; e0 < kPartials; e0 += 8L * Threads) {
    Welford loaded[8]; // loaded before any merge
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const long e = e0 + k * long(Threads);
      if (e >= kPartials)
        break;
      const long n = firstSample + e / kPerSample;
      const long p = e / kPerGroup % Layout::kPixelTiles, c = g * kPerGroup + e % kPerGroup;
      loaded[k] = Layout::loadWelford(partials, Layout::slot(n, p, c));
    }
#pragma unroll
    for (int k = 0; k < 8; ++k)
      stats.merge(loaded[k]); // empty past the end
  }
  stats = combineBlock<Threads>(stats);
  if (threadIdx.x == 0) {
    out[o * 2] = stats.mean;
    out[o * 2 + 1] = stats.rstd(epsilon);
  }
}

/// The sum over the spatial dims (its mean when MeanOf, the count, is not 0)
/// of channel t % C of sample t / C, t = blockIdx.x * Threads + threadIdx.x:
/// a thread each (threads past the sums return), eight running sums (pixel
/// tiles p = k mod 8) added in a fixed tree, so eight loads are in flight
/// instead of one.
template <class Layout, long MeanOf, int Threads, class Out>
__device__ __forceinline__ void finalizeChannelSum(const float *__restrict__ partials,
                                                   Out *__restrict__ out) {
  const long t = blockIdx.x * long(Threads) + threadIdx.x;
  if (t >= Layout::kSamples * Layout::kChannels)
    return;
  const long n = t / Layout::kChannels, c = t % Layout::kChannels;
  double sums[8] = {}; // as solder::SumAccumulator, eight apart
#pragma unroll 4
  for (long p0 = 0; p0 < Layout::kPixelTiles; p0 += 8)
#pragma unroll
    for (int k = 0; k < 8; ++k)
      if (p0 + k < Layout::kPixelTiles)
        sums[k] += partials[Layout::slot(n, p0 + k, c)];
  const double sum = ((sums[0] + sums[1]) + (sums[2] + sums[3])) +
                     ((sums[4] + sums[5]) + (sums[6] + sums[7]));
  out[t] = static_cast<Out>(MeanOf ? sum / double(MeanOf) : sum);
}

} // namespace solder

#endif // SOLDER_EPILOGUE_FINALIZE_CUH
