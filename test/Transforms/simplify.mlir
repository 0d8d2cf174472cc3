// RUN: solder-opt %s --solder-simplify | FileCheck %s

// Numerical proof, one RUN per function (pipeline spelled without the
// builtin.module anchor: see interp-check-pipeline.mlir).
// RUN: solder-interp %s --function=mean_through_normalize --check-pipeline='func.func(solder-simplify)' --seed=1 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=sum_through_normalize --check-pipeline='func.func(solder-simplify)' --seed=2 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=sum_size1_spatial_keepdim --check-pipeline='func.func(solder-simplify)' --seed=3 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=mean_batch_and_one_spatial --check-pipeline='func.func(solder-simplify)' --seed=4 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=no_rewrite_max --check-pipeline='func.func(solder-simplify)' --seed=5 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=no_rewrite_second_use --check-pipeline='func.func(solder-simplify)' --seed=6 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=no_rewrite_no_spatial_dim --check-pipeline='func.func(solder-simplify)' --seed=7 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=no_rewrite_not_normalize --check-pipeline='func.func(solder-simplify)' --seed=8 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=bounded_clamps --check-pipeline='func.func(solder-simplify)' --seed=9 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=bounded_clamps --check-pipeline='func.func(solder-simplify)' --seed=10 --input-low=-8 --input-high=8 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=unbounded_clamps --check-pipeline='func.func(solder-simplify)' --seed=11 --input-low=-8 --input-high=8 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=folds --check-pipeline='func.func(solder-simplify)' --seed=12 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=no_folds --check-pipeline='func.func(solder-simplify)' --seed=13 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=reshape_folds --check-pipeline='func.func(solder-simplify)' --seed=21 | FileCheck %s --check-prefix=NUM
// Large-mean statistics through the mean rewrite.
// RUN: solder-interp %s --function=mean_through_normalize --check-pipeline='func.func(solder-simplify)' --seed=14 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=sum_through_normalize --check-pipeline='func.func(solder-simplify)' --seed=15 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

//===----------------------------------------------------------------------===//
// Reductions through group_normalize
//===----------------------------------------------------------------------===//

// W1's tail: mean over channels and space of a group norm. The normalize now
// runs on the per-channel spatial means; the outer reduce keeps its dims.
// CHECK-LABEL: func.func @mean_through_normalize
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]] num_groups = 2 {{.*}} -> tensor<2x2x2xf32>
// CHECK-NEXT: %[[C:.*]] = solder.reduce mean %[[X]] dims = [2, 3] keepdim : tensor<2x4x3x3xf32> -> tensor<2x4x1x1xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[C]], %[[S]] weight = %[[W]] bias = %[[B]] : (tensor<2x4x1x1xf32>, tensor<2x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x1x1xf32>
// CHECK-NEXT: %[[M:.*]] = solder.reduce mean %[[N]] dims = [1, 2, 3] : tensor<2x4x1x1xf32> -> tensor<2xf32>
// CHECK-NEXT: return %[[M]]
func.func @mean_through_normalize(%x: tensor<2x4x3x3xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2xf32> {
  %s = solder.group_stats %x num_groups = 2 epsilon = 1.0e-05 : tensor<2x4x3x3xf32> -> tensor<2x2x2xf32>
  %n = solder.group_normalize %x, %s weight = %w bias = %b
       : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %m = solder.reduce mean %n dims = [1, 2, 3] : tensor<2x4x3x3xf32> -> tensor<2xf32>
  return %m : tensor<2xf32>
}

// sum: the same, times the number of spatial elements reduced (3 * 5 = 15).
// CHECK-LABEL: func.func @sum_through_normalize
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x5xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[K:.*]] = arith.constant dense<1.500000e+01> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = solder.group_stats %[[X]]
// CHECK-NEXT: %[[C:.*]] = solder.reduce mean %[[X]] dims = [2, 3] keepdim : tensor<2x4x3x5xf32> -> tensor<2x4x1x1xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[C]], %[[S]] weight = %[[W]] bias = %[[B]] : (tensor<2x4x1x1xf32>, tensor<2x4x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x1x1xf32>
// CHECK-NEXT: %[[R:.*]] = solder.reduce sum %[[N]] dims = [2, 3] : tensor<2x4x1x1xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[P:.*]] = solder.mul %[[R]], %[[K]] : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[P]]
func.func @sum_through_normalize(%x: tensor<2x4x3x5xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %s = solder.group_stats %x num_groups = 4 epsilon = 1.0e-05 : tensor<2x4x3x5xf32> -> tensor<2x4x2xf32>
  %n = solder.group_normalize %x, %s weight = %w bias = %b
       : (tensor<2x4x3x5xf32>, tensor<2x4x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x5xf32>
  %r = solder.reduce sum %n dims = [2, 3] : tensor<2x4x3x5xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// A reduced spatial dim of size 1 is not counted (count 5, inner mean over
// dim 3 only); channel dim reduced too; keepdim kept; batch statistics.
// CHECK-LABEL: func.func @sum_size1_spatial_keepdim
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x1x5xf32>, %[[S:.*]]: tensor<1x2x2xf32>)
// CHECK-NEXT: %[[K:.*]] = arith.constant dense<5.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[C:.*]] = solder.reduce mean %[[X]] dims = [3] keepdim : tensor<2x4x1x5xf32> -> tensor<2x4x1x1xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[C]], %[[S]] : (tensor<2x4x1x1xf32>, tensor<1x2x2xf32>) -> tensor<2x4x1x1xf32>
// CHECK-NEXT: %[[R:.*]] = solder.reduce sum %[[N]] dims = [1, 2, 3] keepdim : tensor<2x4x1x1xf32> -> tensor<2x1x1x1xf32>
// CHECK-NEXT: %[[P:.*]] = solder.mul %[[R]], %[[K]] : tensor<2x1x1x1xf32>, tensor<f32> -> tensor<2x1x1x1xf32>
// CHECK-NEXT: return %[[P]]
func.func @sum_size1_spatial_keepdim(%x: tensor<2x4x1x5xf32>, %s: tensor<1x2x2xf32>) -> tensor<2x1x1x1xf32> {
  %n = solder.group_normalize %x, %s : (tensor<2x4x1x5xf32>, tensor<1x2x2xf32>) -> tensor<2x4x1x5xf32>
  %r = solder.reduce sum %n dims = [1, 2, 3] keepdim : tensor<2x4x1x5xf32> -> tensor<2x1x1x1xf32>
  return %r : tensor<2x1x1x1xf32>
}

// Batch and one spatial dim: only dim 2 goes into the inner mean.
// CHECK-LABEL: func.func @mean_batch_and_one_spatial
// CHECK-SAME: (%[[X:.*]]: tensor<3x2x4x2xf32>, %[[S:.*]]: tensor<3x1x2xf32>)
// CHECK-NEXT: %[[C:.*]] = solder.reduce mean %[[X]] dims = [2] keepdim : tensor<3x2x4x2xf32> -> tensor<3x2x1x2xf32>
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[C]], %[[S]] : (tensor<3x2x1x2xf32>, tensor<3x1x2xf32>) -> tensor<3x2x1x2xf32>
// CHECK-NEXT: %[[R:.*]] = solder.reduce mean %[[N]] dims = [0, 2] : tensor<3x2x1x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @mean_batch_and_one_spatial(%x: tensor<3x2x4x2xf32>, %s: tensor<3x1x2xf32>) -> tensor<2x2xf32> {
  %n = solder.group_normalize %x, %s : (tensor<3x2x4x2xf32>, tensor<3x1x2xf32>) -> tensor<3x2x4x2xf32>
  %r = solder.reduce mean %n dims = [0, 2] : tensor<3x2x4x2xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// Negative: max is not linear.
// CHECK-LABEL: func.func @no_rewrite_max
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[S:.*]]: tensor<2x2x2xf32>)
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT: %[[R:.*]] = solder.reduce max %[[N]] dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @no_rewrite_max(%x: tensor<2x4x3x3xf32>, %s: tensor<2x2x2xf32>) -> tensor<2x4xf32> {
  %n = solder.group_normalize %x, %s : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x3x3xf32>
  %r = solder.reduce max %n dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// Negative: the normalized tensor is also returned, nothing would be saved.
// CHECK-LABEL: func.func @no_rewrite_second_use
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[S:.*]]: tensor<2x2x2xf32>)
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]] : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT: %[[R:.*]] = solder.reduce mean %[[N]] dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]], %[[N]]
func.func @no_rewrite_second_use(%x: tensor<2x4x3x3xf32>, %s: tensor<2x2x2xf32>) -> (tensor<2x4xf32>, tensor<2x4x3x3xf32>) {
  %n = solder.group_normalize %x, %s : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x3x3xf32>
  %r = solder.reduce mean %n dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
  return %r, %n : tensor<2x4xf32>, tensor<2x4x3x3xf32>
}

// Negative: over the channel dim and a size-1 spatial dim only.
// CHECK-LABEL: func.func @no_rewrite_no_spatial_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x1x3xf32>, %[[S:.*]]: tensor<2x2x2xf32>)
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]]
// CHECK-NEXT: %[[R:.*]] = solder.reduce sum %[[N]] dims = [1, 2] : tensor<2x4x1x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @no_rewrite_no_spatial_dim(%x: tensor<2x4x1x3xf32>, %s: tensor<2x2x2xf32>) -> tensor<2x3xf32> {
  %n = solder.group_normalize %x, %s : (tensor<2x4x1x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x1x3xf32>
  %r = solder.reduce sum %n dims = [1, 2] : tensor<2x4x1x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Negative: the reduce input is not a group_normalize (relu is not affine).
// CHECK-LABEL: func.func @no_rewrite_not_normalize
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[S:.*]]: tensor<2x2x2xf32>)
// CHECK-NEXT: %[[N:.*]] = solder.group_normalize %[[X]], %[[S]]
// CHECK-NEXT: %[[T:.*]] = solder.relu %[[N]]
// CHECK-NEXT: %[[R:.*]] = solder.reduce mean %[[T]] dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @no_rewrite_not_normalize(%x: tensor<2x4x3x3xf32>, %s: tensor<2x2x2xf32>) -> tensor<2x4xf32> {
  %n = solder.group_normalize %x, %s : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>) -> tensor<2x4x3x3xf32>
  %t = solder.relu %n : tensor<2x4x3x3xf32>
  %r = solder.reduce mean %t dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Bounded inputs drop clamps
//===----------------------------------------------------------------------===//

// hardswish(z) -> z * (z + 3) / 6 after tanh, sigmoid, hardtanh(-2, 2),
// clamp(-3, 3) (bounds inclusive) and hardsigmoid; hardsigmoid(z) -> (z + 3) / 6
// after tanh.
// CHECK-LABEL: func.func @bounded_clamps
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[SIX:.*]] = arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK-DAG: %[[THREE:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NOT: solder.hardswish
// CHECK-NOT: solder.hardsigmoid
// CHECK:      %[[T:.*]] = solder.tanh %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[T3:.*]] = solder.add %[[T]], %[[THREE]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[TM:.*]] = solder.mul %[[T]], %[[T3]] : tensor<2x3xf32>
// CHECK-NEXT: %[[R0:.*]] = solder.div %[[TM]], %[[SIX]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[S:.*]] = solder.sigmoid %[[X]]
// CHECK-NEXT: %[[S3:.*]] = solder.add %[[S]], %[[THREE]]
// CHECK-NEXT: %[[SM:.*]] = solder.mul %[[S]], %[[S3]]
// CHECK-NEXT: %[[R1:.*]] = solder.div %[[SM]], %[[SIX]]
// CHECK-NEXT: %[[H:.*]] = solder.hardtanh %[[X]] {max = 2.000000e+00 : f32, min = -2.000000e+00 : f32}
// CHECK-NEXT: %[[H3:.*]] = solder.add %[[H]], %[[THREE]]
// CHECK-NEXT: %[[HM:.*]] = solder.mul %[[H]], %[[H3]]
// CHECK-NEXT: %[[R2:.*]] = solder.div %[[HM]], %[[SIX]]
// CHECK-NEXT: %[[C:.*]] = solder.clamp %[[X]] {max = 3.000000e+00 : f32, min = -3.000000e+00 : f32}
// CHECK-NEXT: %[[C3:.*]] = solder.add %[[C]], %[[THREE]]
// CHECK-NEXT: %[[CM:.*]] = solder.mul %[[C]], %[[C3]]
// CHECK-NEXT: %[[R3:.*]] = solder.div %[[CM]], %[[SIX]]
// CHECK-NEXT: %[[G3:.*]] = solder.add %[[T]], %[[THREE]]
// CHECK-NEXT: %[[R4:.*]] = solder.div %[[G3]], %[[SIX]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[HS:.*]] = solder.hardsigmoid %[[X]]
// CHECK-NEXT: %[[HS3:.*]] = solder.add %[[HS]], %[[THREE]]
// CHECK-NEXT: %[[HSM:.*]] = solder.mul %[[HS]], %[[HS3]]
// CHECK-NEXT: %[[R5:.*]] = solder.div %[[HSM]], %[[SIX]]
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]]
func.func @bounded_clamps(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %t = solder.tanh %x : tensor<2x3xf32>
  %0 = solder.hardswish %t : tensor<2x3xf32>
  %s = solder.sigmoid %x : tensor<2x3xf32>
  %1 = solder.hardswish %s : tensor<2x3xf32>
  %h = solder.hardtanh %x {min = -2.0 : f32, max = 2.0 : f32} : tensor<2x3xf32>
  %2 = solder.hardswish %h : tensor<2x3xf32>
  %c = solder.clamp %x {min = -3.0 : f32, max = 3.0 : f32} : tensor<2x3xf32>
  %3 = solder.hardswish %c : tensor<2x3xf32>
  %4 = solder.hardsigmoid %t : tensor<2x3xf32>
  %hs = solder.hardsigmoid %x : tensor<2x3xf32>
  %5 = solder.hardswish %hs : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Negative: hardtanh(-4, 4) reaches past -3 and 3; relu is unbounded above;
// an argument is unbounded; clamp with one bound is unbounded.
// CHECK-LABEL: func.func @unbounded_clamps
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[H:.*]] = solder.hardtanh %[[X]] {max = 4.000000e+00 : f32, min = -4.000000e+00 : f32}
// CHECK-NEXT: %[[R0:.*]] = solder.hardswish %[[H]] : tensor<2x3xf32>
// CHECK-NEXT: %[[RL:.*]] = solder.relu %[[X]]
// CHECK-NEXT: %[[R1:.*]] = solder.hardswish %[[RL]] : tensor<2x3xf32>
// CHECK-NEXT: %[[R2:.*]] = solder.hardswish %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[C:.*]] = solder.clamp %[[X]] {min = -3.000000e+00 : f32}
// CHECK-NEXT: %[[R3:.*]] = solder.hardsigmoid %[[C]] : tensor<2x3xf32>
// CHECK-NEXT: %[[R4:.*]] = solder.hardsigmoid %[[RL]] : tensor<2x3xf32>
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]]
func.func @unbounded_clamps(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %h = solder.hardtanh %x {min = -4.0 : f32, max = 4.0 : f32} : tensor<2x3xf32>
  %0 = solder.hardswish %h : tensor<2x3xf32>
  %r = solder.relu %x : tensor<2x3xf32>
  %1 = solder.hardswish %r : tensor<2x3xf32>
  %2 = solder.hardswish %x : tensor<2x3xf32>
  %c = solder.clamp %x {min = -3.0 : f32} : tensor<2x3xf32>
  %3 = solder.hardsigmoid %c : tensor<2x3xf32>
  %4 = solder.hardsigmoid %r : tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

// Every op folds away; only the innermost relu/abs/the argument remain. The
// constants are of x's type, a rank-0 scalar, or a broadcastable (3) row:
// none of them makes the result larger than x.
// CHECK-LABEL: func.func @folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[R:.*]] = solder.relu %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: %[[A:.*]] = solder.abs %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: return %[[R]], %[[X]], %[[A]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @folds(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %zero_row = arith.constant dense<0.0> : tensor<3xf32>
  %one = arith.constant dense<1.0> : tensor<2x3xf32>
  %one_scalar = arith.constant dense<1.0> : tensor<f32>
  %r = solder.relu %x : tensor<2x3xf32>
  %rr = solder.relu %r : tensor<2x3xf32>
  %n = solder.neg %x : tensor<2x3xf32>
  %nn = solder.neg %n : tensor<2x3xf32>
  %a = solder.abs %x : tensor<2x3xf32>
  %aa = solder.abs %a : tensor<2x3xf32>
  %add_r = solder.add %x, %zero : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %add_l = solder.add %zero_row, %x : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %sub = solder.sub %x, %zero_row : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %mul_r = solder.mul %x, %one : tensor<2x3xf32>
  %mul_l = solder.mul %one_scalar, %x : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %div = solder.div %x, %one_scalar : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  // A chain: ((x * 1) + 0) / 1 folds all the way to x.
  %c0 = solder.mul %x, %one_scalar : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %c1 = solder.add %c0, %zero : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %c2 = solder.div %c1, %one : tensor<2x3xf32>
  return %rr, %nn, %aa, %add_r, %add_l, %sub, %mul_r, %mul_l, %div, %c2
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// A reshape to its own type is its input; a reshape of a reshape reads the
// first input.
// CHECK-LABEL: func.func @reshape_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = solder.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[X]], %[[R]]
func.func @reshape_folds(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x6xf32>) {
  %same = solder.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %flat = solder.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %back = solder.reshape %flat : tensor<24xf32> -> tensor<4x6xf32>
  return %same, %back : tensor<2x3x4xf32>, tensor<4x6xf32>
}

// Negative: the identity constant broadcasts x to a larger shape (each side),
// the constant is not 0 / 1, or the identity is on the wrong side of sub/div.
// CHECK-LABEL: func.func @no_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x2x3xf32>
// CHECK-DAG: %[[O:.*]] = arith.constant dense<1.000000e+00> : tensor<4x2x3xf32>
// CHECK-DAG: %[[ZS:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[OS:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NS:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK:      %[[A0:.*]] = solder.add %[[X]], %[[Z]] : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[A1:.*]] = solder.add %[[Z]], %[[X]] : tensor<4x2x3xf32>, tensor<2x3xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[S0:.*]] = solder.sub %[[X]], %[[Z]] : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[M0:.*]] = solder.mul %[[X]], %[[O]] : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[M1:.*]] = solder.mul %[[O]], %[[X]] : tensor<4x2x3xf32>, tensor<2x3xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[D0:.*]] = solder.div %[[X]], %[[O]] : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[A2:.*]] = solder.add %[[X]], %[[OS]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[M2:.*]] = solder.mul %[[X]], %[[TWO]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[M3:.*]] = solder.mul %[[X]], %[[ZS]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[D1:.*]] = solder.div %[[X]], %[[TWO]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[S1:.*]] = solder.sub %[[ZS]], %[[X]] : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[D2:.*]] = solder.div %[[OS]], %[[X]] : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[A3:.*]] = solder.add %[[X]], %[[NS]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[N:.*]] = solder.neg %[[X]]
// CHECK-NEXT: %[[AN:.*]] = solder.abs %[[N]]
// CHECK-NEXT: %[[RN:.*]] = solder.relu %[[N]]
// CHECK-NEXT: %[[NR:.*]] = solder.neg %[[RN]]
// CHECK-NEXT: return %[[A0]], %[[A1]], %[[S0]], %[[M0]], %[[M1]], %[[D0]], %[[A2]], %[[M2]], %[[M3]], %[[D1]], %[[S1]], %[[D2]], %[[A3]], %[[AN]], %[[NR]]
func.func @no_folds(%x: tensor<2x3xf32>)
    -> (tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>,
        tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4x2x3xf32>
  %one = arith.constant dense<1.0> : tensor<4x2x3xf32>
  %zero_scalar = arith.constant dense<0.0> : tensor<f32>
  %one_scalar = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %not_splat = arith.constant dense<[0.0, 1.0, 0.0]> : tensor<3xf32>
  %0 = solder.add %x, %zero : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  %1 = solder.add %zero, %x : tensor<4x2x3xf32>, tensor<2x3xf32> -> tensor<4x2x3xf32>
  %2 = solder.sub %x, %zero : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  %3 = solder.mul %x, %one : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  %4 = solder.mul %one, %x : tensor<4x2x3xf32>, tensor<2x3xf32> -> tensor<4x2x3xf32>
  %5 = solder.div %x, %one : tensor<2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  %6 = solder.add %x, %one_scalar : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %7 = solder.mul %x, %two : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %8 = solder.mul %x, %zero_scalar : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %9 = solder.div %x, %two : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %10 = solder.sub %zero_scalar, %x : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %11 = solder.div %one_scalar, %x : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %12 = solder.add %x, %not_splat : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // Mixed unary pairs are not idempotent.
  %n = solder.neg %x : tensor<2x3xf32>
  %13 = solder.abs %n : tensor<2x3xf32>
  %rn = solder.relu %n : tensor<2x3xf32>
  %14 = solder.neg %rn : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14
      : tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>,
        tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
