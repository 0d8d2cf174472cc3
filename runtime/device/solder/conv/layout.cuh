//===- conv/layout.cuh - Layout conversions for the tensor-core conv ------===//
//
// PyTorch hands activations as NCDHW and weights as (Cout, Cin/g, *k) or,
// for conv_transpose, (Cin, Cout/g, *k); the tensor-core main loop reads
// NDHWC activations and KTRSC weights with input channels padded to a
// multiple of 4 (16-byte cp.async). A conv's prologue (the pointwise ops
// its region applies to the input) runs as the input is converted, or for
// the main loops that read NCDHW, in a kernel of its own (applyPrologue).
// The plan names each conversion and its bytes.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_LAYOUT_CUH
#define SOLDER_CONV_LAYOUT_CUH

#include "solder/conv/geometry.cuh"
#include "solder/conv/implicit_gemm_layout.h"

namespace solder {

/// A conv input read as it is: the prologue of a region without one.
struct NoPrologue {
  __device__ float operator()(long, int, long, const float x) const { return x; }
};

/// The nearest TF32 value to x (ties away from zero, as cvt.rna).
__device__ __forceinline__ float roundToTF32(float x) {
#ifdef SOLDER_HOST_MMA
  // The CPU run of generated kernels: cvt.rna's ties away from zero.
  unsigned bits = __float_as_uint(x);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0x1000u) & 0xffffe000u;
#else
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
#endif
  return __uint_as_float(bits);
}

/// How a conversion stores what the main loop reads, element e of its
/// destination on (four at a time where a float4 store does):
///   * StoreAsIs: the value (sm80's main loops split or round it as they
///     load it);
///   * StoreTF32: rounded to the nearest TF32 value, for the Hopper TF32
///     main loop, whose wgmma reads fp32 operands from shared memory by
///     dropping their low 13 bits (truncation: twice the error of the
///     rounding that sm80's conversion and cuDNN apply);
///   * StoreTF32Parts: split into a big and a small TF32 part, x = big +
///     small to 2^-22 of x, each in a buffer of its own, for the Hopper
///     3xTF32 main loop (big x big + big x small + small x big a product).
struct StoreAsIs {
  float *dst;
  __device__ void operator()(long e, float x) const { dst[e] = x; }
  __device__ void operator()(long e, float4 x) const { *reinterpret_cast<float4 *>(dst + e) = x; }
};
struct StoreTF32 {
  float *dst;
  __device__ void operator()(long e, float x) const { dst[e] = roundToTF32(x); }
  __device__ void operator()(long e, float4 x) const {
    *reinterpret_cast<float4 *>(dst + e) =
        make_float4(roundToTF32(x.x), roundToTF32(x.y), roundToTF32(x.z), roundToTF32(x.w));
  }
};
struct StoreTF32Parts {
  float *big, *small;
  /// The big part: x rounded to TF32, or truncated where rounding would
  /// overflow (the largest finite values), so that the parts stay finite.
  __device__ static float bigPart(float x) {
    const float high = roundToTF32(x);
    return isinf(high) ? __uint_as_float(__float_as_uint(x) & 0xffffe000u) : high;
  }
  __device__ void operator()(long e, float x) const {
    const float high = bigPart(x);
    big[e] = high;
    small[e] = roundToTF32(x - high);
  }
  __device__ void operator()(long e, float4 x) const {
    const float4 high = make_float4(bigPart(x.x), bigPart(x.y), bigPart(x.z), bigPart(x.w));
    *reinterpret_cast<float4 *>(big + e) = high;
    *reinterpret_cast<float4 *>(small + e) =
        make_float4(roundToTF32(x.x - high.x), roundToTF32(x.y - high.y), roundToTF32(x.z - high.z),
                    roundToTF32(x.w - high.w));
  }
};
/// A destination pointer stores as it is.
__device__ __forceinline__ StoreAsIs storeTo(float *dst) { return {dst}; }
template <class Store> __device__ __forceinline__ Store storeTo(const Store &store) {
  return store;
}

/// One sample's [C][Volume] plane to [Volume][CPad] (zeros in the padding
/// channels) through shared memory, a tile of 64 channels x 64 pixels per
/// block: each thread loads four float4 along the pixels of a channel and
/// stores four float4 along the channels of a pixel, all loads in flight
/// before the first store (a 32 x 32 tile of scalars, four loads a thread,
/// held 2.8 of the 4.2 TB/s a copy reaches: W2's input took 96 us). Inputs
/// are 16-byte aligned (the runtime checks it); with Volume % 4 != 0 rows do
/// not start at a multiple of 4 and the loads are scalar. Grid: (pixel
/// tiles, channel tiles, samples), 256 threads. `prologue(n, c, p, x)` is
/// what the conv reads at (n, c, pixel p) of input value x (a generated
/// functor: the region's pointwise ops before the conv), applied to each
/// element loaded; padding channels stay 0, and so does the main loop's
/// spatial zero padding, which it never reads from here. `dst` is where
/// it stores and how (a pointer, or one of the stores above).
template <int C, int CPad, long Volume, class Destination, class Prologue = NoPrologue>
__device__ __forceinline__ void toChannelsLast(const float *__restrict__ src, Destination dst,
                                               const Prologue &prologue = {}) {
  const auto store = storeTo(dst);
  static_assert(CPad % 4 == 0, "channels padded to a multiple of 4");
  constexpr int kTile = kChannelsLastTile, kPasses = kTile / 16;
  __shared__ float tile[kTile][kTile + 1];
  const long n = blockIdx.z;
  const long pixelBase = blockIdx.x * long(kTile);
  const int channelBase = blockIdx.y * kTile;
  // 16 threads a row of the tile, four elements each; 16 rows a pass.
  const int quad = threadIdx.x % 16, row = threadIdx.x / 16;
  float4 loaded[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int c = channelBase + row + 16 * pass;
    const long p = pixelBase + 4 * quad;
    const float *channel = src + (n * C + c) * Volume;
    float4 value = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (c < C) {
      if constexpr (Volume % 4 == 0) {
        if (p < Volume)
          value = *reinterpret_cast<const float4 *>(channel + p);
      } else {
        value.x = p < Volume ? channel[p] : 0.0f;
        value.y = p + 1 < Volume ? channel[p + 1] : 0.0f;
        value.z = p + 2 < Volume ? channel[p + 2] : 0.0f;
        value.w = p + 3 < Volume ? channel[p + 3] : 0.0f;
      }
      if (p < Volume)
        value.x = prologue(n, c, p, value.x);
      if (p + 1 < Volume)
        value.y = prologue(n, c, p + 1, value.y);
      if (p + 2 < Volume)
        value.z = prologue(n, c, p + 2, value.z);
      if (p + 3 < Volume)
        value.w = prologue(n, c, p + 3, value.w);
    }
    loaded[pass] = value;
  }
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    float *line = &tile[row + 16 * pass][4 * quad];
    line[0] = loaded[pass].x;
    line[1] = loaded[pass].y;
    line[2] = loaded[pass].z;
    line[3] = loaded[pass].w;
  }
  __syncthreads();
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int pixel = row + 16 * pass, c = channelBase + 4 * quad;
    const long p = pixelBase + pixel;
    if (p < Volume && c < CPad)
      store((n * Volume + p) * CPad + c,
            make_float4(tile[4 * quad][pixel], tile[4 * quad + 1][pixel], tile[4 * quad + 2][pixel],
                        tile[4 * quad + 3][pixel]));
  }
}

/// toChannelsLast of an input with one pixel a sample (a GEMM's rows, a
/// pooled vector): each sample's C values are already channels-last, so the
/// conversion is a copy that pads each row to CPad, four output elements a
/// thread (a float4 load where C % 4 == 0). A tile of toChannelsLast would
/// hold one pixel of its 64. Grid: Samples x CPad / 4 threads, 256 a block.
template <int C, int CPad, long Samples, class Destination, class Prologue = NoPrologue>
__device__ __forceinline__ void rowsToChannelsLast(const float *__restrict__ src, Destination dst,
                                                   const Prologue &prologue = {}) {
  static_assert(CPad % 4 == 0, "channels padded to a multiple of 4");
  const long first = (blockIdx.x * long(blockDim.x) + threadIdx.x) * 4;
  if (first >= Samples * CPad)
    return;
  const long n = first / CPad;
  const int c = int(first % CPad);
  const float *row = src + n * C;
  float value[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if constexpr (C % 4 == 0) {
    const float4 loaded = *reinterpret_cast<const float4 *>(row + c);
    value[0] = loaded.x, value[1] = loaded.y, value[2] = loaded.z, value[3] = loaded.w;
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (c + k < C)
        value[k] = row[c + k];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (c + k < C)
      value[k] = prologue(n, c + k, 0, value[k]);
  storeTo(dst)(first, make_float4(value[0], value[1], value[2], value[3]));
}

/// The conv input as a main loop that reads PyTorch's NCDHW layout sees
/// it: `prologue` (as for toChannelsLast) at every element of `src`, into
/// `dst`. A thread an element, 256 a block.
template <int C, long Volume, long Total, class Prologue>
__device__ __forceinline__ void applyPrologue(const float *__restrict__ src,
                                              float *__restrict__ dst,
                                              const Prologue &prologue) {
  const long e = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (e >= Total)
    return;
  const long p = e % Volume;
  dst[e] = prologue(e / (C * Volume), int((e / Volume) % C), p, src[e]);
}

/// Weights of geometry G to KTRSC with input channels padded to CPad (a
/// group's: a grouped conv's output channel k reduces over its group's
/// input channels alone, so its KTRSC row holds those). A conv_transpose
/// runs as its output phases (Phases), each a conv of its taps reversed:
/// each phase's taps form a KTRSC block of their own, phase after phase
/// (TensorOpConv's Context says where each starts), every tap once; with a
/// stride of 1 that is one block, the whole kernel flipped. One thread per
/// destination element, stored as `dst` says (a pointer: as it is).
template <class G, int CPad, class Destination>
__device__ __forceinline__ void weightsToKtrsc(const float *__restrict__ src, Destination dst) {
  constexpr int kTaps = ConvShape<G>::kTaps;
  constexpr int kInPerGroup = ConvShape<G>::kInPerGroup, kOutPerGroup = ConvShape<G>::kOutPerGroup;
  constexpr long kTotal = long(G::kOutChannels) * kTaps * CPad;
  const long e = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (e >= kTotal)
    return;
  const int c = e % CPad;
  float value = 0.0f;
  if constexpr (G::kTransposed) {
    // (input channel, output channel of its group, taps).
    long first = 0;
    for (int phase = 0; phase < Phases<G>::kCount; ++phase) {
      const typename Phases<G>::Phase dims = Phases<G>::get(phase);
      const int taps = dims.taps();
      const long size = long(G::kOutChannels) * taps * CPad;
      if (e < first + size) {
        const long local = e - first;
        const int tap = dims.tap(taps - 1 - int(local / CPad % taps));
        const int k = int(local / (long(CPad) * taps));
        const int group = k / kOutPerGroup;
        if (c < kInPerGroup)
          value = src[(long(group * kInPerGroup + c) * kOutPerGroup + k % kOutPerGroup) * kTaps +
                      tap];
        break;
      }
      first += size;
    }
  } else {
    // (output channel, input channel of its group, taps).
    const int tap = (e / CPad) % kTaps;
    const int k = e / (long(CPad) * kTaps);
    if (c < kInPerGroup)
      value = src[(long(k) * kInPerGroup + c) * kTaps + tap];
  }
  storeTo(dst)(e, value);
}

} // namespace solder

#endif // SOLDER_CONV_LAYOUT_CUH
