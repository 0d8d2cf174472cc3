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

__device__ __forceinline__ float inverseSqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ double inverseSqrt(double x) { return 1.0 / sqrt(x); }

/// Count, mean and M2 in T. The float form runs per element and within
/// blocks; the double form merges the many per-tile partials of a conv
/// epilogue, where a long chain of float merges loses about 1e-6 of M2 and so
/// of rstd, which mean(group_norm(y)) at x + 1000 multiplies by values of
/// order one.
template <class T> struct BasicWelford {
  T count = 0;
  T mean = 0;
  T m2 = 0;

  __device__ __forceinline__ void add(float x) {
    count += 1;
    T delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
  }

  /// Chan et al.: merges another partial into this one.
  template <class U>
  __device__ __forceinline__ void merge(const BasicWelford<U> &other) {
    if (other.count == 0)
      return;
    if (count == 0) {
      count = other.count;
      mean = other.mean;
      m2 = other.m2;
      return;
    }
    T total = count + other.count;
    T delta = T(other.mean) - mean;
    T otherShare = other.count / total;
    mean += delta * otherShare;
    m2 += other.m2 + delta * delta * count * otherShare;
    count = total;
  }

  /// The partial of the lane `offset` above, within segments of `width`.
  __device__ __forceinline__ BasicWelford shuffleDown(unsigned offset,
                                                      int width) const {
    BasicWelford other;
    other.count = __shfl_down_sync(0xffffffffu, count, offset, width);
    other.mean = __shfl_down_sync(0xffffffffu, mean, offset, width);
    other.m2 = __shfl_down_sync(0xffffffffu, m2, offset, width);
    return other;
  }

  /// 1 / sqrt(biased variance + epsilon), as torch's norms compute it.
  __device__ __forceinline__ float rstd(float epsilon) const {
    return float(inverseSqrt(m2 / count + T(epsilon)));
  }
};

using Welford = BasicWelford<float>;
using WelfordDouble = BasicWelford<double>;

} // namespace solder

#endif // SOLDER_DEVICE_WELFORD_CUH
