// RUN: solder-opt %s | solder-opt | FileCheck %s
// RUN: solder-opt %s --mlir-print-op-generic | solder-opt | FileCheck %s

// Round trip of every solder op through the custom and the generic form. The
// result shapes are computed by hand with PyTorch's formulas:
//   conv:           out = floor((in + 2p - d(k-1) - 1) / s) + 1
//   conv_transpose: out = (in - 1)s - 2p + d(k-1) + output_padding + 1
//   pool:           out = floor_or_ceil((in + 2p - d(k-1) - 1) / s) + 1, and in
//                   ceil_mode minus one when (out - 1)s >= in + p.

//===----------------------------------------------------------------------===//
// conv
//===----------------------------------------------------------------------===//

// 1-d, no bias, unit attributes: 10 - 3 + 1 = 8.
// CHECK-LABEL: func.func @conv1d_no_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x10xf32>, %[[W:.*]]: tensor<8x4x3xf32>)
// CHECK: %[[R:.*]] = solder.conv %[[X]], %[[W]] strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<2x4x10xf32>, tensor<8x4x3xf32>) -> tensor<2x8x8xf32>
// CHECK: return %[[R]]
func.func @conv1d_no_bias(%x: tensor<2x4x10xf32>, %w: tensor<8x4x3xf32>) -> tensor<2x8x8xf32> {
  %0 = solder.conv %x, %w strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<2x4x10xf32>, tensor<8x4x3xf32>) -> tensor<2x8x8xf32>
  return %0 : tensor<2x8x8xf32>
}

// 1-d, bias, stride 2, padding 1, dilation 2: floor((17 + 2 - 4 - 1) / 2) + 1 = 8.
// CHECK-LABEL: func.func @conv1d_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x17xf32>, %[[W:.*]]: tensor<6x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: solder.conv %[[X]], %[[W]], %[[B]] strides = [2] padding = [1] dilations = [2] groups = 1 : (tensor<1x3x17xf32>, tensor<6x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8xf32>
func.func @conv1d_bias(%x: tensor<1x3x17xf32>, %w: tensor<6x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x8xf32> {
  %0 = solder.conv %x, %w, %b strides = [2] padding = [1] dilations = [2] groups = 1
       : (tensor<1x3x17xf32>, tensor<6x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8xf32>
  return %0 : tensor<1x6x8xf32>
}

// 2-d, bias, groups 2, per-dim attributes:
//   H: floor((15 + 2 - 2 - 1) / 2) + 1 = 8;  W: floor((12 + 0 - 6 - 1) / 1) + 1 = 6.
// CHECK-LABEL: func.func @conv2d_groups_bias
// CHECK: solder.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [2, 1] padding = [1, 0] dilations = [1, 3] groups = 2 : (tensor<4x8x15x12xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<4x16x8x6xf32>
func.func @conv2d_groups_bias(%x: tensor<4x8x15x12xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<16xf32>) -> tensor<4x16x8x6xf32> {
  %0 = solder.conv %x, %w, %b strides = [2, 1] padding = [1, 0] dilations = [1, 3] groups = 2
       : (tensor<4x8x15x12xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>) -> tensor<4x16x8x6xf32>
  return %0 : tensor<4x16x8x6xf32>
}

// 2-d depthwise, no bias, floor division: floor((8 + 2 - 2 - 1) / 3) + 1 = 3.
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK: solder.conv %{{.*}}, %{{.*}} strides = [3, 3] padding = [1, 1] dilations = [1, 1] groups = 8 : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
func.func @conv2d_depthwise(%x: tensor<1x8x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %0 = solder.conv %x, %w strides = [3, 3] padding = [1, 1] dilations = [1, 1] groups = 8
       : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// 3-d, bias (as in W1, smaller): D: 6 - 3 + 1 = 4;  H, W: floor((8 + 2 - 2 - 1) / 2) + 1 = 4.
// CHECK-LABEL: func.func @conv3d_bias
// CHECK: solder.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [1, 2, 2] padding = [0, 1, 1] dilations = [1, 1, 1] groups = 1 : (tensor<2x3x6x8x8xf32>, tensor<5x3x3x3x3xf32>, tensor<5xf32>) -> tensor<2x5x4x4x4xf32>
func.func @conv3d_bias(%x: tensor<2x3x6x8x8xf32>, %w: tensor<5x3x3x3x3xf32>, %b: tensor<5xf32>) -> tensor<2x5x4x4x4xf32> {
  %0 = solder.conv %x, %w, %b strides = [1, 2, 2] padding = [0, 1, 1] dilations = [1, 1, 1] groups = 1
       : (tensor<2x3x6x8x8xf32>, tensor<5x3x3x3x3xf32>, tensor<5xf32>) -> tensor<2x5x4x4x4xf32>
  return %0 : tensor<2x5x4x4x4xf32>
}

// 3-d, no bias, groups 3, dilation 2, f64: 9 - 2 - 1 + 1 = 7.
// CHECK-LABEL: func.func @conv3d_groups_dilated_f64
// CHECK: solder.conv %{{.*}}, %{{.*}} strides = [1, 1, 1] padding = [0, 0, 0] dilations = [2, 2, 2] groups = 3 : (tensor<1x6x9x9x9xf64>, tensor<9x2x2x2x2xf64>) -> tensor<1x9x7x7x7xf64>
func.func @conv3d_groups_dilated_f64(%x: tensor<1x6x9x9x9xf64>, %w: tensor<9x2x2x2x2xf64>) -> tensor<1x9x7x7x7xf64> {
  %0 = solder.conv %x, %w strides = [1, 1, 1] padding = [0, 0, 0] dilations = [2, 2, 2] groups = 3
       : (tensor<1x6x9x9x9xf64>, tensor<9x2x2x2x2xf64>) -> tensor<1x9x7x7x7xf64>
  return %0 : tensor<1x9x7x7x7xf64>
}

//===----------------------------------------------------------------------===//
// conv_transpose
//===----------------------------------------------------------------------===//

// 1-d, no bias: (5 - 1) - 0 + 2 + 0 + 1 = 7.
// CHECK-LABEL: func.func @conv_transpose1d_no_bias
// CHECK: solder.conv_transpose %{{.*}}, %{{.*}} strides = [1] padding = [0] output_padding = [0] dilations = [1] groups = 1 : (tensor<2x4x5xf32>, tensor<4x3x3xf32>) -> tensor<2x3x7xf32>
func.func @conv_transpose1d_no_bias(%x: tensor<2x4x5xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x3x7xf32> {
  %0 = solder.conv_transpose %x, %w strides = [1] padding = [0] output_padding = [0] dilations = [1] groups = 1
       : (tensor<2x4x5xf32>, tensor<4x3x3xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// 2-d, bias, groups 2 (Cout = 3 * 2), output_padding 1:
//   H: (5 - 1) * 2 - 2 + 1 * 2 + 1 + 1 = 10;  W: (6 - 1) * 2 - 2 + 2 * 2 + 1 + 1 = 14.
// CHECK-LABEL: func.func @conv_transpose2d_groups_output_padding
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x6xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: solder.conv_transpose %[[X]], %[[W]], %[[B]] strides = [2, 2] padding = [1, 1] output_padding = [1, 1] dilations = [1, 2] groups = 2 : (tensor<1x4x5x6xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x14xf32>
func.func @conv_transpose2d_groups_output_padding(%x: tensor<1x4x5x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10x14xf32> {
  %0 = solder.conv_transpose %x, %w, %b strides = [2, 2] padding = [1, 1] output_padding = [1, 1] dilations = [1, 2] groups = 2
       : (tensor<1x4x5x6xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x14xf32>
  return %0 : tensor<1x6x10x14xf32>
}

// 3-d, bias, output_padding below the dilation (H) and below the stride (W):
//   D: (3 - 1) * 1 - 0 + 1 * 2 + 0 + 1 = 5
//   H: (4 - 1) * 1 - 0 + 2 * 2 + 1 + 1 = 9
//   W: (5 - 1) * 3 - 2 + 1 * 2 + 2 + 1 = 15
// CHECK-LABEL: func.func @conv_transpose3d_bias
// CHECK: solder.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} strides = [1, 1, 3] padding = [0, 0, 1] output_padding = [0, 1, 2] dilations = [1, 2, 1] groups = 1 : (tensor<2x4x3x4x5xf32>, tensor<4x2x3x3x3xf32>, tensor<2xf32>) -> tensor<2x2x5x9x15xf32>
func.func @conv_transpose3d_bias(%x: tensor<2x4x3x4x5xf32>, %w: tensor<4x2x3x3x3xf32>, %b: tensor<2xf32>) -> tensor<2x2x5x9x15xf32> {
  %0 = solder.conv_transpose %x, %w, %b strides = [1, 1, 3] padding = [0, 0, 1] output_padding = [0, 1, 2] dilations = [1, 2, 1] groups = 1
       : (tensor<2x4x3x4x5xf32>, tensor<4x2x3x3x3xf32>, tensor<2xf32>) -> tensor<2x2x5x9x15xf32>
  return %0 : tensor<2x2x5x9x15xf32>
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @group_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x4x4xf32>, %[[W:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: solder.group_norm %[[X]] weight = %[[W]] bias = %[[B]] num_groups = 3 epsilon = 9.99999974E-6 : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
func.func @group_norm_affine(%x: tensor<2x6x4x4xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x4x4xf32> {
  %0 = solder.group_norm %x weight = %w bias = %b num_groups = 3 epsilon = 1.0e-05
       : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// CHECK-LABEL: func.func @group_norm_plain
// CHECK: solder.group_norm %{{.*}} num_groups = 2 epsilon = 0.000000e+00 : (tensor<4x6xf32>) -> tensor<4x6xf32>
func.func @group_norm_plain(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = solder.group_norm %x num_groups = 2 epsilon = 0.0 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @group_norm_weight_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x3xf32>, %[[W:.*]]: tensor<6xf32>)
// CHECK: solder.group_norm %[[X]] weight = %[[W]] num_groups = 6 epsilon = 5.000000e-01 : (tensor<2x6x3xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
func.func @group_norm_weight_only(%x: tensor<2x6x3xf32>, %w: tensor<6xf32>) -> tensor<2x6x3xf32> {
  %0 = solder.group_norm %x weight = %w num_groups = 6 epsilon = 0.5 : (tensor<2x6x3xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  return %0 : tensor<2x6x3xf32>
}

// CHECK-LABEL: func.func @group_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x3x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: solder.group_norm %[[X]] bias = %[[B]] num_groups = 1 epsilon = 9.765625E-4 : (tensor<2x6x3x3x3xf32>, tensor<6xf32>) -> tensor<2x6x3x3x3xf32>
func.func @group_norm_bias_only(%x: tensor<2x6x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x3x3xf32> {
  %0 = solder.group_norm %x bias = %b num_groups = 1 epsilon = 0.0009765625 : (tensor<2x6x3x3x3xf32>, tensor<6xf32>) -> tensor<2x6x3x3x3xf32>
  return %0 : tensor<2x6x3x3x3xf32>
}

// CHECK-LABEL: func.func @batch_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<8x16x4x4xf32>, %[[W:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: solder.batch_norm %[[X]] weight = %[[W]] bias = %[[B]] epsilon = 9.99999974E-6 : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xf32>
func.func @batch_norm_affine(%x: tensor<8x16x4x4xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16x4x4xf32> {
  %0 = solder.batch_norm %x weight = %w bias = %b epsilon = 1.000000e-05
       : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xf32>
  return %0 : tensor<8x16x4x4xf32>
}

// Rank 2 (BatchNorm1d on (N, C)): 4 values per channel.
// CHECK-LABEL: func.func @batch_norm_plain
// CHECK: solder.batch_norm %{{.*}} epsilon = 1.000000e+00 : (tensor<4x3xf32>) -> tensor<4x3xf32>
func.func @batch_norm_plain(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = solder.batch_norm %x epsilon = 1.0 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// Batch of one, 2 spatial positions: 2 values per channel.
// CHECK-LABEL: func.func @batch_norm_weight_only
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x2xf16>, %[[W:.*]]: tensor<3xf16>)
// CHECK: solder.batch_norm %[[X]] weight = %[[W]] epsilon = 9.99999974E-6 : (tensor<1x3x2xf16>, tensor<3xf16>) -> tensor<1x3x2xf16>
func.func @batch_norm_weight_only(%x: tensor<1x3x2xf16>, %w: tensor<3xf16>) -> tensor<1x3x2xf16> {
  %0 = solder.batch_norm %x weight = %w epsilon = 1.0e-05 : (tensor<1x3x2xf16>, tensor<3xf16>) -> tensor<1x3x2xf16>
  return %0 : tensor<1x3x2xf16>
}

// CHECK-LABEL: func.func @batch_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x2x2x2xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: solder.batch_norm %[[X]] bias = %[[B]] epsilon = 9.99999974E-6 : (tensor<2x3x2x2x2xf32>, tensor<3xf32>) -> tensor<2x3x2x2x2xf32>
func.func @batch_norm_bias_only(%x: tensor<2x3x2x2x2xf32>, %b: tensor<3xf32>) -> tensor<2x3x2x2x2xf32> {
  %0 = solder.batch_norm %x bias = %b epsilon = 1.0e-05 : (tensor<2x3x2x2x2xf32>, tensor<3xf32>) -> tensor<2x3x2x2x2xf32>
  return %0 : tensor<2x3x2x2x2xf32>
}

// CHECK-LABEL: func.func @instance_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<8x16x4x4xf32>, %[[W:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: solder.instance_norm %[[X]] weight = %[[W]] bias = %[[B]] epsilon = 9.99999974E-6 : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xf32>
func.func @instance_norm_affine(%x: tensor<8x16x4x4xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16x4x4xf32> {
  %0 = solder.instance_norm %x weight = %w bias = %b epsilon = 1.0e-05
       : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xf32>
  return %0 : tensor<8x16x4x4xf32>
}

// Batch of one is fine: the statistics are over the 2 spatial positions.
// CHECK-LABEL: func.func @instance_norm_plain
// CHECK: solder.instance_norm %{{.*}} epsilon = 9.99999974E-6 : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
func.func @instance_norm_plain(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %0 = solder.instance_norm %x epsilon = 1.0e-05 : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}

// CHECK-LABEL: func.func @instance_norm_weight_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x2x2x2xbf16>, %[[W:.*]]: tensor<3xbf16>)
// CHECK: solder.instance_norm %[[X]] weight = %[[W]] epsilon = 9.99999974E-6 : (tensor<2x3x2x2x2xbf16>, tensor<3xbf16>) -> tensor<2x3x2x2x2xbf16>
func.func @instance_norm_weight_only(%x: tensor<2x3x2x2x2xbf16>, %w: tensor<3xbf16>) -> tensor<2x3x2x2x2xbf16> {
  %0 = solder.instance_norm %x weight = %w epsilon = 1.0e-05 : (tensor<2x3x2x2x2xbf16>, tensor<3xbf16>) -> tensor<2x3x2x2x2xbf16>
  return %0 : tensor<2x3x2x2x2xbf16>
}

// CHECK-LABEL: func.func @instance_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5x1xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: solder.instance_norm %[[X]] bias = %[[B]] epsilon = 9.99999974E-6 : (tensor<2x3x5x1xf32>, tensor<3xf32>) -> tensor<2x3x5x1xf32>
func.func @instance_norm_bias_only(%x: tensor<2x3x5x1xf32>, %b: tensor<3xf32>) -> tensor<2x3x5x1xf32> {
  %0 = solder.instance_norm %x bias = %b epsilon = 1.0e-05 : (tensor<2x3x5x1xf32>, tensor<3xf32>) -> tensor<2x3x5x1xf32>
  return %0 : tensor<2x3x5x1xf32>
}

// CHECK-LABEL: func.func @layer_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<8x16x4x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>)
// CHECK: solder.layer_norm %[[X]] weight = %[[W]] bias = %[[B]] normalized_shape = [4, 4] epsilon = 9.99999974E-6 : (tensor<8x16x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x16x4x4xf32>
func.func @layer_norm_affine(%x: tensor<8x16x4x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<8x16x4x4xf32> {
  %0 = solder.layer_norm %x weight = %w bias = %b normalized_shape = [4, 4] epsilon = 1.0e-05
       : (tensor<8x16x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x16x4x4xf32>
  return %0 : tensor<8x16x4x4xf32>
}

// normalized_shape may cover the whole input.
// CHECK-LABEL: func.func @layer_norm_plain
// CHECK: solder.layer_norm %{{.*}} normalized_shape = [3, 5] epsilon = 9.99999974E-6 : (tensor<3x5xf32>) -> tensor<3x5xf32>
func.func @layer_norm_plain(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = solder.layer_norm %x normalized_shape = [3, 5] epsilon = 1.0e-05 : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @layer_norm_weight_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x7x5xf32>, %[[W:.*]]: tensor<5xf32>)
// CHECK: solder.layer_norm %[[X]] weight = %[[W]] normalized_shape = [5] epsilon = 9.99999974E-6 : (tensor<2x7x5xf32>, tensor<5xf32>) -> tensor<2x7x5xf32>
func.func @layer_norm_weight_only(%x: tensor<2x7x5xf32>, %w: tensor<5xf32>) -> tensor<2x7x5xf32> {
  %0 = solder.layer_norm %x weight = %w normalized_shape = [5] epsilon = 1.0e-05 : (tensor<2x7x5xf32>, tensor<5xf32>) -> tensor<2x7x5xf32>
  return %0 : tensor<2x7x5xf32>
}

// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x7x5xf32>, %[[B:.*]]: tensor<7x5xf32>)
// CHECK: solder.layer_norm %[[X]] bias = %[[B]] normalized_shape = [7, 5] epsilon = 9.99999974E-6 : (tensor<2x7x5xf32>, tensor<7x5xf32>) -> tensor<2x7x5xf32>
func.func @layer_norm_bias_only(%x: tensor<2x7x5xf32>, %b: tensor<7x5xf32>) -> tensor<2x7x5xf32> {
  %0 = solder.layer_norm %x bias = %b normalized_shape = [7, 5] epsilon = 1.0e-05 : (tensor<2x7x5xf32>, tensor<7x5xf32>) -> tensor<2x7x5xf32>
  return %0 : tensor<2x7x5xf32>
}

//===----------------------------------------------------------------------===//
// Unary pointwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_plain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R0:.*]] = solder.relu %[[X]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R1:.*]] = solder.tanh %[[R0]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R2:.*]] = solder.sigmoid %[[R1]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R3:.*]] = solder.silu %[[R2]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R4:.*]] = solder.mish %[[R3]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R5:.*]] = solder.hardswish %[[R4]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R6:.*]] = solder.hardsigmoid %[[R5]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R7:.*]] = solder.exp %[[R6]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R8:.*]] = solder.log %[[R7]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R9:.*]] = solder.abs %[[R8]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R10:.*]] = solder.neg %[[R9]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R11:.*]] = solder.sqrt %[[R10]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[R12:.*]] = solder.rsqrt %[[R11]] : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[R12]]
func.func @unary_plain(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = solder.relu %x : tensor<2x3x4xf32>
  %1 = solder.tanh %0 : tensor<2x3x4xf32>
  %2 = solder.sigmoid %1 : tensor<2x3x4xf32>
  %3 = solder.silu %2 : tensor<2x3x4xf32>
  %4 = solder.mish %3 : tensor<2x3x4xf32>
  %5 = solder.hardswish %4 : tensor<2x3x4xf32>
  %6 = solder.hardsigmoid %5 : tensor<2x3x4xf32>
  %7 = solder.exp %6 : tensor<2x3x4xf32>
  %8 = solder.log %7 : tensor<2x3x4xf32>
  %9 = solder.abs %8 : tensor<2x3x4xf32>
  %10 = solder.neg %9 : tensor<2x3x4xf32>
  %11 = solder.sqrt %10 : tensor<2x3x4xf32>
  %12 = solder.rsqrt %11 : tensor<2x3x4xf32>
  return %12 : tensor<2x3x4xf32>
}

// Other element types and a rank-0 operand.
// CHECK-LABEL: func.func @unary_element_types
// CHECK: solder.relu %{{.*}} : tensor<4xf16>
// CHECK: solder.tanh %{{.*}} : tensor<4xbf16>
// CHECK: solder.exp %{{.*}} : tensor<4xf64>
// CHECK: solder.neg %{{.*}} : tensor<f32>
func.func @unary_element_types(%a: tensor<4xf16>, %b: tensor<4xbf16>, %c: tensor<4xf64>, %d: tensor<f32>) {
  %0 = solder.relu %a : tensor<4xf16>
  %1 = solder.tanh %b : tensor<4xbf16>
  %2 = solder.exp %c : tensor<4xf64>
  %3 = solder.neg %d : tensor<f32>
  return
}

// Default-valued attributes are not printed, whether given or not.
// CHECK-LABEL: func.func @unary_defaults
// CHECK-NEXT: solder.leaky_relu %{{.*}} : tensor<4xf32>
// CHECK-NEXT: solder.elu %{{.*}} : tensor<4xf32>
// CHECK-NEXT: solder.softplus %{{.*}} : tensor<4xf32>
// CHECK-NEXT: solder.gelu %{{.*}} : tensor<4xf32>
// CHECK-NEXT: solder.gelu %{{.*}} : tensor<4xf32>
// CHECK-NEXT: solder.hardtanh %{{.*}} : tensor<4xf32>
// CHECK-NEXT: solder.hardtanh %{{.*}} : tensor<4xf32>
// CHECK-NEXT: return
func.func @unary_defaults(%x: tensor<4xf32>) {
  %0 = solder.leaky_relu %x : tensor<4xf32>
  %1 = solder.elu %x : tensor<4xf32>
  %2 = solder.softplus %x : tensor<4xf32>
  %3 = solder.gelu %x : tensor<4xf32>
  %4 = solder.gelu %x {approximate = #solder.gelu_approximation<none>} : tensor<4xf32>
  %5 = solder.hardtanh %x : tensor<4xf32>
  %6 = solder.hardtanh %x {min = -1.0 : f32, max = 1.0 : f32} : tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @leaky_relu
// CHECK: solder.leaky_relu %{{.*}} {alpha = 2.500000e-01 : f32} : tensor<2x3xf32>
func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.leaky_relu %x {alpha = 0.25 : f32} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elu
// CHECK: solder.elu %{{.*}} {alpha = 5.000000e-01 : f32} : tensor<2x3xf32>
func.func @elu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.elu %x {alpha = 0.5 : f32} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @softplus
// CHECK: solder.softplus %{{.*}} {beta = 2.000000e+00 : f32, threshold = 1.000000e+01 : f32} : tensor<2x3xf32>
// CHECK: solder.softplus %{{.*}} {beta = -5.000000e-01 : f32} : tensor<2x3xf32>
func.func @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.softplus %x {beta = 2.0 : f32, threshold = 10.0 : f32} : tensor<2x3xf32>
  %1 = solder.softplus %0 {beta = -0.5 : f32} : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gelu_tanh
// CHECK: solder.gelu %{{.*}} {approximate = #solder.gelu_approximation<tanh>} : tensor<2x3xf32>
func.func @gelu_tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.gelu %x {approximate = #solder.gelu_approximation<tanh>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @hardtanh
// CHECK: solder.hardtanh %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
// CHECK: solder.hardtanh %{{.*}} {max = 2.500000e-01 : f32, min = 2.500000e-01 : f32} : tensor<2x3xf32>
func.func @hardtanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.hardtanh %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  %1 = solder.hardtanh %0 {min = 0.25 : f32, max = 0.25 : f32} : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clamp
// CHECK-NEXT: solder.clamp %{{.*}} {min = -1.500000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT: solder.clamp %{{.*}} {max = 6.000000e+00 : f32} : tensor<2x3xf32>
// CHECK-NEXT: solder.clamp %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
func.func @clamp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.clamp %x {min = -1.5 : f32} : tensor<2x3xf32>
  %1 = solder.clamp %0 {max = 6.0 : f32} : tensor<2x3xf32>
  %2 = solder.clamp %1 {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Binary pointwise ops
//===----------------------------------------------------------------------===//

// One type for lhs, rhs and result: written once.
// CHECK-LABEL: func.func @binary_same_type
// CHECK-SAME: (%[[A:.*]]: tensor<8x16x4x4xf32>, %[[B:.*]]: tensor<8x16x4x4xf32>)
// CHECK-NEXT: %[[R0:.*]] = solder.add %[[A]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: %[[R1:.*]] = solder.sub %[[R0]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: %[[R2:.*]] = solder.mul %[[R1]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: %[[R3:.*]] = solder.div %[[R2]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: %[[R4:.*]] = solder.maximum %[[R3]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: %[[R5:.*]] = solder.minimum %[[R4]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: %[[R6:.*]] = solder.pow %[[R5]], %[[B]] : tensor<8x16x4x4xf32>
// CHECK-NEXT: return %[[R6]]
func.func @binary_same_type(%a: tensor<8x16x4x4xf32>, %b: tensor<8x16x4x4xf32>) -> tensor<8x16x4x4xf32> {
  %0 = solder.add %a, %b : tensor<8x16x4x4xf32>
  %1 = solder.sub %0, %b : tensor<8x16x4x4xf32>
  %2 = solder.mul %1, %b : tensor<8x16x4x4xf32>
  %3 = solder.div %2, %b : tensor<8x16x4x4xf32>
  %4 = solder.maximum %3, %b : tensor<8x16x4x4xf32>
  %5 = solder.minimum %4, %b : tensor<8x16x4x4xf32>
  %6 = solder.pow %5, %b : tensor<8x16x4x4xf32>
  return %6 : tensor<8x16x4x4xf32>
}

// The long form with one type everywhere is printed short; rank-0 operands too.
// CHECK-LABEL: func.func @binary_long_form_same_type
// CHECK: solder.add %{{.*}}, %{{.*}} : tensor<4xbf16>
// CHECK: solder.mul %{{.*}}, %{{.*}} : tensor<f64>
func.func @binary_long_form_same_type(%a: tensor<4xbf16>, %s: tensor<f64>) {
  %0 = solder.add %a, %a : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  %1 = solder.mul %s, %s : tensor<f64>
  return
}

// Per-channel (C, 1, 1) parameter on either side.
// CHECK-LABEL: func.func @binary_per_channel
// CHECK: solder.add %{{.*}}, %{{.*}} : tensor<8x16x4x4xf32>, tensor<16x1x1xf32> -> tensor<8x16x4x4xf32>
// CHECK: solder.minimum %{{.*}}, %{{.*}} : tensor<16x1x1xf32>, tensor<8x16x4x4xf32> -> tensor<8x16x4x4xf32>
func.func @binary_per_channel(%x: tensor<8x16x4x4xf32>, %c: tensor<16x1x1xf32>) {
  %0 = solder.add %x, %c : tensor<8x16x4x4xf32>, tensor<16x1x1xf32> -> tensor<8x16x4x4xf32>
  %1 = solder.minimum %c, %x : tensor<16x1x1xf32>, tensor<8x16x4x4xf32> -> tensor<8x16x4x4xf32>
  return
}

// Rank-0 scalars on either side.
// CHECK-LABEL: func.func @binary_scalar
// CHECK: solder.sub %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK: solder.mul %{{.*}}, %{{.*}} : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: solder.pow %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
func.func @binary_scalar(%x: tensor<2x3xf32>, %s: tensor<f32>) {
  %0 = solder.sub %x, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %1 = solder.mul %s, %x : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = solder.pow %x, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return
}

// Rank-extending: the shorter shape is aligned at the trailing dims.
// CHECK-LABEL: func.func @binary_rank_extending
// CHECK: solder.div %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
// CHECK: solder.div %{{.*}}, %{{.*}} : tensor<3x1xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
func.func @binary_rank_extending(%x: tensor<2x3x4xf32>, %r: tensor<4xf32>, %c: tensor<3x1xf32>) {
  %0 = solder.div %x, %r : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
  %1 = solder.div %c, %x : tensor<3x1xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// Both sides broadcast: (2, 1, 4) and (3, 1) -> (2, 3, 4); (5, 1) and (1, 6) -> (5, 6).
// CHECK-LABEL: func.func @binary_two_sided
// CHECK: solder.maximum %{{.*}}, %{{.*}} : tensor<2x1x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
// CHECK: solder.add %{{.*}}, %{{.*}} : tensor<5x1xf16>, tensor<1x6xf16> -> tensor<5x6xf16>
func.func @binary_two_sided(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %c: tensor<5x1xf16>, %d: tensor<1x6xf16>) {
  %0 = solder.maximum %a, %b : tensor<2x1x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  %1 = solder.add %c, %d : tensor<5x1xf16>, tensor<1x6xf16> -> tensor<5x6xf16>
  return
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce_kinds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT: solder.reduce sum %[[X]] dims = [1] : tensor<2x3x4x5xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT: solder.reduce mean %[[X]] dims = [1, 2, 3] : tensor<2x3x4x5xf32> -> tensor<2xf32>
// CHECK-NEXT: solder.reduce max %[[X]] dims = [0, 3] : tensor<2x3x4x5xf32> -> tensor<3x4xf32>
// CHECK-NEXT: solder.reduce min %[[X]] dims = [3] : tensor<2x3x4x5xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: solder.reduce logsumexp %[[X]] dims = [1] : tensor<2x3x4x5xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT: solder.reduce prod %[[X]] dims = [0, 1, 2, 3] : tensor<2x3x4x5xf32> -> tensor<f32>
// CHECK-NEXT: return
func.func @reduce_kinds(%x: tensor<2x3x4x5xf32>) {
  %0 = solder.reduce sum %x dims = [1] : tensor<2x3x4x5xf32> -> tensor<2x4x5xf32>
  %1 = solder.reduce mean %x dims = [1, 2, 3] : tensor<2x3x4x5xf32> -> tensor<2xf32>
  %2 = solder.reduce max %x dims = [0, 3] : tensor<2x3x4x5xf32> -> tensor<3x4xf32>
  %3 = solder.reduce min %x dims = [3] : tensor<2x3x4x5xf32> -> tensor<2x3x4xf32>
  %4 = solder.reduce logsumexp %x dims = [1] : tensor<2x3x4x5xf32> -> tensor<2x4x5xf32>
  %5 = solder.reduce prod %x dims = [0, 1, 2, 3] : tensor<2x3x4x5xf32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @reduce_kinds_keepdim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT: solder.reduce sum %[[X]] dims = [1] keepdim : tensor<2x3x4x5xf32> -> tensor<2x1x4x5xf32>
// CHECK-NEXT: solder.reduce mean %[[X]] dims = [1, 2, 3] keepdim : tensor<2x3x4x5xf32> -> tensor<2x1x1x1xf32>
// CHECK-NEXT: solder.reduce max %[[X]] dims = [0, 3] keepdim : tensor<2x3x4x5xf32> -> tensor<1x3x4x1xf32>
// CHECK-NEXT: solder.reduce min %[[X]] dims = [3] keepdim : tensor<2x3x4x5xf32> -> tensor<2x3x4x1xf32>
// CHECK-NEXT: solder.reduce logsumexp %[[X]] dims = [1] keepdim : tensor<2x3x4x5xf32> -> tensor<2x1x4x5xf32>
// CHECK-NEXT: solder.reduce prod %[[X]] dims = [0, 1, 2, 3] keepdim : tensor<2x3x4x5xf32> -> tensor<1x1x1x1xf32>
// CHECK-NEXT: return
func.func @reduce_kinds_keepdim(%x: tensor<2x3x4x5xf32>) {
  %0 = solder.reduce sum %x dims = [1] keepdim : tensor<2x3x4x5xf32> -> tensor<2x1x4x5xf32>
  %1 = solder.reduce mean %x dims = [1, 2, 3] keepdim : tensor<2x3x4x5xf32> -> tensor<2x1x1x1xf32>
  %2 = solder.reduce max %x dims = [0, 3] keepdim : tensor<2x3x4x5xf32> -> tensor<1x3x4x1xf32>
  %3 = solder.reduce min %x dims = [3] keepdim : tensor<2x3x4x5xf32> -> tensor<2x3x4x1xf32>
  %4 = solder.reduce logsumexp %x dims = [1] keepdim : tensor<2x3x4x5xf32> -> tensor<2x1x4x5xf32>
  %5 = solder.reduce prod %x dims = [0, 1, 2, 3] keepdim : tensor<2x3x4x5xf32> -> tensor<1x1x1x1xf32>
  return
}

// CHECK-LABEL: func.func @reduce_f16
// CHECK: solder.reduce mean %{{.*}} dims = [0] : tensor<7xf16> -> tensor<f16>
func.func @reduce_f16(%x: tensor<7xf16>) -> tensor<f16> {
  %0 = solder.reduce mean %x dims = [0] : tensor<7xf16> -> tensor<f16>
  return %0 : tensor<f16>
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @softmax
// CHECK: solder.softmax %{{.*}} dim = 1 : tensor<8x16x4x4xf32>
// CHECK: solder.softmax %{{.*}} dim = 3 : tensor<8x16x4x4xf32>
func.func @softmax(%x: tensor<8x16x4x4xf32>) -> tensor<8x16x4x4xf32> {
  %0 = solder.softmax %x dim = 1 : tensor<8x16x4x4xf32>
  %1 = solder.softmax %0 dim = 3 : tensor<8x16x4x4xf32>
  return %1 : tensor<8x16x4x4xf32>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK: solder.log_softmax %{{.*}} dim = 0 : tensor<10xf32>
// CHECK: solder.log_softmax %{{.*}} dim = 1 : tensor<2x10xf64>
func.func @log_softmax(%x: tensor<10xf32>, %y: tensor<2x10xf64>) {
  %0 = solder.log_softmax %x dim = 0 : tensor<10xf32>
  %1 = solder.log_softmax %y dim = 1 : tensor<2x10xf64>
  return
}

//===----------------------------------------------------------------------===//
// pool
//===----------------------------------------------------------------------===//

// 2-d max, kernel 2 stride 2: 8 / 2 = 4.
// CHECK-LABEL: func.func @pool_max2d
// CHECK: solder.pool max %{{.*}} kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] : tensor<8x16x8x8xf32> -> tensor<8x16x4x4xf32>
func.func @pool_max2d(%x: tensor<8x16x8x8xf32>) -> tensor<8x16x4x4xf32> {
  %0 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<8x16x8x8xf32> -> tensor<8x16x4x4xf32>
  return %0 : tensor<8x16x4x4xf32>
}

// 2-d max, ceil_mode and dilations (ceil rounds up where floor would give 4):
//   H: window 2 * 2 + 1 = 5, ceil((10 + 2 - 5) / 2) + 1 = 5, (5 - 1) * 2 = 8 < 10 + 1: kept
//   W: window 2,             ceil((9 + 0 - 2) / 2) + 1 = 5,  (5 - 1) * 2 = 8 < 9 + 0: kept
// CHECK-LABEL: func.func @pool_max2d_ceil_dilated
// CHECK: solder.pool max %{{.*}} kernel = [3, 2] strides = [2, 2] padding = [1, 0] dilations = [2, 1] ceil_mode : tensor<1x2x10x9xf32> -> tensor<1x2x5x5xf32>
func.func @pool_max2d_ceil_dilated(%x: tensor<1x2x10x9xf32>) -> tensor<1x2x5x5xf32> {
  %0 = solder.pool max %x kernel = [3, 2] strides = [2, 2] padding = [1, 0] dilations = [2, 1] ceil_mode
       : tensor<1x2x10x9xf32> -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// 3-d max: D: (4 - 2) / 2 + 1 = 2;  H, W: (6 + 2 - 3) / 3 + 1 = 2.
// CHECK-LABEL: func.func @pool_max3d
// CHECK: solder.pool max %{{.*}} kernel = [2, 3, 3] strides = [2, 3, 3] padding = [0, 1, 1] dilations = [1, 1, 1] : tensor<1x2x4x6x6xf16> -> tensor<1x2x2x2x2xf16>
func.func @pool_max3d(%x: tensor<1x2x4x6x6xf16>) -> tensor<1x2x2x2x2xf16> {
  %0 = solder.pool max %x kernel = [2, 3, 3] strides = [2, 3, 3] padding = [0, 1, 1] dilations = [1, 1, 1]
       : tensor<1x2x4x6x6xf16> -> tensor<1x2x2x2x2xf16>
  return %0 : tensor<1x2x2x2x2xf16>
}

// 2-d avg without the padding in the divisor: (7 + 2 - 3) / 2 + 1 = 4.
// CHECK-LABEL: func.func @pool_avg2d_exclude_pad
// CHECK: solder.pool avg %{{.*}} kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1] {count_include_pad = false} : tensor<1x1x7x7xf32> -> tensor<1x1x4x4xf32>
func.func @pool_avg2d_exclude_pad(%x: tensor<1x1x7x7xf32>) -> tensor<1x1x4x4xf32> {
  %0 = solder.pool avg %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1] {count_include_pad = false}
       : tensor<1x1x7x7xf32> -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// 1-d avg, ceil_mode where PyTorch drops the last window (it would start in
// the right padding): ceil((5 + 2 - 2) / 2) + 1 = 4, (4 - 1) * 2 = 6 >= 5 + 1,
// so 3. count_include_pad = true is the default and not printed.
// CHECK-LABEL: func.func @pool_avg1d_ceil_drop
// CHECK: solder.pool avg %{{.*}} kernel = [2] strides = [2] padding = [1] dilations = [1] ceil_mode : tensor<2x3x5xf32> -> tensor<2x3x3xf32>
func.func @pool_avg1d_ceil_drop(%x: tensor<2x3x5xf32>) -> tensor<2x3x3xf32> {
  %0 = solder.pool avg %x kernel = [2] strides = [2] padding = [1] dilations = [1] ceil_mode {count_include_pad = true}
       : tensor<2x3x5xf32> -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// 1-d avg, ceil_mode, count_include_pad = false:
//   ceil((6 + 0 - 4) / 3) + 1 = 2, (2 - 1) * 3 = 3 < 6: kept (floor gives 1).
// CHECK-LABEL: func.func @pool_avg1d_ceil_exclude_pad
// CHECK: solder.pool avg %{{.*}} kernel = [4] strides = [3] padding = [0] dilations = [1] ceil_mode {count_include_pad = false} : tensor<1x1x6xf32> -> tensor<1x1x2xf32>
func.func @pool_avg1d_ceil_exclude_pad(%x: tensor<1x1x6xf32>) -> tensor<1x1x2xf32> {
  %0 = solder.pool avg %x kernel = [4] strides = [3] padding = [0] dilations = [1] ceil_mode {count_include_pad = false}
       : tensor<1x1x6xf32> -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// avg with a divisor_override (AvgPool2d(2, divisor_override=3)).
// CHECK-LABEL: func.func @pool_avg_divisor_override
// CHECK: solder.pool avg %{{.*}} kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] {divisor_override = 3 : i64} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
func.func @pool_avg_divisor_override(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] {divisor_override = 3 : i64}
       : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// A view that regroups a conv output's channels (x.view(8, 4, 64)).
// CHECK-LABEL: func.func @reshape
// CHECK: solder.reshape %{{.*}} : tensor<8x16x4x4xf32> -> tensor<8x4x64xf32>
func.func @reshape(%x: tensor<8x16x4x4xf32>) -> tensor<8x4x64xf32> {
  %0 = solder.reshape %x : tensor<8x16x4x4xf32> -> tensor<8x4x64xf32>
  return %0 : tensor<8x4x64xf32>
}

// padding='same' with an even kernel (PyTorch puts the odd zero after):
// (8 + 1 + 2 - 3) / 1 + 1 = 8 rows and columns.
// CHECK-LABEL: func.func @conv_padding_high
// CHECK: solder.conv %{{.*}}, %{{.*}} strides = [1, 1] padding = [1, 1] padding_high = [2, 2] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32>) -> tensor<1x4x8x8xf32>
func.func @conv_padding_high(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x4x4xf32>) -> tensor<1x4x8x8xf32> {
  %0 = solder.conv %x, %w strides = [1, 1] padding = [1, 1] padding_high = [2, 2] dilations = [1, 1] groups = 1
       : (tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// An adaptive pool to sizes that do not divide the input.
// CHECK-LABEL: func.func @adaptive_pool
// CHECK: solder.adaptive_pool avg %{{.*}} : tensor<8x16x7x5xf32> -> tensor<8x16x3x2xf32>
func.func @adaptive_pool(%x: tensor<8x16x7x5xf32>) -> tensor<8x16x3x2xf32> {
  %0 = solder.adaptive_pool avg %x : tensor<8x16x7x5xf32> -> tensor<8x16x3x2xf32>
  return %0 : tensor<8x16x3x2xf32>
}
