//===- arch/sm80.cuh - The sm80 primitives: mma.sync TF32, cp.async -------===//
//
// The only device code that differs in the CPU run of generated kernels
// (test/Codegen/Inputs/host, which defines SOLDER_HOST_MMA): there each
// warp's mma.sync is emulated on PTX's fragment layout and cp.async is a
// plain copy.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ARCH_SM80_CUH
#define SOLDER_ARCH_SM80_CUH

#include <cutlass/arch/mma_sm80.h>
#ifndef SOLDER_HOST_MMA
#include <cutlass/arch/memory_sm80.h>
#endif

namespace solder::arch {

/// A warp's 16x8x8 TF32 MMA (fp32 accumulate): CUTLASS's arch::Mma.
#ifdef SOLDER_HOST_MMA
using MmaTF32 = SOLDER_HOST_MMA;
#else
using MmaTF32 = cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 8>, 32,
                                   cutlass::tfloat32_t, cutlass::layout::RowMajor,
                                   cutlass::tfloat32_t, cutlass::layout::ColumnMajor,
                                   float, cutlass::layout::RowMajor,
                                   cutlass::arch::OpMultiplyAdd>;
#endif

/// cp.async of Bytes (4 or 16), zeros where !valid.
template <int Bytes>
__device__ __forceinline__ void copyAsync(void *destination, const void *source, bool valid) {
#ifdef SOLDER_HOST_MMA
  if (valid)
    memcpy(destination, source, Bytes);
  else
    memset(destination, 0, Bytes);
#else
  cutlass::arch::cp_async_zfill<Bytes, cutlass::arch::CacheOperation::Always>(destination,
                                                                             source, valid);
#endif
}
/// Commits this thread's copies issued since the last commit as one group.
__device__ __forceinline__ void copyAsyncCommit() {
#ifndef SOLDER_HOST_MMA
  cutlass::arch::cp_async_fence();
#endif
}
/// Waits for all of this thread's committed copies.
__device__ __forceinline__ void copyAsyncWaitAll() {
#ifndef SOLDER_HOST_MMA
  cutlass::arch::cp_async_wait<0>();
#endif
}

} // namespace solder::arch

#endif // SOLDER_ARCH_SM80_CUH
