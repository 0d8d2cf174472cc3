// RUN: solder-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the normalization ops (lib/Dialect/Solder/IR/
// NormOps.cpp). Every case but the result-type one gives the result the type
// of the input, so that it trips exactly one rule. The list of rules is at the
// end of the file.
//
// The four rules that verifyNormCommon reports through its `Diag` (element
// type, epsilon, weight shape, bias shape) crash solder-opt at the moment
// (dangling function_ref, see invalid-norm-common.mlir) and are tested there.

//===----------------------------------------------------------------------===//
// solder.group_norm
//===----------------------------------------------------------------------===//

func.func @group_norm_rank(%x: tensor<6xf32>) {
  // expected-error @+1 {{'solder.group_norm' op input must have rank at least 2 (N, C, *), got rank 1}}
  %0 = solder.group_norm %x num_groups = 2 epsilon = 1.0e-05 : (tensor<6xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @group_norm_num_groups_min(%x: tensor<2x6x4x4xf32>) {
  // expected-error @+1 {{'solder.group_norm' op num_groups must be at least 1, got 0}}
  %0 = solder.group_norm %x num_groups = 0 epsilon = 1.0e-05 : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  return
}

// -----

func.func @group_norm_channels_num_groups(%x: tensor<2x6x4x4xf32>) {
  // expected-error @+1 {{'solder.group_norm' op channels (6) must be divisible by num_groups (4)}}
  %0 = solder.group_norm %x num_groups = 4 epsilon = 1.0e-05 : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// solder.batch_norm
//===----------------------------------------------------------------------===//

func.func @batch_norm_rank(%x: tensor<16xf32>) {
  // expected-error @+1 {{'solder.batch_norm' op input must have rank at least 2 (N, C, *), got rank 1}}
  %0 = solder.batch_norm %x epsilon = 1.0e-05 : (tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

// Batch of one and no spatial dim: one value per channel (PyTorch: "Expected
// more than 1 value per channel when training").
func.func @batch_norm_values_per_statistic(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{'solder.batch_norm' op needs more than one value per statistic, got 1 for input (1, 3)}}
  %0 = solder.batch_norm %x epsilon = 1.0e-05 : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// solder.instance_norm
//===----------------------------------------------------------------------===//

func.func @instance_norm_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'solder.instance_norm' op input must have rank at least 3 (N, C, *spatial), got rank 2}}
  %0 = solder.instance_norm %x epsilon = 1.0e-05 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A batch of 2 does not help: the statistics are per (sample, channel).
func.func @instance_norm_values_per_statistic(%x: tensor<2x3x1x1xf32>) {
  // expected-error @+1 {{'solder.instance_norm' op needs more than one value per statistic, got 1 for input (2, 3, 1, 1)}}
  %0 = solder.instance_norm %x epsilon = 1.0e-05 : (tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// solder.layer_norm
//===----------------------------------------------------------------------===//

func.func @layer_norm_empty_normalized_shape(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{'solder.layer_norm' op normalized_shape must not be empty}}
  %0 = solder.layer_norm %x normalized_shape = [] epsilon = 1.0e-05 : (tensor<8x16x4x4xf32>) -> tensor<8x16x4x4xf32>
  return
}

// -----

func.func @layer_norm_trailing_dims(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{'solder.layer_norm' op normalized_shape (16, 4) must equal the trailing dims of the input (8, 16, 4, 4)}}
  %0 = solder.layer_norm %x normalized_shape = [16, 4] epsilon = 1.0e-05 : (tensor<8x16x4x4xf32>) -> tensor<8x16x4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shared by all normalizations (verifyNormCommon)
//===----------------------------------------------------------------------===//

func.func @norm_result_type(%x: tensor<2x6x4x4xf32>) {
  // expected-error @+1 {{'solder.group_norm' op result type 'tensor<2x6x16xf32>' does not match the inferred type 'tensor<2x6x4x4xf32>'}}
  %0 = solder.group_norm %x num_groups = 3 epsilon = 1.0e-05 : (tensor<2x6x4x4xf32>) -> tensor<2x6x16xf32>
  return
}

// Rules covered, in file order (NormOps.cpp):
//    1. GroupNormOp::verify: input rank >= 2
//    2. GroupNormOp::verify: num_groups >= 1
//    3. GroupNormOp::verify: channels % num_groups == 0
//    4. BatchNormOp::verify: input rank >= 2
//    5. BatchNormOp::verify -> checkValuesPerStatistic: N * prod(spatial) > 1
//    6. InstanceNormOp::verify: input rank >= 3
//    7. InstanceNormOp::verify -> checkValuesPerStatistic: prod(spatial) > 1
//    8. LayerNormOp::verify: normalized_shape not empty
//    9. LayerNormOp::verify: normalized_shape == trailing dims of the input
//   10. verifyNormCommon -> checkResultType: result type == input type
// In invalid-norm-common.mlir (XFAIL until the crash is fixed):
//   11. verifyNormCommon -> checkSameElementType
//   12. verifyNormCommon: epsilon >= 0
//   13. verifyNormCommon: weight has the parameter shape
//   14. verifyNormCommon: bias has the parameter shape
