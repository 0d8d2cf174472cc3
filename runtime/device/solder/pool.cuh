//===- pool.cuh - Outputs of max or average pooling -----------------------===//
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

/// A pool's result from its taps' running value: avg divides by kDivisor,
/// else by the window clipped to the padded input (kCountIncludePad), else
/// by the taps inside the input (`inside`); max is the running value.
template <class Window>
__device__ __forceinline__ float poolResult(float result, int inside, int d0, int h0, int w0) {
  if constexpr (Window::kKind == PoolKind::max)
    return result;
  if constexpr (Window::kDivisor != 0)
    return result / float(Window::kDivisor);
  if constexpr (!Window::kCountIncludePad)
    return result / float(inside);
  // PyTorch's padded window: clipped to the input plus its right padding.
  constexpr int kD = Window::kIn[0], kH = Window::kIn[1], kW = Window::kIn[2];
  const int padded =
      (min(d0 + Window::kKernel[0], kD + Window::kPadding[0]) - d0) *
      (min(h0 + Window::kKernel[1], kH + Window::kPadding[1]) - h0) *
      (min(w0 + Window::kKernel[2], kW + Window::kPadding[2]) - w0);
  return result / float(padded);
}

/// The pooled values at outputs (od, oh, ow0 + lane) of `plane`, lane <
/// Lanes (a vectorized region's float4), taps in PyTorch's order (depth,
/// then rows, then columns). max lets NaN win, as PyTorch does; padding
/// never wins. avg sums in fp32 and divides as poolResult says. The lanes'
/// windows overlap along a row: each input row they span is read once,
/// in float4s where the row's length allows (a 3x3 max pool of stride 2:
/// three float4 loads a row for four outputs, not twelve scalar ones).
template <class Window, int Lanes>
__device__ __forceinline__ void poolWindows(const float *__restrict__ x, long plane, int od,
                                            int oh, int ow0, float (&results)[Lanes]) {
  // Constants, not the arrays: device code cannot take a host array's address.
  constexpr int kD = Window::kIn[0], kH = Window::kIn[1], kW = Window::kIn[2];
  constexpr int kKD = Window::kKernel[0], kKH = Window::kKernel[1], kKW = Window::kKernel[2];
  constexpr int kPD = Window::kPadding[0], kPH = Window::kPadding[1], kPW = Window::kPadding[2];
  constexpr int kDD = Window::kDilation[0], kDH = Window::kDilation[1],
                kDW = Window::kDilation[2];
  constexpr int kSW = Window::kStride[2];
  // The input columns the lanes' windows span, from the first lane's first.
  constexpr int kSpan = (Lanes - 1) * kSW + (kKW - 1) * kDW + 1;
  // float4 loads: a row of a multiple of 4 columns starts 16-byte aligned,
  // and each aligned float4 of it lies wholly inside or wholly outside. With
  // ow0 a multiple of Lanes (the caller's), the first window's distance
  // from the float4 boundary below it is a constant: register indices.
  constexpr bool kVectorRows = kW % 4 == 0 && Lanes * kSW % 4 == 0;
  constexpr int kSkipped = kVectorRows ? (4 - kPW % 4) % 4 : 0;
  constexpr int kLoaded = kVectorRows ? (kSkipped + kSpan + 3) / 4 * 4 : kSpan;
  const float *in = x + plane * (long(kD) * kH * kW);
  const int d0 = od * Window::kStride[0] - kPD;
  const int h0 = oh * Window::kStride[1] - kPH;
  const int w0 = ow0 * kSW - kPW;
  const int first = w0 - kSkipped; // the first column loaded
  float running[Lanes];
#pragma unroll
  for (int lane = 0; lane < Lanes; ++lane)
    running[lane] = Window::kKind == PoolKind::max ? -CUDART_INF_F : 0.0f;
  int rowsInside = 0;
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
      ++rowsInside;
      const float *row = in + (long(d) * kH + h) * kW;
      float loaded[kLoaded];
      if constexpr (kVectorRows) {
#pragma unroll
        for (int chunk = 0; chunk < kLoaded / 4; ++chunk) {
          const int w = first + 4 * chunk;
          if (w >= 0 && w < kW) {
            const float4 four = __ldg(reinterpret_cast<const float4 *>(row + w));
            loaded[4 * chunk] = four.x;
            loaded[4 * chunk + 1] = four.y;
            loaded[4 * chunk + 2] = four.z;
            loaded[4 * chunk + 3] = four.w;
          }
        }
      } else {
#pragma unroll
        for (int c = 0; c < kLoaded; ++c)
          if (first + c >= 0 && first + c < kW)
            loaded[c] = __ldg(row + first + c);
      }
#pragma unroll
      for (int lane = 0; lane < Lanes; ++lane)
#pragma unroll
        for (int kw = 0; kw < kKW; ++kw) {
          const int w = w0 + lane * kSW + kw * kDW;
          if (w >= 0 && w < kW)
            poolTap<Window::kKind>(running[lane], loaded[kSkipped + lane * kSW + kw * kDW]);
        }
    }
  }
#pragma unroll
  for (int lane = 0; lane < Lanes; ++lane) {
    // avg without the padding: the taps inside the input.
    int columnsInside = 0;
#pragma unroll
    for (int kw = 0; kw < kKW; ++kw) {
      const int w = w0 + lane * kSW + kw * kDW;
      columnsInside += w >= 0 && w < kW;
    }
    results[lane] = poolResult<Window>(running[lane], rowsInside * columnsInside, d0, h0,
                                       w0 + lane * kSW);
  }
}

/// The pooled value at output (od, oh, ow) of `plane`: poolWindows of one
/// lane.
template <class Window>
__device__ __forceinline__ float poolWindow(const float *__restrict__ x, long plane,
                                            int od, int oh, int ow) {
  float result[1];
  poolWindows<Window, 1>(x, plane, od, oh, ow, result);
  return result[0];
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
