// The GPU's ceilings, measured in the same run as the main-loop
// microbenchmark (bench/scripts/mainloop.py) so its TFLOP/s read against
// what this GPU reaches: fp32 FMA, TF32 tensor cores through sm80 mma.sync
// (CUTLASS's arch::Mma 16x8x8, the instruction Solder's sm80 main loops
// issue) and, on a 9.0 GPU, through wgmma 64x256x8 from shared memory (the
// Hopper main loop's instruction, runtime/device/solder/arch/sm90.cuh), and
// device-to-device copy. CUDA events after warm-up, median of the runs.
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_80,code=compute_80 \
//     -gencode=arch=compute_90a,code=sm_90a -I third_party/cutlass/include \
//     -I runtime/device bench/ceilings.cu -o build-gpu/ceilings &&
//     build-gpu/ceilings > ceilings.json

#include <cutlass/arch/mma_sm80.h>
#include <solder/arch/sm90.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kIterations = 4096;
/// Independent chains per thread: enough to cover the FMA pipe's latency.
constexpr int kFmaChains = 8;
/// Independent accumulators per warp: enough to cover mma.sync's latency.
constexpr int kMmaChains = 4;

__global__ void __launch_bounds__(kThreads) fmaPeak(float *out, float seed) {
  float chains[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c)
    chains[c] = seed + threadIdx.x + c;
  // Unrolled: loop counting would take FMA issue slots.
#pragma unroll 16
  for (int i = 0; i < kIterations; ++i)
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c)
      chains[c] = fmaf(chains[c], 0.999999f, 1e-7f);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c)
    sum += chains[c];
  if (sum == 12345.0f) // never: keeps the chains alive
    out[threadIdx.x] = sum;
}

using Mma = cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 8>, 32,
                               cutlass::tfloat32_t, cutlass::layout::RowMajor,
                               cutlass::tfloat32_t, cutlass::layout::ColumnMajor,
                               float, cutlass::layout::RowMajor,
                               cutlass::arch::OpMultiplyAdd>;

__global__ void __launch_bounds__(kThreads) mmaPeak(float *out, float seed) {
  Mma mma;
  Mma::FragmentA a;
  Mma::FragmentB b;
  Mma::FragmentC acc[kMmaChains];
  for (int i = 0; i < Mma::FragmentA::kElements; ++i)
    a[i] = cutlass::tfloat32_t(seed + threadIdx.x + i);
  for (int i = 0; i < Mma::FragmentB::kElements; ++i)
    b[i] = cutlass::tfloat32_t(seed - i);
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c)
    acc[c].clear();
#pragma unroll 16
  for (int i = 0; i < kIterations; ++i)
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c)
      mma(acc[c], a, b, acc[c]);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c)
    for (int i = 0; i < Mma::FragmentC::kElements; ++i)
      sum += acc[c][i];
  if (sum == 12345.0f)
    out[threadIdx.x] = sum;
}

/// wgmma: two warpgroups a block (one block an SM, as the Hopper main loop's
/// two consumer warpgroups), each issuing 64x256x8 TF32 products from a
/// K-major 128-byte-swizzled A (64 x 32) and B (256 x 32) in shared memory,
/// four K steps a batch and one batch in flight while the next issues.
constexpr int kWgmmaN = 256;
constexpr int kWgmmaWarpgroups = 2;
constexpr int kWgmmaKSteps = 4;
constexpr int kWgmmaIterations = 2048;

__global__ void __launch_bounds__(128 * kWgmmaWarpgroups, 1) wgmmaPeak(float *out, float seed) {
  if constexpr (solder::arch::kHasWgmma) {
    __shared__ alignas(1024) float a[64 * 32];
    __shared__ alignas(1024) float b[kWgmmaN * 32];
    // Small operands: the rate at the power a conv's data draws.
    for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x)
      a[i] = seed * float(i % 7) / 8.0f;
    for (int i = threadIdx.x; i < kWgmmaN * 32; i += blockDim.x)
      b[i] = seed * float(i % 5) / 8.0f;
    __syncthreads();
    uint32_t aAddress = cute::cast_smem_ptr_to_uint(a);
    uint32_t bAddress = cute::cast_smem_ptr_to_uint(b);
    float acc[kWgmmaN / 2];
#pragma unroll
    for (int i = 0; i < kWgmmaN / 2; ++i)
      acc[i] = 0.0f;
    solder::arch::fenceOperands(acc);
    for (int i = 0; i < kWgmmaIterations; ++i) {
      cute::warpgroup_arrive();
#pragma unroll
      for (int k = 0; k < kWgmmaKSteps; ++k)
        solder::arch::wgmmaTF32<kWgmmaN>(solder::arch::swizzled128Descriptor(aAddress + 32 * k),
                                         solder::arch::swizzled128Descriptor(bAddress + 32 * k),
                                         acc);
      cute::warpgroup_commit_batch();
      cute::warpgroup_wait<1>();
    }
    cute::warpgroup_wait<0>();
    solder::arch::fenceOperands(acc);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kWgmmaN / 2; ++i)
      sum += acc[i];
    if (sum == 12345.0f)
      out[threadIdx.x] = sum;
  }
}

/// Median milliseconds of `runs` launches of `launch`, after `warmup`.
template <class Launch> float medianMs(Launch launch, int warmup, int runs) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i)
    launch();
  std::vector<float> times;
  for (int i = 0; i < runs; ++i) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main() {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, device));
  float *out = nullptr;
  CHECK(cudaMalloc(&out, kThreads * sizeof(float)));

  // Enough blocks for full occupancy several times over.
  const int blocks = sms * 8 * 4;
  const double threads = double(blocks) * kThreads;
  float fmaMs = medianMs([&] { fmaPeak<<<blocks, kThreads>>>(out, 1.0f); }, 3, 20);
  double fmaTflops = 2.0 * threads * kIterations * kFmaChains / (fmaMs * 1e-3) / 1e12;
  float mmaMs = medianMs([&] { mmaPeak<<<blocks, kThreads>>>(out, 1.0f); }, 3, 20);
  double warps = threads / 32;
  double mmaTflops = 2.0 * 16 * 8 * 8 * warps * kIterations * kMmaChains /
                     (mmaMs * 1e-3) / 1e12;

  // wgmma runs on 9.0 alone (the sm_90a cubin); elsewhere null.
  char wgmmaTflops[32] = "null";
  if (properties.major == 9 && properties.minor == 0) {
    const int wgmmaBlocks = sms * 8;
    float wgmmaMs = medianMs(
        [&] { wgmmaPeak<<<wgmmaBlocks, 128 * kWgmmaWarpgroups>>>(out, 1.0f); }, 3, 20);
    double flops = 2.0 * 64 * kWgmmaN * 8 * kWgmmaKSteps * double(kWgmmaIterations) *
                   wgmmaBlocks * kWgmmaWarpgroups;
    std::snprintf(wgmmaTflops, sizeof wgmmaTflops, "%.1f", flops / (wgmmaMs * 1e-3) / 1e12);
  }

  // Copy: read + write bytes per second, 1 GiB each way (past the L2).
  const size_t bytes = size_t(1) << 30;
  void *source = nullptr, *target = nullptr;
  CHECK(cudaMalloc(&source, bytes));
  CHECK(cudaMalloc(&target, bytes));
  CHECK(cudaMemset(source, 0, bytes));
  float copyMs = medianMs(
      [&] { CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice)); },
      3, 20);
  double copyGBs = 2.0 * bytes / (copyMs * 1e-3) / 1e9;

  std::printf("{\"gpu\": \"%s\", \"sms\": %d, \"fp32_fma_tflops\": %.1f, "
              "\"tf32_mma_sync_tflops\": %.1f, \"tf32_wgmma_tflops\": %s, "
              "\"copy_gb_per_s\": %.0f}\n",
              properties.name, sms, fmaTflops, mmaTflops, wgmmaTflops, copyGBs);
  CHECK(cudaFree(out));
  CHECK(cudaFree(source));
  CHECK(cudaFree(target));
  return 0;
}
