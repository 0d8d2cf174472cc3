//===- cuda_host_shim.h - The CUDA that Solder's kernels use, on a CPU ----===//
//
// Lets run-kernels-on-host.py compile a bundle's kernels.cu as plain C++ and
// run it: blocks one after another, each block's threads as fibers of one
// host thread, so a barrier costs a context switch, not a futex wake of
// every thread (which made a run on two busy cores minutes long), and every
// run interleaves the threads the same way: each runs to its next barrier,
// in thread order in even blocks and in reverse in odd ones. The switch is x86-64's six
// callee-saved registers and the stack pointer: glibc's swapcontext makes a
// system call a switch, and AddressSanitizer's interceptor of it clears the
// whole stack's shadow. __shared__ variables
// become statics (one block at a time uses them), __syncthreads a barrier of
// the block's threads, a warp shuffle an exchange through a barrier of the
// warp's; a thread that returns leaves both barriers, as an exited GPU
// thread does, and threads that all wait on barriers no thread can complete
// stop the run with one line. Tensor-core main loops (inline PTX: wgmma,
// cp.async.bulk) cannot run here; the sm80 mma.sync can (emulated).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_TEST_CUDA_HOST_SHIM_H
#define SOLDER_TEST_CUDA_HOST_SHIM_H

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <sys/mman.h>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define SOLDER_HOST_ASAN_FIBERS 1
#endif
#endif

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
inline HostDim3 threadIdx, blockIdx; // the running fiber's
inline HostDim3 gridDim, blockDim;

/// A launch's dynamic shared memory, exactly its size (run-kernels-on-host.py
/// points the kernels' `extern __shared__ char shared[]` here), so that
/// AddressSanitizer stops an access past it.
inline char *hostShared = nullptr;

/// A barrier of fibers: a phase completes when every thread that has not
/// exited has arrived; a waiting fiber runs again once its phase completed.
struct HostBarrier {
  unsigned expected = 0, arrived = 0;
  unsigned long phase = 0;
  void arriveAndWait();
  void arriveAndDrop() {
    --expected;
    if (arrived != 0 && arrived == expected) {
      arrived = 0;
      ++phase;
    }
  }
};

/// The barriers and shuffle slots of the block that runs.
struct HostBlock {
  HostBarrier block;
  std::vector<HostBarrier> warps;
  std::vector<unsigned long long> slots;
  std::vector<float> mmaSlots; // a warp's A and B fragments, 6 floats a lane
};
inline HostBlock hostBlock;

// Saves the callee-saved registers on the running stack, stores its stack
// pointer in *from and resumes the stack `to` (System V x86-64).
#if !defined(__x86_64__)
#error "run-kernels-on-host: the host shim switches fibers on x86-64 only"
#endif
extern "C" void solder_host_switch(void **from, void *to);
asm(R"(
  .text
  .globl solder_host_switch
  .type solder_host_switch, @function
solder_host_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size solder_host_switch, .-solder_host_switch
)");

/// One GPU thread of the running block, and the scheduler that runs them in
/// turn (hostLaunch): a fiber runs until it waits on a barrier or exits.
struct HostFiber {
  void *stackPointer = nullptr;
  char *stack = nullptr;
  HostDim3 index;
  const HostBarrier *waitingOn = nullptr;
  unsigned long waitingPhase = 0;
  bool exited = false;
};
inline void *hostSchedulerStackPointer = nullptr;
inline HostFiber *hostRunning = nullptr;
inline constexpr size_t kHostFiberStack = 1 << 20;
/// The scheduler's stack, for AddressSanitizer on the switch back (a
/// fiber's first switch learns it).
inline const void *hostSchedulerStack = nullptr;
inline size_t hostSchedulerStackSize = 0;

/// Switches stacks, telling AddressSanitizer which one runs next.
inline void hostSwitch(void **from, void *to, const void *stack, size_t size) {
#ifdef SOLDER_HOST_ASAN_FIBERS
  void *fakeStack = nullptr;
  __sanitizer_start_switch_fiber(&fakeStack, stack, size);
  solder_host_switch(from, to);
  __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
#else
  (void)stack, (void)size;
  solder_host_switch(from, to);
#endif
}

inline void hostYield() {
  hostSwitch(&hostRunning->stackPointer, hostSchedulerStackPointer, hostSchedulerStack,
             hostSchedulerStackSize);
}

inline void HostBarrier::arriveAndWait() {
  if (++arrived == expected) {
    // The last to arrive completes the phase and yields too: the threads
    // then go on in the scheduler's order, not this one first.
    arrived = 0;
    ++phase;
    hostRunning->waitingOn = nullptr;
  } else {
    hostRunning->waitingOn = this;
    hostRunning->waitingPhase = phase;
  }
  hostYield();
}

inline unsigned hostLinearThread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

inline void __syncthreads() { hostBlock.block.arriveAndWait(); }

/// Lane `lane` of each warp reads the value of lane `source(lane)`.
template <class T, class Source> T hostShuffle(T value, Source source) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a large type");
  unsigned thread = hostLinearThread(), lane = thread % 32;
  HostBarrier &warp = hostBlock.warps[thread / 32];
  std::memcpy(&hostBlock.slots[thread], &value, sizeof(T));
  warp.arriveAndWait();
  T result;
  std::memcpy(&result, &hostBlock.slots[thread - lane + source(lane)], sizeof(T));
  warp.arriveAndWait(); // nobody writes a slot before everyone has read it
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
    HostBarrier &warp = hostBlock.warps[thread / 32];
    float *mine = &hostBlock.mmaSlots[thread * 6];
    for (int i = 0; i < 4; ++i)
      mine[i] = tf32(a[i]);
    mine[4] = tf32(b[0]);
    mine[5] = tf32(b[1]);
    warp.arriveAndWait();
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
    warp.arriveAndWait(); // nobody writes a slot before everyone has read it
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

/// The kernel a launch's fibers run, and whether its last block has run.
inline void (*hostKernelEntry)(void *) = nullptr;
inline void *hostKernel = nullptr;
inline bool hostLaunchDone = false;

/// A GPU thread of every block of a launch in turn: a fiber lives for the
/// launch, so AddressSanitizer makes its fake stack once.
[[noreturn]] inline void hostFiberMain() {
#ifdef SOLDER_HOST_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(nullptr, &hostSchedulerStack, &hostSchedulerStackSize);
#endif
  while (!hostLaunchDone) {
    hostKernelEntry(hostKernel);
    // Exited: the block's barriers stop waiting for this thread.
    hostBlock.warps[hostLinearThread() / 32].arriveAndDrop();
    hostBlock.block.arriveAndDrop();
    hostRunning->exited = true;
    hostYield(); // back for the next block, or to end
  }
  void *unused;
#ifdef SOLDER_HOST_ASAN_FIBERS
  __sanitizer_start_switch_fiber(nullptr, hostSchedulerStack, hostSchedulerStackSize);
#endif
  solder_host_switch(&unused, hostSchedulerStackPointer); // never resumed
  __builtin_unreachable();
}

/// A fiber's first switch "returns" into hostFiberMain with the stack
/// aligned as a call leaves it; the six registers start as zeros.
inline void *hostFiberStart(char *stack) {
  void **top = reinterpret_cast<void **>(stack + kHostFiberStack);
  top[-1] = nullptr; // hostFiberMain's return address: it never returns
  top[-2] = reinterpret_cast<void *>(&hostFiberMain);
  for (int i = 3; i <= 8; ++i)
    top[-i] = nullptr;
  return top - 8;
}

/// Runs every block of a launch, one after another, each block's threads as
/// fibers (made once a launch: one per GPU thread).
template <class Kernel>
void hostLaunch(HostDim3 grid, HostDim3 block, size_t sharedBytes, Kernel kernel) {
  std::vector<char> sharedMemory(sharedBytes);
  hostShared = sharedMemory.data();
  gridDim = grid;
  blockDim = block;
  hostKernel = &kernel;
  hostKernelEntry = [](void *k) { (*static_cast<Kernel *>(k))(); };
  const unsigned threads = block.x * block.y * block.z;
  const unsigned long blocks = (unsigned long)grid.x * grid.y * grid.z;
  std::vector<HostFiber> fibers(threads);
  for (unsigned t = 0; t < threads; ++t) {
    void *stack = mmap(nullptr, kHostFiberStack, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED) {
      std::fprintf(stderr, "run-kernels-on-host: no memory for %u fiber stacks\n", threads);
      std::exit(2);
    }
    fibers[t].stack = static_cast<char *>(stack);
    fibers[t].stackPointer = hostFiberStart(fibers[t].stack);
    fibers[t].index = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
  }
  auto resume = [&](HostFiber &fiber) {
    threadIdx = fiber.index;
    hostRunning = &fiber;
    hostSwitch(&hostSchedulerStackPointer, fiber.stackPointer, fiber.stack, kHostFiberStack);
  };
  hostLaunchDone = false;
  for (unsigned long b = 0; b < blocks; ++b) {
    blockIdx = {unsigned(b % grid.x), unsigned(b / grid.x % grid.y),
                unsigned(b / ((unsigned long)grid.x * grid.y))};
    hostBlock.block = {threads, 0, 0};
    hostBlock.warps.clear();
    for (unsigned first = 0; first < threads; first += 32)
      hostBlock.warps.push_back({std::min(32u, threads - first), 0, 0});
    hostBlock.slots.assign((threads + 31) / 32 * 32, 0);
    hostBlock.mmaSlots.assign((threads + 31) / 32 * 32 * 6, 0.0f);
    for (HostFiber &fiber : fibers)
      fiber.exited = false;
    // Round-robin: each pass resumes every fiber whose barrier has moved on,
    // in thread order in even blocks and in reverse in odd ones, so that a
    // read of another thread's shared memory with no barrier between sees
    // the value before the write in one of them, whichever thread is first.
    const bool reverse = b % 2;
    for (unsigned live = threads; live != 0;) {
      bool progressed = false;
      for (unsigned k = 0; k < threads; ++k) {
        HostFiber &fiber = fibers[reverse ? threads - 1 - k : k];
        if (fiber.exited || (fiber.waitingOn && fiber.waitingOn->phase == fiber.waitingPhase))
          continue;
        fiber.waitingOn = nullptr;
        resume(fiber);
        progressed = true;
        live -= fiber.exited;
      }
      if (!progressed) {
        std::fprintf(stderr,
                     "run-kernels-on-host: block (%u, %u, %u) deadlocks: %u threads wait on "
                     "barriers the others never reach\n",
                     blockIdx.x, blockIdx.y, blockIdx.z, live);
        std::exit(2);
      }
    }
  }
  hostLaunchDone = true;
  for (HostFiber &fiber : fibers)
    resume(fiber);
  for (HostFiber &fiber : fibers)
    munmap(fiber.stack, kHostFiberStack);
}

#endif // SOLDER_TEST_CUDA_HOST_SHIM_H
