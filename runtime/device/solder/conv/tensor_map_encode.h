//===- conv/tensor_map_encode.h - A TensorMapSpec as a CUtensorMap --------===//
//
// Host C++ (CUDA's driver types): the one encoding of a TensorMapSpec
// (conv/wgmma_layout.h), fp32 in the 128-byte swizzle that wgmma reads,
// zeros out of bounds. The runtime calls it through the driver it loaded at
// run time, the main-loop harness (bench/mainloop/wgmma_conv.cu) through
// libcuda directly: each passes its two encoders.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_TENSOR_MAP_ENCODE_H
#define SOLDER_CONV_TENSOR_MAP_ENCODE_H

#include "solder/conv/wgmma_layout.h"

#include <cuda.h>

namespace solder {

template <class EncodeIm2col, class EncodeTiled>
CUresult encodeTensorMap(CUtensorMap *map, const TensorMapSpec &spec, void *address,
                         EncodeIm2col encodeIm2col, EncodeTiled encodeTiled) {
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (int i = 0; i < spec.rank; ++i) {
    dims[i] = static_cast<cuuint64_t>(spec.dims[i]);
    elementStrides[i] = static_cast<cuuint32_t>(spec.elementStrides[i]);
    box[i] = static_cast<cuuint32_t>(spec.box[i]);
    if (i + 1 < spec.rank)
      strides[i] = static_cast<cuuint64_t>(spec.byteStrides[i]);
  }
  if (spec.im2col)
    return encodeIm2col(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, spec.rank, address, dims, strides,
                        spec.lowerCorner, spec.upperCorner, box[0], box[1], elementStrides,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return encodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, spec.rank, address, dims, strides, box,
                     elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

} // namespace solder

#endif // SOLDER_CONV_TENSOR_MAP_ENCODE_H
