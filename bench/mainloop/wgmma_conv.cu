// The Hopper main loop alone (conv/mainloop_implicit_gemm_wgmma.cuh): each
// tile's accumulators copied from the accumulator tile to an NDHWC output,
// checked against float64 at sampled outputs, and timed (CUDA events, L2
// flushed, median of 20). One JSON line a conv. -DTHREE_TF32=1: the 3xTF32
// main loop, over operands split into big and small TF32 parts here as the
// conversions split them (StoreTF32Parts). -DACROSS=1: tiles across samples
// (AcrossSamplePixelTiles), as the plan runs long reductions. -DRAW_TF32=1:
// TF32 on operands stored unrounded (what the tensor cores make of fp32
// bits: they truncate); -DPOSITIVE=1: operands U[0, 1), where truncation's
// bias adds up. `wgmma_conv gemm_8192`: the 8192^3 GEMM as the plan runs it.
// Device machine:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -Iruntime/device -Ithird_party/cutlass/include -DTILE_M=128 -DTILE_N=128 -DSTAGES=5 \
//     bench/mainloop/wgmma_conv.cu -lcuda -o /tmp/wgmma_conv && /tmp/wgmma_conv
#include "solder/conv/mainloop_implicit_gemm_wgmma.cuh"
#include "solder/conv/tensor_map_encode.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      printf("{\"error\":\"%s: %s\"}\n", #call, cudaGetErrorString(e));                    \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

#ifndef TILE_M
#define TILE_M 128
#endif
#ifndef TILE_N
#define TILE_N 128
#endif
#ifndef STAGES
#define STAGES 5
#endif
#ifndef MIN_BLOCKS // blocks an SM the registers must allow
#define MIN_BLOCKS 1
#endif
#ifndef THREE_TF32
#define THREE_TF32 0
#endif
#ifndef RAW_TF32 // TF32: the operands stored as fp32, unrounded (the tensor cores read 19 bits)
#define RAW_TF32 0
#endif
#ifndef POSITIVE // inputs and weights U[0, 1) instead of U[-1, 1): rounding's bias shows
#define POSITIVE 0
#endif
#ifndef ACROSS // tiles across samples (AcrossSamplePixelTiles): a grid of one sample
#define ACROSS 0
#endif
constexpr solder::TensorMath kMath =
    THREE_TF32 ? solder::TensorMath::k3xTF32 : solder::TensorMath::kTF32;

// cvt.rna.tf32.f32 on the host: the nearest TF32 value, ties away from zero.
static float roundToTF32(float x) {
  unsigned bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

// 3x3, 256 -> 256, 64 x 56 x 56, padding 1 (the issue's main-loop target).
struct Big3x3 {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 64, kInChannels = 256, kOutChannels = 256, kGroups = 1;
  static constexpr int kIn[3] = {1, 56, 56}, kOut[3] = {1, 56, 56}, kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 1, 1}, kDilation[3] = {1, 1, 1};
};
// W2's ConvTranspose3d(64, 128, 3), stride 1, over 16 x 64 x 32^3.
struct W2 {
  static constexpr bool kTransposed = true;
  static constexpr int kBatch = 16, kInChannels = 64, kOutChannels = 128, kGroups = 1;
  static constexpr int kIn[3] = {32, 32, 32}, kOut[3] = {34, 34, 34}, kKernel[3] = {3, 3, 3};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 0, 0}, kDilation[3] = {1, 1, 1};
};
// W2 small's: 16 x 64 x 8 x 16 x 16.
struct W2Small {
  static constexpr bool kTransposed = true;
  static constexpr int kBatch = 16, kInChannels = 64, kOutChannels = 128, kGroups = 1;
  static constexpr int kIn[3] = {8, 16, 16}, kOut[3] = {10, 18, 18}, kKernel[3] = {3, 3, 3};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 0, 0}, kDilation[3] = {1, 1, 1};
};
// A strided, dilated 2-D conv with channels 32 does not divide.
struct Strided {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 4, kInChannels = 40, kOutChannels = 72, kGroups = 1;
  static constexpr int kIn[3] = {1, 33, 30}, kOut[3] = {1, 15, 14}, kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 2, 2}, kPad[3] = {0, 1, 1}, kDilation[3] = {1, 2, 2};
};
// W3's 3x3 conv, 8 -> 64 channels (most of each K step is zeros).
struct W3 {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 128, kInChannels = 8, kOutChannels = 64, kGroups = 1;
  static constexpr int kIn[3] = {1, 128, 128}, kOut[3] = {1, 126, 126}, kKernel[3] = {1, 3, 3};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 0, 0}, kDilation[3] = {1, 1, 1};
};

// The 8192^3 GEMM as the plan runs a Linear: one pixel a sample, tiles
// across samples (rows).
struct Gemm8192 {
  static constexpr bool kTransposed = false;
  static constexpr int kBatch = 8192, kInChannels = 8192, kOutChannels = 8192, kGroups = 1;
  static constexpr int kIn[3] = {1, 1, 1}, kOut[3] = {1, 1, 1}, kKernel[3] = {1, 1, 1};
  static constexpr int kStride[3] = {1, 1, 1}, kPad[3] = {0, 0, 0}, kDilation[3] = {1, 1, 1};
};

template <class MainLoop>
__global__ void __launch_bounds__(MainLoop::kThreads, MIN_BLOCKS)
    convKernel(float *out, const __grid_constant__ solder::WgmmaTensorMaps maps) {
  extern __shared__ __align__(16) char shared[];
  using G = typename MainLoop::Geometry;
  const solder::WorkTile work{int(blockIdx.x), int(blockIdx.z), int(blockIdx.y)}; // pixel tile, sample, channel tile
  float *tile = MainLoop::computeTile(nullptr, nullptr, work, shared, maps);
  const int pixels = MainLoop::pixelCount(work.pixelTile), base = MainLoop::pixelBase(work.pixelTile);
  constexpr int volume = solder::ConvShape<G>::kOutVolume;
  for (int i = threadIdx.x; i < MainLoop::BM * MainLoop::BN; i += MainLoop::kThreads) {
    const int c = i % MainLoop::BN, p = i / MainLoop::BN, channel = work.channelTile * MainLoop::BN + c;
    if (p < pixels && channel < G::kOutChannels)
      out[((long)work.n * volume + base + p) * G::kOutChannels + channel] =
          tile[c * MainLoop::Tile::kStride + p];
  }
}

static CUtensorMap encode(const solder::TensorMapSpec &spec, void *address) {
  CUtensorMap map;
  if (CUresult r = solder::encodeTensorMap(&map, spec, address, cuTensorMapEncodeIm2col,
                                           cuTensorMapEncodeTiled)) {
    printf("{\"error\":\"tensor map encode %d\"}\n", int(r));
    exit(1);
  }
  return map;
}

template <class G> static void run(const char *name) {
  using MainLoop =
      solder::WgmmaConv<G, solder::WgmmaTile<TILE_M, TILE_N, STAGES, kMath, 1, bool(ACROSS)>>;
  constexpr auto form = MainLoop::kForm;
  const long inElems = (long)G::kBatch * solder::ConvShape<G>::kInVolume * form.channels;
  const long wElems = (long)G::kOutChannels * form.taps() * form.channels;
  const long outElems = (long)G::kBatch * solder::ConvShape<G>::kOutVolume * G::kOutChannels;
  std::vector<float> in(inElems), w(wElems), out(outElems);
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> u(POSITIVE ? 0 : -1, 1);
  for (long i = 0; i < inElems; ++i)
    in[i] = i % form.channels < G::kInChannels ? u(gen) : 0.f; // padded channels are zeros
  for (auto &x : w)
    x = u(gen);
  // What the conversions store: TF32 values, or big and small TF32 parts
  // (the small ones after the big); the float64 check reads the fp32 ones.
  auto parts = [](const std::vector<float> &x, bool raw) {
    std::vector<float> stored(x.size() * (THREE_TF32 ? 2 : 1));
    for (size_t i = 0; i < x.size(); ++i) {
      stored[i] = raw && !THREE_TF32 ? x[i] : roundToTF32(x[i]);
      if (THREE_TF32)
        stored[x.size() + i] = roundToTF32(x[i] - stored[i]);
    }
    return stored;
  };
  std::vector<float> storedIn = parts(in, RAW_TF32), storedW = parts(w, RAW_TF32);
  float *dIn, *dW, *dOut;
  char *flush;
  CHECK(cudaMalloc(&dIn, storedIn.size() * 4));
  CHECK(cudaMalloc(&dW, storedW.size() * 4));
  CHECK(cudaMalloc(&dOut, outElems * 4));
  CHECK(cudaMalloc(&flush, 256 << 20));
  CHECK(cudaMemcpy(dIn, storedIn.data(), storedIn.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dW, storedW.data(), storedW.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dOut, 0xff, outElems * 4)); // NaN: every output must be written
  solder::WgmmaTensorMaps maps;
  *reinterpret_cast<CUtensorMap *>(&maps.input) = encode(solder::wgmmaInputMap(form, TILE_M), dIn);
  *reinterpret_cast<CUtensorMap *>(&maps.weight) = encode(solder::wgmmaWeightMap(form, TILE_N), dW);
  if (THREE_TF32) {
    *reinterpret_cast<CUtensorMap *>(&maps.inputSmall) =
        encode(solder::wgmmaInputMap(form, TILE_M), dIn + inElems);
    *reinterpret_cast<CUtensorMap *>(&maps.weightSmall) =
        encode(solder::wgmmaWeightMap(form, TILE_N), dW + wElems);
  }
  auto kernel = convKernel<MainLoop>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             MainLoop::kSharedBytes));
  dim3 grid(MainLoop::kPixelTiles, MainLoop::kChannelTiles, ACROSS ? 1 : G::kBatch);
  auto launch = [&] { kernel<<<grid, MainLoop::kThreads, MainLoop::kSharedBytes>>>(dOut, maps); };
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), dOut, outElems * 4, cudaMemcpyDeviceToHost));
  // float64 at 3000 sampled outputs (and every NaN counted).
  long nans = 0;
  for (float x : out)
    nans += std::isnan(x);
  double num = 0, den = 0;
  std::mt19937_64 pick(7);
  constexpr int OD = form.out[0], OH = form.out[1], OW = form.out[2];
  for (int it = 0; it < 3000; ++it) {
    long idx = pick() % outElems, rem = idx;
    int k = rem % G::kOutChannels; rem /= G::kOutChannels;
    int x = rem % OW; rem /= OW;
    int y = rem % OH; rem /= OH;
    int z = rem % OD;
    int n = rem / OD;
    double acc = 0;
    for (int t = 0; t < form.kernel[0]; ++t)
      for (int r = 0; r < form.kernel[1]; ++r)
        for (int s = 0; s < form.kernel[2]; ++s) {
          int iz = z * form.stride[0] - form.padBefore[0] + t * form.dilation[0];
          int iy = y * form.stride[1] - form.padBefore[1] + r * form.dilation[1];
          int ix = x * form.stride[2] - form.padBefore[2] + s * form.dilation[2];
          if (iz < 0 || iz >= form.in[0] || iy < 0 || iy >= form.in[1] || ix < 0 || ix >= form.in[2])
            continue;
          const float *a = &in[((((long)n * form.in[0] + iz) * form.in[1] + iy) * form.in[2] + ix) *
                               form.channels];
          const float *b = &w[(((long)k * form.kernel[0] + t) * form.kernel[1] + r) *
                                  form.kernel[2] * form.channels +
                              (long)s * form.channels];
          for (int c = 0; c < form.channels; ++c)
            acc += double(a[c]) * b[c];
        }
    num += (out[idx] - acc) * (out[idx] - acc);
    den += acc * acc;
  }
  std::vector<float> times;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < 23; ++i) {
    CHECK(cudaMemsetAsync(flush, i, 256 << 20));
    CHECK(cudaEventRecord(e0));
    launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 3)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  const double flops = 2.0 * outElems * G::kInChannels * form.taps();
  // The tile: BMxBN_sSTAGES, _bBLOCKS where the registers are bounded for
  // more than one CTA an SM (bench/scripts/rates.py reads it).
  char tile[32];
  const int length = snprintf(tile, sizeof tile, "%dx%d_s%d", TILE_M, TILE_N, STAGES);
  if (MIN_BLOCKS > 1)
    snprintf(tile + length, sizeof tile - length, "_b%d", MIN_BLOCKS);
  printf("{\"name\":\"%s\",\"math\":\"%s\",\"tile\":\"%s\",\"ms\":%.4f,\"tflops\":%.1f,"
         "\"rel_l2\":%.2e,"
         "\"nans\":%ld,\"pixels\":\"%s\",\"operands\":\"%s\"}\n",
         name, THREE_TF32 ? "3xtf32" : "tf32", tile, ms, flops / ms / 1e9,
         std::sqrt(num / den), nans, ACROSS ? "across_samples" : "per_sample",
         RAW_TF32 && !THREE_TF32 ? "fp32_unrounded" : "rounded");
  cudaFree(dIn);
  cudaFree(dW);
  cudaFree(dOut);
  cudaFree(flush);
}

int main(int argc, char **argv) {
  // Optionally one conv by name.
  auto wanted = [&](const char *name) { return argc < 2 || std::string(argv[1]) == name; };
  if (wanted("strided_dilated_40to72"))
    run<Strided>("strided_dilated_40to72");
  if (wanted("w3_conv"))
    run<W3>("w3_conv");
  if (wanted("w2_convT"))
    run<W2>("w2_convT");
  if (wanted("w2_small_convT"))
    run<W2Small>("w2_small_convT");
  if (wanted("big3x3_256"))
    run<Big3x3>("big3x3_256");
  if (argc > 1 && std::string(argv[1]) == "gemm_8192") // only by name: 1 GB of host arrays
    run<Gemm8192>("gemm_8192");
}
