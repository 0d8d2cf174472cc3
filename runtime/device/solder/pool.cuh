//===- pool.cuh - One output element of max or average pooling ------------===//
//
// solder.pool as PyTorch computes it (max_pool1d/2d/3d, avg_pool1d/2d/3d):
// a window of kKernel taps, kStride apart, kDilation between taps, over an
// input padded by kPadding on both sides. A generated Window struct gives
// the shape as constants, 1-D and 2-D pools as 3-D ones with leading dims
// of size 1:
//   static constexpr PoolKind kKind;
//   static constexpr int kIn[3], kKernel[3], kStride[3], kPadding[3], kDilation[3];
//   static constexpr bool kCountIncludePad;   avg: divide by the padded window
//   static constexpr int kDivisor;            avg: divisor_override, 0 if none
// solder.adaptive_pool (adaptive_avg_pool*d, adaptive_max_pool*d to sizes
// that do not divide the input) has its own Window:
//   static constexpr PoolKind kKind;
//   static constexpr int kIn[3], kOut[3];
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_POOL_CUH
#define SOLDER_DEVICE_POOL_CUH

#include <math_constants.h>

namespace solder {

enum class PoolKind { max, avg };

/// One tap into a pool's running value: max lets NaN win (and keeps it, as
/// PyTorch does), avg sums in fp32.
template <PoolKind Kind> __device__ __forceinline__ void poolTap(float &result, float value) {
  if constexpr (Kind == PoolKind::max)
    result = (value > result || isnan(value)) ? value : result;
  else
    result += value;
}

/// The pooled value at output (od, oh, ow) of `plane` (n * C + c) of `x`,
/// taps in PyTorch's order (depth, then rows, then columns). max lets NaN
/// win, as PyTorch does; padding never wins. avg sums in fp32 and divides by
/// kDivisor, else by the window clipped to the padded input
/// (kCountIncludePad), else by the taps inside the input.
template <class Window>
__device__ __forceinline__ float poolWindow(const float *__restrict__ x, long plane,
                                            int od, int oh, int ow) {
  // Constants, not the arrays: device code cannot take a host array's address.
  constexpr int kD = Window::kIn[0], kH = Window::kIn[1], kW = Window::kIn[2];
  constexpr int kKD = Window::kKernel[0], kKH = Window::kKernel[1], kKW = Window::kKernel[2];
  constexpr int kPD = Window::kPadding[0], kPH = Window::kPadding[1], kPW = Window::kPadding[2];
  constexpr int kDD = Window::kDilation[0], kDH = Window::kDilation[1],
                kDW = Window::kDilation[2];
  constexpr bool kMax = Window::kKind == PoolKind::max;
  const float *in = x + plane * (long(kD) * kH * kW);
  const int d0 = od * Window::kStride[0] - kPD;
  const int h0 = oh * Window::kStride[1] - kPH;
  const int w0 = ow * Window::kStride[2] - kPW;
  float result = kMax ? -CUDART_INF_F : 0.0f;
  int inside = 0;
#pragma unroll
  for (int kd = 0; kd < kKD; ++kd) {
    const int d = d0 + kd * kDD;
    if (d < 0 || d >= kD)
      continue;
#pragma unroll
    for (int kh = 0; kh < kKH; ++kh) {
      const int h = h0 + kh * kDH;
      if (h < 0 || h >= kH)
        continue;
#pragma unroll
      for (int kw = 0; kw < kKW; ++kw) {
        const int w = w0 + kw * kDW;
        if (w < 0 || w >= kW)
          continue;
        poolTap<Window::kKind>(result, __ldg(in + (long(d) * kH + h) * kW + w));
        ++inside;
      }
    }
  }
  if constexpr (kMax)
    return result;
  if constexpr (Window::kDivisor != 0)
    return result / float(Window::kDivisor);
  if constexpr (!Window::kCountIncludePad)
    return result / float(inside);
  // PyTorch's padded window: clipped to the input plus its right padding.
  const int padded = (min(d0 + kKD, kD + kPD) - d0) * (min(h0 + kKH, kH + kPH) - h0) *
                     (min(w0 + kKW, kW + kPW) - w0);
  return result / float(padded);
}

/// PyTorch's adaptive window of output `o` along a dim of In inputs and Out
/// outputs: [floor(o * In / Out), ceil((o + 1) * In / Out)), in 64 bits
/// (o * In may pass 2^31 where each fits an int).
template <int In, int Out> struct AdaptiveSpan {
  int begin, end;
  __device__ __forceinline__ explicit AdaptiveSpan(int o)
      : begin(int(long(o) * In / Out)), end(int(((o + 1L) * In + Out - 1) / Out)) {}
};

/// The adaptively pooled value at output (od, oh, ow) of `plane`: windows of
/// varying size that may overlap (AdaptiveSpan along each dim). max lets NaN
/// win; avg divides the fp32 sum by the window's size.
template <class Window>
__device__ __forceinline__ float adaptivePoolWindow(const float *__restrict__ x, long plane,
                                                    int od, int oh, int ow) {
  constexpr int kD = Window::kIn[0], kH = Window::kIn[1], kW = Window::kIn[2];
  const AdaptiveSpan<kD, Window::kOut[0]> depth(od);
  const AdaptiveSpan<kH, Window::kOut[1]> rows(oh);
  const AdaptiveSpan<kW, Window::kOut[2]> columns(ow);
  const float *in = x + plane * (long(kD) * kH * kW);
  float result = Window::kKind == PoolKind::max ? -CUDART_INF_F : 0.0f;
  for (int d = depth.begin; d < depth.end; ++d)
    for (int h = rows.begin; h < rows.end; ++h)
      for (int w = columns.begin; w < columns.end; ++w)
        poolTap<Window::kKind>(result, __ldg(in + (long(d) * kH + h) * kW + w));
  if constexpr (Window::kKind == PoolKind::max)
    return result;
  return result / float((depth.end - depth.begin) * (rows.end - rows.begin) *
                        (columns.end - columns.begin));
}

} // namespace solder

#endif // SOLDER_DEVICE_POOL_CUH
