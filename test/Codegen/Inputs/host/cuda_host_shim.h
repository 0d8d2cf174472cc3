//===- cuda_host_shim.h - The CUDA that Solder's simple kernels use, on a CPU -===//
//
// Lets run-kernels-on-host.py compile a bundle's kernels.cu as plain C++: a
// launch becomes a loop over its blocks and threads, one thread at a time.
// That is exact for kernels whose threads do not cooperate (elementwise
// kernels, one-thread-per-output reductions); the cooperating primitives
// stop the run with one line instead.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_TEST_CUDA_HOST_SHIM_H
#define SOLDER_TEST_CUDA_HOST_SHIM_H

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <math.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__

struct HostDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline HostDim3 threadIdx, blockIdx, gridDim, blockDim;

[[noreturn]] inline void hostCannotRun(const char *primitive) {
  std::fprintf(stderr,
               "run-kernels-on-host: a kernel calls %s: its threads "
               "cooperate, which needs a GPU\n",
               primitive);
  std::exit(2);
}
template <class T> T __shfl_down_sync(unsigned, T, int, int = 32) {
  hostCannotRun("__shfl_down_sync");
}
template <class T> T __shfl_xor_sync(unsigned, T, int, int = 32) {
  hostCannotRun("__shfl_xor_sync");
}
inline void __syncthreads() { hostCannotRun("__syncthreads"); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

#include <solder/pointwise.cuh>
#include <solder/reduce.cuh>
#include <solder/welford.cuh>

#endif // SOLDER_TEST_CUDA_HOST_SHIM_H
