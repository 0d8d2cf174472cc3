// The host shim's barriers (host/cuda_host_shim.h): a thread that exits
// leaves the block's and its warp's barriers, shuffles exchange a warp's
// values, and a barrier that the other threads never reach stops the run.
#include "cuda_host_shim.h"

int main(int argc, char **argv) {
  // 80 threads: two full warps and a partial one; lanes 24-31 exit before
  // the barriers.
  std::vector<int> sums(80, -1);
  hostLaunch({2, 1, 1}, {80, 1, 1}, 0, [&] {
    __shared__ int total;
    const unsigned t = threadIdx.x;
    if (t == 0)
      total = 0;
    __syncthreads();
    if (t % 32 >= 24)
      return;
    total += 1;
    __syncthreads();
    int lanes = __shfl_xor_sync(~0u, int(t), 1);
    sums[t] = total * 1000 + lanes + int(blockIdx.x) * 100000;
  });
  for (unsigned t = 0; t < 80; ++t)
    std::printf("%s%d", t ? " " : "", sums[t]);
  std::printf("\n");
  // A missing barrier: each thread reads its partner's shared value with
  // none between the write and the read. Threads run to their next barrier
  // in order in block 0 and in reverse in block 1, so the even threads read
  // the value before the write (-1) in block 0 and the odd ones in block 1.
  std::vector<int> partner(2 * 8, 0);
  hostLaunch({2, 1, 1}, {8, 1, 1}, 0, [&] {
    __shared__ int values[8];
    const unsigned t = threadIdx.x;
    values[t ^ 1] = -1;
    __syncthreads();
    values[t] = int(t);
    partner[blockIdx.x * 8 + t] = values[t ^ 1]; // no __syncthreads: a race
  });
  for (unsigned t = 0; t < 16; ++t)
    std::printf("%s%d", t ? " " : "", partner[t]);
  std::printf("\n");
  if (argc > 1) // half the warp at __syncthreads, half at a shuffle
    hostLaunch({1, 1, 1}, {32, 1, 1}, 0, [&] {
      if (threadIdx.x < 16)
        __syncthreads();
      else
        __shfl_xor_sync(~0u, 0, 1);
    });
  return 0;
}
