//===- pointwise.cuh - Helpers of generated pointwise code ---------------===//

#ifndef SOLDER_DEVICE_POINTWISE_CUH
#define SOLDER_DEVICE_POINTWISE_CUH

#include <math_constants.h>

namespace solder {

/// min(max(x, low), high), NaN in gives NaN out (as torch.clamp).
__device__ __forceinline__ float clampNaN(float x, float low, float high) {
  return isnan(x) ? x : fminf(fmaxf(x, low), high);
}

/// torch.maximum / torch.minimum: NaN if either operand is NaN.
__device__ __forceinline__ float maximumNaN(float a, float b) {
  return (isnan(a) || isnan(b)) ? CUDART_NAN_F : fmaxf(a, b);
}
__device__ __forceinline__ float minimumNaN(float a, float b) {
  return (isnan(a) || isnan(b)) ? CUDART_NAN_F : fminf(a, b);
}

} // namespace solder

#endif // SOLDER_DEVICE_POINTWISE_CUH
