//===- epilogue/moments.cuh - A tile's channel moments from registers -----===//
//
// An epilogue whose reductions are all of the conv output alone (acc plus a
// per-channel offset: W1's statistics) may take each tile's channel moments
// (Epilogue::kConvMoments) instead of visiting its elements, where the main
// loop keeps its accumulators in registers as mma.sync fragments (the
// direct conv on tensor cores): what CUTLASS's column reduction does, with
// no tile written and no element visited.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_MOMENTS_CUH
#define SOLDER_EPILOGUE_MOMENTS_CUH

#include "solder/welford.cuh"

#include <algorithm>

namespace solder {

/// One channel's conv outputs over a tile, as moments about a shift: the
/// channel's offset (bias, centering's correction) plus a sample of its
/// accumulators, in double so that the offset is exact. The sums are of
/// the data's spread, not of its offset, as ShiftedMoments' are.
struct ConvMoments {
  float count = 0;
  double shift = 0;
  float sum = 0;        // of value - shift
  float sumSquares = 0; // of (value - shift)^2

  __device__ __forceinline__ Welford welford() const {
    return welfordFromShiftedSums(count, shift, sum, sumSquares);
  }
  /// The sum of the values.
  __device__ __forceinline__ double total() const { return count * shift + sum; }
};

/// The channel moments of a tile held as mma.sync m16n8 accumulator
/// fragments (Traits: the direct conv on tensor cores' DirectTensorOpTraits;
/// acc[m][j][2 half + h] is row 16 m + group + 8 half, channel 8 j + 2 quad
/// + h of the warp's rows), handed to epilogue.storeMoments with the
/// channel's offset (Epilogue's channelOffset plus, centered, the
/// correction). A warp sums its rows of each channel about a sample (its
/// first row's accumulator, from lane quad), a channel's 8 lanes combine by
/// shuffles, and the warps' sums merge in warp order through `slots`
/// (kWarps x BN, in shared memory the MMAs no longer read). Against writing
/// the tile and visiting it: no tile stores, three instructions an element.
template <class Traits, class Epilogue, class Accumulators>
__device__ __forceinline__ void storeMmaTileMoments(const Epilogue &epilogue,
                                                   const Accumulators &acc,
                                                   [[maybe_unused]] const float2 *correction,
                                                   ShiftedMoments *slots, int n, int pixelTile,
                                                   int channelBase) {
  using G = typename Traits::Geometry;
  constexpr int kMmaRowsPerWarp = Traits::kMmaRowsPerWarp, kMmaCols = Traits::kMmaCols;
  constexpr int BN = Traits::BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = lane / 4, quad = lane % 4;
  constexpr int kWarpRows = 16 * kMmaRowsPerWarp;
  // Every tile is whole where the rows divide evenly: the masks below are
  // then constants for all but the last warps. (visitTile keeps the
  // runtime count: W3's conv measured 5% slower with it constant.)
  const int pixels = Traits::kOutH % Traits::kRows == 0 ? Traits::kTilePixels
                                                        : Traits::pixelCount(pixelTile);
  const int firstRow = warp * kWarpRows;
  const int warpPixels = std::min(std::max(pixels - firstRow, 0), kWarpRows);
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
    for (int w = 1; w < Traits::kWarps; ++w)
      merged.merge(slots[w * BN + local]);
    double offset = epilogue.channelOffset(n, channel);
    if constexpr (Traits::kCentered)
      offset += double(correction[local].x) + double(correction[local].y);
    epilogue.storeMoments(
        n, channel, pixelTile,
        ConvMoments{merged.count, offset + merged.shift, merged.sum, merged.sumSquares});
  }
}

} // namespace solder

#endif // SOLDER_EPILOGUE_MOMENTS_CUH
