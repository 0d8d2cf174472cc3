//===- reduce.cuh - Accumulators of the reduction kinds ------------------===//
//
// One accumulator type per `solder.reduce` kind, each with add (one element)
// and merge (another partial), so the same code serves a serial loop in one
// thread and a fixed-order tree across threads. NaN propagates as in PyTorch.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_REDUCE_CUH
#define SOLDER_DEVICE_REDUCE_CUH

#include <math.h>
#include <math_constants.h>

namespace solder {

// Sums accumulate in double: a sum of many values with a large common mean
// (a conv output at x + 1000) loses the digits that a later subtraction of
// the mean needs (mean(group_norm(y)) = mean_c(y) - group mean, scaled).
// The adds are few next to the work producing the values.
struct SumAccumulator {
  double sum = 0.0;
  /// float, or double where the generated code kept a term in double.
  template <class Real> __device__ __forceinline__ void add(Real x) { sum += x; }
  __device__ __forceinline__ SumAccumulator shuffleDown(unsigned offset,
                                                        int width) const {
    return SumAccumulator{__shfl_down_sync(0xffffffffu, sum, offset, width)};
  }
  __device__ __forceinline__ void merge(const SumAccumulator &o) { sum += o.sum; }
  __device__ __forceinline__ float result(float) const { return float(sum); }
};

struct MeanAccumulator {
  double sum = 0.0;
  template <class Real> __device__ __forceinline__ void add(Real x) { sum += x; }
  __device__ __forceinline__ MeanAccumulator shuffleDown(unsigned offset, int width) const {
    return MeanAccumulator{__shfl_down_sync(0xffffffffu, sum, offset, width)};
  }
  __device__ __forceinline__ void merge(const MeanAccumulator &o) { sum += o.sum; }
  __device__ __forceinline__ float result(float count) const {
    return float(sum / count);
  }
};

struct ProdAccumulator {
  float product = 1.0f;
  __device__ __forceinline__ void add(float x) { product *= x; }
  __device__ __forceinline__ ProdAccumulator shuffleDown(unsigned offset, int width) const {
    return ProdAccumulator{__shfl_down_sync(0xffffffffu, product, offset, width)};
  }
  __device__ __forceinline__ void merge(const ProdAccumulator &o) { product *= o.product; }
  __device__ __forceinline__ float result(float) const { return product; }
};

struct MaxAccumulator {
  float value = -INFINITY;
  __device__ __forceinline__ void add(float x) {
    if (isnan(value)) return; // NaN is sticky
    value = (isnan(x) || x > value) ? x : value;
  }
  __device__ __forceinline__ MaxAccumulator shuffleDown(unsigned offset, int width) const {
    return MaxAccumulator{__shfl_down_sync(0xffffffffu, value, offset, width)};
  }
  __device__ __forceinline__ void merge(const MaxAccumulator &o) { add(o.value); }
  __device__ __forceinline__ float result(float) const { return value; }
};

struct MinAccumulator {
  float value = INFINITY;
  __device__ __forceinline__ void add(float x) {
    if (isnan(value)) return;
    value = (isnan(x) || x < value) ? x : value;
  }
  __device__ __forceinline__ MinAccumulator shuffleDown(unsigned offset, int width) const {
    return MinAccumulator{__shfl_down_sync(0xffffffffu, value, offset, width)};
  }
  __device__ __forceinline__ void merge(const MinAccumulator &o) { add(o.value); }
  __device__ __forceinline__ float result(float) const { return value; }
};

/// Online logsumexp: keeps the running max m and sum(exp(x - m)), rescaling
/// the sum when the max grows; one pass, stable, as torch.logsumexp.
struct LogSumExpAccumulator {
  float max = -INFINITY;
  float sum = 0.0f;
  __device__ __forceinline__ void add(float x) {
    if (isnan(x) || isnan(max)) {
      max = CUDART_NAN_F;
      return;
    }
    if (x == -CUDART_INF_F)
      return;
    if (x > max) {
      sum = sum * expf(max - x) + 1.0f;
      max = x;
    } else if (x == CUDART_INF_F) {
      // max is +inf too: the result is +inf whatever the sum.
    } else {
      sum += expf(x - max);
    }
  }
  /// A chunk at once: one max and one exp per element, the exps independent
  /// of each other (element at a time, each exp waited on the previous
  /// compare). Infinities, NaN and a running +inf take the element path;
  /// a NaN among finite elements turns the sum, then the max, into NaN.
  /// The chunk's exps are __expf (ex2.approx of x log2 e, without expf's
  /// range reduction; within 2 + 1.2 |x - top| ulp): the terms that carry
  /// the sum are those near the max, where it is within a few ulp, and a
  /// term below e^-17 of the max is under the sum's last bit (2^-24)
  /// wherever it lies. W3's tail (64 channels a pixel): 0.169 -> 0.160 ms
  /// on an H200, rel L2 vs float64 3.8e-8 either way
  /// (bench/tail_variants.cu).
  template <int K> __device__ __forceinline__ void addChunk(const float (&x)[K]) {
    float top = x[0];
#pragma unroll
    for (int k = 1; k < K; ++k)
      top = fmaxf(top, x[k]);
    if (!isfinite(top) || !(max < CUDART_INF_F)) {
#pragma unroll
      for (int k = 0; k < K; ++k)
        add(x[k]);
      return;
    }
    top = fmaxf(max, top);
    float scaled = sum * expf(max - top); // 0 while max is -inf
#pragma unroll
    for (int k = 0; k < K; ++k)
      scaled += __expf(x[k] - top);
    sum = scaled;
    max = isnan(scaled) ? CUDART_NAN_F : top;
  }
  __device__ __forceinline__ LogSumExpAccumulator shuffleDown(unsigned offset,
                                                              int width) const {
    return LogSumExpAccumulator{__shfl_down_sync(0xffffffffu, max, offset, width),
                                __shfl_down_sync(0xffffffffu, sum, offset, width)};
  }
  __device__ __forceinline__ void merge(const LogSumExpAccumulator &o) {
    if (isnan(o.max) || isnan(max)) {
      max = CUDART_NAN_F;
      return;
    }
    if (o.max == -CUDART_INF_F)
      return;
    if (o.max > max) {
      sum = sum * expf(max - o.max) + o.sum;
      max = o.max;
    } else {
      sum += o.sum * expf(o.max - max);
    }
  }
  __device__ __forceinline__ float result(float) const {
    if (isnan(max) || max == CUDART_INF_F)
      return max;
    return max + logf(sum);
  }
};


/// Adds a chunk of elements in order (float, or double where the generated
/// code kept the terms in double); accumulators with a faster way to take a
/// whole chunk overload it.
template <class Accumulator, class Real, int K>
__device__ __forceinline__ void addChunk(Accumulator &acc, const Real (&x)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k)
    acc.add(x[k]);
}
template <int K>
__device__ __forceinline__ void addChunk(LogSumExpAccumulator &acc, const float (&x)[K]) {
  acc.addChunk(x);
}

/// Merges the accumulators of each segment of `Width` lanes in a fixed
/// order; the first lane of each segment returns the total. Every lane of
/// the warp must call it.
/// `acc` with element(r) added for r = first, first + Width, ... below
/// Length: a thread of Width strided over one output's elements (a lane of
/// a warp or of a row's segment, a thread of a block), so that neighbours
/// load neighbouring elements, Chunk loads in flight before the
/// accumulator takes them (addChunk).
template <class Index, Index Length, int Chunk, int Width, class Accumulator, class Element>
__device__ __forceinline__ Accumulator accumulateStrided(Accumulator acc, const int first,
                                                         const Element &element) {
  using Value = decltype(element(Index(first)));
  constexpr Index kStep = Index(Chunk) * Width;
  Index r0 = 0;
  for (; r0 + kStep <= Length; r0 += kStep) {
    Value chunk[Chunk];
#pragma unroll
    for (int k = 0; k < Chunk; ++k)
      chunk[k] = element(r0 + first + Index(k) * Width);
    addChunk(acc, chunk);
  }
  for (Index r = r0 + first; r < Length; r += Width)
    acc.add(element(r));
  return acc;
}

template <int Width, class Accumulator>
__device__ __forceinline__ Accumulator combineLanes(Accumulator acc) {
  static_assert(Width > 0 && Width <= 32 && (Width & (Width - 1)) == 0,
                "Width is a power of two within a warp");
#pragma unroll
  for (unsigned offset = Width / 2; offset > 0; offset >>= 1)
    acc.merge(acc.shuffleDown(offset, Width));
  return acc;
}

/// Whether this block is the last of `count` blocks to arrive at `counter`,
/// for blocks that hand their shares of one result to the last of them
/// (split-K's tiles, split reductions): every thread calls it after its
/// stores of the block's share. The barrier and thread 0's fence release
/// them, the atomic counts the arrival, the second fence acquires the
/// other blocks' shares. atomicInc wraps the counter to zero at the last
/// arrival in the same atomic step: any whole number of launches leaves it
/// at zero (it is zero at the module's load).
__device__ __forceinline__ bool arrivesLast(unsigned *counter, unsigned count) {
  __syncthreads();
  int last = 0;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicInc(counter, count - 1) == count - 1;
    __threadfence();
  }
  return __syncthreads_or(last);
}

/// combineLanes over half-warps (16 lanes).
template <class Accumulator>
__device__ __forceinline__ Accumulator combineHalfWarp(Accumulator acc) {
  return combineLanes<16>(acc);
}

/// Merges the accumulators of a block of `Threads` threads (a power of two)
/// with a fixed-order tree in shared memory; every thread returns the total.
template <int Threads, class Accumulator>
__device__ __forceinline__ Accumulator combineBlock(Accumulator acc) {
  // Raw storage: __shared__ variables cannot have constructors.
  alignas(16) __shared__ unsigned char storage[Threads * sizeof(Accumulator)];
  Accumulator *partials = reinterpret_cast<Accumulator *>(storage);
  partials[threadIdx.x] = acc;
  __syncthreads();
#pragma unroll
  for (int stride = Threads / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      Accumulator merged = partials[threadIdx.x];
      merged.merge(partials[threadIdx.x + stride]);
      partials[threadIdx.x] = merged;
    }
    __syncthreads();
  }
  const Accumulator total = partials[0];
  __syncthreads(); // a later combine of the same type reuses the storage
  return total;
}

} // namespace solder

#endif // SOLDER_DEVICE_REDUCE_CUH
