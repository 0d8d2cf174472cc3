//===- kernel/conv_kernel.cuh - A conv kernel's body ----------------------===//
//
// A conv kernel runs a main loop (conv/mainloop_*.cuh) over its tiles and
// hands each tile's accumulators to the generated epilogue functor
// (epilogue/tile_visit.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_KERNEL_CONV_KERNEL_CUH
#define SOLDER_KERNEL_CONV_KERNEL_CUH

#include "solder/epilogue/tile_visit.cuh"

namespace solder {

/// The conv kernel's body: the main loop Conv computes the tile of blockIdx
/// (x: pixel tile, y: channel tile, z: sample) into shared memory, then the
/// epilogue visits every valid (channel, pixel) of it. Conv provides
/// Geometry, BM, BN, kWarps, kTileStride,
///   int pixelBase(tile), pixelCount(tile)   (the flattened output pixels
///                                           [base, base + count) of tile)
///   float *computeTile(input, weight, n, pixelBase, channelBase, shared,
///                      mainLoopArgs...)
/// returning the tile (mainLoopArgs: what that main loop needs besides, e.g.
/// TensorOpConv's constants); or, where TakesTileMoments, hands the
/// epilogue the tile's channel moments itself:
///   void computeTileMoments(input, weight, epilogue, n, pixelTile,
///                           channelBase, shared)
template <class Conv, class Epilogue, class... MainLoopArgs>
__device__ __forceinline__ void runConv(const float *__restrict__ input,
                                        const float *__restrict__ weight,
                                        const Epilogue &epilogue, char *shared,
                                        const MainLoopArgs &...mainLoopArgs) {
  const int n = blockIdx.z, channelBase = blockIdx.y * Conv::BN;
  if constexpr (TakesTileMoments<Conv, Epilogue>::value) {
    Conv::computeTileMoments(input, weight, epilogue, n, blockIdx.x, channelBase, shared);
  } else {
    float *tile = Conv::computeTile(input, weight, n, Conv::pixelBase(blockIdx.x),
                                    channelBase, shared, mainLoopArgs...);
    visitTile<Conv>(epilogue, tile, n, blockIdx.x, channelBase);
  }
}

/// The persistent form of runConv (DirectTensorOpConv): each block takes
/// tiles blockIdx.x, + gridDim.x, ... of Conv::kTiles (the runtime launches
/// as many blocks as the GPU holds at once), and copies its next tile's
/// input while it computes and visits the current one. Conv provides
/// kTiles, tileCoordinates, issueWindow, waitWindow, loadChannelTile,
/// convertWindow and computeStagedTile (or, where TakesTileMoments,
/// computeStagedMoments).
template <class Conv, class Epilogue>
__device__ __forceinline__ void runPersistentConv(const float *__restrict__ input,
                                                  const float *__restrict__ weight,
                                                  const Epilogue &epilogue, char *shared) {
  long tile = blockIdx.x;
  if (tile >= Conv::kTiles)
    return;
  Conv::issueWindow(input, weight, tile, shared);
  int loadedChannelBase = -1;
  for (; tile < Conv::kTiles; tile += gridDim.x) {
    const auto at = Conv::tileCoordinates(tile);
    Conv::waitWindow();
    __syncthreads(); // the raw window has landed; the last tile's visit is done
    if (at.channelBase != loadedChannelBase) {
      Conv::loadChannelTile(weight, at.channelBase, shared);
      loadedChannelBase = at.channelBase;
      __syncthreads();
    }
    Conv::convertWindow(shared);
    __syncthreads(); // the window is ready and the raw buffer free
    if (tile + gridDim.x < Conv::kTiles)
      Conv::issueWindow(input, weight, tile + gridDim.x, shared);
    if constexpr (TakesTileMoments<Conv, Epilogue>::value)
      Conv::computeStagedMoments(epilogue, at.n, at.pixelTile, at.channelBase, shared);
    else
      visitTile<Conv>(epilogue, Conv::computeStagedTile(shared), at.n, at.pixelTile,
                      at.channelBase);
  }
}

} // namespace solder

#endif // SOLDER_KERNEL_CONV_KERNEL_CUH
