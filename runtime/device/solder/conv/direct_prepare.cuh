//===- conv/direct_prepare.cuh - The direct conv's prepared operands ------===//
//
// A kernel before the direct conv on tensor cores (a preparation: run again
// only when the weights change, where they are parameters) writes every
// channel tile's weights split into TF32 parts in mma.sync's fragment order
// (or, on sm_90a, wgmma's K-major order: direct_traits.cuh);
// centered, also each padded channel's tap sums per input channel (double:
// exact for the 27 taps of a 3x3x3 kernel but in extreme exponent spreads)
// and each sample's shift per input channel. Each of the conv's thousands
// of blocks then copies its channel tile's fragments instead of gathering
// and splitting the weights itself (as much work as staging its window).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_DIRECT_PREPARE_CUH
#define SOLDER_CONV_DIRECT_PREPARE_CUH

#include "solder/conv/direct_traits.cuh"

#include <stdint.h>

namespace solder {

template <class Traits> struct DirectPrepare {
  using G = typename Traits::Geometry;
  using Parts = typename Traits::Parts;
  using WeightFragment = typename Traits::WeightFragment;
  static constexpr int kParts = Traits::kParts, kK = Traits::kK, kTaps = Traits::kTaps;
  static constexpr int kWeightFragments = Traits::kWeightFragments;
  static constexpr int kChannelTiles = Traits::kChannelTiles;
  static constexpr long kFragmentBytes = Traits::kLayout.fragmentBytes;
  static constexpr long kTapSums = Traits::kLayout.tapSums, kShifts = Traits::kLayout.shifts;
  static constexpr long kPreparedBytes = Traits::kLayout.preparedBytes;
  static constexpr long kPrepareThreads = Traits::kLayout.prepareThreads;
  static constexpr int kShiftSamples = directShiftSamples(ConvShape<G>::kInVolume);

  /// The sections of the prepared buffer (Float: float or const float).
  template <class Float> __device__ static auto *tapSums(Float *prepared) {
    using Double = std::conditional_t<std::is_const_v<Float>, const double, double>;
    return reinterpret_cast<Double *>(reinterpret_cast<uintptr_t>(prepared) + kFragmentBytes);
  }
  template <class Float> __device__ static Float *shifts(Float *prepared) {
    return reinterpret_cast<Float *>(tapSums(prepared) + kTapSums);
  }
  /// Channel tile `channelTile`'s fragments.
  __device__ static const WeightFragment *fragments(const float *prepared, int channelTile) {
    return reinterpret_cast<const WeightFragment *>(prepared) +
           long(channelTile) * kWeightFragments;
  }

  /// A thread per fragment of every channel tile (channels past the output
  /// channels and reduction elements past kK are zero) and, centered, per
  /// tap sum, and a warp per shift.
  __device__ static void prepare(const float *__restrict__ input,
                                 const float *__restrict__ weight,
                                 float *__restrict__ prepared) {
    const long index = long(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < long(kChannelTiles) * kWeightFragments) {
      const int f = index % kWeightFragments, channelTile = index / kWeightFragments;
      const int fragmentLane = f % 32, j = f / 32 % Traits::kMmaCols,
                step = f / (32 * Traits::kMmaCols);
      const int channel = channelTile * Traits::BN + 8 * j + fragmentLane / 4;
      Parts halves[2];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int k = 8 * step + fragmentLane % 4 + 4 * half;
        halves[half] = Traits::split(
            channel < G::kOutChannels && k < kK
                ? weight[long(channel) * kK + Traits::reductionChannel(k) * kTaps +
                         Traits::reductionTap(k)]
                : 0.0f);
      }
      if constexpr (Traits::kWgmma) {
        using Element = typename Traits::Element;
        Element *tile = reinterpret_cast<Element *>(prepared) +
                        long(channelTile) * kWeightFragments * 2 * kParts;
#pragma unroll
        for (int part = 0; part < kParts; ++part)
#pragma unroll
          for (int half = 0; half < 2; ++half)
            tile[Traits::wgmmaStep(part, step) + j * Traits::kWgmmaBlock +
                 half * Traits::kWgmmaHalf + fragmentLane] = halves[half][part];
      } else {
        WeightFragment fragment;
#pragma unroll
        for (int part = 0; part < kParts; ++part) {
          fragment[2 * part] = halves[0][part];
          fragment[2 * part + 1] = halves[1][part];
        }
        reinterpret_cast<WeightFragment *>(prepared)[index] = fragment;
      }
    }
    if constexpr (Traits::kCentered) {
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
};

} // namespace solder

#endif // SOLDER_CONV_DIRECT_PREPARE_CUH
