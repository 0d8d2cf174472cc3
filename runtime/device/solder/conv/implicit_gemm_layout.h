//===- conv/implicit_gemm_layout.h - Implicit GEMM sizes (host, device) ---===//
//
// Plain constexpr C++ that the planner (lib/Analysis/ConvSchedule.cpp) and
// the device templates both include: the shared memory of CUTLASS's
// multistage main loop (mainloop_implicit_gemm_tensorop.cuh asserts that it
// is sizeof its SharedStorage) and of the kernel around it, and the layout
// conversions' tile.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_IMPLICIT_GEMM_LAYOUT_H
#define SOLDER_CONV_IMPLICIT_GEMM_LAYOUT_H

#include "solder/epilogue/accumulator_tile.h"

namespace solder {

/// Input channels as the tensor-core main loop reads them: padded to a
/// multiple of 4, one 16-byte cp.async.
constexpr int paddedInputChannels(int channels) { return (channels + 3) / 4 * 4; }

/// CUTLASS's multistage main loop: `stages` A tiles (BM x BK) and B tiles
/// (BK x BN) of fp32.
constexpr int implicitGemmMainLoopBytes(int bm, int bn, int bk, int stages) {
  return stages * (bm * bk + bk * bn) * 4;
}
/// The kernel's: the accumulator tile reuses the main loop's memory.
constexpr int implicitGemmSharedBytes(int bm, int bn, int bk, int stages) {
  const int mainLoop = implicitGemmMainLoopBytes(bm, bn, bk, stages);
  const int tile = accumulatorTileBytes(bm, bn);
  return mainLoop > tile ? mainLoop : tile;
}

/// The side of toChannelsLast's tile (conv/layout.cuh): 64 channels x 64
/// pixels a block.
constexpr int kChannelsLastTile = 64;

} // namespace solder

#endif // SOLDER_CONV_IMPLICIT_GEMM_LAYOUT_H
