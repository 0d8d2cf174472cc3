//===- arch/sm90.cuh - The sm_90a primitives: wgmma, TMA, mbarriers -------===//
//
// Thin wrappers over CuTe's and CUTLASS's PTX wrappers for the Hopper main
// loop (conv/mainloop_implicit_gemm_wgmma.cuh): a warpgroup's TF32 wgmma
// with both operands in shared memory (or, for the direct conv, A from the
// warps' registers), the shared-memory descriptors it reads them through,
// the bulk tensor copies (im2col and tiled) that fill them, and the
// transaction barriers they complete on. wgmma needs the
// sm_90a target (nvcc -gencode=arch=compute_90a,code=sm_90a); compiled for
// any other, the main loop traps.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ARCH_SM90_CUH
#define SOLDER_ARCH_SM90_CUH

#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/arch/mma_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>

#include "solder/arch/wgmma_tf32_rs_ext.h"

#include <cstdint>
#include <iterator>
#include <utility>

namespace solder::arch {

/// Whether this compilation has wgmma (sm_90a).
#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)
inline constexpr bool kHasWgmma = true;
#else
inline constexpr bool kHasWgmma = false;
#endif

/// The descriptor of a K-major tile of 128-byte rows (32 TF32 values) in
/// the 128-byte swizzle that TMA writes: 8-row atoms 1024 bytes apart.
/// `address` is the shared-memory address of the 8-value K step to read,
/// inside a tile that starts on 1024 bytes.
__device__ __forceinline__ uint64_t swizzled128Descriptor(uint32_t address) {
  cute::GmmaDescriptor descriptor;
  descriptor.bitfield.start_address_ = address >> 4;
  descriptor.bitfield.leading_byte_offset_ = 1; // unused by swizzled K-major layouts
  descriptor.bitfield.stride_byte_offset_ = 1024 >> 4;
  descriptor.bitfield.base_offset_ = 0;
  descriptor.bitfield.layout_type_ = uint8_t(cute::SM90::GMMA::LayoutType::B128);
  return descriptor.desc_;
}

/// The warpgroup's 64 x N x 8 TF32 wgmma, fp32 accumulators (N / 2 a
/// thread), A and B from shared memory.
template <int N> struct WgmmaTF32;
template <> struct WgmmaTF32<64> { using Op = cute::SM90::GMMA::MMA_64x64x8_F32TF32TF32_SS_TN<>; };
template <> struct WgmmaTF32<128> { using Op = cute::SM90::GMMA::MMA_64x128x8_F32TF32TF32_SS_TN<>; };
template <> struct WgmmaTF32<256> { using Op = cute::SM90::GMMA::MMA_64x256x8_F32TF32TF32_SS_TN<>; };

using cute::SM90::GMMA::ScaleOut;
template <int N, std::size_t... I>
__device__ __forceinline__ void wgmmaTF32(uint64_t a, uint64_t b, float *accumulators,
                                          ScaleOut scale, std::index_sequence<I...>) {
  WgmmaTF32<N>::Op::fma(a, b, accumulators[I]..., scale);
}
/// accumulators[N / 2] += A (64 x 8) * B (8 x N), issued asynchronously
/// (ScaleOut::Zero: = instead of +=).
template <int N>
__device__ __forceinline__ void wgmmaTF32(uint64_t a, uint64_t b, float (&accumulators)[N / 2],
                                          ScaleOut scale = ScaleOut::One) {
  wgmmaTF32<N>(a, b, accumulators, scale, std::make_index_sequence<N / 2>{});
}

/// The descriptor of a K-major tile without swizzle: core matrices of 8
/// rows of 16 bytes (4 TF32 values) each 128 contiguous bytes, the two of
/// an 8-deep K step `leadingBytes` apart, successive 8-row groups
/// `strideBytes` apart. `address`: the step's first core matrix.
__device__ __forceinline__ uint64_t interleavedDescriptor(uint32_t address, uint32_t leadingBytes,
                                                          uint32_t strideBytes) {
  cute::GmmaDescriptor descriptor;
  descriptor.bitfield.start_address_ = address >> 4;
  descriptor.bitfield.leading_byte_offset_ = leadingBytes >> 4;
  descriptor.bitfield.stride_byte_offset_ = strideBytes >> 4;
  descriptor.bitfield.base_offset_ = 0;
  descriptor.bitfield.layout_type_ = uint8_t(cute::SM90::GMMA::LayoutType::INTERLEAVE);
  return descriptor.desc_;
}

/// The warpgroup's 64 x N x 8 TF32 wgmma with A from registers (each warp
/// its 16 rows, as a 16 x 8 mma.sync A fragment) and B from shared memory.
template <int N> struct WgmmaRegisterATF32;
#define SOLDER_WGMMA_RS_TF32(N, Namespace)                                                     \
  template <> struct WgmmaRegisterATF32<N> {                                                   \
    using Op = Namespace::MMA_64x##N##x8_F32TF32TF32_RS_TN<>;                                   \
  };
SOLDER_WGMMA_RS_TF32(8, cute::SM90::GMMA)
SOLDER_WGMMA_RS_TF32(16, cute::SM90::GMMA)
SOLDER_WGMMA_RS_TF32(24, gmma_ext)
SOLDER_WGMMA_RS_TF32(32, cute::SM90::GMMA)
SOLDER_WGMMA_RS_TF32(40, gmma_ext)
SOLDER_WGMMA_RS_TF32(48, gmma_ext)
SOLDER_WGMMA_RS_TF32(56, gmma_ext)
SOLDER_WGMMA_RS_TF32(64, cute::SM90::GMMA)
#undef SOLDER_WGMMA_RS_TF32

template <int N, class Fragments, std::size_t... I>
__device__ __forceinline__ void wgmmaRegisterATF32(const uint32_t (&a)[4], uint64_t b,
                                                   Fragments &d, ScaleOut scale,
                                                   std::index_sequence<I...>) {
  WgmmaRegisterATF32<N>::Op::fma(a[0], a[1], a[2], a[3], b, d[I / 4][I % 4]..., scale);
}
/// d += A (64 x 8, the warps' registers) * B (8 x N): d is N / 8 mma.sync
/// accumulator fragments of 4, which wgmma's accumulators match element
/// for element (ScaleOut::Zero: = instead of +=).
template <int N, class Fragments>
__device__ __forceinline__ void wgmmaRegisterATF32(const uint32_t (&a)[4], uint64_t b,
                                                   Fragments &d,
                                                   ScaleOut scale = ScaleOut::One) {
  wgmmaRegisterATF32<N>(a, b, d, scale, std::make_index_sequence<N / 2>{});
}

/// Keeps the compiler from moving accesses of `values` (an array or a
/// fragment of floats) across the asynchronous wgmma that reads and writes
/// them.
template <class Values> __device__ __forceinline__ void fenceOperands(Values &values) {
#pragma unroll
  for (int i = 0; i < int(std::size(values)); ++i)
    cute::warpgroup_fence_operand(values[i]);
}

/// Makes this thread's ordinary stores to shared memory visible to wgmma,
/// which reads shared memory through the async proxy (before the barrier
/// that hands them over).
__device__ __forceinline__ void fenceSharedForWgmma() { cutlass::arch::fence_view_async_shared(); }

using cutlass::arch::ClusterBarrier;
using cutlass::arch::ClusterTransactionBarrier;

/// Makes a tensor map that the host wrote (cuMemcpyHtoD, at load) visible
/// to the copy engine's proxy: once, before its first copy.
__device__ __forceinline__ void acquireTensorMap(const void *map) {
#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
  asm volatile("fence.proxy.tensormap::generic.acquire.sys [%0], 128;" ::"l"(map) : "memory");
#endif
}

/// The im2col bulk copy of a box of pixels x channels of a conv's NHWC
/// (`map` a 4-D im2col tensor map) or NDHWC input (5-D), completing on
/// `barrier`.
__device__ __forceinline__ void copyIm2col(const void *map, uint64_t *barrier, void *destination,
                                           int c, int w, int h, int d, int n, uint16_t offsetW,
                                           uint16_t offsetH, uint16_t offsetD, bool threeD) {
  if (threeD)
    cute::SM90_TMA_LOAD_IM2COL_5D::copy(map, barrier, destination, c, w, h, d, n, offsetW, offsetH,
                                        offsetD);
  else
    cute::SM90_TMA_LOAD_IM2COL_4D::copy(map, barrier, destination, c, w, h, n, offsetW, offsetH);
}

/// The tiled bulk copy of a box of a 2-D tensor map, completing on `barrier`.
__device__ __forceinline__ void copyTile2d(const void *map, uint64_t *barrier, void *destination,
                                           int inner, int outer) {
  cute::SM90_TMA_LOAD_2D::copy(map, barrier, uint64_t(cute::TMA::CacheHintSm90::EVICT_NORMAL),
                               destination, inner, outer);
}

} // namespace solder::arch

#endif // SOLDER_ARCH_SM90_CUH
