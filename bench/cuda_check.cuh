// CHECK(call) for the benchmark programs: a CUDA runtime call that fails
// ends the program with the call and CUDA's message (a benchmark has
// nothing to recover, and a number measured past an error means nothing).

#ifndef SOLDER_BENCH_CUDA_CHECK_CUH
#define SOLDER_BENCH_CUDA_CHECK_CUH

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t status = (call);                                              \
    if (status != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s: %s: %s\n", __FILE__, #call,                   \
                   cudaGetErrorString(status));                               \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

#endif // SOLDER_BENCH_CUDA_CHECK_CUH
