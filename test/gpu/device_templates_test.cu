// Unit test of the device templates in runtime/device/solder, on their own:
// Welford/Chan statistics on data with a large mean, the accumulators'
// NaN/inf semantics (torch's), and the bitwise determinism of the combines.
// Built and run by run_gpu_suite.sh: nvcc -I runtime/device ... && ./a.out

#include <solder/reduce.cuh>
#include <solder/welford.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

int main() {
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
  std::printf("device templates: %d failed\n", failures);
  return failures ? 1 : 0;
}
