//===- kernel/rows_kernel.cuh - The body of a rows kernel -----------------===//
//
// A rows region: small GEMMs (1x1 convs on one pixel a sample:
// squeeze-excitation's two, a classifier head) and the pointwise ops around
// them, a block per row of the batch, every value of the row in shared
// memory. A GEMM output is a dot product of a weight row and the input row
// (linearRow: a thread's, or a warp's combined by shuffles), in a fixed
// order: results are bitwise reproducible, in fp32 (FMA) in both
// precisions. The generated Region functor says what a row computes:
//   static constexpr int kRows, kThreads;
//   struct SharedStorage { float rowN[width]; ... };   a row of each value
//   void computeRow(int row, SharedStorage &) const;   the chain, in order
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_ROWS_KERNEL_CUH
#define SOLDER_KERNEL_ROWS_KERNEL_CUH

namespace solder {

/// out[k] = bias[k] + sum_c weight[k * Inputs + c] * x[c] for k < Outputs
/// (bias may be null); x and out are in shared memory, and the caller
/// synchronizes the block before out is read. Every load is issued before
/// the sums that need it (a block's few rows leave the kernel latency-bound:
/// one output at a time, a load and a shuffle tree each, took a
/// squeeze-excitation's 13 us): up to 32 inputs, a thread an output, its
/// row unrolled; more, a warp an output, kOutputsPerWarp of them at once,
/// each lane's loads in unrolled chunks, the lanes combined by shuffles in a
/// fixed order.
template <int Inputs, int Outputs, int Threads>
__device__ __forceinline__ void linearRow(const float *x, const float *__restrict__ weight,
                                          const float *__restrict__ bias, float *out) {
  static_assert(Threads % 32 == 0, "whole warps");
  if constexpr (Inputs <= 32) {
    for (int k = threadIdx.x; k < Outputs; k += Threads) {
      const float *row = weight + k * Inputs;
      float terms[Inputs];
#pragma unroll
      for (int c = 0; c < Inputs; ++c)
        terms[c] = __ldg(row + c);
      float sum = 0.0f;
#pragma unroll
      for (int c = 0; c < Inputs; ++c)
        sum = fmaf(terms[c], x[c], sum);
      out[k] = bias ? sum + __ldg(bias + k) : sum;
    }
  } else {
    constexpr int kWarps = Threads / 32, kOutputsPerWarp = 4;
    constexpr int kLaneSteps = (Inputs + 31) / 32;
    constexpr int kChunk = kLaneSteps < 8 ? kLaneSteps : 8;
    const int lane = threadIdx.x % 32;
    for (int first = threadIdx.x / 32 * kOutputsPerWarp; first < Outputs;
         first += kWarps * kOutputsPerWarp) {
      // Each lane's inputs lane, lane + 32, ..., in chunks of kChunk a
      // chunk's loads for every output before its FMAs.
      float sums[kOutputsPerWarp] = {};
      for (int step = 0; step < kLaneSteps; step += kChunk) {
        float terms[kOutputsPerWarp][kChunk];
#pragma unroll
        for (int j = 0; j < kOutputsPerWarp; ++j)
#pragma unroll
          for (int i = 0; i < kChunk; ++i) {
            const int c = lane + 32 * (step + i);
            terms[j][i] =
                first + j < Outputs && c < Inputs ? __ldg(weight + (first + j) * Inputs + c) : 0.0f;
          }
#pragma unroll
        for (int i = 0; i < kChunk; ++i) {
          const int c = lane + 32 * (step + i);
          if (c < Inputs)
#pragma unroll
            for (int j = 0; j < kOutputsPerWarp; ++j)
              sums[j] = fmaf(terms[j][i], x[c], sums[j]);
        }
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
#pragma unroll
        for (int j = 0; j < kOutputsPerWarp; ++j)
          sums[j] += __shfl_down_sync(0xffffffffu, sums[j], offset);
      if (lane == 0) // holds every sum
#pragma unroll
        for (int j = 0; j < kOutputsPerWarp; ++j)
          if (first + j < Outputs)
            out[first + j] = bias ? sums[j] + __ldg(bias + first + j) : sums[j];
    }
  }
}

template <class Region> __device__ __forceinline__ void runRows(const Region &region) {
  __shared__ typename Region::SharedStorage shared;
  for (int row = blockIdx.x; row < Region::kRows; row += gridDim.x) {
    region.computeRow(row, shared);
    __syncthreads(); // the next row reuses the storage
  }
}

} // namespace solder

#endif // SOLDER_KERNEL_ROWS_KERNEL_CUH
