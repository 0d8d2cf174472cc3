// RUN: solder-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of solder.reduce, solder.softmax,
// solder.log_softmax, solder.pool and solder.adaptive_pool (lib/Dialect/Solder/IR/ReductionOps.cpp
// and the helpers it calls in Verification.cpp). Every case but the
// result-type ones gives the result the type it would have, so that it trips
// exactly one rule. The list of rules is at the end of the file.

//===----------------------------------------------------------------------===//
// solder.reduce
//===----------------------------------------------------------------------===//

func.func @reduce_element_type(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'solder.reduce' op operands and result must have one element type, got 'f32' and 'f16'}}
  %0 = solder.reduce sum %x dims = [1] : tensor<2x3x4x5xf32> -> tensor<2x4x5xf16>
  return
}

// -----

// Unlike torch.sum(x, dim=[]), an empty dims does not mean "all dims".
func.func @reduce_dims_empty(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'solder.reduce' op dims must not be empty}}
  %0 = solder.reduce mean %x dims = [] : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  return
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'solder.reduce' op dim 4 is out of range for rank 4}}
  %0 = solder.reduce max %x dims = [1, 4] : tensor<2x3x4x5xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_dims_not_increasing(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'solder.reduce' op dims must be strictly increasing, got (2, 1)}}
  %0 = solder.reduce min %x dims = [2, 1] : tensor<2x3x4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

// keepdim keeps the reduced dim as size 1.
func.func @reduce_result_type(%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'solder.reduce' op result type 'tensor<2x4x5xf32>' does not match the inferred type 'tensor<2x1x4x5xf32>'}}
  %0 = solder.reduce logsumexp %x dims = [1] keepdim : tensor<2x3x4x5xf32> -> tensor<2x4x5xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// solder.softmax, solder.log_softmax
//===----------------------------------------------------------------------===//

func.func @softmax_dim_out_of_range(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{'solder.softmax' op dim 4 is out of range for rank 4}}
  %0 = solder.softmax %x dim = 4 : tensor<8x16x4x4xf32>
  return
}

// -----

// PyTorch's negative dims are not accepted: dim must be in [0, rank).
func.func @log_softmax_dim_out_of_range(%x: tensor<2x10xf32>) {
  // expected-error @+1 {{'solder.log_softmax' op dim -1 is out of range for rank 2}}
  %0 = solder.log_softmax %x dim = -1 : tensor<2x10xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// solder.pool
//===----------------------------------------------------------------------===//

func.func @pool_element_type(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op operands and result must have one element type, got 'f32' and 'f16'}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf16>
  return
}

// -----

// Four spatial dims: there is no valid result type.
func.func @pool_rank(%x: tensor<1x2x4x4x4x4xf32>) {
  // expected-error @+1 {{'solder.pool' op input must have rank 3 to 5 (N, C and 1 to 3 spatial dims), got rank 6}}
  %0 = solder.pool max %x kernel = [2, 2, 2, 2] strides = [2, 2, 2, 2] padding = [0, 0, 0, 0] dilations = [1, 1, 1, 1] : tensor<1x2x4x4x4x4xf32> -> tensor<1x2x2x2x2x2xf32>
  return
}

// -----

func.func @pool_kernel_count(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'kernel' must have 2 entries (one per spatial dim), got 1}}
  %0 = solder.pool max %x kernel = [2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_kernel_min(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'kernel' entries must be at least 1, got (0, 2)}}
  %0 = solder.pool max %x kernel = [0, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x5x4xf32>
  return
}

// -----

func.func @pool_strides_count(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'strides' must have 2 entries (one per spatial dim), got 3}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2, 2] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_strides_min(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'strides' entries must be at least 1, got (2, -1)}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, -1] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_padding_count(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'padding' must have 2 entries (one per spatial dim), got 0}}
  %0 = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_padding_min(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'padding' entries must be at least 0, got (-1, 0)}}
  %0 = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [-1, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @pool_dilations_count(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'dilations' must have 2 entries (one per spatial dim), got 1}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_dilations_min(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op 'dilations' entries must be at least 1, got (1, 0)}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 0] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

// Dilated windows are max-only (AvgPool has no dilation).
func.func @pool_avg_dilations(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op avg pooling needs all dilations to be 1, got (1, 2)}}
  %0 = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 2] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

// Dim 0 pads 1 with a kernel of 3 (allowed); dim 1 pads 2 (PyTorch: pad <= kernel / 2).
func.func @pool_padding_half_window(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op padding (2) of spatial dim 1 must be at most half the kernel (3)}}
  %0 = solder.pool max %x kernel = [3, 3] strides = [1, 1] padding = [1, 2] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x8x10xf32>
  return
}

// -----

func.func @pool_window_does_not_fit(%x: tensor<1x2x8x2xf32>) {
  // expected-error @+1 {{'solder.pool' op window (3) of spatial dim 1 does not fit the padded input (2)}}
  %0 = solder.pool max %x kernel = [2, 3] strides = [2, 1] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x2xf32> -> tensor<1x2x4x0xf32>
  return
}

// -----

// Without ceil_mode: floor((9 - 2) / 2) + 1 = 4 (ceil_mode would give 5).
func.func @pool_result_type(%x: tensor<1x2x9x9xf32>) {
  // expected-error @+1 {{'solder.pool' op result type 'tensor<1x2x5x5xf32>' does not match the inferred type 'tensor<1x2x4x4xf32>'}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] : tensor<1x2x9x9xf32> -> tensor<1x2x5x5xf32>
  return
}

// Rules covered, in file order (ReductionOps.cpp unless noted):
//   reduce:
//    1. ReduceOp::verify checkSameElementType (Verification.cpp)
//    2. ReduceOp::inferResultType: dims not empty
//    3. ReduceOp::inferResultType: each dim in [0, rank)
//    4. ReduceOp::inferResultType: dims strictly increasing
//    5. ReduceOp::verify checkResultType: result == inferred type
//   softmax / log_softmax (verifySoftmaxDim, called by each op's verify):
//    6. SoftmaxOp::verify: dim in [0, rank)
//    7. LogSoftmaxOp::verify: dim in [0, rank)
//   pool:
//    8. PoolOp::verify checkSameElementType (Verification.cpp)
//    9. PoolOp::inferResultType -> checkBatchChannelSpatialRank: rank 3 to 5
//   10. PoolOp::inferResultType -> checkSpatialArray 'kernel': entry count
//   11. PoolOp::inferResultType -> checkSpatialArray 'kernel': entries >= 1
//   12. PoolOp::inferResultType -> checkSpatialArray 'strides': entry count
//   13. PoolOp::inferResultType -> checkSpatialArray 'strides': entries >= 1
//   14. PoolOp::inferResultType -> checkSpatialArray 'padding': entry count
//   15. PoolOp::inferResultType -> checkSpatialArray 'padding': entries >= 0
//   16. PoolOp::inferResultType -> checkSpatialArray 'dilations': entry count
//   17. PoolOp::inferResultType -> checkSpatialArray 'dilations': entries >= 1
//   18. PoolOp::inferResultType: avg needs all dilations 1
//   19. PoolOp::inferResultType: 2 * padding <= dilated window
//   20. PoolOp::inferResultType: dilated window fits the padded input
//   21. PoolOp::verify checkResultType: result == inferred type
//   adaptive_pool (the cases at the end of the file):
//   22. AdaptivePoolOp::verify checkSameElementType (Verification.cpp)
//   23. AdaptivePoolOp::verify -> checkBatchChannelSpatialRank: rank 3 to 5
//   24. AdaptivePoolOp::verify: the result keeps N, C and the rank
//   25. AdaptivePoolOp::verify: every input spatial size >= 1
//   26. AdaptivePoolOp::verify: every output size >= 1

// -----

// PyTorch bounds max-pool padding by the undilated kernel: a dilated window
// of 4 does not allow a padding of 2 with a kernel of 2.
func.func @pool_padding_bound_ignores_dilation(%x: tensor<1x1x8xf32>) {
  // expected-error @+1 {{'solder.pool' op padding (2) of spatial dim 0 must be at most half the kernel (2)}}
  %0 = solder.pool max %x kernel = [2] strides = [1] padding = [2] dilations = [3] : tensor<1x1x8xf32> -> tensor<1x1x9xf32>
  return
}

// -----

// A kernel attribute near int64's limit: the window size is an error, not a
// wrapped number.
func.func @pool_window_overflow(%x: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'solder.pool' op the size of spatial dim 0 overflows 64-bit arithmetic}}
  %0 = solder.pool max %x kernel = [9223372036854775807] strides = [1] padding = [0] dilations = [2] : tensor<1x2x8xf32> -> tensor<1x2x1xf32>
  return
}

// -----

// divisor_override is AvgPool's.
func.func @pool_max_divisor(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op divisor_override is for avg pooling only}}
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] {divisor_override = 3 : i64} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @pool_zero_divisor(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'solder.pool' op divisor_override must be positive, got 0}}
  %0 = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] {divisor_override = 0 : i64} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// solder.adaptive_pool
//===----------------------------------------------------------------------===//

// -----

func.func @adaptive_pool_element_type(%x: tensor<1x2x7xf32>) {
  // expected-error @+1 {{'solder.adaptive_pool' op operands and result must have one element type, got 'f32' and 'f16'}}
  %0 = solder.adaptive_pool avg %x : tensor<1x2x7xf32> -> tensor<1x2x3xf16>
  return
}

// -----

func.func @adaptive_pool_rank(%x: tensor<2x7xf32>) {
  // expected-error @+1 {{'solder.adaptive_pool' op x must have rank 3 to 5 (N, C and 1 to 3 spatial dims), got rank 2}}
  %0 = solder.adaptive_pool max %x : tensor<2x7xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @adaptive_pool_channels(%x: tensor<1x2x7xf32>) {
  // expected-error @+1 {{'solder.adaptive_pool' op result must keep the input's batch and channels and have its rank, got 'tensor<1x3x3xf32>' for 'tensor<1x2x7xf32>'}}
  %0 = solder.adaptive_pool max %x : tensor<1x2x7xf32> -> tensor<1x3x3xf32>
  return
}

// -----

func.func @adaptive_pool_empty_input(%x: tensor<1x2x0x4xf32>) {
  // expected-error @+1 {{'solder.adaptive_pool' op input spatial sizes must be at least 1, got (0, 4)}}
  %0 = solder.adaptive_pool avg %x : tensor<1x2x0x4xf32> -> tensor<1x2x3x2xf32>
  return
}

// -----

func.func @adaptive_pool_empty(%x: tensor<1x2x7x4xf32>) {
  // expected-error @+1 {{'solder.adaptive_pool' op output sizes must be at least 1, got (3, 0)}}
  %0 = solder.adaptive_pool avg %x : tensor<1x2x7x4xf32> -> tensor<1x2x3x0xf32>
  return
}
