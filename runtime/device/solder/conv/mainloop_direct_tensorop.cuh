//===- conv/mainloop_direct_tensorop.cuh - Direct conv on tensor cores ----===//
//
// A conv whose reduction is short (few input channels: W1's 3 x 27 taps,
// W3's 8 x 9) wastes most of an implicit-GEMM K step on zeros, and its
// input must first be converted to NDHWC. Here a block stages the input
// window of whole output rows (one output plane, Rows rows, every column)
// in shared memory as PyTorch lays it out (channel, depth, row, column, zero
// where the window leaves the input), and the weights as B fragments over
// k = (input channel, kd, kh, kw), PyTorch's own order (split into TF32
// parts once a call by prepare, a kernel before the conv). The reduction is
// then walked in 8-deep steps of sm80 mma.sync TF32 (CUTLASS's
// arch::Mma 16x8x8): an A fragment element (pixel p, reduction index k) is
// window[pixelOffset(p) + reductionOffset(k)], one shared-memory load
// straight into its operand register (3xTF32 keeps the big and the small
// parts in two planes: a load each), with no im2col, no layout conversion
// and the whole K dense (81 = 10.1 steps for W1, 72 = 9 for W3).
//   * ieee: 3xTF32 (both parts rounded to nearest; small x big + big x
//     small + big x big accumulated in fp32; where a sum downstream
//     cancels, each step's three products summed apart first: StepSums);
//   * tf32: one TF32 product of operands rounded to nearest.
// Centered (the plan's choice in tf32 for unpadded convs whose output a
// sum downstream cancels): the window is staged minus a shift per (sample,
// input channel), near the channel's mean, and the shift comes back
// through the weights' exact tap sums, conv(x) = conv(x - s) +
// sum_ci s_ci * sum_taps w(c, ci, tap), added in double-float when the
// accumulators leave. The tensor cores then round and truncate values of
// the data's spread, not of its offset (W1 at x + 1000: an offset 3000x
// the spread).
// The accumulators leave through the channel-major shared tile that
// solder::runConv's generated epilogue visits (conv_epilogue.cuh), or, for
// an epilogue that only reduces the conv output (W1's statistics), as each
// tile's channel moments summed in registers.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_MAINLOOP_DIRECT_TENSOROP_CUH
#define SOLDER_CONV_MAINLOOP_DIRECT_TENSOROP_CUH

#include "solder/conv/geometry.cuh"
#include "solder/epilogue/tile_visit.cuh"

#include <cutlass/arch/mma_sm80.h>
// The CPU run of generated kernels (test/Codegen/Inputs/host, which
// defines SOLDER_HOST_MMA) copies where a GPU issues cp.async.
#ifndef SOLDER_HOST_MMA
#include <cutlass/arch/memory_sm80.h>
#endif
#include <cutlass/numeric_conversion.h>

#include <algorithm>
#include <type_traits>

namespace solder {

/// Direct tensor-core conv of geometry G (groups == 1, not transposed): a
/// block computes Rows whole output rows of one output plane of one sample
/// by BN output channels (a multiple of 8), with Warps warps. StepSums
/// (3xTF32, for outputs a sum downstream cancels): each reduction step's
/// products go into a fresh fragment, added to the accumulator in fp32.
/// Centered: the input enters minus a shift per (sample, channel), which
/// the epilogue's accumulators get back exactly (see above).
template <class G, int Rows, int BN_, int Warps, TensorMath Math, bool StepSums = false,
          bool Centered = false>
struct DirectTensorOpConv {
  static_assert(G::kGroups == 1 && !G::kTransposed,
                "the direct conv runs ungrouped convs");
  static_assert(!StepSums || Math == TensorMath::k3xTF32, "step sums are for 3xTF32");
  // Padding reads zeros, which a shift would move: the identity above
  // holds where every tap reads the input.
  static_assert(!Centered || (G::kPad[0] == 0 && G::kPad[1] == 0 && G::kPad[2] == 0),
                "a centered input needs an unpadded conv");
  static_assert(BN_ % 8 == 0 && Rows >= 1 && Warps >= 1, "the plan's tile");
  using Geometry = G;
  static constexpr int kOutH = G::kOut[1], kOutW = G::kOut[2];
  static constexpr int kRowTiles = (kOutH + Rows - 1) / Rows;
  static constexpr int kTilePixels = Rows * kOutW;
  /// The epilogue's lanes take BM / 32 pixels of each channel.
  static constexpr int BM = (kTilePixels + 31) / 32 * 32, BN = BN_;
  static constexpr int kWarps = Warps, kThreads = 32 * Warps;
  static constexpr int kTileStride = BM + 4;

  /// MMA steps: 16 pixels x 8 channels x 8 reduction elements.
  static constexpr int kMmaRows = (kTilePixels + 15) / 16;
  static constexpr int kMmaRowsPerWarp = (kMmaRows + Warps - 1) / Warps;
  static constexpr int kMmaCols = BN / 8;
  static constexpr int kTaps = ConvShape<G>::kTaps;
  static constexpr int kK = G::kInChannels * kTaps;
  static constexpr int kKSteps = (kK + 7) / 8;
  static constexpr bool kThreeTF32 = Math == TensorMath::k3xTF32;
  /// TF32 parts kept of each operand element: big and small, or one.
  static constexpr int kParts = kThreeTF32 ? 2 : 1;
  /// With a multiple of 8 input channels the reduction runs channel-fastest
  /// (k = tap x C + c): fragment column q then reads channel q of the same
  /// tap, a fixed per-lane offset, and every step's offset is a constant.
  static constexpr bool kChannelFastest = G::kInChannels % 8 == 0;

  /// The weights in fragment order: for k-step s, column block j and lane,
  /// the B fragment (k0 = 8s + lane % 4 and k0 + 4 of channel 8j + lane / 4)
  /// as {big k0, big k0 + 4, small k0, small k0 + 4}: one 16-byte load.
  static constexpr int kWeightFragments = kKSteps * kMmaCols * 32;
  static constexpr int kWeightFloats = kWeightFragments * 2 * kParts;

  /// The input window of one tile, each element split once into its TF32
  /// parts, kept in kParts planes of kWindowElements (big, then small).
  static constexpr int kWinD = (G::kKernel[0] - 1) * G::kDilation[0] + 1;
  static constexpr int kWinH =
      (Rows - 1) * G::kStride[1] + (G::kKernel[1] - 1) * G::kDilation[1] + 1;
  static constexpr int kWinW =
      (kOutW - 1) * G::kStride[2] + (G::kKernel[2] - 1) * G::kDilation[2] + 1;
  /// Strides in 4-byte elements (32 banks). A warp's load of an A fragment
  /// element reads 8 pixels by 4 reduction elements. Channel-fastest, those
  /// are 4 channels: a channel stride of 8 mod 32 puts them on distinct
  /// banks. Otherwise they are neighbouring taps (W1: 0, 1, 2 and the next
  /// kernel row's 0): a row pitch of 16 or 20 mod 32 keeps the next row's
  /// 8 pixels off the banks of this row's 10 (W1, simulated: 1.27
  /// wavefronts a load where a pitch of 40 took 1.58).
  static constexpr int windowPitch() {
    int pitch = (kWinW + 3) / 4 * 4;
    while (!kChannelFastest && pitch % 32 != 16 && pitch % 32 != 20)
      pitch += 4;
    return pitch;
  }
  static constexpr int kWinPitch = windowPitch();
  static constexpr int kWinPlane = kWinH * kWinPitch;
  static constexpr int kWinChannel = kWinD * kWinPlane + (40 - kWinD * kWinPlane % 32) % 32;
  static constexpr int kWindowElements = G::kInChannels * kWinChannel;

  /// Each reduction element's window offset in bytes, unless channel-fastest.
  static constexpr int kOffsetTableBytes = kChannelFastest ? 0 : kKSteps * 8 * 4;
  static constexpr int kMainLoopBytes =
      (kWeightFloats + kWindowElements * kParts) * 4 + kOffsetTableBytes;
  static constexpr int kTileBytes = BN * kTileStride * 4;
  /// Centered: the shift's contribution to each of the tile's channels, as
  /// a double-float (high, low), past both the main loop's and the tile's
  /// shared memory (the tile is written while it is read).
  static constexpr int kMainLoopOrTileBytes =
      kMainLoopBytes > kTileBytes ? kMainLoopBytes : kTileBytes;
  static constexpr int kCorrectionOffset = (kMainLoopOrTileBytes + 7) / 8 * 8;
  static constexpr int kSharedBytes =
      Centered ? kCorrectionOffset + BN * 8 : kMainLoopOrTileBytes;

  /// Tile t covers output rows [r * Rows, r * Rows + Rows) of plane z.
  __device__ static int pixelBase(int tile) {
    return (tile / kRowTiles * kOutH + tile % kRowTiles * Rows) * kOutW;
  }
  __device__ static int pixelCount(int tile) {
    const int rows = kOutH - tile % kRowTiles * Rows;
    return (rows < Rows ? rows : Rows) * kOutW;
  }

  /// Input channel and kernel tap of reduction element k < kK.
  __device__ static constexpr int reductionChannel(int k) {
    return kChannelFastest ? k % G::kInChannels : k / kTaps;
  }
  __device__ static constexpr int reductionTap(int k) {
    return kChannelFastest ? k / G::kInChannels : k % kTaps;
  }
  /// Offset of reduction element k in the window; the padding past kK reads
  /// element 0 (its weights are zero, and the window holds no NaN).
  __device__ static constexpr int reductionOffset(int k) {
    if (k >= kK)
      return 0;
    constexpr int kernelH = G::kKernel[1], kernelW = G::kKernel[2];
    const int tap = reductionTap(k);
    return reductionChannel(k) * kWinChannel +
           tap / (kernelH * kernelW) * G::kDilation[0] * kWinPlane +
           (tap / kernelW) % kernelH * G::kDilation[1] * kWinPitch +
           tap % kernelW * G::kDilation[2];
  }
  /// Offset of the tile's pixel p (row-major over Rows x kOutW) in the
  /// window; pixels past the tile read element 0 and are never stored.
  __device__ static int pixelOffset(int p) {
    if (p >= kTilePixels)
      return 0;
    return p / kOutW * G::kStride[1] * kWinPitch + p % kOutW * G::kStride[2];
  }

#ifdef SOLDER_HOST_MMA
  // The CPU run of generated kernels (test/Codegen/Inputs/host) emulates
  // the warp's mma.sync with the same fragments.
  using Mma = SOLDER_HOST_MMA;
#else
  using Mma = cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 8>, 32,
                                 cutlass::tfloat32_t, cutlass::layout::RowMajor,
                                 cutlass::tfloat32_t, cutlass::layout::ColumnMajor,
                                 float, cutlass::layout::RowMajor,
                                 cutlass::arch::OpMultiplyAdd>;
#endif
  /// Both parts rounded to nearest: |small| <= 2^-12 |x|, so the dropped
  /// small x small product and what small leaves out are both about 2^-24
  /// relative, fp32's own rounding (CUTLASS's faster split, big toward zero
  /// and small half-ulp truncated, left W1's GroupNorm -> mean up to 60x
  /// eager's error). Each element is split once, at staging.
  using BigSmall = cutlass::NumericConverterFastF32<
      cutlass::FloatRoundStyle::round_to_nearest,
      cutlass::FloatRoundStyle::round_to_nearest>;
  using Nearest = cutlass::NumericConverter<cutlass::tfloat32_t, float,
                                            cutlass::FloatRoundStyle::round_to_nearest>;
  /// A window element or a weight, as the MMA takes it.
  using Element = cutlass::tfloat32_t;
  using Parts = cutlass::AlignedArray<Element, kParts>;
  using WeightFragment = cutlass::AlignedArray<Element, 2 * kParts>;
  __device__ static Parts split(float value) {
    Parts parts;
    if constexpr (kThreeTF32) {
      const auto bigSmall = BigSmall::convert(value);
      parts[0] = bigSmall[0];
      parts[1] = bigSmall[1];
    } else {
      parts[0] = Nearest::convert(value);
    }
    return parts;
  }
  /// Loads a batch of kBatch values per thread before splitting and storing
  /// any, so that each thread has that many loads in flight.
  static constexpr int kBatch = 8;

  /// What prepare writes once a call and computeTile reads: every channel
  /// tile's weights in fragment order, split; centered, then each padded
  /// channel's tap sums per input channel (double: exact for the 27 taps of
  /// a 3x3x3 kernel but in extreme exponent spreads) and each sample's
  /// shift per input channel.
  static constexpr int kChannelTiles = (G::kOutChannels + BN - 1) / BN;
  static constexpr long kFragmentBytes =
      long(kChannelTiles) * kWeightFragments * sizeof(WeightFragment);
  static constexpr int kTapSums = Centered ? kChannelTiles * BN * G::kInChannels : 0;
  static constexpr int kShifts = Centered ? G::kBatch * G::kInChannels : 0;
  static constexpr long kPreparedBytes =
      kFragmentBytes + kTapSums * sizeof(double) + kShifts * sizeof(float);
  /// Threads prepare needs: one per fragment and per tap sum, a warp per
  /// shift.
  static constexpr long kPrepareThreads = std::max(
      {long(kChannelTiles) * kWeightFragments, long(kTapSums), 32L * kShifts});
  /// Elements of an input channel's plane that its shift averages: spread
  /// over the plane, so the shift is near the plane's mean wherever the
  /// data's offset lies.
  static constexpr int kShiftSamples =
      ConvShape<G>::kInVolume < 256 ? ConvShape<G>::kInVolume : 256;

  /// The sections of the prepared buffer (Float: float or const float).
  template <class Float> __device__ static auto *tapSums(Float *prepared) {
    using Double = std::conditional_t<std::is_const_v<Float>, const double, double>;
    return reinterpret_cast<Double *>(reinterpret_cast<uintptr_t>(prepared) + kFragmentBytes);
  }
  template <class Float> __device__ static Float *shifts(Float *prepared) {
    return reinterpret_cast<Float *>(tapSums(prepared) + kTapSums);
  }

  /// A thread per fragment of every channel tile (channels past the output
  /// channels and reduction elements past kK are zero) and, centered, per
  /// tap sum, and a warp per shift. Run once before the conv: each of its
  /// thousands of blocks then copies its channel tile's fragments instead
  /// of gathering and splitting the weights itself (as much work as staging
  /// its input window).
  __device__ static void prepare(const float *__restrict__ input,
                                 const float *__restrict__ weight,
                                 float *__restrict__ prepared) {
    const long index = long(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < long(kChannelTiles) * kWeightFragments) {
      const int f = index % kWeightFragments, channelTile = index / kWeightFragments;
      const int fragmentLane = f % 32, j = f / 32 % kMmaCols, step = f / (32 * kMmaCols);
      const int channel = channelTile * BN + 8 * j + fragmentLane / 4;
      Parts halves[2];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int k = 8 * step + fragmentLane % 4 + 4 * half;
        halves[half] = split(channel < G::kOutChannels && k < kK
                                 ? weight[long(channel) * kK + reductionChannel(k) * kTaps +
                                          reductionTap(k)]
                                 : 0.0f);
      }
      WeightFragment fragment;
#pragma unroll
      for (int part = 0; part < kParts; ++part) {
        fragment[2 * part] = halves[0][part];
        fragment[2 * part + 1] = halves[1][part];
      }
      reinterpret_cast<WeightFragment *>(prepared)[index] = fragment;
    }
    if constexpr (Centered) {
      if (index < kTapSums) {
        const int channel = index / G::kInChannels, c = index % G::kInChannels;
        double sum = 0.0;
        if (channel < G::kOutChannels)
          for (int tap = 0; tap < kTaps; ++tap)
            sum += weight[(long(channel) * G::kInChannels + c) * kTaps + tap];
        tapSums(prepared)[index] = sum;
      }
      // A warp per (sample, channel); the butterfly leaves every lane the
      // same sum. A shift that is not finite (inf or NaN sampled) is 0:
      // the channel then runs uncentered, with the conv's own semantics.
      const long plane = index / 32;
      if (plane < kShifts) {
        const int lane = index % 32;
        const float *values = input + plane * ConvShape<G>::kInVolume;
        float sum = 0.0f;
        for (int i = lane; i < kShiftSamples; i += 32)
          sum += __ldg(values + long(i) * ConvShape<G>::kInVolume / kShiftSamples);
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
          sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        const float shift = sum / kShiftSamples;
        if (lane == 0)
          shifts(prepared)[plane] = isfinite(shift) ? shift : 0.0f;
      }
    }
  }

  /// The MMA accumulators of a warp: its row blocks x the tile's column
  /// blocks.
  using Accumulators = typename Mma::FragmentC[kMmaRowsPerWarp][kMmaCols];

  /// Copies channel tile channelBase / BN's prepared weight fragments to
  /// shared memory, kBatch loads in flight per thread, and, without
  /// channel-fastest order, each reduction element's window offset (bytes).
  __device__ static void loadFragments(const float *__restrict__ weight, int channelBase,
                                       WeightFragment *fragments, int *offsets) {
    if constexpr (!kChannelFastest)
      for (int k = threadIdx.x; k < kKSteps * 8; k += kThreads)
        offsets[k] = 4 * reductionOffset(k);
    const WeightFragment *prepared = reinterpret_cast<const WeightFragment *>(weight) +
                                     long(channelBase / BN) * kWeightFragments;
    for (int first = threadIdx.x; first < kWeightFragments; first += kBatch * kThreads) {
      WeightFragment loaded[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (first + b * kThreads < kWeightFragments)
          loaded[b] = prepared[first + b * kThreads];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (first + b * kThreads < kWeightFragments)
          fragments[first + b * kThreads] = loaded[b];
    }
  }

  /// Offsets within a sample's input: 32-bit where a sample fits.
  static constexpr long kSampleElements = long(G::kInChannels) * ConvShape<G>::kInVolume;
  using SampleOffset = std::conditional_t<(kSampleElements < (1L << 31)), int, long>;
  /// Window row `row` (channel, depth, row) of the tile at pixelBase: the
  /// offset in its sample of the input row it reads, or -1 where it lies
  /// outside the input.
  __device__ static SampleOffset windowRowOffset(int pixelBase, int row) {
    constexpr int inD = G::kIn[0], inH = G::kIn[1], inW = G::kIn[2];
    const int z = pixelBase / (kOutH * kOutW), y0 = pixelBase / kOutW % kOutH;
    const int h = row % kWinH, d = row / kWinH % kWinD, c = row / (kWinH * kWinD);
    const int inputD = z * G::kStride[0] - G::kPad[0] + d,
              inputH = y0 * G::kStride[1] - G::kPad[1] + h;
    if (inputD < 0 || inputD >= inD || inputH < 0 || inputH >= inH)
      return -1;
    return (SampleOffset(c) * inD + inputD) * inH * inW + SampleOffset(inputH) * inW;
  }
  /// The same as a pointer into sample n's input, or null.
  __device__ static const float *windowRowSource(const float *__restrict__ input, int n,
                                                 int pixelBase, int row) {
    const SampleOffset offset = windowRowOffset(pixelBase, row);
    return offset < 0 ? nullptr : input + long(n) * kSampleElements + offset;
  }
  /// Where window row `row`'s elements go, in each plane.
  __device__ static int windowRow(int row) {
    return row / (kWinH * kWinD) * kWinChannel + row % (kWinH * kWinD) * kWinPitch;
  }
  /// Window elements [at, at + N), split into their planes: one N-wide
  /// store a plane (at a multiple of N).
  template <int N>
  __device__ static void storeParts(Element *window, int at, const float (&values)[N]) {
    using Run = cutlass::AlignedArray<Element, N>;
    Run runs[kParts];
#pragma unroll
    for (int e = 0; e < N; ++e) {
      const Parts parts = split(values[e]);
#pragma unroll
      for (int part = 0; part < kParts; ++part)
        runs[part][e] = parts[part];
    }
#pragma unroll
    for (int part = 0; part < kParts; ++part)
      *reinterpret_cast<Run *>(window + part * kWindowElements + at) = runs[part];
  }
  static constexpr int kWinRows = G::kInChannels * kWinD * kWinH;

  /// The input window of the tile at (n, pixelBase), zero outside the input
  /// (padding, rows past the last output row), minus the shifts when
  /// centered: a warp per window row, its lanes along the row, kBatch loads
  /// in flight per lane.
  __device__ static void stageWindow(const float *__restrict__ input,
                                     const float *__restrict__ sampleShifts, int n,
                                     int pixelBase, Element *window) {
    constexpr int inW = G::kIn[2];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int kRowLoads = (kWinW + 31) / 32;
    constexpr int kRowsPerBatch = kBatch / kRowLoads > 0 ? kBatch / kRowLoads : 1;
    for (int firstRow = warp; firstRow < kWinRows; firstRow += kRowsPerBatch * kWarps) {
      float values[kRowsPerBatch][kRowLoads];
#pragma unroll
      for (int r = 0; r < kRowsPerBatch; ++r) {
        const int row = firstRow + r * kWarps;
        const float *source =
            row < kWinRows ? windowRowSource(input, n, pixelBase, row) : nullptr;
        const float shift =
            Centered && source ? __ldg(sampleShifts + row / (kWinH * kWinD)) : 0.0f;
#pragma unroll
        for (int i = 0; i < kRowLoads; ++i) {
          const int inputW = lane + 32 * i - G::kPad[2];
          values[r][i] = source && lane + 32 * i < kWinW && inputW >= 0 && inputW < inW
                             ? __ldg(source + inputW) - shift
                             : 0.0f;
        }
      }
#pragma unroll
      for (int r = 0; r < kRowsPerBatch; ++r) {
        const int row = firstRow + r * kWarps;
        if (row >= kWinRows)
          break;
        const int destination = windowRow(row);
#pragma unroll
        for (int i = 0; i < kRowLoads; ++i)
          if (lane + 32 * i < kWinW)
            storeParts<1>(window, destination + lane + 32 * i, {values[r][i]});
      }
    }
  }

  /// Centered: what the shift contributes to each of the tile's channels,
  /// sum_ci s_ci * tapSum(c, ci) in double, kept as high + low floats
  /// (threads below BN, one channel each).
  __device__ static void computeCorrection(const double *channelTapSums,
                                           const float *sampleShifts, float2 *correction) {
    if (threadIdx.x >= BN)
      return;
    double sum = 0.0;
#pragma unroll
    for (int c = 0; c < G::kInChannels; ++c)
      sum += double(sampleShifts[c]) * channelTapSums[threadIdx.x * G::kInChannels + c];
    const float high = float(sum);
    correction[threadIdx.x] = make_float2(high, float(sum - high));
  }

  /// The tile's MMAs: the window in shared memory times the fragments,
  /// into this warp's accumulators.
  __device__ static void multiply(const WeightFragment *fragments, const Element *window,
                                  const int *offsets, Accumulators &acc) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / 4, quad = lane % 4; // fragment row / column
    // Where the warps' row blocks divide the tile's evenly every warp has
    // all of its own: no per-MMA test (nor the warp-wide branch around it):
    // W1's conv 266 -> 246 us in ieee, 150 -> 145 in tf32 (H200). Not with
    // more than 48 accumulator registers: the test also keeps the compiler
    // from hoisting later steps' loads, and without it W3's 64 spilled at
    // one product's bound of 80 registers (325 -> 379 us) and took 140
    // unbounded in 3xTF32 (one block an SM: W3's conv alone 465 -> 608 us,
    // though the fused W3's took 106 and ran 473 -> 433).
    constexpr bool kEveryRowBlock =
        kMmaRowsPerWarp * kWarps == kMmaRows && kMmaRowsPerWarp * kMmaCols * 4 <= 48;
    // This thread's window elements for rows group and group + 8 of each
    // MMA row block (channel-fastest, of its fragment column's channel), in
    // bytes like the offsets: an element's address is then one add.
    const char *windowBytes = reinterpret_cast<const char *>(window);
    int pixels[kMmaRowsPerWarp][2];
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int half = 0; half < 2; ++half)
        pixels[m][half] =
            4 * (pixelOffset((warp * kMmaRowsPerWarp + m) * 16 + group + 8 * half) +
                 (kChannelFastest ? quad * kWinChannel : 0));

#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j)
        acc[m][j].clear();

    Mma mma;
#pragma unroll
    for (int step = 0; step < kKSteps; ++step) {
      // Channel-fastest, the step's offsets are constants (channel q of
      // the step's tap is in the lane's pointer); otherwise the block's
      // table has them.
      const int offsetLo = kChannelFastest ? 4 * reductionOffset(8 * step)
                                           : offsets[8 * step + quad];
      const int offsetHi = kChannelFastest ? 4 * reductionOffset(8 * step + 4)
                                           : offsets[8 * step + quad + 4];
      // A fragments of every row block: (row group, k0), (group + 8, k0),
      // (group, k0 + 4), (group + 8, k0 + 4), each part from its plane.
      typename Mma::FragmentA aBig[kMmaRowsPerWarp], aSmall[kMmaRowsPerWarp];
#pragma unroll
      for (int m = 0; m < kMmaRowsPerWarp; ++m) {
        const Element *a[4] = {
            reinterpret_cast<const Element *>(windowBytes + pixels[m][0] + offsetLo),
            reinterpret_cast<const Element *>(windowBytes + pixels[m][1] + offsetLo),
            reinterpret_cast<const Element *>(windowBytes + pixels[m][0] + offsetHi),
            reinterpret_cast<const Element *>(windowBytes + pixels[m][1] + offsetHi)};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          aBig[m][i] = a[i][0];
          if constexpr (kThreeTF32)
            aSmall[m][i] = a[i][kWindowElements];
        }
      }
      // Each B fragment once, into every row block.
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j) {
        const WeightFragment b = fragments[(step * kMmaCols + j) * 32 + lane];
        typename Mma::FragmentB big, small;
        big[0] = b[0];
        big[1] = b[1];
        if constexpr (kThreeTF32) {
          small[0] = b[2];
          small[1] = b[3];
        }
#pragma unroll
        for (int m = 0; m < kMmaRowsPerWarp; ++m) {
          if (!kEveryRowBlock && warp * kMmaRowsPerWarp + m >= kMmaRows)
            continue;
          // With StepSums the step's products go into a fresh fragment,
          // then one fp32 add into the accumulator: tensor cores truncate
          // what they accumulate, so into the running sum every MMA added
          // a bias of up to an ulp of it, which a cancelling sum downstream
          // exposes (small W1: up to 13x eager's error on an H200); here
          // one truncation of the step's sum, and the adds round to nearest
          // (up to 2.6x, median 0.6x). More registers and instructions:
          // W1's conv 0.367 -> 0.416 ms.
          typename Mma::FragmentC stepSum;
          if constexpr (StepSums)
            stepSum.clear();
          typename Mma::FragmentC &sum = StepSums ? stepSum : acc[m][j];
          if constexpr (kThreeTF32) {
            mma(sum, aSmall[m], big, sum);
            mma(sum, aBig[m], small, sum);
          }
          mma(sum, aBig[m], big, sum);
          if constexpr (StepSums) {
#pragma unroll
            for (int i = 0; i < 4; ++i)
              acc[m][j][i] += stepSum[i];
          }
        }
      }
    }
  }

  /// Accumulator (row group (+8), columns 2 quad, 2 quad + 1) to the
  /// channel-major tile; a stride of 4 mod 32 keeps the stores apart.
  /// Centered, each gets its channel's correction: low first, so that the
  /// sum rounds once at the output's magnitude.
  __device__ static void writeTile(const Accumulators &acc,
                                   [[maybe_unused]] const float2 *correction, float *tile) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / 4, quad = lane % 4;
    auto corrected = [&](float value, int channel) {
      if constexpr (Centered)
        return (value + correction[channel].y) + correction[channel].x;
      return value;
    };
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m) {
      const int row = (warp * kMmaRowsPerWarp + m) * 16 + group;
      if (row >= BM)
        continue;
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j) {
        const int channel = 8 * j + 2 * quad;
        float *column = tile + channel * kTileStride + row;
        column[0] = corrected(acc[m][j][0], channel);
        column[kTileStride] = corrected(acc[m][j][1], channel + 1);
        column[8] = corrected(acc[m][j][2], channel);
        column[kTileStride + 8] = corrected(acc[m][j][3], channel + 1);
      }
    }
  }

  /// The staged tile's MMAs, then its channel-major tile at `tile` (which
  /// overlaps the window: both callers reuse its shared memory).
  __device__ static float *multiplyIntoTile(const WeightFragment *fragments,
                                            const Element *window, const int *offsets,
                                            const float2 *correction, float *tile) {
    Accumulators acc;
    multiply(fragments, window, offsets, acc);
    __syncthreads(); // the tile reuses the window's shared memory
    writeTile(acc, correction, tile);
    __syncthreads();
    return tile;
  }

  /// Keeps its accumulators in registers: an epilogue whose reductions are
  /// of the conv output alone (kConvMoments) gets each tile's channel
  /// moments from them (conv_epilogue.cuh's TakesTileMoments).
  static constexpr bool kTileMoments = true;
  static_assert(kWarps * BN * sizeof(ShiftedMoments) <= kTileBytes,
                "the moments' slots fit where the tile goes");

  /// The tile's channel moments from the warps' accumulators, handed to
  /// epilogue.storeMoments (with the channel's offset, Epilogue's
  /// channelOffset plus, centered, the correction). A warp sums its rows of
  /// each channel about a sample (its first row's accumulator, from lane
  /// quad), a channel's 8 lanes combine by shuffles, and the warps' sums
  /// merge in warp order through `slots` (kWarps x BN, where the tile would
  /// go: the MMAs must be done). Against writing the tile and visiting it:
  /// no tile stores, three instructions an element.
  template <class Epilogue>
  __device__ static void storeTileMoments(const Epilogue &epilogue, const Accumulators &acc,
                                          [[maybe_unused]] const float2 *correction,
                                          ShiftedMoments *slots, int n, int pixelTile,
                                          int channelBase) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / 4, quad = lane % 4;
    constexpr int kWarpRows = 16 * kMmaRowsPerWarp;
    // Every tile is whole where the rows divide evenly: the masks below are
    // then constants for all but the last warps. (visitTile keeps the
    // runtime count: W3's conv measured 5% slower with it constant.)
    const int pixels = kOutH % Rows == 0 ? kTilePixels : pixelCount(pixelTile);
    const int firstRow = warp * kWarpRows;
    const int warpPixels = std::min(std::max(pixels - firstRow, 0), kWarpRows);
    // acc[m][j][2 half + h]: row 16 m + group + 8 half, channel 8 j + 2 quad + h.
    bool valid[kMmaRowsPerWarp][2];
#pragma unroll
    for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
      for (int half = 0; half < 2; ++half)
        valid[m][half] = 16 * m + group + 8 * half < warpPixels;
    ShiftedMoments moments[kMmaCols][2];
#pragma unroll
    for (int j = 0; j < kMmaCols; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float sample = __shfl_sync(0xffffffffu, acc[0][j][h], quad);
        float sum = 0.0f, squares = 0.0f;
#pragma unroll
        for (int m = 0; m < kMmaRowsPerWarp; ++m)
#pragma unroll
          for (int half = 0; half < 2; ++half)
            if (valid[m][half]) {
              const float d = acc[m][j][2 * half + h] - sample;
              sum += d;
              squares = fmaf(d, d, squares);
            }
#pragma unroll
        for (int offset = 16; offset >= 4; offset /= 2) {
          sum += __shfl_down_sync(0xffffffffu, sum, offset);
          squares += __shfl_down_sync(0xffffffffu, squares, offset);
        }
        moments[j][h] = {warpPixels > 0 ? sample : 0.0f, float(warpPixels), sum, squares};
      }
    __syncthreads(); // every warp's MMAs are done: the slots reuse their operands
    if (group == 0)
#pragma unroll
      for (int j = 0; j < kMmaCols; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          slots[warp * BN + 8 * j + 2 * quad + h] = moments[j][h];
    __syncthreads();
    const int local = threadIdx.x, channel = channelBase + local;
    if (local < BN && channel < G::kOutChannels) {
      ShiftedMoments merged = slots[local];
      for (int w = 1; w < kWarps; ++w)
        merged.merge(slots[w * BN + local]);
      double offset = epilogue.channelOffset(n, channel);
      if constexpr (Centered)
        offset += double(correction[local].x) + double(correction[local].y);
      epilogue.storeMoments(
          n, channel, pixelTile,
          ConvMoments{merged.count, offset + merged.shift, merged.sum, merged.sumSquares});
    }
  }

  // One tile computed by this block alone (runConv). Shared memory:
  // [fragments][window][offsets] ... [correction]; the tile (or the moments'
  // slots) over the first two once the MMAs are done.
  __device__ static WeightFragment *tileFragments(char *shared) {
    return reinterpret_cast<WeightFragment *>(shared);
  }
  __device__ static Element *tileWindow(char *shared) {
    return reinterpret_cast<Element *>(shared + kWeightFloats * 4);
  }
  __device__ static int *tileOffsets(char *shared) {
    return reinterpret_cast<int *>(tileWindow(shared) + kParts * kWindowElements);
  }
  __device__ static float2 *tileCorrection(char *shared) {
    return reinterpret_cast<float2 *>(shared + kCorrectionOffset);
  }

  /// Stages the tile at (n, pixelBase, channelBase) for this block alone:
  /// `weight` is what prepare wrote.
  __device__ static void stageTile(const float *__restrict__ input,
                                   const float *__restrict__ weight, int n, int pixelBase,
                                   int channelBase, char *shared) {
    const float *sampleShifts = shifts(weight) + n * G::kInChannels;
    loadFragments(weight, channelBase, tileFragments(shared), tileOffsets(shared));
    stageWindow(input, sampleShifts, n, pixelBase, tileWindow(shared));
    if constexpr (Centered)
      computeCorrection(tapSums(weight) + channelBase * G::kInChannels, sampleShifts,
                        tileCorrection(shared));
    __syncthreads();
  }

  /// One tile, staged and computed into its channel-major tile.
  __device__ static float *computeTile(const float *__restrict__ input,
                                       const float *__restrict__ weight, int n,
                                       int pixelBase, int channelBase, char *shared) {
    stageTile(input, weight, n, pixelBase, channelBase, shared);
    return multiplyIntoTile(tileFragments(shared), tileWindow(shared), tileOffsets(shared),
                            tileCorrection(shared), reinterpret_cast<float *>(shared));
  }

  /// One tile, staged and computed into its channel moments (Epilogue
  /// takes them: kConvMoments).
  template <class Epilogue>
  __device__ static void computeTileMoments(const float *__restrict__ input,
                                            const float *__restrict__ weight,
                                            const Epilogue &epilogue, int n, int pixelTile,
                                            int channelBase, char *shared) {
    stageTile(input, weight, n, pixelBase(pixelTile), channelBase, shared);
    Accumulators acc;
    multiply(tileFragments(shared), tileWindow(shared), tileOffsets(shared), acc);
    storeTileMoments(epilogue, acc, tileCorrection(shared),
                     reinterpret_cast<ShiftedMoments *>(shared), n, pixelTile, channelBase);
  }

  // Persistent (runPersistentConv): a block runs tile after tile, its
  // weight fragments (and tap sums) copied once, and its next tile's input
  // window copied raw by cp.async while it computes and visits the current
  // one; then split (and shifted) from shared memory into the window.
  // Shared memory: [fragments][offsets][window | tile][raw][tap sums]
  // [shifts][correction], each 16-byte aligned.
  static constexpr int align16(long bytes) { return int((bytes + 15) / 16 * 16); }
  /// Raw rows of whole 16-byte chunks where the window's rows start at
  /// an input row's first column and rows are 16-byte aligned; else one
  /// float a copy.
  static constexpr bool kChunkedRows = G::kPad[2] == 0 && G::kIn[2] % 4 == 0;
  static constexpr int kRawPitch = (kWinW + 3) / 4 * 4;
  static constexpr int kChunkFloats = kChunkedRows ? 4 : 1;
  static constexpr int kRowChunks = kRawPitch / kChunkFloats;
  static constexpr int kPersistentFragmentsOffset = 0;
  static constexpr int kPersistentOffsetsOffset = align16(kWeightFloats * 4);
  static constexpr int kPersistentWindowOffset =
      kPersistentOffsetsOffset + align16(kOffsetTableBytes);
  static constexpr int kWindowOrTileBytes = align16(
      std::max(long(kParts) * kWindowElements * 4, long(kTileBytes)));
  static constexpr int kRawOffset = kPersistentWindowOffset + kWindowOrTileBytes;
  static constexpr int kTapSumsOffset = kRawOffset + align16(long(kWinRows) * kRawPitch * 4);
  static constexpr int kShiftsOffset =
      kTapSumsOffset + (Centered ? align16(long(BN) * G::kInChannels * 8) : 0);
  static constexpr int kPersistentCorrectionOffset =
      kShiftsOffset + (Centered ? align16(G::kInChannels * 4) : 0);
  static constexpr int kPersistentSharedBytes =
      kPersistentCorrectionOffset + (Centered ? BN * 8 : 0);
  __device__ static WeightFragment *stagedFragments(char *shared) {
    return reinterpret_cast<WeightFragment *>(shared + kPersistentFragmentsOffset);
  }
  __device__ static int *stagedOffsets(char *shared) {
    return reinterpret_cast<int *>(shared + kPersistentOffsetsOffset);
  }
  /// The window, and over it once the MMAs are done the tile (or the
  /// moments' slots).
  __device__ static Element *stagedWindow(char *shared) {
    return reinterpret_cast<Element *>(shared + kPersistentWindowOffset);
  }
  __device__ static float2 *stagedCorrection(char *shared) {
    return reinterpret_cast<float2 *>(shared + kPersistentCorrectionOffset);
  }

  /// Output tiles in the order blocks take them: channel tile slowest, so
  /// that a block keeps its fragments for many tiles.
  static constexpr int kPixelTiles = kRowTiles * G::kOut[0];
  static constexpr long kTiles = long(kPixelTiles) * G::kBatch * kChannelTiles;
  struct TileCoordinates {
    int pixelTile, n, channelBase;
  };
  __device__ static TileCoordinates tileCoordinates(long tile) {
    return {int(tile % kPixelTiles), int(tile / kPixelTiles % G::kBatch),
            int(tile / (kPixelTiles * G::kBatch)) * BN};
  }

  /// Issues the cp.async copies of tile `tile`'s raw window (and, centered,
  /// its sample's shifts) and commits them as one group. Where the threads
  /// divide into whole rows, each keeps one column of chunks.
  __device__ static void issueWindow(const float *__restrict__ input,
                                     const float *__restrict__ weight, long tile,
                                     char *shared) {
    const TileCoordinates at = tileCoordinates(tile);
    const int firstPixel = pixelBase(at.pixelTile);
    const float *sample = input + long(at.n) * kSampleElements;
    float *raw = reinterpret_cast<float *>(shared + kRawOffset);
    constexpr int inW = G::kIn[2];
    constexpr int kRowsAPass = kThreads % kRowChunks == 0 ? kThreads / kRowChunks : 0;
    auto copyChunk = [&](int row, int column) {
      const SampleOffset offset = windowRowOffset(firstPixel, row);
      const int inputW = column - G::kPad[2];
      const bool inside = offset >= 0 && column < kWinW && inputW >= 0 && inputW < inW;
      copyAsync<4 * kChunkFloats>(raw + row * kRawPitch + column,
                                  inside ? sample + offset + inputW : input, inside);
    };
    if constexpr (kRowsAPass > 0) {
      const int column = threadIdx.x % kRowChunks * kChunkFloats;
      for (int row = threadIdx.x / kRowChunks; row < kWinRows; row += kRowsAPass)
        copyChunk(row, column);
    } else {
      for (int i = threadIdx.x; i < kWinRows * kRowChunks; i += kThreads)
        copyChunk(i / kRowChunks, i % kRowChunks * kChunkFloats);
    }
    if constexpr (Centered)
      if (threadIdx.x < G::kInChannels)
        copyAsync<4>(reinterpret_cast<float *>(shared + kShiftsOffset) + threadIdx.x,
                     shifts(weight) + at.n * G::kInChannels + threadIdx.x, true);
#ifndef SOLDER_HOST_MMA
    cutlass::arch::cp_async_fence();
#endif
  }
  /// Waits for this thread's copies issued by issueWindow.
  __device__ static void waitWindow() {
#ifndef SOLDER_HOST_MMA
    cutlass::arch::cp_async_wait<0>();
#endif
  }
  /// cp.async of Bytes (4 or 16), zeros where !valid; on the host (the CPU
  /// run of generated kernels) a plain copy.
  template <int Bytes>
  __device__ static void copyAsync(void *destination, const void *source, bool valid) {
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

  /// After the raw window has landed (cp_async_wait and a barrier): splits
  /// it, minus the shifts, into the window's planes, four elements a thread
  /// at a time (a raw row's 16-byte chunks land at 16-byte aligned window
  /// offsets: the pitch and channel stride are multiples of 4), and
  /// computes the correction. Rows outside the input (an unpadded conv has
  /// them only past the last output row, whose pixels are never stored)
  /// become -shift; so do the pitch's columns past the window, never read.
  __device__ static void convertWindow(char *shared) {
    const float4 *raw = reinterpret_cast<const float4 *>(shared + kRawOffset);
    Element *window = stagedWindow(shared);
    [[maybe_unused]] const float *sampleShifts =
        reinterpret_cast<const float *>(shared + kShiftsOffset);
    constexpr int kRowQuads = kRawPitch / 4;
    for (int i = threadIdx.x; i < kWinRows * kRowQuads; i += kThreads) {
      const int row = i / kRowQuads;
      const float shift = Centered ? sampleShifts[row / (kWinH * kWinD)] : 0.0f;
      const float4 values = raw[i];
      storeParts<4>(window, windowRow(row) + i % kRowQuads * 4,
                    {values.x - shift, values.y - shift, values.z - shift, values.w - shift});
    }
    if constexpr (Centered)
      computeCorrection(reinterpret_cast<const double *>(shared + kTapSumsOffset),
                        sampleShifts, stagedCorrection(shared));
  }

  /// Once a channel tile: its fragments, offsets and (centered) tap sums.
  __device__ static void loadChannelTile(const float *__restrict__ weight, int channelBase,
                                         char *shared) {
    loadFragments(weight, channelBase, stagedFragments(shared), stagedOffsets(shared));
    if constexpr (Centered) {
      double *sums = reinterpret_cast<double *>(shared + kTapSumsOffset);
      const double *prepared = tapSums(weight) + channelBase * G::kInChannels;
      for (int i = threadIdx.x; i < BN * G::kInChannels; i += kThreads)
        sums[i] = prepared[i];
    }
  }

  /// The current tile's MMAs and its channel moments (Epilogue takes them:
  /// kConvMoments), their slots over the window.
  template <class Epilogue>
  __device__ static void computeStagedMoments(const Epilogue &epilogue, int n, int pixelTile,
                                              int channelBase, char *shared) {
    Accumulators acc;
    multiply(stagedFragments(shared), stagedWindow(shared), stagedOffsets(shared), acc);
    storeTileMoments(epilogue, acc, stagedCorrection(shared),
                     reinterpret_cast<ShiftedMoments *>(stagedWindow(shared)), n, pixelTile,
                     channelBase);
  }

  /// The current tile's MMAs and its channel-major tile (over the window).
  __device__ static float *computeStagedTile(char *shared) {
    return multiplyIntoTile(stagedFragments(shared), stagedWindow(shared), stagedOffsets(shared),
                            stagedCorrection(shared),
                            reinterpret_cast<float *>(stagedWindow(shared)));
  }
};

} // namespace solder

#endif // SOLDER_CONV_MAINLOOP_DIRECT_TENSOROP_CUH
