//===- welford.cuh - Mean and variance by Welford/Chan combination -------===//
//
// Statistics robust to a large mean (x + 1000): each partial keeps a count,
// a mean and the sum of squared deviations M2, and partials merge with Chan's
// formula. Merges happen in a fixed order, so results are bitwise
// reproducible run to run (no float atomics).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_WELFORD_CUH
#define SOLDER_DEVICE_WELFORD_CUH

namespace solder {

struct Welford {
  float count = 0.0f;
  float mean = 0.0f;
  float m2 = 0.0f;

  __device__ __forceinline__ void add(float x) {
    count += 1.0f;
    float delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
  }

  /// Chan et al.: merges another partial into this one.
  __device__ __forceinline__ void merge(const Welford &other) {
    if (other.count == 0.0f)
      return;
    if (count == 0.0f) {
      *this = other;
      return;
    }
    float total = count + other.count;
    float delta = other.mean - mean;
    float otherShare = other.count / total;
    mean += delta * otherShare;
    m2 += other.m2 + delta * delta * count * otherShare;
    count = total;
  }

  /// The partial of the lane `offset` above, within segments of `width`.
  __device__ __forceinline__ Welford shuffleDown(unsigned offset,
                                                 int width) const {
    Welford other;
    other.count = __shfl_down_sync(0xffffffffu, count, offset, width);
    other.mean = __shfl_down_sync(0xffffffffu, mean, offset, width);
    other.m2 = __shfl_down_sync(0xffffffffu, m2, offset, width);
    return other;
  }

  /// 1 / sqrt(biased variance + epsilon), as torch's norms compute it.
  __device__ __forceinline__ float rstd(float epsilon) const {
    return rsqrtf(m2 / count + epsilon);
  }
};

} // namespace solder

#endif // SOLDER_DEVICE_WELFORD_CUH
