// Variants of the two memory-bound tails the seed workloads end with, to
// choose what the emitter prints (docs/PERFORMANCE.md has the results):
//   W3: a thread per output pixel reads 64 channels of the conv output,
//       group_normalize -> tanh -> hardswish -> + y -> logsumexp over C;
//   W2: group_normalize, one element in, one out.
// CUDA events, L2 flushed before each run, median of 30 after 5 warm-ups.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I runtime/device bench/tail_variants.cu \
//     -o build-gpu/tail_variants && build-gpu/tail_variants

#include <solder/pointwise.cuh>
#include <solder/reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "cuda_check.cuh"

namespace {

// ---- W3: (128, 64, 126, 126) -> (128, 1, 126, 126) -------------------------
constexpr int kN = 128, kC = 64, kHW = 126 * 126, kGroups = 16;
constexpr int kOutputs = kN * kHW;

/// The emitter's code of 2026-11-23 (online logsumexp an element at a time,
/// 64-bit offsets, a true division by 6).
__global__ void __launch_bounds__(256)
w3Current(const float *__restrict__ in0, const float *__restrict__ in1,
          const float *__restrict__ in2, const float *__restrict__ in3,
          float *__restrict__ out0) {
  const int o = blockIdx.x * 256 + threadIdx.x;
  if (o >= kOutputs)
    return;
  const int i0 = (o / 15876);
  const int i2 = (o / 126) % 126;
  const int i3 = o % 126;
  solder::LogSumExpAccumulator acc;
  for (int r0 = 0; r0 < 64; r0 += 8) {
    float chunk[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i1 = r0 + k;
      const float scale = in1[(i0 * 16 + i1 / 4) * 2 + 1] * in2[i1];
      const float shift = in3[i1] - in1[(i0 * 16 + i1 / 4) * 2] * scale;
      const float y = in0[i0 * 1016064L + i1 * 15876L + i2 * 126L + i3];
      const float v1 = tanhf(y * scale + shift);
      const float v4 = v1 * (v1 + 3.0f) / 6.0f;
      chunk[k] = y + v4;
    }
#pragma unroll
    for (int k = 0; k < 8; ++k)
      acc.add(chunk[k]);
  }
  out0[o] = acc.result(64.0f);
}

/// e^x within about 2 ulp, like expf, rebuilt from ex2.approx:
/// 2^(x log2 e) with the product's rounding error (and log2 e's own) kept
/// by fma and applied to first order after ex2.approx. x below -104 (e^x
/// is 0 in float) is clamped first, NaN kept: fma(-inf, ., inf) is NaN.
__device__ __forceinline__ float expSplit(float x) {
  asm("max.NaN.f32 %0, %0, 0fC2D00000;" : "+f"(x)); // -104
  const float p = x * 1.44269502f;
  const float error = fmaf(x, 1.92596299e-08f, fmaf(x, 1.44269502f, -p));
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(p));
  return fmaf(r, error * 0.693147182f, r);
}

enum class Exp { kExpf, kSplit, kIntrinsic };

template <Exp kExp> __device__ __forceinline__ float expOf(float x) {
  if constexpr (kExp == Exp::kExpf)
    return expf(x);
  else if constexpr (kExp == Exp::kSplit)
    return expSplit(x);
  else
    return __expf(x);
}

/// logsumexp a chunk at a time: one max and one exp per element, the exps
/// independent; infinities and NaN take the element-at-a-time path.
template <Exp kExp = Exp::kExpf> struct ChunkedLogSumExp {
  solder::LogSumExpAccumulator acc;
  template <int K> __device__ __forceinline__ void add(const float (&x)[K]) {
    float m = x[0];
#pragma unroll
    for (int k = 1; k < K; ++k)
      m = fmaxf(m, x[k]);
    if (!isfinite(m) || !(acc.max < CUDART_INF_F)) {
#pragma unroll
      for (int k = 0; k < K; ++k)
        acc.add(x[k]);
      return;
    }
    const float top = fmaxf(acc.max, m);
    float sum = acc.sum * expOf<kExp>(acc.max - top);
#pragma unroll
    for (int k = 0; k < K; ++k)
      sum += expOf<kExp>(x[k] - top);
    acc.sum = sum;
    acc.max = isnan(sum) ? CUDART_NAN_F : top;
  }
  __device__ __forceinline__ float result() const { return acc.result(0.0f); }
};

template <bool kReciprocal, bool kTanh, bool kInt>
__global__ void __launch_bounds__(256)
w3Chunked(const float *__restrict__ in0, const float *__restrict__ in1,
          const float *__restrict__ in2, const float *__restrict__ in3,
          float *__restrict__ out0) {
  const int o = blockIdx.x * 256 + threadIdx.x;
  if (o >= kOutputs)
    return;
  const int i0 = (o / 15876);
  const int i2 = (o / 126) % 126;
  const int i3 = o % 126;
  ChunkedLogSumExp<> acc;
  for (int r0 = 0; r0 < 64; r0 += 8) {
    float chunk[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i1 = r0 + k;
      const float scale = in1[(i0 * 16 + i1 / 4) * 2 + 1] * in2[i1];
      const float shift = in3[i1] - in1[(i0 * 16 + i1 / 4) * 2] * scale;
      const float y = kInt ? in0[i0 * 1016064 + i1 * 15876 + i2 * 126 + i3]
                           : in0[i0 * 1016064L + i1 * 15876L + i2 * 126L + i3];
      const float v1 = kTanh ? tanhf(y * scale + shift) : y * scale + shift;
      const float v4 = kReciprocal ? v1 * (v1 + 3.0f) * (1.0f / 6.0f)
                                   : v1 * (v1 + 3.0f) / 6.0f;
      chunk[k] = y + v4;
    }
    acc.add(chunk);
  }
  out0[o] = acc.result();
}

/// group_normalize's (scale, shift) of each channel of the block's samples
/// (at most two: a block's pixels are fewer than one sample's) into shared
/// memory; returns the block's first sample.
__device__ __forceinline__ int loadCoefficients(float2 (&coefficients)[2][kC],
                                                int firstPixel, const float *in1,
                                                const float *in2, const float *in3) {
  const int firstSample = firstPixel / kHW;
  if (threadIdx.x < 2 * kC) {
    const int n = min(firstSample + int(threadIdx.x) / kC, kN - 1), c = threadIdx.x % kC;
    const float scale = in1[(n * 16 + c / 4) * 2 + 1] * in2[c];
    coefficients[threadIdx.x / kC][c] =
        make_float2(scale, in3[c] - in1[(n * 16 + c / 4) * 2] * scale);
  }
  __syncthreads();
  return firstSample;
}


/// The group_normalize coefficients in shared memory (loadCoefficients), with
/// a choice of exp (and tanh: off is not equivalent).
template <Exp kExp, bool kTanh>
__global__ void __launch_bounds__(256)
w3HoistedExp(const float *__restrict__ in0, const float *__restrict__ in1,
             const float *__restrict__ in2, const float *__restrict__ in3,
             float *__restrict__ out0) {
  __shared__ float2 coefficients[2][kC];
  const int firstSample = loadCoefficients(coefficients, blockIdx.x * 256, in1, in2, in3);
  const int o = blockIdx.x * 256 + threadIdx.x;
  if (o >= kOutputs)
    return;
  const int i0 = o / kHW, pixel = o % kHW;
  const float2 *coefficient = coefficients[i0 - firstSample];
  const float *y0 = in0 + i0 * (kC * kHW) + pixel;
  ChunkedLogSumExp<kExp> acc;
  for (int r0 = 0; r0 < 64; r0 += 8) {
    float chunk[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i1 = r0 + k;
      const float y = y0[i1 * kHW];
      const float v0 = y * coefficient[i1].x + coefficient[i1].y;
      const float v1 = kTanh ? tanhf(v0) : v0;
      chunk[k] = y + v1 * (v1 + 3.0f) * (1.0f / 6.0f);
    }
    acc.add(chunk);
  }
  out0[o] = acc.result();
}

/// kLanes consecutive pixels a thread (a sample's plane is a multiple of 4
/// pixels, so a vector never crosses samples): one vector load and one
/// coefficient read per channel for kLanes outputs.
template <int kLanes, int kChunk, Exp kExp>
__global__ void __launch_bounds__(256)
w3Vector(const float *__restrict__ in0, const float *__restrict__ in1,
         const float *__restrict__ in2, const float *__restrict__ in3,
         float *__restrict__ out0) {
  static_assert(kHW % kLanes == 0, "vectors stay within a sample");
  using Vector = std::conditional_t<kLanes == 4, float4, float2>;
  __shared__ float2 coefficients[2][kC];
  const int firstSample =
      loadCoefficients(coefficients, blockIdx.x * 256 * kLanes, in1, in2, in3);
  const int v = blockIdx.x * 256 + threadIdx.x;
  if (v >= kOutputs / kLanes)
    return;
  const int o = v * kLanes;
  const int i0 = o / kHW, pixel = o % kHW;
  const float2 *coefficient = coefficients[i0 - firstSample];
  const float *y0 = in0 + i0 * (kC * kHW) + pixel;
  ChunkedLogSumExp<kExp> acc[kLanes];
  for (int r0 = 0; r0 < 64; r0 += kChunk) {
    float chunk[kLanes][kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const int i1 = r0 + k;
      const Vector y = *reinterpret_cast<const Vector *>(y0 + i1 * kHW);
      const float2 cf = coefficient[i1];
#pragma unroll
      for (int lane = 0; lane < kLanes; ++lane) {
        const float yl = reinterpret_cast<const float *>(&y)[lane];
        const float v1 = tanhf(yl * cf.x + cf.y);
        chunk[lane][k] = yl + v1 * (v1 + 3.0f) * (1.0f / 6.0f);
      }
    }
#pragma unroll
    for (int lane = 0; lane < kLanes; ++lane)
      acc[lane].add(chunk[lane]);
  }
  Vector result;
#pragma unroll
  for (int lane = 0; lane < kLanes; ++lane)
    reinterpret_cast<float *>(&result)[lane] = acc[lane].result();
  *reinterpret_cast<Vector *>(out0 + o) = result;
}

/// The read floor with float4 loads.
__global__ void __launch_bounds__(256)
w3ReadFloorVector(const float *__restrict__ in0, const float *__restrict__,
                  const float *__restrict__, const float *__restrict__,
                  float *__restrict__ out0) {
  const int v = blockIdx.x * 256 + threadIdx.x;
  if (v >= kOutputs / 4)
    return;
  const int o = v * 4;
  const float *y0 = in0 + (o / kHW) * (kC * kHW) + o % kHW;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int r0 = 0; r0 < 64; r0 += 8) {
    float4 chunk[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      chunk[k] = *reinterpret_cast<const float4 *>(y0 + (r0 + k) * kHW);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      sum.x += chunk[k].x;
      sum.y += chunk[k].y;
      sum.z += chunk[k].z;
      sum.w += chunk[k].w;
    }
  }
  *reinterpret_cast<float4 *>(out0 + o) = sum;
}

/// Reading the 520 MB once, summing over channels: the floor.
__global__ void __launch_bounds__(256)
w3ReadFloor(const float *__restrict__ in0, const float *__restrict__,
            const float *__restrict__, const float *__restrict__,
            float *__restrict__ out0) {
  const int o = blockIdx.x * 256 + threadIdx.x;
  if (o >= kOutputs)
    return;
  const float *y0 = in0 + (o / kHW) * (kC * kHW) + o % kHW;
  float sum = 0.0f;
  for (int r0 = 0; r0 < 64; r0 += 8) {
    float chunk[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      chunk[k] = y0[(r0 + k) * kHW];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      sum += chunk[k];
  }
  out0[o] = sum;
}

// ---- W2: group_normalize over (16, 128, 34, 34, 34) -------------------------
constexpr int kN2 = 16, kC2 = 128, kVolume2 = 34 * 34 * 34, kGroups2 = 8;
constexpr int kTotal2 = kN2 * kC2 * kVolume2;

__global__ void __launch_bounds__(256)
w2Current(const float *__restrict__ in0, const float *__restrict__ in1,
          const float *__restrict__ in2, const float *__restrict__ in3,
          float *__restrict__ out0) {
  for (int tile = blockIdx.x * 1024; tile < kTotal2; tile += gridDim.x * 1024) {
    float result0[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int e = tile + k * 256 + threadIdx.x;
      const int i0 = (e / 5030912);
      const int i1 = (e / 39304) % 128;
      const int i2 = (e / 1156) % 34;
      const int i3 = (e / 34) % 34;
      const int i4 = e % 34;
      const float scale = in1[(i0 * 8 + i1 / 16) * 2 + 1] * in2[i1];
      const float shift = in3[i1] - in1[(i0 * 8 + i1 / 16) * 2] * scale;
      result0[k] = in0[i0 * 5030912L + i1 * 39304L + i2 * 1156L + i3 * 34L + i4] * scale + shift;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
      out0[tile + k * 256 + threadIdx.x] = result0[k];
  }
}

/// The same with the identity offset (the input has the iteration's shape).
__global__ void __launch_bounds__(256)
w2Identity(const float *__restrict__ in0, const float *__restrict__ in1,
           const float *__restrict__ in2, const float *__restrict__ in3,
           float *__restrict__ out0) {
  for (int tile = blockIdx.x * 1024; tile < kTotal2; tile += gridDim.x * 1024) {
    float result0[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int e = tile + k * 256 + threadIdx.x;
      const int i0 = (e / 5030912);
      const int i1 = (e / 39304) % 128;
      const float scale = in1[(i0 * 8 + i1 / 16) * 2 + 1] * in2[i1];
      const float shift = in3[i1] - in1[(i0 * 8 + i1 / 16) * 2] * scale;
      result0[k] = in0[e] * scale + shift;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
      out0[tile + k * 256 + threadIdx.x] = result0[k];
  }
}

/// float4 a thread: the four elements share (n, c) (the volume is a multiple
/// of 4), so the coefficients are computed once per vector.
template <int kVectors>
__global__ void __launch_bounds__(256)
w2Vector(const float *__restrict__ in0, const float *__restrict__ in1,
         const float *__restrict__ in2, const float *__restrict__ in3,
         float *__restrict__ out0) {
  const float4 *x = reinterpret_cast<const float4 *>(in0);
  float4 *y = reinterpret_cast<float4 *>(out0);
  constexpr int kTile = 256 * kVectors;
  for (int tile = blockIdx.x * kTile; tile < kTotal2 / 4; tile += gridDim.x * kTile) {
    float4 result[kVectors];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const int v = tile + k * 256 + threadIdx.x;
      if (v >= kTotal2 / 4)
        break;
      const int e = v * 4;
      const int i0 = (e / 5030912);
      const int i1 = (e / 39304) % 128;
      const float scale = in1[(i0 * 8 + i1 / 16) * 2 + 1] * in2[i1];
      const float shift = in3[i1] - in1[(i0 * 8 + i1 / 16) * 2] * scale;
      float4 in = x[v];
      result[k] = make_float4(in.x * scale + shift, in.y * scale + shift,
                              in.z * scale + shift, in.w * scale + shift);
    }
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const int v = tile + k * 256 + threadIdx.x;
      if (v >= kTotal2 / 4)
        break;
      y[v] = result[k];
    }
  }
}

__global__ void __launch_bounds__(256)
w2CopyFloor(const float *__restrict__ in0, const float *__restrict__,
            const float *__restrict__, const float *__restrict__,
            float *__restrict__ out0) {
  const float4 *x = reinterpret_cast<const float4 *>(in0);
  float4 *y = reinterpret_cast<float4 *>(out0);
  for (int v = blockIdx.x * 256 + threadIdx.x; v < kTotal2 / 4; v += gridDim.x * 256)
    y[v] = x[v];
}

using Kernel = void (*)(const float *, const float *, const float *,
                        const float *, float *);

float medianMs(Kernel kernel, int blocks, const float *in0, const float *in1,
               const float *in2, const float *in3, float *out0, float *flush,
               size_t flushFloats) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int run = 0; run < 35; ++run) {
    CHECK(cudaMemsetAsync(flush, run, flushFloats * sizeof(float)));
    CHECK(cudaEventRecord(start));
    kernel<<<blocks, 256>>>(in0, in1, in2, in3, out0);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (run >= 5)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

std::vector<float> random(size_t count, float low, float high, unsigned seed) {
  std::vector<float> values(count);
  for (float &v : values) {
    seed = seed * 1664525u + 1013904223u;
    v = low + (high - low) * float(seed >> 8) / float(1u << 24);
  }
  return values;
}

float *upload(const std::vector<float> &values) {
  float *device;
  CHECK(cudaMalloc(&device, values.size() * sizeof(float)));
  CHECK(cudaMemcpy(device, values.data(), values.size() * sizeof(float),
                   cudaMemcpyHostToDevice));
  return device;
}

std::vector<float> download(const float *device, size_t count) {
  std::vector<float> values(count);
  CHECK(cudaMemcpy(values.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return values;
}

double maxRelativeDifference(const std::vector<float> &a, const std::vector<float> &b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / (std::abs(double(b[i])) + 1e-6));
  return worst;
}

struct Variant {
  const char *name;
  Kernel kernel;
  int blocks;
};

/// Times each variant on the same inputs into `out` (`outputs` floats,
/// poisoned with NaN first) and prints a JSON row each: its time, the
/// `bytes` it moves over that time, and its largest relative difference
/// from the first variant's output.
void runVariants(const std::vector<Variant> &variants, const float *in0,
                 const float *in1, const float *in2, const float *in3,
                 float *out, size_t outputs, double bytes, float *flush,
                 size_t flushFloats, const std::vector<double> *exact = nullptr) {
  std::vector<float> reference;
  for (const Variant &variant : variants) {
    CHECK(cudaMemset(out, 0xff, outputs * sizeof(float)));
    float ms = medianMs(variant.kernel, variant.blocks, in0, in1, in2, in3, out,
                        flush, flushFloats);
    std::vector<float> values = download(out, outputs);
    if (reference.empty())
      reference = values;
    std::printf("  {\"variant\": \"%s\", \"ms\": %.4f, \"gb_per_s\": %.0f, "
                "\"max_rel_vs_current\": %.2e",
                variant.name, ms, bytes / ms / 1e6,
                maxRelativeDifference(values, reference));
    if (exact) {
      double error = 0, norm = 0;
      for (size_t i = 0; i < values.size(); ++i) {
        error += (values[i] - (*exact)[i]) * (values[i] - (*exact)[i]);
        norm += (*exact)[i] * (*exact)[i];
      }
      std::printf(", \"rel_l2_vs_float64\": %.2e", std::sqrt(error / norm));
    }
    std::printf("},\n");
  }
}

} // namespace

int main() {
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  size_t flushFloats = 2 * size_t(l2) / 4;
  float *flush;
  CHECK(cudaMalloc(&flush, flushFloats * sizeof(float)));

  std::printf("[\n");
  {
    const std::vector<float> yHost = random(size_t(kN) * kC * kHW, -3.0f, 3.0f, 1),
                             sHost = random(kN * kGroups * 2, 0.5f, 1.5f, 2),
                             wHost = random(kC, 0.5f, 1.5f, 3), bHost = random(kC, -0.5f, 0.5f, 4);
    float *y = upload(yHost), *s = upload(sHost), *w = upload(wHost), *b = upload(bHost);
    // The tail in float64 from the same float inputs.
    std::vector<double> exact(kOutputs);
    for (int o = 0; o < kOutputs; ++o) {
      const int n = o / kHW, pixel = o % kHW;
      double terms[kC], top = -INFINITY;
      for (int c = 0; c < kC; ++c) {
        const double yv = yHost[(size_t(n) * kC + c) * kHW + pixel];
        const double scale = double(sHost[(n * 16 + c / 4) * 2 + 1]) * wHost[c];
        const double t = std::tanh((yv - sHost[(n * 16 + c / 4) * 2]) * scale + bHost[c]);
        terms[c] = yv + t * (t + 3.0) / 6.0;
        top = std::max(top, terms[c]);
      }
      double sum = 0;
      for (double term : terms)
        sum += std::exp(term - top);
      exact[o] = top + std::log(sum);
    }
    float *out;
    CHECK(cudaMalloc(&out, kOutputs * sizeof(float)));
    const int blocks = (kOutputs + 255) / 256;
    runVariants({{"w3_current", w3Current, blocks},
                 {"w3_chunked_lse", w3Chunked<false, true, false>, blocks},
                 {"w3_chunked_lse_reciprocal", w3Chunked<true, true, false>, blocks},
                 {"w3_chunked_lse_reciprocal_int", w3Chunked<true, true, true>, blocks},
                 {"w3_hoisted_coefficients", w3HoistedExp<Exp::kExpf, true>, blocks},
                 {"w3_without_tanh (not equivalent)", w3Chunked<true, false, true>, blocks},
                 {"w3_read_floor (not equivalent)", w3ReadFloor, blocks},
                 {"w3_hoisted_exp_split", w3HoistedExp<Exp::kSplit, true>, blocks},
                 {"w3_hoisted___expf", w3HoistedExp<Exp::kIntrinsic, true>, blocks},
                 {"w3_hoisted_expf_without_tanh (not equivalent)", w3HoistedExp<Exp::kExpf, false>, blocks},
                 {"w3_float2_expf", w3Vector<2, 8, Exp::kExpf>, (kOutputs / 2 + 255) / 256},
                 {"w3_float2_exp_split", w3Vector<2, 8, Exp::kSplit>, (kOutputs / 2 + 255) / 256},
                 {"w3_float4_expf", w3Vector<4, 8, Exp::kExpf>, (kOutputs / 4 + 255) / 256},
                 {"w3_float4_exp_split", w3Vector<4, 8, Exp::kSplit>, (kOutputs / 4 + 255) / 256},
                 {"w3_float4_chunk4_exp_split", w3Vector<4, 4, Exp::kSplit>, (kOutputs / 4 + 255) / 256},
                 {"w3_float4___expf", w3Vector<4, 8, Exp::kIntrinsic>, (kOutputs / 4 + 255) / 256},
                 {"w3_read_floor_float4 (not equivalent)", w3ReadFloorVector, (kOutputs / 4 + 255) / 256}},
                y, s, w, b, out, kOutputs, size_t(kN) * kC * kHW * 4.0, flush, flushFloats,
                &exact);
    CHECK(cudaFree(y));
    CHECK(cudaFree(out));
  }
  {
    float *x = upload(random(size_t(kTotal2), -3.0f, 3.0f, 5));
    float *s = upload(random(kN2 * kGroups2 * 2, 0.5f, 1.5f, 6)),
          *w = upload(random(kC2, 0.5f, 1.5f, 7)), *b = upload(random(kC2, -0.5f, 0.5f, 8));
    float *out;
    CHECK(cudaMalloc(&out, size_t(kTotal2) * sizeof(float)));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    runVariants({{"w2_current", w2Current, (kTotal2 + 1023) / 1024},
                 {"w2_identity_offset", w2Identity, (kTotal2 + 1023) / 1024},
                 {"w2_float4_x1", w2Vector<1>, (kTotal2 / 4 + 255) / 256},
                 {"w2_float4_x2", w2Vector<2>, (kTotal2 / 4 + 511) / 512},
                 {"w2_float4_x4", w2Vector<4>, (kTotal2 / 4 + 1023) / 1024},
                 {"w2_float4_x2_grid_8_per_sm", w2Vector<2>, 8 * sms},
                 {"w2_copy_floor (not equivalent)", w2CopyFloor, 8 * sms}},
                x, s, w, b, out, kTotal2, kTotal2 * 8.0, flush, flushFloats);
  }
  std::printf("  {}\n]\n");
  return 0;
}
