// Structure: every normalization becomes group_stats + group_normalize,
// softmax/log_softmax become reductions + pointwise ops; everything else stays.
// RUN: solder-opt %s --solder-decompose | FileCheck %s
// RUN: solder-opt %s --solder-decompose | FileCheck %s --check-prefix=GONE
// Idempotent: a second run changes nothing.
// RUN: solder-opt %s --solder-decompose > %t.once.mlir
// RUN: solder-opt %t.once.mlir --solder-decompose > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// Numerical proof on the reference interpreter, one RUN per function. The
// pipeline is given without the builtin.module anchor: solder-interp adds it
// to a pass manager that is already anchored on builtin.module (see
// interp-check-pipeline.mlir for why the anchored spelling proves nothing).
// RUN: solder-interp %s --function=group_norm_affine --check-pipeline='func.func(solder-decompose)' --seed=1 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=group_norm_plain_3d --check-pipeline='func.func(solder-decompose)' --seed=2 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=group_norm_weight_only --check-pipeline='func.func(solder-decompose)' --seed=3 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=instance_norm_affine --check-pipeline='func.func(solder-decompose)' --seed=4 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=batch_norm_affine --check-pipeline='func.func(solder-decompose)' --seed=5 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=layer_norm_all_dims_affine --check-pipeline='func.func(solder-decompose)' --seed=6 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=layer_norm_rank2_plain --check-pipeline='func.func(solder-decompose)' --seed=7 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=layer_norm_bias_only --check-pipeline='func.func(solder-decompose)' --seed=8 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=layer_norm_last_dim --check-pipeline='func.func(solder-decompose)' --seed=9 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=softmax_dim1 --check-pipeline='func.func(solder-decompose)' --seed=10 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=log_softmax_last_dim --check-pipeline='func.func(solder-decompose)' --seed=11 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=conv_group_norm_relu --check-pipeline='func.func(solder-decompose)' --seed=12 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=untouched --check-pipeline='func.func(solder-decompose)' --seed=13 | FileCheck %s --check-prefix=NUM
// Large-mean statistics: inputs (and affine parameters) in [1000, 1001).
// RUN: solder-interp %s --function=conv_group_norm_relu --check-pipeline='func.func(solder-decompose)' --seed=14 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=layer_norm_all_dims_affine --check-pipeline='func.func(solder-decompose)' --seed=15 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

// The numerical checks are not vacuous: in f32 with zero tolerance the
// decomposed softmax rounds differently from the fused reference, and the
// checker must see it (it would report PASS if the pipeline never ran).
// RUN: not solder-interp %s --function=softmax_dim1 --check-pipeline='func.func(solder-decompose)' --seed=10 --precision=f32 --rtol=0 --atol=0 | FileCheck %s --check-prefix=RAN
// RAN: output #0 (2, 5, 3): max abs err {{[1-9]}}
// RAN: {{^}}FAIL

// GONE-NOT: solder.group_norm{{ }}
// GONE-NOT: solder.instance_norm
// GONE-NOT: solder.batch_norm
// GONE-NOT: solder.softmax{{ }}
// GONE-NOT: solder.log_softmax
// GONE-NOT: solder.layer_norm

//===----------------------------------------------------------------------===//
// group_norm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @group_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x4x4xf32>, %[[W:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 3 epsilon = 9.99999974E-6 : tensor<2x6x4x4xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] weight = %[[W]] bias = %[[B]] : (tensor<2x6x4x4xf32>, tensor<2x3x2xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
// CHECK-NEXT: return %[[N]]
func.func @group_norm_affine(%x: tensor<2x6x4x4xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x4x4xf32> {
  %0 = solder.group_norm %x weight = %w bias = %b num_groups = 3 epsilon = 1.0e-05
       : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// No affine parameters, 3-d spatial, epsilon carried over.
// CHECK-LABEL: func.func @group_norm_plain_3d
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x2x3x3xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 2 epsilon = 5.000000e-01 : tensor<2x4x2x3x3xf32> -> tensor<2x2x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] : (tensor<2x4x2x3x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x2x3x3xf32>
// CHECK-NEXT: return %[[N]]
func.func @group_norm_plain_3d(%x: tensor<2x4x2x3x3xf32>) -> tensor<2x4x2x3x3xf32> {
  %0 = solder.group_norm %x num_groups = 2 epsilon = 0.5 : (tensor<2x4x2x3x3xf32>) -> tensor<2x4x2x3x3xf32>
  return %0 : tensor<2x4x2x3x3xf32>
}

// Only a weight: it must stay the weight (not become the bias).
// CHECK-LABEL: func.func @group_norm_weight_only
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x5xf32>, %[[W:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 4 epsilon = 9.99999974E-6 : tensor<3x4x5xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] weight = %[[W]] : (tensor<3x4x5xf32>, tensor<3x4x2xf32>, tensor<4xf32>) -> tensor<3x4x5xf32>
// CHECK-NEXT: return %[[N]]
func.func @group_norm_weight_only(%x: tensor<3x4x5xf32>, %w: tensor<4xf32>) -> tensor<3x4x5xf32> {
  %0 = solder.group_norm %x weight = %w num_groups = 4 epsilon = 1.0e-05
       : (tensor<3x4x5xf32>, tensor<4xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

//===----------------------------------------------------------------------===//
// instance_norm: G = C
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @instance_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[W:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 3 epsilon = 9.99999974E-6 : tensor<2x3x4x4xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] weight = %[[W]] bias = %[[B]] : (tensor<2x3x4x4xf32>, tensor<2x3x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: return %[[N]]
func.func @instance_norm_affine(%x: tensor<2x3x4x4xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = solder.instance_norm %x weight = %w bias = %b epsilon = 1.0e-05
       : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

//===----------------------------------------------------------------------===//
// batch_norm: G = C, statistics across the batch
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @batch_norm_affine
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x2x2xf32>, %[[W:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 3 epsilon = 9.99999974E-6 across_batch : tensor<4x3x2x2xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] weight = %[[W]] bias = %[[B]] : (tensor<4x3x2x2xf32>, tensor<1x3x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x2x2xf32>
// CHECK-NEXT: return %[[N]]
func.func @batch_norm_affine(%x: tensor<4x3x2x2xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<4x3x2x2xf32> {
  %0 = solder.batch_norm %x weight = %w bias = %b epsilon = 1.0e-05
       : (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x2x2xf32>
  return %0 : tensor<4x3x2x2xf32>
}

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

// Over every dim but the batch: one group per sample, then the elementwise
// weight and bias as broadcast mul and add (the normalize itself is plain).
// CHECK-LABEL: func.func @layer_norm_all_dims_affine
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>, %[[W:.*]]: tensor<3x4x5xf32>, %[[B:.*]]: tensor<3x4x5xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 1 epsilon = 9.99999974E-6 : tensor<2x3x4x5xf32> -> tensor<2x1x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] : (tensor<2x3x4x5xf32>, tensor<2x1x2xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT: %[[M:.*]] = solder.mul %[[N]], %[[W]] : tensor<2x3x4x5xf32>, tensor<3x4x5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT: %[[A:.*]] = solder.add %[[M]], %[[B]] : tensor<2x3x4x5xf32>, tensor<3x4x5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT: return %[[A]]
func.func @layer_norm_all_dims_affine(%x: tensor<2x3x4x5xf32>, %w: tensor<3x4x5xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = solder.layer_norm %x weight = %w bias = %b normalized_shape = [3, 4, 5] epsilon = 1.0e-05
       : (tensor<2x3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// Rank 2, no affine: no mul, no add.
// CHECK-LABEL: func.func @layer_norm_rank2_plain
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 1 epsilon = 9.99999974E-6 : tensor<4x6xf32> -> tensor<4x1x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] : (tensor<4x6xf32>, tensor<4x1x2xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[N]]
func.func @layer_norm_rank2_plain(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = solder.layer_norm %x normalized_shape = [6] epsilon = 1.0e-05 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// Only a bias: an add and no mul.
// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x7x5xf32>, %[[B:.*]]: tensor<7x5xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 1
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] : (tensor<2x7x5xf32>, tensor<2x1x2xf32>) -> tensor<2x7x5xf32>
// CHECK-NEXT: %[[A:.*]] = solder.add %[[N]], %[[B]] : tensor<2x7x5xf32>, tensor<7x5xf32> -> tensor<2x7x5xf32>
// CHECK-NEXT: return %[[A]]
func.func @layer_norm_bias_only(%x: tensor<2x7x5xf32>, %b: tensor<7x5xf32>) -> tensor<2x7x5xf32> {
  %0 = solder.layer_norm %x bias = %b normalized_shape = [7, 5] epsilon = 1.0e-05
       : (tensor<2x7x5xf32>, tensor<7x5xf32>) -> tensor<2x7x5xf32>
  return %0 : tensor<2x7x5xf32>
}

// Over the last dim only it is not a group norm: the mean and the variance
// of the centered values as two reductions over that dim, then the affine map.
// CHECK-LABEL: func.func @layer_norm_last_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf32>, %[[W:.*]]: tensor<5xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT: %[[EPS:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = solder.reduce mean %[[X]] dims = [2] keepdim : tensor<2x3x5xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT: %[[D:.*]] = solder.sub %[[X]], %[[M]]
// CHECK-NEXT: %[[D2:.*]] = solder.mul %[[D]], %[[D]]
// CHECK-NEXT: %[[V:.*]] = solder.reduce mean %[[D2]] dims = [2] keepdim : tensor<2x3x5xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT: %[[VE:.*]] = solder.add %[[V]], %[[EPS]]
// CHECK-NEXT: %[[R:.*]] = solder.rsqrt %[[VE]]
// CHECK-NEXT: %[[N:.*]] = solder.mul %[[D]], %[[R]]
// CHECK-NEXT: %[[NW:.*]] = solder.mul %[[N]], %[[W]]
// CHECK-NEXT: %[[NB:.*]] = solder.add %[[NW]], %[[B]]
// CHECK-NEXT: return %[[NB]]
func.func @layer_norm_last_dim(%x: tensor<2x3x5xf32>, %w: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %0 = solder.layer_norm %x weight = %w bias = %b normalized_shape = [5] epsilon = 1.0e-05
       : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @softmax_dim1
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xf32>)
// CHECK-NEXT: %[[MAX:.*]] = solder.reduce max %[[X]] dims = [1] keepdim : tensor<2x5x3xf32> -> tensor<2x1x3xf32>
// CHECK-NEXT: %[[SUB:.*]] = solder.sub %[[X]], %[[MAX]] : tensor<2x5x3xf32>, tensor<2x1x3xf32> -> tensor<2x5x3xf32>
// CHECK-NEXT: %[[EXP:.*]] = solder.exp %[[SUB]] : tensor<2x5x3xf32>
// CHECK-NEXT: %[[SUM:.*]] = solder.reduce sum %[[EXP]] dims = [1] keepdim : tensor<2x5x3xf32> -> tensor<2x1x3xf32>
// CHECK-NEXT: %[[DIV:.*]] = solder.div %[[EXP]], %[[SUM]] : tensor<2x5x3xf32>, tensor<2x1x3xf32> -> tensor<2x5x3xf32>
// CHECK-NEXT: return %[[DIV]]
func.func @softmax_dim1(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = solder.softmax %x dim = 1 : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// log_softmax keeps logsumexp as one reduction kind.
// CHECK-LABEL: func.func @log_softmax_last_dim
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x6xf32>)
// CHECK-NEXT: %[[LSE:.*]] = solder.reduce logsumexp %[[X]] dims = [2] keepdim : tensor<3x4x6xf32> -> tensor<3x4x1xf32>
// CHECK-NEXT: %[[SUB:.*]] = solder.sub %[[X]], %[[LSE]] : tensor<3x4x6xf32>, tensor<3x4x1xf32> -> tensor<3x4x6xf32>
// CHECK-NEXT: return %[[SUB]]
func.func @log_softmax_last_dim(%x: tensor<3x4x6xf32>) -> tensor<3x4x6xf32> {
  %0 = solder.log_softmax %x dim = 2 : tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}

//===----------------------------------------------------------------------===//
// In a chain: the conv output feeds both halves; the rest is untouched.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv_group_norm_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xf32>, %[[CW:.*]]: tensor<4x2x3x3xf32>, %[[CB:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.*]] = solder.conv %[[X]], %[[CW]], %[[CB]]
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[Y]] num_groups = 2
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[Y]], %[[S]] weight = %[[W]] bias = %[[B]]
// CHECK-NEXT: %[[R:.*]] = solder.relu %[[N]] : tensor<1x4x3x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv_group_norm_relu(%x: tensor<1x2x5x5xf32>, %cw: tensor<4x2x3x3xf32>, %cb: tensor<4xf32>,
                                %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  %y = solder.conv %x, %cw, %cb strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %n = solder.group_norm %y weight = %w bias = %b num_groups = 2 epsilon = 1.0e-05
       : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %r = solder.relu %n : tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// Ops decompose must not touch: conv, conv_transpose, pointwise ops,
// reductions (logsumexp included), pooling, and the internal ops themselves.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: solder.conv
// CHECK-NEXT: solder.conv_transpose
// CHECK-NEXT: solder.hardswish
// CHECK-NEXT: solder.reduce logsumexp
// CHECK-NEXT: solder.pool max
// CHECK-NEXT: solder.group_stats
// CHECK-NEXT: solder.group_normalize
// CHECK-NEXT: return
func.func @untouched(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>, %wt: tensor<2x2x3x3xf32>)
    -> (tensor<1x2x2x2xf32>, tensor<1x2x6x6xf32>, tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>) {
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  %1 = solder.conv_transpose %x, %wt strides = [1, 1] padding = [0, 0] output_padding = [0, 0]
         dilations = [1, 1] groups = 1 : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  %2 = solder.hardswish %x : tensor<1x2x4x4xf32>
  %3 = solder.reduce logsumexp %2 dims = [1] keepdim : tensor<1x2x4x4xf32> -> tensor<1x1x4x4xf32>
  %4 = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  %5 = solder.group_stats %x num_groups = 1 epsilon = 1.0e-05 : tensor<1x2x4x4xf32> -> tensor<1x1x2xf32>
  %6 = solder.group_normalize %x, %5 : (tensor<1x2x4x4xf32>, tensor<1x1x2xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1, %3, %4, %6 : tensor<1x2x2x2xf32>, tensor<1x2x6x6xf32>, tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32>
}
