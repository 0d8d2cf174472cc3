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

#include <atomic>
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
  std::vector<float> mmaSlots; // a warp's A and B fragments, 6 floats a lane
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
template <class T> T __shfl_sync(unsigned, T value, int source, int width = 32) {
  return hostShuffle(value, [&](unsigned lane) {
    return lane / width * width + unsigned(source) % width;
  });
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
template <class T> T __ldcg(const T *pointer) { return *pointer; }
template <class T> void __stcg(T *pointer, T value) { *pointer = value; }

// Split-K's handoff (GridTileScheduler::reduceSplits). Blocks run one after
// another here, so the fence and the counter need no more than this.
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned atomicInc(unsigned *address, unsigned limit) {
  std::atomic_ref<unsigned> counter(*address);
  unsigned old = counter.load();
  while (!counter.compare_exchange_weak(old, old >= limit ? 0 : old + 1)) {
  }
  return old;
}
/// Whether any thread of the block passes a nonzero predicate.
inline std::atomic<int> hostSyncOr{0};
inline int __syncthreads_or(int predicate) {
  __syncthreads();
  if (predicate)
    hostSyncOr.store(1);
  __syncthreads();
  int any = hostSyncOr.load();
  __syncthreads();
  if (hostLinearThread() == 0)
    hostSyncOr.store(0);
  __syncthreads();
  return any;
}

#ifdef SOLDER_HOST_CUTLASS
// CUTLASS's types and converters compile for the host; these few device
// intrinsics its headers name (in code the kernels do not run) must exist.
[[noreturn]] inline void hostCannotRun(const char *intrinsic) {
  std::fprintf(stderr, "run-kernels-on-host: a kernel calls %s\n", intrinsic);
  std::exit(2);
}
inline int __dp4a(int, int, int) { hostCannotRun("__dp4a"); }
inline unsigned __dp4a(unsigned, unsigned, unsigned) { hostCannotRun("__dp4a"); }
inline unsigned __byte_perm(unsigned, unsigned, unsigned) { hostCannotRun("__byte_perm"); }
template <class T> T __hfma2(T, T, T) { hostCannotRun("__hfma2"); }
#include <cutlass/array.h>
#include <cutlass/numeric_types.h>

namespace solder_host {
/// sm80 mma.sync m16n8k8 (TF32 in, fp32 accumulate) for one warp, with
/// PTX's fragment layout: lane = 4 * group + quad; A (row-major 16 x 8):
/// a0 (group, quad), a1 (group + 8, quad), a2 (group, quad + 4), a3 (group
/// + 8, quad + 4); B (column-major 8 x 8): b0 (quad, group), b1 (quad + 4,
/// group); C and D (16 x 8): c0 (group, 2 quad), c1 (group, 2 quad + 1),
/// c2 (group + 8, 2 quad), c3 (group + 8, 2 quad + 1). The tensor cores
/// read the top 19 bits of each operand.
struct Mma16x8x8 {
  using FragmentA = cutlass::Array<cutlass::tfloat32_t, 4>;
  using FragmentB = cutlass::Array<cutlass::tfloat32_t, 2>;
  using FragmentC = cutlass::Array<float, 4>;
  static float tf32(cutlass::tfloat32_t value) {
    unsigned bits;
    float f = float(value);
    std::memcpy(&bits, &f, 4);
    bits &= 0xffffe000u;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  void operator()(FragmentC &d, const FragmentA &a, const FragmentB &b,
                  const FragmentC &c) const {
    unsigned thread = hostLinearThread(), lane = thread % 32;
    std::barrier<> &warp = *hostBlock.warps[thread / 32];
    float *mine = &hostBlock.mmaSlots[thread * 6];
    for (int i = 0; i < 4; ++i)
      mine[i] = tf32(a[i]);
    mine[4] = tf32(b[0]);
    mine[5] = tf32(b[1]);
    warp.arrive_and_wait();
    const float *lanes = &hostBlock.mmaSlots[(thread - lane) * 6];
    auto elementA = [&](int row, int k) {
      return lanes[(row % 8 * 4 + k % 4) * 6 + (row >= 8) + 2 * (k >= 4)];
    };
    auto elementB = [&](int k, int column) {
      return lanes[(column * 4 + k % 4) * 6 + 4 + (k >= 4)];
    };
    const int group = lane / 4, quad = lane % 4;
    FragmentC result;
    for (int i = 0; i < 4; ++i) {
      const int row = group + 8 * (i / 2), column = 2 * quad + i % 2;
      float sum = c[i];
      for (int k = 0; k < 8; ++k)
        sum += elementA(row, k) * elementB(k, column);
      result[i] = sum;
    }
    warp.arrive_and_wait(); // nobody writes a slot before everyone has read it
    d = result;
  }
};
} // namespace solder_host
#define SOLDER_HOST_MMA solder_host::Mma16x8x8
#endif
#ifndef SOLDER_HOST_CUTLASS // else CUDA's vector_types.h, through CUTLASS
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
#endif
using std::max;
using std::min;
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline unsigned __float_as_uint(float x) { unsigned u; std::memcpy(&u, &x, 4); return u; }
inline float __uint_as_float(unsigned u) { float x; std::memcpy(&x, &u, 4); return x; }
/// As the GPU computes it: 2^(x log2 e) from the rounded product.
inline float __expf(float x) { return std::exp2(x * 1.44269504f); }

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
    hostBlock.mmaSlots.assign((threads + 31) / 32 * 32 * 6, 0.0f);
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
