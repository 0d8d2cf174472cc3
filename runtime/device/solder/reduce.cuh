//===- reduce.cuh - Accumulators of the reduction kinds ------------------===//
//
// One accumulator type per `solder.reduce` kind, each with add (one element)
// and merge (another partial), so the same code serves a serial loop in one
// thread and a fixed-order tree across threads. NaN propagates as in PyTorch.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_REDUCE_CUH
#define SOLDER_DEVICE_REDUCE_CUH

#include <math_constants.h>

namespace solder {

struct SumAccumulator {
  float sum = 0.0f;
  __device__ __forceinline__ void add(float x) { sum += x; }
  __device__ __forceinline__ void merge(const SumAccumulator &o) { sum += o.sum; }
  __device__ __forceinline__ float result(float count) const { return sum; }
};

struct MeanAccumulator {
  float sum = 0.0f;
  __device__ __forceinline__ void add(float x) { sum += x; }
  __device__ __forceinline__ void merge(const MeanAccumulator &o) { sum += o.sum; }
  __device__ __forceinline__ float result(float count) const { return sum / count; }
};

struct ProdAccumulator {
  float product = 1.0f;
  __device__ __forceinline__ void add(float x) { product *= x; }
  __device__ __forceinline__ void merge(const ProdAccumulator &o) { product *= o.product; }
  __device__ __forceinline__ float result(float) const { return product; }
};

struct MaxAccumulator {
  float value = -CUDART_INF_F;
  __device__ __forceinline__ void add(float x) {
    if (isnan(value)) return; // NaN is sticky
    value = (isnan(x) || x > value) ? x : value;
  }
  __device__ __forceinline__ void merge(const MaxAccumulator &o) { add(o.value); }
  __device__ __forceinline__ float result(float) const { return value; }
};

struct MinAccumulator {
  float value = CUDART_INF_F;
  __device__ __forceinline__ void add(float x) {
    if (isnan(value)) return;
    value = (isnan(x) || x < value) ? x : value;
  }
  __device__ __forceinline__ void merge(const MinAccumulator &o) { add(o.value); }
  __device__ __forceinline__ float result(float) const { return value; }
};

/// Online logsumexp: keeps the running max m and sum(exp(x - m)), rescaling
/// the sum when the max grows; one pass, stable, as torch.logsumexp.
struct LogSumExpAccumulator {
  float max = -CUDART_INF_F;
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
    } else {
      sum += expf(x - max);
    }
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

} // namespace solder

#endif // SOLDER_DEVICE_REDUCE_CUH
