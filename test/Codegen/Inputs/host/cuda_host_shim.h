//===- cuda_host_shim.h - The CUDA that Solder's kernels use, on a CPU ----===//
//
// Lets run-kernels-on-host.py compile a bundle's kernels.cu as plain C++ and
// run it: blocks one after another, each block's threads as host threads.
// __shared__ variables become statics (one block at a time uses them),
// __syncthreads a barrier of the block's threads, a warp shuffle an exchange
// through a barrier of the warp's; a thread that returns leaves both
// barriers, as an exited GPU thread does. Tensor-core main loops (inline
// PTX: mma.sync, cp.async) cannot run here.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_TEST_CUDA_HOST_SHIM_H
#define SOLDER_TEST_CUDA_HOST_SHIM_H

#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
#define __align__(n) alignas(n)

struct HostDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local HostDim3 threadIdx, blockIdx;
inline HostDim3 gridDim, blockDim;

/// A launch's dynamic shared memory, exactly its size (run-kernels-on-host.py
/// points the kernels' `extern __shared__ char shared[]` here), so that
/// AddressSanitizer stops an access past it.
inline char *hostShared = nullptr;

/// The barriers and shuffle slots of the block that runs.
struct HostBlock {
  std::unique_ptr<std::barrier<>> block;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<unsigned long long> slots;
};
inline HostBlock hostBlock;

inline unsigned hostLinearThread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

inline void __syncthreads() { hostBlock.block->arrive_and_wait(); }

/// Lane `lane` of each warp reads the value of lane `source(lane)`.
template <class T, class Source> T hostShuffle(T value, Source source) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a large type");
  unsigned thread = hostLinearThread(), lane = thread % 32;
  std::barrier<> &warp = *hostBlock.warps[thread / 32];
  std::memcpy(&hostBlock.slots[thread], &value, sizeof(T));
  warp.arrive_and_wait();
  T result;
  std::memcpy(&result, &hostBlock.slots[thread - lane + source(lane)], sizeof(T));
  warp.arrive_and_wait(); // nobody writes a slot before everyone has read it
  return result;
}
template <class T> T __shfl_down_sync(unsigned, T value, int delta, int width = 32) {
  return hostShuffle(value, [&](unsigned lane) {
    return lane % width + delta < unsigned(width) ? lane + delta : lane;
  });
}
template <class T> T __shfl_xor_sync(unsigned, T value, int mask, int width = 32) {
  return hostShuffle(value, [&](unsigned lane) {
    unsigned partner = lane ^ unsigned(mask);
    return partner / width == lane / width ? partner : lane;
  });
}
template <class T> T __ldg(const T *pointer) { return *pointer; }
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

/// Runs every block of a launch, one after another, each block's threads on
/// one pool of host threads (made once a launch: a thread per GPU thread).
template <class Kernel>
void hostLaunch(HostDim3 grid, HostDim3 block, size_t sharedBytes, Kernel kernel) {
  std::vector<char> sharedMemory(sharedBytes);
  hostShared = sharedMemory.data();
  gridDim = grid;
  blockDim = block;
  const unsigned threads = block.x * block.y * block.z;
  const unsigned long blocks = (unsigned long)grid.x * grid.y * grid.z;
  auto resetBarriers = [&] {
    hostBlock.block = std::make_unique<std::barrier<>>(threads);
    hostBlock.warps.clear();
    for (unsigned first = 0; first < threads; first += 32)
      hostBlock.warps.push_back(
          std::make_unique<std::barrier<>>(std::min(32u, threads - first)));
    hostBlock.slots.assign((threads + 31) / 32 * 32, 0);
  };
  resetBarriers();
  // Every thread has left the block (and its barriers) before the next
  // block's barriers replace them.
  std::barrier nextBlock(threads, [&]() noexcept { resetBarriers(); });
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
      for (unsigned long b = 0; b < blocks; ++b) {
        blockIdx = {unsigned(b % grid.x), unsigned(b / grid.x % grid.y),
                    unsigned(b / ((unsigned long)grid.x * grid.y))};
        kernel();
        // Exited: the block's barriers stop waiting for this thread.
        hostBlock.warps[t / 32]->arrive_and_drop();
        hostBlock.block->arrive_and_drop();
        nextBlock.arrive_and_wait();
      }
    });
  for (std::thread &thread : pool)
    thread.join();
}

#endif // SOLDER_TEST_CUDA_HOST_SHIM_H
