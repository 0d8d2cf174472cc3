// --solder-pipeline (decompose, simplify, cse, form-fusions, plan) end to end
// on small versions of W1/W2/W3, and on the seed workloads of examples/.

// RUN: solder-opt %s --solder-pipeline=force=materialize | FileCheck %s
// RUN: solder-opt %s --solder-pipeline=force=recompute | FileCheck %s --check-prefix=RECOMPUTE
// RUN: solder-opt %s --solder-pipeline | FileCheck %s --check-prefix=AUTO
// The pipeline's report option reaches solder-plan.
// RUN: solder-opt %s --solder-pipeline="report=true" -o /dev/null | FileCheck %s --check-prefix=REPORT
// The pipeline's force option is validated by solder-plan.
// RUN: not solder-opt %s --solder-pipeline=force=banana -o /dev/null 2>&1 | FileCheck %s --check-prefix=BANANA
// BANANA: error: solder-plan: force must be auto, materialize or recompute, got 'banana'
// A declaration beside the functions goes through every pass untouched.
// RUN: solder-opt %s --solder-pipeline | FileCheck %s --check-prefix=DECLARATION
// DECLARATION: func.func private @declared(tensor<2x3xf32>) -> tensor<2x3xf32>
func.func private @declared(%x: tensor<2x3xf32>) -> tensor<2x3xf32>

// The seed workloads (full size): two kernels each, never the group_norm.
// RUN: solder-opt %solder_src/examples/w1_conv3d_groupnorm_mean.mlir --solder-pipeline | FileCheck %s --check-prefix=EX1
// RUN: solder-opt %solder_src/examples/w2_convtranspose3d_relu_groupnorm.mlir --solder-pipeline | FileCheck %s --check-prefix=EX2
// RUN: solder-opt %solder_src/examples/w2_small_convtranspose3d_relu_groupnorm.mlir --solder-pipeline | FileCheck %s --check-prefix=EX2S
// RUN: solder-opt %solder_src/examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir --solder-pipeline | FileCheck %s --check-prefix=EX3

// Numerical proof of the whole pipeline, every decision (pipelines spelled
// without the builtin.module anchor: see interp-check-pipeline.mlir).
// RUN: solder-interp %s --function=w1 --check-pipeline='solder-pipeline' --seed=1 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w1 --check-pipeline='solder-pipeline{force=recompute}' --seed=2 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2 --check-pipeline='solder-pipeline' --seed=3 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2 --check-pipeline='solder-pipeline{force=recompute}' --seed=4 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2 --check-pipeline='solder-pipeline{force=materialize}' --seed=5 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3 --check-pipeline='solder-pipeline' --seed=6 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3 --check-pipeline='solder-pipeline{force=recompute}' --seed=7 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3 --check-pipeline='solder-pipeline{force=materialize}' --seed=8 | FileCheck %s --check-prefix=NUM
// Large-mean statistics through the whole group_norm chains.
// RUN: solder-interp %s --function=w1 --check-pipeline='solder-pipeline' --seed=9 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2 --check-pipeline='solder-pipeline' --seed=10 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3 --check-pipeline='solder-pipeline{force=recompute}' --seed=11 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3 --check-pipeline='solder-pipeline{force=materialize}' --seed=12 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

// No user-level normalization and no hardswish survive the pipeline.
// CHECK-NOT: solder.group_norm{{ }}
// CHECK-NOT: solder.hardswish

// W1: conv + statistics + per-channel means, then the normalize of the
// means and the final mean; the conv output is never a result.
// CHECK-LABEL: func.func @w1(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "w1_k0_conv" {{.*}} -> (tensor<2x4x2xf32>, tensor<2x8x1x1x1xf32>) attributes {solder.estimate = #solder.estimate<conv, {{.*}}
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.group_stats
// CHECK-NEXT:   solder.reduce mean {{.*}} dims = [2, 3, 4] keepdim
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "w1_k1_pointwise" ({{.*}} = %[[K0]]#1, {{.*}} = %[[K0]]#0, {{.*}}) {{.*}} -> tensor<2xf32> attributes {solder.estimate = #solder.estimate<reduction, {{.*}}>, solder.schedule = #solder.region_launch<block_per_output, chunk = 1, vector = 1, threads = 256, grid = [2, 1, 1]>}
// CHECK-NEXT:   solder.group_normalize {{.*}} -> tensor<2x8x1x1x1xf32>
// CHECK-NEXT:   solder.reduce mean {{.*}} dims = [1, 2, 3, 4] : tensor<2x8x1x1x1xf32> -> tensor<2xf32>
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]]
// Nothing to recompute in W1 (only reductions cross the boundary).
// RECOMPUTE-LABEL: func.func @w1(
// RECOMPUTE-NEXT: solder.fusion "w1_k0_conv" {{.*}} -> (tensor<2x4x2xf32>, tensor<2x8x1x1x1xf32>)
// RECOMPUTE: solder.fusion "w1_k1_pointwise"
// RECOMPUTE-NOT: solder.conv
// RECOMPUTE: return
func.func @w1(%x: tensor<2x3x6x6x6xf32>, %cw: tensor<8x3x3x3x3xf32>, %cb: tensor<8xf32>,
              %nw: tensor<8xf32>, %nb: tensor<8xf32>) -> tensor<2xf32> {
  %y = solder.conv %x, %cw, %cb strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<2x3x6x6x6xf32>, tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x4x4x4xf32>
  %n = solder.group_norm %y weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x4x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4x4xf32>
  %out = solder.reduce mean %n dims = [1, 2, 3, 4] : tensor<2x8x4x4x4xf32> -> tensor<2xf32>
  return %out : tensor<2xf32>
}

// W2 (materialize): conv_transpose + relu + stats, then the normalize.
// CHECK-LABEL: func.func @w2(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "w2_k0_conv" {{.*}} -> (tensor<2x8x5x5x5xf32>, tensor<2x4x2xf32>) attributes {solder.estimate = #solder.estimate<conv_transpose, {{.*}}
// CHECK-NEXT:   solder.conv_transpose
// CHECK-NEXT:   solder.relu
// CHECK-NEXT:   solder.group_stats
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "w2_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}}) {{.*}} #solder.region_launch<elementwise, chunk = 2, vector = 4, {{.*}}
// CHECK-NEXT:   solder.group_normalize
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]]
// W2 (recompute): the consumer re-runs conv_transpose and relu from x and w.
// RECOMPUTE-LABEL: func.func @w2(
// RECOMPUTE-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x3x3x3xf32>, %[[CW:[a-z0-9]+]]: tensor<4x8x3x3x3xf32>
// RECOMPUTE-NEXT: %[[K0:.*]] = solder.fusion "w2_k0_conv" {{.*}} -> tensor<2x4x2xf32>
// RECOMPUTE: %[[K1:.*]] = solder.fusion "w2_k1_pointwise" ({{.*}} = %[[K0]], {{.*}}, {{.*}} = %[[X]], {{.*}} = %[[CW]])
// RECOMPUTE-NEXT: solder.conv_transpose
// RECOMPUTE-NEXT: solder.relu
// RECOMPUTE-NEXT: solder.group_normalize
// RECOMPUTE-NEXT: solder.yield
func.func @w2(%x: tensor<2x4x3x3x3xf32>, %cw: tensor<4x8x3x3x3xf32>, %nw: tensor<8xf32>,
              %nb: tensor<8xf32>) -> tensor<2x8x5x5x5xf32> {
  %y = solder.conv_transpose %x, %cw strides = [1, 1, 1] padding = [0, 0, 0] output_padding = [0, 0, 0]
         dilations = [1, 1, 1] groups = 1
       : (tensor<2x4x3x3x3xf32>, tensor<4x8x3x3x3xf32>) -> tensor<2x8x5x5x5xf32>
  %r = solder.relu %y : tensor<2x8x5x5x5xf32>
  %out = solder.group_norm %r weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x5x5x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x5x5x5xf32>
  return %out : tensor<2x8x5x5x5xf32>
}

// W3 (materialize): conv + stats, then everything else in one reduction kernel.
// CHECK-LABEL: func.func @w3(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "w3_k0_conv" {{.*}} -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>) attributes {solder.estimate = #solder.estimate<conv, {{.*}}
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.group_stats
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "w3_k1_pointwise" (%[[Y:.*]] = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}}) {{.*}} -> tensor<2x1x6x6xf32> attributes {solder.estimate = #solder.estimate<reduction, {{.*}}>, solder.schedule = #solder.region_launch<block_per_output, chunk = 1, vector = 1, threads = 256, grid = [72, 1, 1]>}
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   solder.group_normalize %[[Y]],
// CHECK-NEXT:   solder.tanh
// CHECK-NEXT:   solder.add
// CHECK-NEXT:   solder.mul
// CHECK-NEXT:   solder.div
// CHECK-NEXT:   solder.add %[[Y]],
// CHECK-NEXT:   solder.reduce logsumexp
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]]
// W3 (recompute forced): impossible, the tail's logsumexp reduces across
// channels, which a conv epilogue cannot: the same two kernels as materialize.
// RECOMPUTE-LABEL: func.func @w3(
// RECOMPUTE-NEXT: %[[K0:.*]]:2 = solder.fusion "w3_k0_conv" {{.*}} -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>)
// RECOMPUTE: solder.fusion "w3_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}})
// RECOMPUTE-NOT: solder.conv
// RECOMPUTE: solder.reduce logsumexp
// AUTO-LABEL: func.func @w3(
// AUTO-NEXT: %[[K0:.*]]:2 = solder.fusion "w3_k0_conv" {{.*}} -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>)
// AUTO: solder.fusion "w3_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}})
// AUTO-NOT: solder.conv
// AUTO: return
func.func @w3(%x: tensor<2x3x8x8xf32>, %cw: tensor<8x3x3x3xf32>, %cb: tensor<8xf32>,
              %nw: tensor<8xf32>, %nb: tensor<8xf32>) -> tensor<2x1x6x6xf32> {
  %y = solder.conv %x, %cw, %cb strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %n = solder.group_norm %y weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %t = solder.tanh %n : tensor<2x8x6x6xf32>
  %z = solder.hardswish %t : tensor<2x8x6x6xf32>
  %s = solder.add %y, %z : tensor<2x8x6x6xf32>
  %out = solder.reduce logsumexp %s dims = [1] keepdim : tensor<2x8x6x6xf32> -> tensor<2x1x6x6xf32>
  return %out : tensor<2x1x6x6xf32>
}

// REPORT: Solder plan for @w1 (sm_90, precision ieee; roofline: 4200 GB/s, 51.0 TFLOP/s fp32, conv main loops at their measured rates)
// REPORT: total: 2 kernels
// REPORT: Solder plan for @w2
// REPORT: total: 2 kernels
// REPORT: shared w2_k0_conv#0 tensor<2x8x5x5x5xf32>
// REPORT: Solder plan for @w3
// REPORT: total: 2 kernels
// REPORT: shared w3_k0_conv#0 tensor<2x8x6x6xf32> {{.*}}: materialize (recompute impossible:

// EX1-LABEL: func.func @w1(
// EX1-NEXT: solder.fusion "w1_k0_conv" {{.*}} -> (tensor<128x8x2xf32>, tensor<128x24x1x1x1xf32>) attributes {solder.estimate = #solder.estimate<conv, {{.*}}
// EX1: solder.fusion "w1_k1_pointwise" {{.*}} -> tensor<128xf32> attributes {solder.estimate = #solder.estimate<reduction, {{.*}}
// EX1-NOT: solder.fusion
// EX1-NOT: solder.group_norm{{ }}
// EX2-LABEL: func.func @w2(
// EX2-NEXT: solder.fusion "w2_k0_conv" {{.*}} -> (tensor<16x128x34x34x34xf32>, tensor<16x8x2xf32>) attributes {solder.estimate = #solder.estimate<conv_transpose, {{.*}}
// EX2: solder.fusion "w2_k1_pointwise" {{.*}}#solder.estimate<pointwise, {{.*}}
// EX2-NOT: solder.fusion
// EX2S-LABEL: func.func @w2_small(
// EX2S-NEXT: solder.fusion "w2_small_k0_conv" {{.*}} -> (tensor<16x128x10x18x18xf32>, tensor<16x8x2xf32>) attributes {solder.estimate = #solder.estimate<conv_transpose, {{.*}}
// EX2S: solder.fusion "w2_small_k1_pointwise" {{.*}}#solder.estimate<pointwise, {{.*}}
// EX2S-NOT: solder.fusion
// EX3-LABEL: func.func @w3(
// EX3-NEXT: solder.fusion "w3_k0_conv" {{.*}} -> (tensor<128x64x126x126xf32>, tensor<128x16x2xf32>) attributes {solder.estimate = #solder.estimate<conv, {{.*}}
// EX3: solder.fusion "w3_k1_pointwise" {{.*}}#solder.estimate<reduction, {{.*}}
// EX3-NOT: solder.conv
// EX3-NOT: solder.fusion
