//===- epilogue/accumulator_tile.h - Where a tile's accumulators meet -----===//
//
// Plain constexpr C++ (the planner and the device templates include it).
// Every main loop that hands its accumulators to the epilogue through
// shared memory leaves them in one layout, channel-major [BN][BM + 4]: the
// 4-float pad spreads an MMA fragment's 8 rows x 4 columns over all 32
// banks as they are written, and the epilogue's runs of 8 pixels of two
// channels (epilogue/tile_visit.cuh) as they are read.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_EPILOGUE_ACCUMULATOR_TILE_H
#define SOLDER_EPILOGUE_ACCUMULATOR_TILE_H

namespace solder {

constexpr int accumulatorTileStride(int bm) { return bm + 4; }
constexpr int accumulatorTileBytes(int bm, int bn) { return bn * accumulatorTileStride(bm) * 4; }

/// The BM pixels x BN channels tile: element (channel c, pixel p) at
/// c * kStride + p.
template <int BM_, int BN_> struct AccumulatorTile {
  static constexpr int BM = BM_, BN = BN_;
  static constexpr int kStride = accumulatorTileStride(BM);
  static constexpr int kBytes = accumulatorTileBytes(BM, BN);
};

} // namespace solder

#endif // SOLDER_EPILOGUE_ACCUMULATOR_TILE_H
