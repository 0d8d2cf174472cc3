//===- layout.cuh - Layout conversions for the tensor-core conv ----------===//
//
// PyTorch hands activations as NCDHW and weights as (Cout, Cin/g, *k) or,
// for conv_transpose, (Cin, Cout/g, *k); the tensor-core main loop reads
// NDHWC activations and KTRSC weights with input channels padded to a
// multiple of 4 (16-byte cp.async). The plan names each conversion and its
// bytes.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DEVICE_LAYOUT_CUH
#define SOLDER_DEVICE_LAYOUT_CUH

#include "solder/conv.cuh"

namespace solder {

/// One sample's [C][Volume] plane to [Volume][CPad] (zeros in the padding
/// channels), 32 pixels x 32 channels per block through shared memory, so
/// reads run along pixels and writes along channels. Grid: (pixel tiles,
/// channel tiles, samples), 256 threads.
template <int C, int CPad, long Volume>
__device__ __forceinline__ void toChannelsLast(const float *__restrict__ src,
                                               float *__restrict__ dst) {
  __shared__ float tile[32][33];
  const long n = blockIdx.z;
  const long pixelBase = blockIdx.x * 32L;
  const int channelBase = blockIdx.y * 32;
  const int x = threadIdx.x % 32, y = threadIdx.x / 32;
#pragma unroll
  for (int row = y; row < 32; row += 8) {
    const int c = channelBase + row;
    const long p = pixelBase + x;
    tile[row][x] = (c < C && p < Volume) ? src[(n * C + c) * Volume + p] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int row = y; row < 32; row += 8) {
    const long p = pixelBase + row;
    const int c = channelBase + x;
    if (p < Volume && c < CPad)
      dst[(n * Volume + p) * CPad + c] = tile[x][row];
  }
}

/// Weights of geometry G (groups == 1) to KTRSC with input channels padded
/// to CPad; conv_transpose's kernel is flipped (it runs as a conv). One
/// thread per destination element.
template <class G, int CPad>
__device__ __forceinline__ void weightsToKtrsc(const float *__restrict__ src,
                                               float *__restrict__ dst) {
  constexpr int kTaps = ConvShape<G>::kTaps;
  constexpr long kTotal = long(G::kOutChannels) * kTaps * CPad;
  const long e = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (e >= kTotal)
    return;
  const int c = e % CPad;
  const int tap = (e / CPad) % kTaps;
  const int k = e / (long(CPad) * kTaps);
  float value = 0.0f;
  if (c < G::kInChannels)
    value = G::kTransposed
                ? src[(long(c) * G::kOutChannels + k) * kTaps + (kTaps - 1 - tap)]
                : src[(long(k) * G::kInChannels + c) * kTaps + tap];
  dst[e] = value;
}

} // namespace solder

#endif // SOLDER_DEVICE_LAYOUT_CUH
