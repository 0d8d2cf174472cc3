// Unit test of the device templates in runtime/device/solder, on their own:
//  * the accumulators: Welford/Chan statistics on data with a large mean,
//    NaN/inf semantics (torch's), the bitwise determinism of the combines;
//  * every conv main loop under ConvKernel (grid and persistent tile
//    schedulers) against a float64 conv, through each of the epilogue's
//    hand-offs: the accumulator tile (visitTile, storing or reducing), the
//    register fragment (visitFragment) and the registers' channel moments
//    (storeMmaTileMoments), with the partials' layout and the finalize;
//  * the elementwise and reduction kernel templates over test Regions.
// Built and run by run_gpu_suite.sh:
//   nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I runtime/device \
//     -I third_party/cutlass/include test/gpu/device_templates_test.cu && ./a.out

#include <solder/conv/layout.cuh>
#include <solder/conv/mainloop_depthwise.cuh>
#include <solder/conv/mainloop_direct_fma.cuh>
#include <solder/conv/mainloop_direct_tensorop.cuh>
#include <solder/conv/mainloop_implicit_gemm_fma.cuh>
#include <solder/conv/mainloop_implicit_gemm_tensorop.cuh>
#include <solder/epilogue/finalize.cuh>
#include <solder/kernel/conv_kernel.cuh>
#include <solder/kernel/elementwise_kernel.cuh>
#include <solder/kernel/reduction_kernel.cuh>
#include <solder/reduce.cuh>
#include <solder/welford.cuh>

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t status = (call);                                               \
    if (status != cudaSuccess) {                                               \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(status),      \
                  __FILE__, __LINE__);                                         \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// One block: each thread adds a strided slice, then the block combines.
__global__ void welfordKernel(const float *x, int n, float epsilon, float *out) {
  solder::Welford acc;
  for (int i = threadIdx.x; i < n; i += 256)
    acc.add(x[i]);
  acc = solder::combineBlock<256>(acc);
  if (threadIdx.x == 0) {
    out[0] = acc.mean;
    out[1] = acc.m2 / acc.count;
    out[2] = acc.rstd(epsilon);
  }
}

// Half-warp combine: lanes 0 and 16 hold the totals of their half-warps.
__global__ void halfWarpKernel(const float *x, float *out) {
  solder::Welford acc;
  acc.add(x[threadIdx.x]);
  acc = solder::combineHalfWarp(acc);
  if (threadIdx.x % 16 == 0) {
    out[threadIdx.x / 16 * 2] = acc.mean;
    out[threadIdx.x / 16 * 2 + 1] = acc.m2;
  }
}

// A conv tile's statistics as the tensor-core epilogue computes them: each
// lane adds `perLane` values (lanes >= activeLanes add none), the warp
// combines, lane 0 converts to a Welford partial.
__global__ void shiftedMomentsKernel(const float *x, int perLane, int activeLanes,
                                     float *out) {
  solder::ShiftedMoments acc;
  if (threadIdx.x < activeLanes)
    for (int i = 0; i < perLane; ++i)
      acc.add(x[threadIdx.x + 32 * i]);
  acc = solder::combineLanes<32>(acc);
  if (threadIdx.x == 0) {
    solder::Welford stats = acc.welford();
    out[0] = stats.count;
    out[1] = stats.mean;
    out[2] = stats.m2;
  }
}

template <class Accumulator>
__global__ void rowKernel(const float *x, int rows, int length, float *out) {
  int row = blockIdx.x;
  Accumulator acc;
  for (int i = threadIdx.x; i < length; i += 256)
    acc.add(x[row * length + i]);
  acc = solder::combineBlock<256>(acc);
  if (threadIdx.x == 0)
    out[row] = acc.result(length);
}

/// A thread per row of 8, added as two chunks of 4 (solder::addChunk, as
/// the generated thread-per-output reductions do).
template <class Accumulator>
__global__ void chunkedRowKernel(const float *x, int rows, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  Accumulator acc;
  for (int c = 0; c < 2; ++c) {
    float chunk[4];
    for (int k = 0; k < 4; ++k)
      chunk[k] = x[row * 8 + c * 4 + k];
    solder::addChunk(acc, chunk);
  }
  out[row] = acc.result(8);
}

/// torch.logsumexp of a row: NaN if any is, else +inf if any is, else
/// m + log(sum(exp(x - m))) (-inf when all are -inf).
static double referenceLogSumExp(const float *x, int length) {
  double top = -INFINITY;
  bool nan = false;
  for (int i = 0; i < length; ++i) {
    nan |= std::isnan(x[i]);
    top = std::max(top, double(x[i]));
  }
  if (nan)
    return NAN;
  if (std::isinf(top))
    return top;
  double sum = 0;
  for (int i = 0; i < length; ++i)
    sum += std::exp(double(x[i]) - top);
  return top + std::log(sum);
}

static int failures = 0;
static void expect(bool ok, const char *what, double got, double want) {
  std::printf("%-58s %s (got %.9g, want %.9g)\n", what, ok ? "PASS" : "FAIL",
              got, want);
  failures += !ok;
}

static bool same(float a, double b, double tolerance) {
  if (std::isnan(b))
    return std::isnan(a);
  if (std::isinf(b))
    return a == static_cast<float>(b);
  return std::fabs(a - b) <= tolerance * (1.0 + std::fabs(b));
}

static void testAccumulators() {
  // Welford on 1e6 values around 1000 (where sum of squares loses all digits).
  const int n = 1 << 20;
  std::vector<float> host(n);
  unsigned state = 12345;
  double mean = 0, m2 = 0;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    host[i] = 1000.0f + (state >> 8) / 16777216.0f;
  }
  for (float v : host) mean += v;
  mean /= n;
  for (float v : host) m2 += (v - mean) * (v - mean);
  double variance = m2 / n;
  float *x, *out;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, 64 * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float got[3], again[3];
  welfordKernel<<<1, 256>>>(x, n, 1e-5f, out);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  welfordKernel<<<1, 256>>>(x, n, 1e-5f, out);
  CHECK_CUDA(cudaMemcpy(again, out, sizeof(again), cudaMemcpyDeviceToHost));
  expect(same(got[0], mean, 1e-6), "Welford mean, data at 1000 + U[0,1)", got[0], mean);
  expect(same(got[1], variance, 1e-3), "Welford variance, data at 1000 + U[0,1)", got[1], variance);
  expect(same(got[2], 1.0 / std::sqrt(variance + 1e-5), 1e-3), "Welford rstd", got[2],
         1.0 / std::sqrt(variance + 1e-5));
  expect(got[0] == again[0] && got[1] == again[1], "combineBlock bitwise identical twice",
         got[1], again[1]);

  // Shifted moments of a tile at 1000 + U[0,1): 4 values on each of 32
  // lanes, and on the first 13 lanes only (a tile's partial last pixels).
  for (int active : {32, 13}) {
    const int perLane = 4, count = active * perLane;
    double m = 0, s = 0;
    for (int i = 0; i < perLane; ++i)
      for (int lane = 0; lane < active; ++lane) m += host[lane + 32 * i];
    m /= count;
    for (int i = 0; i < perLane; ++i)
      for (int lane = 0; lane < active; ++lane)
        s += (host[lane + 32 * i] - m) * (host[lane + 32 * i] - m);
    float moments[3], momentsAgain[3];
    shiftedMomentsKernel<<<1, 32>>>(x, perLane, active, out);
    CHECK_CUDA(cudaMemcpy(moments, out, sizeof(moments), cudaMemcpyDeviceToHost));
    shiftedMomentsKernel<<<1, 32>>>(x, perLane, active, out);
    CHECK_CUDA(cudaMemcpy(momentsAgain, out, sizeof(momentsAgain), cudaMemcpyDeviceToHost));
    char what[96];
    std::snprintf(what, sizeof(what), "ShiftedMoments mean, %d lanes at 1000 + U[0,1)", active);
    expect(moments[0] == count && same(moments[1], m, 1e-7), what, moments[1], m);
    std::snprintf(what, sizeof(what), "ShiftedMoments M2, %d lanes at 1000 + U[0,1)", active);
    expect(same(moments[2], s, 1e-4), what, moments[2], s);
    expect(moments[1] == momentsAgain[1] && moments[2] == momentsAgain[2],
           "ShiftedMoments combine bitwise identical twice", moments[2], momentsAgain[2]);
  }

  // Half-warp combine of 32 lanes: two totals of 16 values.
  halfWarpKernel<<<1, 32>>>(x, out);
  float halves[4];
  CHECK_CUDA(cudaMemcpy(halves, out, sizeof(halves), cudaMemcpyDeviceToHost));
  for (int h = 0; h < 2; ++h) {
    double m = 0, s = 0;
    for (int i = 0; i < 16; ++i) m += host[h * 16 + i];
    m /= 16;
    for (int i = 0; i < 16; ++i) s += (host[h * 16 + i] - m) * (host[h * 16 + i] - m);
    expect(same(halves[h * 2], m, 1e-6) && same(halves[h * 2 + 1], s, 1e-2),
           h ? "combineHalfWarp, lanes 16..31" : "combineHalfWarp, lanes 0..15",
           halves[h * 2 + 1], s);
  }

  // Rows with inf, -inf and NaN: logsumexp and max as torch computes them.
  const float inf = INFINITY, nan = NAN;
  const int length = 4;
  std::vector<float> rows = {1, 2, 3, 4,          // finite
                             1, inf, 2, 3,        // +inf
                             -inf, -inf, -inf, -inf,  // all -inf
                             1, nan, 2, 3,        // NaN
                             inf, inf, 1, 2,      // two +inf
                             -inf, 0, 1, -inf};   // some -inf
  int numRows = rows.size() / length;
  std::vector<double> lse = {4 + std::log(std::exp(-3.0) + std::exp(-2.0) + std::exp(-1.0) + 1.0),
                             inf, -inf, nan, inf, 1 + std::log(std::exp(-1.0) + 1.0)};
  std::vector<double> maxima = {4, inf, -inf, nan, inf, 1};
  CHECK_CUDA(cudaMemcpy(x, rows.data(), rows.size() * sizeof(float), cudaMemcpyHostToDevice));
  float results[8];
  rowKernel<solder::LogSumExpAccumulator><<<numRows, 256>>>(x, numRows, length, out);
  CHECK_CUDA(cudaMemcpy(results, out, numRows * sizeof(float), cudaMemcpyDeviceToHost));
  const char *names[] = {"finite", "+inf", "all -inf", "NaN", "two +inf", "some -inf"};
  char label[96];
  for (int r = 0; r < numRows; ++r) {
    std::snprintf(label, sizeof(label), "LogSumExpAccumulator, row %s", names[r]);
    expect(same(results[r], lse[r], 1e-6), label, results[r], lse[r]);
  }
  rowKernel<solder::MaxAccumulator><<<numRows, 256>>>(x, numRows, length, out);
  CHECK_CUDA(cudaMemcpy(results, out, numRows * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < numRows; ++r) {
    std::snprintf(label, sizeof(label), "MaxAccumulator, row %s", names[r]);
    expect(same(results[r], maxima[r], 0), label, results[r], maxima[r]);
  }

  // The chunked logsumexp against torch's, with the special values in either
  // chunk and a max that grows from one chunk to the next.
  std::vector<float> chunkRows = {
      1, 2, 3, 4, 5, 6, 7, 8,                 // finite
      -50, -40, -30, -20, 60, 70, 80, 90,     // the max grows past exp's range
      90, 80, 70, 60, -20, -30, -40, -50,     // the max stays
      1, nan, 2, 3, 4, 5, 6, 7,               // NaN in the first chunk
      1, nan, 2, 3, inf, 5, 6, 7,             // NaN, then +inf: NaN
      inf, 1, 2, 3, nan, 5, 6, 7,             // +inf, then NaN: NaN
      1, 2, 3, 4, 5, inf, 6, 7,               // +inf in the second chunk
      inf, 1, 2, 3, 4, 5, 6, 7,               // +inf, then finite
      -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf,  // all -inf
      -inf, -inf, -inf, -inf, 1, -inf, 2, -inf,        // -inf chunk, then finite
      3, -inf, 1, 2, -inf, -inf, -inf, -inf,           // finite, then a -inf chunk
  };
  const char *chunkNames[] = {"finite", "growing max", "shrinking values", "NaN",
                              "NaN then +inf", "+inf then NaN", "+inf second",
                              "+inf first", "all -inf", "-inf chunk first",
                              "-inf chunk second"};
  const int chunkRowCount = chunkRows.size() / 8;
  CHECK_CUDA(cudaMemcpy(x, chunkRows.data(), chunkRows.size() * sizeof(float),
                        cudaMemcpyHostToDevice));
  chunkedRowKernel<solder::LogSumExpAccumulator><<<1, 32>>>(x, chunkRowCount, out);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> chunkResults(chunkRowCount);
  CHECK_CUDA(cudaMemcpy(chunkResults.data(), out, chunkRowCount * sizeof(float),
                        cudaMemcpyDeviceToHost));
  for (int r = 0; r < chunkRowCount; ++r) {
    double want = referenceLogSumExp(&chunkRows[r * 8], 8);
    std::snprintf(label, sizeof(label), "LogSumExp addChunk, %s", chunkNames[r]);
    expect(same(chunkResults[r], want, 1e-6), label, chunkResults[r], want);
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(out));
}

//===----------------------------------------------------------------------===//
// Conv main loops under ConvKernel
//===----------------------------------------------------------------------===//

/// Random floats from a fixed seed: uniform in [offset - 1, offset + 1).
static std::vector<float> randomFloats(size_t count, unsigned seed, float offset = 0.0f) {
  std::vector<float> values(count);
  for (float &value : values) {
    seed = seed * 1664525u + 1013904223u;
    value = offset + (seed >> 8) / 8388608.0f - 1.0f;
  }
  return values;
}

template <class T> struct DeviceArray {
  T *data = nullptr;
  size_t count = 0;
  explicit DeviceArray(size_t n) : count(n) { CHECK_CUDA(cudaMalloc(&data, n * sizeof(T))); }
  explicit DeviceArray(const std::vector<T> &host) : DeviceArray(host.size()) {
    CHECK_CUDA(cudaMemcpy(data, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  }
  DeviceArray(const DeviceArray &) = delete;
  ~DeviceArray() { cudaFree(data); }
  std::vector<T> read() const {
    std::vector<T> host(count);
    CHECK_CUDA(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  /// NaN everywhere: an element no thread writes shows.
  void poison() { CHECK_CUDA(cudaMemset(data, 0xff, count * sizeof(T))); }
};

/// The conv (or conv_transpose, gather form) of geometry G in float64, with
/// PyTorch's layouts: NCDHW, weights (Cout, Cin/g, k) or (Cin, Cout/g, k).
template <class G>
static std::vector<double> referenceConv(const std::vector<float> &input,
                                         const std::vector<float> &weight) {
  using S = solder::ConvShape<G>;
  std::vector<double> out(size_t(G::kBatch) * G::kOutChannels * S::kOutVolume, 0.0);
  for (int n = 0; n < G::kBatch; ++n)
    for (int k = 0; k < G::kOutChannels; ++k) {
      const int group = k / S::kOutPerGroup, kInGroup = k % S::kOutPerGroup;
      for (int z = 0; z < G::kOut[0]; ++z)
        for (int y = 0; y < G::kOut[1]; ++y)
          for (int x = 0; x < G::kOut[2]; ++x) {
            double sum = 0.0;
            for (int ci = 0; ci < S::kInPerGroup; ++ci)
              for (int t = 0; t < G::kKernel[0]; ++t)
                for (int r = 0; r < G::kKernel[1]; ++r)
                  for (int q = 0; q < G::kKernel[2]; ++q) {
                    const int out3[3] = {z, y, x}, tap3[3] = {t, r, q};
                    int in3[3];
                    bool inside = true;
                    for (int d = 0; d < 3; ++d) {
                      if (G::kTransposed) {
                        const int shifted = out3[d] + G::kPad[d] - tap3[d] * G::kDilation[d];
                        inside &= shifted >= 0 && shifted % G::kStride[d] == 0;
                        in3[d] = shifted / G::kStride[d];
                      } else {
                        in3[d] = out3[d] * G::kStride[d] - G::kPad[d] + tap3[d] * G::kDilation[d];
                      }
                      inside &= in3[d] >= 0 && in3[d] < G::kIn[d];
                    }
                    if (!inside)
                      continue;
                    const int c = group * S::kInPerGroup + ci;
                    const long tap = (t * G::kKernel[1] + r) * G::kKernel[2] + q;
                    const double w =
                        G::kTransposed
                            ? weight[(long(c) * S::kOutPerGroup + kInGroup) * S::kTaps + tap]
                            : weight[(long(k) * S::kInPerGroup + ci) * S::kTaps + tap];
                    sum += w * input[((long(n) * G::kInChannels + c) * G::kIn[0] + in3[0]) *
                                         G::kIn[1] * G::kIn[2] +
                                     long(in3[1]) * G::kIn[2] + in3[2]];
                  }
            out[((long(n) * G::kOutChannels + k) * G::kOut[0] + z) * G::kOut[1] * G::kOut[2] +
                long(y) * G::kOut[2] + x] = sum;
          }
    }
  return out;
}

static double relativeL2(const std::vector<float> &got, const std::vector<double> &want,
                         int *nans = nullptr) {
  double error = 0.0, norm = 0.0;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bad += std::isnan(got[i]);
    error += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  if (nans)
    *nans = bad;
  return bad ? INFINITY : std::sqrt(error / norm);
}

/// The worst error of `got`, (mean, rstd) per (sample, group) as the
/// finalize writes them, against float64 statistics (epsilon 1e-5) of `conv`
/// (NCDHW, geometry G's output) plus `bias` per channel (none if empty): the
/// mean's relative to 1 + |mean|, rstd's relative.
template <class G>
static double groupStatisticsError(const std::vector<float> &got,
                                   const std::vector<double> &conv,
                                   const std::vector<float> &bias, int groups) {
  constexpr int kVolume = solder::ConvShape<G>::kOutVolume;
  const int perGroup = G::kOutChannels / groups, count = perGroup * kVolume;
  auto value = [&](int n, int c, int p) {
    return conv[(long(n) * G::kOutChannels + c) * kVolume + p] + (bias.empty() ? 0.0 : bias[c]);
  };
  double worst = 0.0;
  for (int n = 0; n < G::kBatch; ++n)
    for (int g = 0; g < groups; ++g) {
      double sum = 0.0, squares = 0.0;
      for (int c = g * perGroup; c < (g + 1) * perGroup; ++c)
        for (int p = 0; p < kVolume; ++p)
          sum += value(n, c, p);
      const double mean = sum / count;
      for (int c = g * perGroup; c < (g + 1) * perGroup; ++c)
        for (int p = 0; p < kVolume; ++p)
          squares += (value(n, c, p) - mean) * (value(n, c, p) - mean);
      const double rstd = 1.0 / std::sqrt(squares / count + 1e-5);
      const int o = n * groups + g;
      worst = std::max({worst, std::fabs(got[2 * o] - mean) / (1.0 + std::fabs(mean)),
                        std::fabs(got[2 * o + 1] - rstd) / rstd});
    }
  return worst;
}

/// The epilogue that stores each accumulator, as a generated one stores a
/// conv-shaped result.
template <class G> struct StoreEpilogue {
  float *out;
  static constexpr bool kStoresElements = true, kConvMoments = false;
  struct Partials {
    __device__ Partials shuffleDown(unsigned, int) const { return {}; }
    __device__ void merge(const Partials &) {}
  };
  __device__ void visit(long n, long channel, int pixel, float acc, Partials &) const {
    out[(n * G::kOutChannels + channel) * solder::ConvShape<G>::kOutVolume + pixel] = acc;
  }
  __device__ void storePartials(long, long, long, const Partials &) const {}
};

/// The epilogue that only sums each channel (a partial a tile), as a
/// generated one reduces over the spatial dims.
template <class Layout> struct ChannelSumEpilogue {
  float *partials;
  static constexpr bool kStoresElements = false, kConvMoments = false;
  struct Partials {
    solder::SumAccumulator r0;
    __device__ Partials shuffleDown(unsigned offset, int width) const {
      return {r0.shuffleDown(offset, width)};
    }
    __device__ void merge(const Partials &other) { r0.merge(other.r0); }
  };
  __device__ void visit(long, long, int, float acc, Partials &p) const { p.r0.add(acc); }
  __device__ void storePartials(long n, long channel, long pixelTile, const Partials &p) const {
    Layout::storeSum(partials, Layout::slot(n, pixelTile, channel), float(p.r0.sum));
  }
};

/// The epilogue that takes each tile's channel moments (kConvMoments) of
/// the conv plus its bias, as group statistics of the conv output.
template <class Layout> struct MomentsEpilogue {
  const float *bias;
  float *partials;
  static constexpr bool kStoresElements = false, kConvMoments = true;
  struct Partials {
    __device__ Partials shuffleDown(unsigned, int) const { return {}; }
    __device__ void merge(const Partials &) {}
  };
  __device__ void visit(long, long, int, float, Partials &) const {}
  __device__ void storePartials(long, long, long, const Partials &) const {}
  __device__ float channelOffset(long, long channel) const { return bias[channel]; }
  __device__ void storeMoments(long n, long channel, long pixelTile,
                               const solder::ConvMoments &moments) const {
    Layout::storeWelford(partials, Layout::slot(n, pixelTile, channel), moments.welford());
  }
};

/// The epilogue of the FMA fallback's fragment: stores, and sums each
/// channel into partials (a Welford per element, as its plan says).
template <class G, class Layout> struct FragmentEpilogue {
  float *out, *partials;
  static constexpr bool kStoresElements = true, kConvMoments = false;
  struct Partials {
    solder::Welford r0;
    __device__ Partials shuffleDown(unsigned offset, int width) const {
      return {r0.shuffleDown(offset, width)};
    }
    __device__ void merge(const Partials &other) { r0.merge(other.r0); }
  };
  __device__ void visit(long n, long channel, int pixel, float acc, Partials &p) const {
    out[(n * G::kOutChannels + channel) * solder::ConvShape<G>::kOutVolume + pixel] = acc;
    p.r0.add(acc);
  }
  __device__ void storePartials(long n, long channel, long pixelTile, const Partials &p) const {
    Layout::storeWelford(partials, Layout::slot(n, pixelTile, channel), p.r0);
  }
};

template <class Kernel, class Epilogue>
__global__ void __launch_bounds__(Kernel::kThreads)
convKernel(const float *__restrict__ input, const float *__restrict__ weight, Epilogue epilogue) {
  extern __shared__ __align__(16) char shared[];
  Kernel::run(input, weight, epilogue, shared);
}

template <class MainLoop>
__global__ void __launch_bounds__(256)
prepareKernel(const float *input, const float *weight, float *prepared) {
  MainLoop::prepare(input, weight, prepared);
}

template <class Layout, long Groups, int Threads>
__global__ void __launch_bounds__(Threads)
finalizeStatistics(const float *partials, float *out, float epsilon) {
  solder::finalizeGroupStatistic<Layout, Groups, /*AcrossBatch=*/false, Threads>(partials, out,
                                                                               epsilon);
}

template <class Layout, long MeanOf, int Threads>
__global__ void __launch_bounds__(Threads) finalizeSums(const float *partials, float *out) {
  solder::finalizeChannelSum<Layout, MeanOf, Threads>(partials, out);
}

/// Launches Kernel (ConvKernel) on `input` and `weight`: a block a tile, or,
/// persistent, `persistentBlocks` blocks taking the tiles in turn.
template <class Kernel, class Epilogue>
static void launchConv(const float *input, const float *weight, const Epilogue &epilogue,
                       dim3 grid) {
  auto kernel = convKernel<Kernel, Epilogue>;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  Kernel::kSharedBytes));
  kernel<<<grid, Kernel::kThreads, Kernel::kSharedBytes>>>(input, weight, epilogue);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
}

template <class MainLoop> static dim3 tileGrid() {
  return dim3(MainLoop::kPixelTiles, MainLoop::kChannelTiles, MainLoop::Geometry::kBatch);
}

// A 2-d conv of 8 channels, 3x3, stride 1, unpadded (the direct conv's
// centered input needs it), 20 output channels (a ragged channel tile), 7
// output rows (a ragged row tile).
struct DirectGeometry {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 3, kInChannels = 8, kOutChannels = 20, kGroups = 1;
  static constexpr int kIn[3] = {1, 9, 14}, kOut[3] = {1, 7, 12};
  static constexpr int kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 0, 0}, kDilation[3] = {1, 1, 1};
};
// 3 input channels (not channel-fastest: a table of window offsets), a 3-d
// kernel, padding and dilation, stride 2 in the rows.
struct DirectPaddedGeometry {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 2, kInChannels = 3, kOutChannels = 16, kGroups = 1;
  static constexpr int kIn[3] = {4, 11, 10}, kOut[3] = {3, 6, 10};
  static constexpr int kKernel[3] = {2, 3, 3};
  static constexpr int kStride[3] = {1, 2, 1}, kPad[3] = {0, 1, 1}, kDilation[3] = {1, 1, 1};
};
// A depthwise conv with a channel multiplier of 2 (5 groups, 10 output
// channels: a ragged second tile of 8), stride 2 along H, dilation 2 along
// W, padding: each channel over its own input; tiles of 4 x 8 positions
// leave ragged rows and columns (7 x 13 outputs).
struct DepthwiseGeometry {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 2, kInChannels = 5, kOutChannels = 10, kGroups = 5;
  static constexpr int kIn[3] = {1, 13, 15}, kOut[3] = {1, 7, 13};
  static constexpr int kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 2, 1}, kPad[3] = {0, 1, 1}, kDilation[3] = {1, 1, 2};
};
// A 3-d depthwise conv, dilated along D and H, stride 2 along W, padded:
// its window spans planes.
struct Depthwise3dGeometry {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 2, kInChannels = 12, kOutChannels = 12, kGroups = 12;
  static constexpr int kIn[3] = {5, 9, 11}, kOut[3] = {3, 7, 6};
  static constexpr int kKernel[3] = {3, 3, 3};
  static constexpr int kStride[3] = {1, 1, 2}, kPad[3] = {1, 1, 1}, kDilation[3] = {2, 2, 1};
};
// A conv_transpose with stride 2, output padding (an odd output) and 2
// groups: the FMA fallback's output phases.
struct TransposedGeometry {
  static constexpr bool kTransposed = true;
  static constexpr int kBatch = 2, kInChannels = 6, kOutChannels = 10, kGroups = 2;
  static constexpr int kIn[3] = {1, 5, 6}, kOut[3] = {1, 12, 13};
  static constexpr int kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 2, 2}, kPad[3] = {0, 0, 0}, kDilation[3] = {1, 1, 1};
};
// The implicit GEMM on tensor cores: 20 input channels (padded to 24), 3x3,
// padded, 40 output channels.
struct ImplicitGemmGeometry {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 2, kInChannels = 20, kOutChannels = 40, kGroups = 1;
  static constexpr int kIn[3] = {1, 15, 17}, kOut[3] = {1, 15, 17};
  static constexpr int kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 1, 1}, kDilation[3] = {1, 1, 1};
};

// A 3-d conv_transpose on tensor cores in 2 x 2 x 3 output phases: output
// padding, a ragged phase (the output's odd extents), phases of 1 and 2
// taps, and along W phases whose first output reads past the input's first
// position (a negative padding: the input from a shift on).
struct TransposedPhasesGeometry {
  static constexpr bool kTransposed = true;
  static constexpr int kBatch = 2, kInChannels = 12, kOutChannels = 24, kGroups = 1;
  static constexpr int kIn[3] = {3, 4, 5}, kOut[3] = {5, 9, 13};
  static constexpr int kKernel[3] = {3, 4, 3};
  static constexpr int kStride[3] = {2, 2, 3}, kPad[3] = {1, 1, 2}, kDilation[3] = {1, 1, 1};
};

// A grouped 3-d conv on tensor cores, group by group: 2 groups of 12 -> 72
// channels (a group's channel tiles of 64: one whole, one of 8 ragged),
// stride 2 along H.
struct GroupedGeometry {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 2, kInChannels = 24, kOutChannels = 144, kGroups = 2;
  static constexpr int kIn[3] = {3, 9, 10}, kOut[3] = {3, 5, 10};
  static constexpr int kKernel[3] = {3, 3, 3};
  static constexpr int kStride[3] = {1, 2, 1}, kPad[3] = {1, 1, 1}, kDilation[3] = {1, 1, 1};
};
// A grouped conv_transpose in 2 x 2 output phases: 2 groups of 8 -> 10
// channels.
struct GroupedPhasesGeometry {
  static constexpr bool kTransposed = true;
  static constexpr int kBatch = 2, kInChannels = 16, kOutChannels = 20, kGroups = 2;
  static constexpr int kIn[3] = {1, 5, 6}, kOut[3] = {1, 10, 13};
  static constexpr int kKernel[3] = {1, 4, 3};
  static constexpr int kStride[3] = {1, 2, 2}, kPad[3] = {0, 1, 0}, kDilation[3] = {1, 1, 1};
};

template <class G> static size_t inputCount() {
  return size_t(G::kBatch) * G::kInChannels * solder::ConvShape<G>::kInVolume;
}
template <class G> static size_t weightCount() {
  using S = solder::ConvShape<G>;
  return size_t(G::kTransposed ? G::kInChannels * S::kOutPerGroup
                               : G::kOutChannels * S::kInPerGroup) *
         S::kTaps;
}
template <class G> static size_t outputCount() {
  return size_t(G::kBatch) * G::kOutChannels * solder::ConvShape<G>::kOutVolume;
}

/// A direct conv on tensor cores that stores its output, under the
/// scheduler Scheduler, against float64 within `tolerance` (rel L2).
template <class MainLoop, bool Persistent>
static void testDirectTensorOpStore(const char *what, float offset, double tolerance) {
  using G = typename MainLoop::Geometry;
  std::vector<float> input = randomFloats(inputCount<G>(), 11, offset),
                     weight = randomFloats(weightCount<G>(), 12);
  DeviceArray<float> dInput(input), dWeight(weight), out(outputCount<G>());
  DeviceArray<float> prepared((MainLoop::kPreparedBytes + 3) / 4);
  out.poison();
  prepareKernel<MainLoop><<<(MainLoop::kPrepareThreads + 255) / 256, 256>>>(
      dInput.data, dWeight.data, prepared.data);
  CHECK_CUDA(cudaGetLastError());
  using Epilogue = StoreEpilogue<G>;
  if constexpr (Persistent) {
    using Scheduler =
        solder::PersistentTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>;
    // Fewer blocks than tiles: each takes several, across channel tiles.
    launchConv<solder::ConvKernel<MainLoop, Epilogue, Scheduler>>(
        dInput.data, prepared.data, Epilogue{out.data}, dim3(3));
  } else {
    using Scheduler =
        solder::GridTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>;
    launchConv<solder::ConvKernel<MainLoop, Epilogue, Scheduler>>(
        dInput.data, prepared.data, Epilogue{out.data}, tileGrid<MainLoop>());
  }
  int nans = 0;
  const double error = relativeL2(out.read(), referenceConv<G>(input, weight), &nans);
  expect(error <= tolerance && nans == 0, what, error, tolerance);
}

/// The direct conv's channel moments (kConvMoments) of conv + bias, through
/// the partials and the finalize, against float64 group statistics.
template <class MainLoop, bool Persistent>
static void testDirectTensorOpMoments(const char *what, double tolerance) {
  using G = typename MainLoop::Geometry;
  constexpr int kGroups = 4;
  using Layout = solder::PartialLayout<G::kBatch, MainLoop::kPixelTiles, G::kOutChannels>;
  std::vector<float> input = randomFloats(inputCount<G>(), 21, 100.0f),
                     weight = randomFloats(weightCount<G>(), 22),
                     bias = randomFloats(G::kOutChannels, 23, 5.0f);
  DeviceArray<float> dInput(input), dWeight(weight), dBias(bias);
  DeviceArray<float> prepared((MainLoop::kPreparedBytes + 3) / 4);
  DeviceArray<float> partials(size_t(G::kBatch) * MainLoop::kPixelTiles * G::kOutChannels * 3);
  DeviceArray<float> stats(size_t(G::kBatch) * kGroups * 2);
  partials.poison();
  stats.poison();
  prepareKernel<MainLoop><<<(MainLoop::kPrepareThreads + 255) / 256, 256>>>(
      dInput.data, dWeight.data, prepared.data);
  using Epilogue = MomentsEpilogue<Layout>;
  const Epilogue epilogue{dBias.data, partials.data};
  if constexpr (Persistent)
    launchConv<solder::ConvKernel<
        MainLoop, Epilogue,
        solder::PersistentTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>>>(
        dInput.data, prepared.data, epilogue, dim3(4));
  else
    launchConv<solder::ConvKernel<
        MainLoop, Epilogue,
        solder::GridTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>>>(
        dInput.data, prepared.data, epilogue, tileGrid<MainLoop>());
  finalizeStatistics<Layout, kGroups, 64><<<G::kBatch * kGroups, 64>>>(partials.data, stats.data,
                                                                       1e-5f);
  CHECK_CUDA(cudaGetLastError());
  const double error =
      groupStatisticsError<G>(stats.read(), referenceConv<G>(input, weight), bias, kGroups);
  expect(error <= tolerance, what, error, tolerance);
}

/// The implicit GEMM test's main loop, and its CUTLASS parameters in the
/// constant bank (one variable an instantiation, as generated code has).
template <class G, solder::TensorMath Math>
using ImplicitGemmMainLoop = solder::TensorOpConv<G, solder::TensorOpTile<64, 64, 16, 32, 32, 4, Math>>;
template <class G, solder::TensorMath Math>
__constant__ typename ImplicitGemmMainLoop<G, Math>::ContextStorage implicitGemmContext;

template <class MainLoop> __global__ void buildContext(typename MainLoop::ContextStorage *storage) {
  MainLoop::buildContext(storage);
}
/// ConvKernel of the implicit GEMM: CUTLASS's parameters from the constant
/// bank, as a generated kernel passes them.
template <class G, class Kernel, class Epilogue, solder::TensorMath Math>
__global__ void __launch_bounds__(Kernel::kThreads)
runTensorOp(const float *__restrict__ input, const float *__restrict__ weight, Epilogue epilogue) {
  extern __shared__ __align__(16) char shared[];
  Kernel::run(input, weight, epilogue, shared, implicitGemmContext<G, Math>);
}
template <class G, int CPad>
__global__ void __launch_bounds__(256) toChannelsLast(const float *input, float *output) {
  solder::toChannelsLast<G::kInChannels, CPad, solder::ConvShape<G>::kInVolume>(input, output);
}
template <class G, int CPad>
__global__ void __launch_bounds__(256) toKtrsc(const float *weight, float *output) {
  solder::weightsToKtrsc<G, CPad>(weight, output);
}

template <class G, int CPad>
__global__ void __launch_bounds__(256)
    toChannelsLastParts(const float *input, float *big, float *small) {
  solder::toChannelsLast<G::kInChannels, CPad, solder::ConvShape<G>::kInVolume>(
      input, solder::StoreTF32Parts{big, small});
}
template <class G, int CPad>
__global__ void __launch_bounds__(256) toKtrscParts(const float *weight, float *big, float *small) {
  solder::weightsToKtrsc<G, CPad>(weight, solder::StoreTF32Parts{big, small});
}

/// The conversions for the Hopper 3xTF32 main loop (StoreTF32Parts): each
/// value of the plain conversion as a big and a small TF32 value (low 13
/// bits zero) whose sum is it to 2^-22, the padding zeros in both.
template <class G> static void testTF32Parts(const char *what) {
  constexpr int kPad = 24; // G's 20 channels padded
  std::vector<float> input = randomFloats(inputCount<G>(), 51),
                     weight = randomFloats(weightCount<G>(), 52);
  for (size_t i = 0; i < input.size(); i += 7)
    input[i] *= 1e-30f; // values near 1e-30: their parts keep their scale
  input[3] = 3.4028234e38f; // rounding it to TF32 would overflow: its parts stay finite
  input[5] = -3.4028232e38f;
  DeviceArray<float> dInput(input), dWeight(weight);
  const size_t inCount = size_t(G::kBatch) * solder::ConvShape<G>::kInVolume * kPad;
  const size_t wCount = size_t(G::kOutChannels) * solder::ConvShape<G>::kTaps * kPad;
  DeviceArray<float> plainIn(inCount), bigIn(inCount), smallIn(inCount);
  DeviceArray<float> plainW(wCount), bigW(wCount), smallW(wCount);
  for (auto *a : {&plainIn, &bigIn, &smallIn, &plainW, &bigW, &smallW})
    a->poison();
  const dim3 grid((solder::ConvShape<G>::kInVolume + 63) / 64, (kPad + 63) / 64, G::kBatch);
  toChannelsLast<G, kPad><<<grid, 256>>>(dInput.data, plainIn.data);
  toChannelsLastParts<G, kPad><<<grid, 256>>>(dInput.data, bigIn.data, smallIn.data);
  toKtrsc<G, kPad><<<(wCount + 255) / 256, 256>>>(dWeight.data, plainW.data);
  toKtrscParts<G, kPad><<<(wCount + 255) / 256, 256>>>(dWeight.data, bigW.data, smallW.data);
  CHECK_CUDA(cudaGetLastError());
  double worst = 0;
  int bad = 0;
  auto check = [&](const std::vector<float> &plain, const std::vector<float> &big,
                   const std::vector<float> &small) {
    for (size_t i = 0; i < plain.size(); ++i) {
      uint32_t bigBits, smallBits;
      std::memcpy(&bigBits, &big[i], 4);
      std::memcpy(&smallBits, &small[i], 4);
      const double error = std::fabs(double(plain[i]) - (double(big[i]) + double(small[i])));
      worst = std::max(worst, plain[i] == 0 ? error : error / std::fabs(double(plain[i])));
      bad += (bigBits & 0x1fff) != 0 || (smallBits & 0x1fff) != 0 || std::isnan(big[i]) ||
             std::isnan(small[i]) || (plain[i] == 0 && (big[i] != 0 || small[i] != 0));
    }
  };
  check(plainIn.read(), bigIn.read(), smallIn.read());
  check(plainW.read(), bigW.read(), smallW.read());
  expect(bad == 0 && worst <= 0x1p-22, what, worst, 0x1p-22);
}

/// CUTLASS's implicit GEMM under ConvKernel, its operands converted by the
/// layout kernels: the output stored, and each channel's mean through the
/// tile visit's reduction path, the partials and the finalize.
template <class G, solder::TensorMath Math>
static void testImplicitGemmTensorOp(const char *what, double tolerance) {
  using MainLoop = ImplicitGemmMainLoop<G, Math>;
  using Context = typename MainLoop::ContextStorage;
  constexpr int kPad = MainLoop::Form::kInChannels;
  constexpr int kGroupPad = MainLoop::Form::kGroupInChannels;
  constexpr int kVolume = solder::ConvShape<G>::kOutVolume;
  std::vector<float> input = randomFloats(inputCount<G>(), 31),
                     weight = randomFloats(weightCount<G>(), 32);
  DeviceArray<float> dInput(input), dWeight(weight), out(outputCount<G>());
  DeviceArray<float> ndhwc(size_t(G::kBatch) * solder::ConvShape<G>::kInVolume * kPad);
  DeviceArray<float> ktrsc(size_t(G::kOutChannels) * solder::ConvShape<G>::kTaps * kGroupPad);
  DeviceArray<unsigned char> built(sizeof(Context));
  out.poison();
  toChannelsLast<G, kPad><<<dim3((solder::ConvShape<G>::kInVolume + 63) / 64, (kPad + 63) / 64,
                                 G::kBatch),
                            256>>>(dInput.data, ndhwc.data);
  toKtrsc<G, kGroupPad><<<(ktrsc.count + 255) / 256, 256>>>(dWeight.data, ktrsc.data);
  buildContext<MainLoop><<<1, 1>>>(reinterpret_cast<Context *>(built.data));
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpyToSymbol(implicitGemmContext<G, Math>, built.data, sizeof(Context), 0,
                                cudaMemcpyDeviceToDevice));
  using Scheduler =
      solder::GridTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>;
  using Layout = solder::PartialLayout<G::kBatch, MainLoop::kPixelTiles, G::kOutChannels>;
  DeviceArray<float> partials(size_t(G::kBatch) * MainLoop::kPixelTiles * G::kOutChannels);
  DeviceArray<float> means(size_t(G::kBatch) * G::kOutChannels);
  partials.poison();
  means.poison();
  auto run = [&](auto epilogue) {
    using Epilogue = decltype(epilogue);
    using Kernel = solder::ConvKernel<MainLoop, Epilogue, Scheduler>;
    auto kernel = runTensorOp<G, Kernel, Epilogue, Math>;
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    Kernel::kSharedBytes));
    kernel<<<tileGrid<MainLoop>(), Kernel::kThreads, Kernel::kSharedBytes>>>(
        ndhwc.data, ktrsc.data, epilogue);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
  };
  run(StoreEpilogue<G>{out.data});
  run(ChannelSumEpilogue<Layout>{partials.data});
  finalizeSums<Layout, kVolume, 64><<<(means.count + 63) / 64, 64>>>(partials.data, means.data);
  CHECK_CUDA(cudaGetLastError());
  const std::vector<double> want = referenceConv<G>(input, weight);
  int nans = 0;
  const double error = relativeL2(out.read(), want, &nans);
  expect(error <= tolerance && nans == 0, what, error, tolerance);
  std::vector<double> wantMeans(means.count, 0.0);
  for (size_t i = 0; i < want.size(); ++i)
    wantMeans[i / kVolume] += want[i] / kVolume;
  const double meanError = relativeL2(means.read(), wantMeans);
  expect(meanError <= tolerance, "  its channel means (tile visit, partials, finalize)",
         meanError, tolerance);
}

/// A main loop on FMAs (the direct conv, the depthwise conv): stores its
/// output, exact fp32.
template <class MainLoop> static void testFmaMainLoop(const char *what) {
  using G = typename MainLoop::Geometry;
  using Epilogue = StoreEpilogue<G>;
  std::vector<float> input = randomFloats(inputCount<G>(), 41),
                     weight = randomFloats(weightCount<G>(), 42);
  DeviceArray<float> dInput(input), dWeight(weight), out(outputCount<G>());
  out.poison();
  launchConv<solder::ConvKernel<
      MainLoop, Epilogue,
      solder::GridTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>>>(
      dInput.data, dWeight.data, Epilogue{out.data}, tileGrid<MainLoop>());
  int nans = 0;
  const double error = relativeL2(out.read(), referenceConv<G>(input, weight), &nans);
  expect(error <= 1e-6 && nans == 0, what, error, 1e-6);
}

/// The FMA fallback: a grouped conv_transpose of stride 2 in output phases,
/// its fragment visited in registers: stores and per-channel Welford
/// partials through the finalize.
static void testImplicitGemmFma() {
  using G = TransposedGeometry;
  using MainLoop = solder::ImplicitGemmFmaConv<G, 128, 16, 16>;
  constexpr int kGroups = 5;
  using Layout = solder::PartialLayout<G::kBatch, MainLoop::kPixelTiles, G::kOutChannels>;
  using Epilogue = FragmentEpilogue<G, Layout>;
  std::vector<float> input = randomFloats(inputCount<G>(), 51, 3.0f),
                     weight = randomFloats(weightCount<G>(), 52);
  DeviceArray<float> dInput(input), dWeight(weight), out(outputCount<G>());
  DeviceArray<float> partials(size_t(G::kBatch) * MainLoop::kPixelTiles * G::kOutChannels * 3);
  DeviceArray<float> stats(size_t(G::kBatch) * kGroups * 2);
  out.poison();
  partials.poison();
  launchConv<solder::ConvKernel<
      MainLoop, Epilogue,
      solder::GridTileScheduler<MainLoop::kPixelTiles, MainLoop::kChannelTiles, G::kBatch>>>(
      dInput.data, dWeight.data, Epilogue{out.data, partials.data}, tileGrid<MainLoop>());
  finalizeStatistics<Layout, kGroups, 32><<<G::kBatch * kGroups, 32>>>(partials.data, stats.data,
                                                                       1e-5f);
  CHECK_CUDA(cudaGetLastError());
  const std::vector<double> want = referenceConv<G>(input, weight);
  int nans = 0;
  const double error = relativeL2(out.read(), want, &nans);
  expect(error <= 1e-6 && nans == 0,
         "ImplicitGemmFmaConv, conv_transpose stride 2, 2 groups (phases)", error, 1e-6);
  const double statsError = groupStatisticsError<G>(stats.read(), want, {}, kGroups);
  expect(statsError <= 1e-4, "  its group statistics (fragment visit, partials, finalize)",
         statsError, 1e-4);
}

//===----------------------------------------------------------------------===//
// Elementwise and reduction kernels over test Regions
//===----------------------------------------------------------------------===//

/// y = 2x + 1 and x^2 over 1000 elements: a ragged last tile of 4 x 64.
struct TwoResultsRegion {
  const float *__restrict__ in0;
  float *__restrict__ out0;
  float *__restrict__ out1;
  using Index = int;
  static constexpr Index kItems = 1000;
  static constexpr int kChunk = 4, kThreads = 64;
  struct Item {
    float result0, result1;
  };
  __device__ Item compute(const int e) const { return {2.0f * in0[e] + 1.0f, in0[e] * in0[e]}; }
  __device__ void store(const int e, const Item &results) const {
    out0[e] = results.result0;
    out1[e] = results.result1;
  }
};
template <class Region> __global__ void elementwiseKernel(Region region) {
  solder::runElementwise(region);
}

/// Rows of 13 (a ragged last chunk of 8), each element scaled by a table
/// its prologue fills (t + 1 at t), summed: a thread per output.
struct ScaledRowSumRegion {
  const float *__restrict__ in0;
  float *__restrict__ out0;
  using OutputIndex = int;
  using LengthIndex = int;
  static constexpr OutputIndex kOutputs = 300;
  static constexpr LengthIndex kLength = 13;
  static constexpr int kChunk = 8, kThreads = 64;
  using Accumulator = solder::SumAccumulator;
  using Element = float;
  struct SharedStorage {
    float scale[13];
  };
  __device__ void prologue(SharedStorage &shared, unsigned) const {
    solder::fillTable<13, 64>(shared.scale, [&](const int t) { return float(t + 1); });
  }
  struct Output {
    OutputIndex o;
  };
  __device__ Output output(const int o, unsigned) const { return {o}; }
  __device__ Element element(const Output &at, const int r, const SharedStorage &shared) const {
    return in0[at.o * 13 + r] * shared.scale[r];
  }
  __device__ void store(const int o, const Accumulator &acc) const { out0[o] = acc.result(13.0f); }
};
/// The mean of rows of 1000 (around 1000): a block per output, Welford.
struct RowStatsRegion {
  const float *__restrict__ in0;
  float *__restrict__ out0;
  using OutputIndex = int;
  using LengthIndex = int;
  static constexpr OutputIndex kOutputs = 6;
  static constexpr LengthIndex kLength = 1000;
  static constexpr int kChunk = 1, kThreads = 128;
  using Accumulator = solder::Welford;
  using Element = float;
  struct SharedStorage {};
  struct Output {
    OutputIndex o;
  };
  __device__ Output output(const int o, unsigned) const { return {o}; }
  __device__ Element element(const Output &at, const int r, const SharedStorage &) const {
    return in0[at.o * 1000 + r];
  }
  __device__ void store(const int o, const Accumulator &acc) const {
    out0[o * 2] = acc.mean;
    out0[o * 2 + 1] = acc.rstd(1e-5f);
  }
};
template <class Region> __global__ void threadPerOutputKernel(Region region) {
  solder::reduceThreadPerOutput(region);
}
template <class Region> __global__ void blockPerOutputKernel(Region region) {
  solder::reduceBlockPerOutput(region);
}

static void testRegions() {
  std::vector<float> x = randomFloats(6000, 61, 1000.0f);
  DeviceArray<float> dx(x), out0(1000), out1(1000);
  out0.poison();
  out1.poison();
  // Three blocks stride over the four tiles of 256.
  elementwiseKernel<<<3, 64>>>(TwoResultsRegion{dx.data, out0.data, out1.data});
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> y0 = out0.read(), y1 = out1.read();
  bool exact = true;
  for (int e = 0; e < 1000; ++e)
    exact &= y0[e] == 2.0f * x[e] + 1.0f && y1[e] == x[e] * x[e];
  expect(exact, "runElementwise, 2 results, ragged last tile, grid-stride", y0[999],
         2.0 * x[999] + 1.0);

  DeviceArray<float> sums(300);
  sums.poison();
  threadPerOutputKernel<<<(300 + 63) / 64, 64>>>(ScaledRowSumRegion{dx.data, sums.data});
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> got = sums.read();
  double worst = 0.0;
  for (int o = 0; o < 300; ++o) {
    double want = 0.0;
    for (int r = 0; r < 13; ++r)
      want += double(x[o * 13 + r]) * (r + 1);
    worst = std::max(worst, std::fabs(got[o] - want) / std::fabs(want));
  }
  expect(worst <= 1e-6, "reduceThreadPerOutput, prologue table, ragged chunk", worst, 1e-6);

  DeviceArray<float> stats(12);
  stats.poison();
  blockPerOutputKernel<<<6, 128>>>(RowStatsRegion{dx.data, stats.data});
  CHECK_CUDA(cudaGetLastError());
  got = stats.read();
  worst = 0.0;
  for (int o = 0; o < 6; ++o) {
    double mean = 0.0, squares = 0.0;
    for (int r = 0; r < 1000; ++r)
      mean += x[o * 1000 + r] / 1000.0;
    for (int r = 0; r < 1000; ++r)
      squares += (x[o * 1000 + r] - mean) * (x[o * 1000 + r] - mean);
    const double rstd = 1.0 / std::sqrt(squares / 1000 + 1e-5);
    worst = std::max({worst, std::fabs(got[2 * o] - mean) / mean,
                      std::fabs(got[2 * o + 1] - rstd) / rstd});
  }
  expect(worst <= 1e-4, "reduceBlockPerOutput, Welford rows at 1000 + U[-1,1)", worst, 1e-4);
}

int main() {
  testAccumulators();
  using Math = solder::TensorMath;
  using Accumulation = solder::DirectAccumulation;
  testDirectTensorOpStore<
      solder::DirectTensorOpConv<DirectGeometry, 2, 16, 4, Math::k3xTF32, Accumulation::kPlain>,
      false>("DirectTensorOpConv 3xTF32, one tile a block", 0.0f, 1e-5);
  testDirectTensorOpStore<
      solder::DirectTensorOpConv<DirectGeometry, 3, 16, 4, Math::k3xTF32, Accumulation::kPlain>,
      true>("DirectTensorOpConv 3xTF32, persistent (3 blocks)", 0.0f, 1e-5);
  testDirectTensorOpStore<solder::DirectTensorOpConv<DirectPaddedGeometry, 2, 16, 4,
                                                     Math::k3xTF32, Accumulation::kStepSums>,
                          true>("DirectTensorOpConv 3xTF32 step sums, 3 channels, padded 3-d",
                                0.0f, 1e-5);
  testDirectTensorOpStore<
      solder::DirectTensorOpConv<DirectGeometry, 2, 16, 4, Math::kTF32, Accumulation::kPlain>,
      false>("DirectTensorOpConv TF32", 0.0f, 1e-3);
  testDirectTensorOpStore<
      solder::DirectTensorOpConv<DirectGeometry, 3, 16, 4, Math::kTF32, Accumulation::kCentered>,
      true>("DirectTensorOpConv TF32 centered, input at 100 + U[-1,1)", 100.0f, 1e-3);
  testDirectTensorOpMoments<
      solder::DirectTensorOpConv<DirectGeometry, 2, 16, 4, Math::k3xTF32, Accumulation::kStepSums>,
      false>("DirectTensorOpConv register moments -> partials -> group statistics", 1e-4);
  testDirectTensorOpMoments<
      solder::DirectTensorOpConv<DirectGeometry, 3, 16, 4, Math::kTF32, Accumulation::kCentered>,
      true>("DirectTensorOpConv centered, persistent: register moments at 100", 3e-3);
  testTF32Parts<ImplicitGemmGeometry>(
      "toChannelsLast / weightsToKtrsc into big and small TF32 parts");
  testImplicitGemmTensorOp<ImplicitGemmGeometry, Math::k3xTF32>(
      "TensorOpConv (CUTLASS) 3xTF32, 20 -> 40 channels", 1e-5);
  testImplicitGemmTensorOp<ImplicitGemmGeometry, Math::kTF32>("TensorOpConv (CUTLASS) TF32",
                                                              1e-3);
  testImplicitGemmTensorOp<TransposedPhasesGeometry, Math::k3xTF32>(
      "TensorOpConv 3xTF32, conv_transpose 3-d in 12 output phases, shifted inputs", 1e-5);
  testImplicitGemmTensorOp<TransposedPhasesGeometry, Math::kTF32>(
      "TensorOpConv TF32, conv_transpose in output phases", 1e-3);
  testImplicitGemmTensorOp<GroupedGeometry, Math::k3xTF32>(
      "TensorOpConv 3xTF32, 3-d, 2 groups of 12 -> 72 channels (a ragged channel tile a group)",
      1e-5);
  testImplicitGemmTensorOp<GroupedGeometry, Math::kTF32>("TensorOpConv TF32, grouped", 1e-3);
  testImplicitGemmTensorOp<GroupedPhasesGeometry, Math::k3xTF32>(
      "TensorOpConv 3xTF32, grouped conv_transpose in 4 output phases", 1e-5);
  testFmaMainLoop<solder::DirectConv<DirectPaddedGeometry, 128, 8>>(
      "DirectConv (FMA), padded 3-d, 2 channel tiles");
  testFmaMainLoop<solder::DepthwiseConv<DepthwiseGeometry, 4, 8, 2, 8>>(
      "DepthwiseConv, x2 multiplier, stride 2, dilated, ragged tiles");
  testFmaMainLoop<solder::DepthwiseConv<DepthwiseGeometry, 7, 13, 7, 16>>(
      "DepthwiseConv, one tile a plane, 7 rows a thread");
  testFmaMainLoop<solder::DepthwiseConv<Depthwise3dGeometry, 3, 4, 3, 32>>(
      "DepthwiseConv 3-d, dilated planes, stride 2 along W");
  testImplicitGemmFma();
  testRegions();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("device templates: %d failed\n", failures);
  return failures ? 1 : 0;
}
