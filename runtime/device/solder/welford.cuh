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

/// A chunk of K elements (reduce.cuh's accumulateStrided): its own mean and
/// M2 from the registers (two passes), then one Chan merge, where adding
/// them one at a time put a division on each element's dependent chain
/// (a chunk's loads are in flight together; its additions were serial).
template <int K> __device__ __forceinline__ void addChunk(Welford &acc, const float (&x)[K]) {
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < K; ++k)
    sum += x[k];
  Welford chunk;
  chunk.count = float(K);
  chunk.mean = sum / float(K);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const float deviation = x[k] - chunk.mean;
    chunk.m2 = fmaf(deviation, deviation, chunk.m2);
  }
  acc.merge(chunk);
}

/// The Welford partial of `count` values from their sums about `shift`
/// (float, or double where the shift is an exact offset).
template <class Shift>
__device__ __forceinline__ Welford welfordFromShiftedSums(float count, Shift shift, float sum,
                                                        float sumSquares) {
  Welford result;
  if (count == 0)
    return result;
  const float meanOffset = sum / count;
  result.count = count;
  result.mean = float(shift + meanOffset);
  result.m2 = fmaxf(sumSquares - sum * meanOffset, 0.0f);
  return result;
}

/// Mean and M2 of one tile's elements, cheaper than Welford per element: sums
/// of x - shift and of its square, with the shift the lane's first element
/// (a sample of the same data, so the sums stay of the data's spread even at
/// x + 1000). No division per element, none per merge: a merge moves the
/// other partial to this one's shift. Converted to a Welford partial once per
/// tile (welford()).
struct ShiftedMoments {
  float shift = 0;
  float count = 0;
  float sum = 0;        // of x - shift
  float sumSquares = 0; // of (x - shift)^2

  __device__ __forceinline__ void add(float x) {
    shift = count == 0 ? x : shift;
    const float d = x - shift;
    count += 1;
    sum += d;
    sumSquares = fmaf(d, d, sumSquares);
  }

  __device__ __forceinline__ void merge(const ShiftedMoments &other) {
    shift = count == 0 ? other.shift : shift;
    // The other's sums about this shift: x - s = (x - s') + (s' - s).
    const float d = other.shift - shift;
    sumSquares += other.sumSquares + d * fmaf(2.0f, other.sum, other.count * d);
    sum = fmaf(other.count, d, sum + other.sum);
    count += other.count;
  }

  __device__ __forceinline__ ShiftedMoments shuffleDown(unsigned offset,
                                                        int width) const {
    ShiftedMoments other;
    other.shift = __shfl_down_sync(0xffffffffu, shift, offset, width);
    other.count = __shfl_down_sync(0xffffffffu, count, offset, width);
    other.sum = __shfl_down_sync(0xffffffffu, sum, offset, width);
    other.sumSquares = __shfl_down_sync(0xffffffffu, sumSquares, offset, width);
    return other;
  }

  __device__ __forceinline__ Welford welford() const {
    return welfordFromShiftedSums(count, shift, sum, sumSquares);
  }
};

} // namespace solder

#endif // SOLDER_DEVICE_WELFORD_CUH
