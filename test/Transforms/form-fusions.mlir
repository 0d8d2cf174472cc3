// Region structure after decompose + simplify + cse + form-fusions.
// RUN: solder-opt %s --solder-decompose --solder-simplify --cse --solder-form-fusions | FileCheck %s
// No decomposable or fusible op is left outside a fusion, but the opaque ones are.
// RUN: solder-opt %s --solder-decompose --solder-simplify --cse --solder-form-fusions | FileCheck %s --check-prefix=OUTSIDE --strict-whitespace

// The DOT graph, on one function (dot-file is written once per function; see
// form-fusions-dot-several-functions.mlir).
// RUN: sed -n '/^func.func @w3(/,/^}/p' %s > %t.w3.mlir
// RUN: solder-opt %t.w3.mlir --solder-decompose --solder-simplify --cse --solder-form-fusions="dot-file=%t.dot" -o /dev/null
// RUN: FileCheck %s --check-prefix=DOT < %t.dot

// Numerical proof of every case, one RUN per function (pipeline spelled
// without the builtin.module anchor: see interp-check-pipeline.mlir).
// RUN: solder-interp %s --function=w1 --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=1 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2 --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=2 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3 --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=3 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=norm_relu_sum --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=4 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=two_consumers --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=5 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=multi_reduction --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=6 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=cross_channel_reductions --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=13 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=softmax_barrier --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=8 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=no_cycle --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=9 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=prologue_shared_input --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=10 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=pool_between_convs --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=14 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=squeeze_excitation_rows --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=15 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=rows_after_reduction --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=17 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=rows_past_shared_memory --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=16 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=sibling_reductions_of_a_pool --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=18 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=reshape_between --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=19 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=reduce_apply_rows --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=20 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=reduce_apply_row_pool --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=21 | FileCheck %s --check-prefix=NUM
// form-fusions alone (no cse, nothing decomposed) on the same chains.
// RUN: solder-interp %s --function=w3 --check-pipeline='func.func(solder-decompose,solder-form-fusions)' --seed=11 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=softmax_barrier --check-pipeline='func.func(solder-decompose,solder-form-fusions)' --seed=12 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

// OUTSIDE-NOT: solder.group_norm{{ }}
// OUTSIDE-NOT: solder.softmax
// OUTSIDE-NOT: {{^    %.* = solder\.(conv|relu|tanh|exp|add|sub|mul|div|reduce|group_stats|group_normalize) }}

//===----------------------------------------------------------------------===//
// W1: Conv3d -> GroupNorm -> mean. The conv region yields only the (N, G, 2)
// statistics and the (N, C, 1, 1, 1) means, never the conv output.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @w1(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x6x6x6xf32>, %[[CW:[a-z0-9]+]]: tensor<8x3x3x3x3xf32>, %[[CB:[a-z0-9]+]]: tensor<8xf32>, %[[NW:[a-z0-9]+]]: tensor<8xf32>, %[[NB:[a-z0-9]+]]: tensor<8xf32>)
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "w1_k0_conv" (%[[A0:.*]] = %[[X]], %[[A1:.*]] = %[[CW]], %[[A2:.*]] = %[[CB]]) : (tensor<2x3x6x6x6xf32>, tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> (tensor<2x4x2xf32>, tensor<2x8x1x1x1xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv %[[A0]], %[[A1]], %[[A2]] {{.*}} -> tensor<2x8x4x4x4xf32>
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]] num_groups = 4 {{.*}} : tensor<2x8x4x4x4xf32> -> tensor<2x4x2xf32>
// CHECK-NEXT:   %[[M:.*]] = solder.reduce mean %[[Y]] dims = [2, 3, 4] keepdim : tensor<2x8x4x4x4xf32> -> tensor<2x8x1x1x1xf32>
// CHECK-NEXT:   solder.yield %[[S]], %[[M]] : tensor<2x4x2xf32>, tensor<2x8x1x1x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "w1_k1_pointwise" (%[[B0:.*]] = %[[K0]]#1, %[[B1:.*]] = %[[K0]]#0, %[[B2:.*]] = %[[NW]], %[[B3:.*]] = %[[NB]]) : (tensor<2x8x1x1x1xf32>, tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2xf32> {
// CHECK-NEXT:   %[[N:.*]] = solder.group_normalize %[[B0]], %[[B1]] weight = %[[B2]] bias = %[[B3]] : {{.*}} -> tensor<2x8x1x1x1xf32>
// CHECK-NEXT:   %[[R:.*]] = solder.reduce mean %[[N]] dims = [1, 2, 3, 4] : tensor<2x8x1x1x1xf32> -> tensor<2xf32>
// CHECK-NEXT:   solder.yield %[[R]] : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]] : tensor<2xf32>
func.func @w1(%x: tensor<2x3x6x6x6xf32>, %cw: tensor<8x3x3x3x3xf32>, %cb: tensor<8xf32>,
              %nw: tensor<8xf32>, %nb: tensor<8xf32>) -> tensor<2xf32> {
  %y = solder.conv %x, %cw, %cb strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<2x3x6x6x6xf32>, tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x4x4x4xf32>
  %n = solder.group_norm %y weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x4x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4x4xf32>
  %out = solder.reduce mean %n dims = [1, 2, 3, 4] : tensor<2x8x4x4x4xf32> -> tensor<2xf32>
  return %out : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// W2: ConvTranspose3d -> ReLU -> GroupNorm. The relu output and its stats
// leave the conv region; the normalize is a region of its own.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @w2(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x3x3x3xf32>, %[[CW:[a-z0-9]+]]: tensor<4x8x3x3x3xf32>, %[[NW:[a-z0-9]+]]: tensor<8xf32>, %[[NB:[a-z0-9]+]]: tensor<8xf32>)
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "w2_k0_conv" (%[[A0:.*]] = %[[X]], %[[A1:.*]] = %[[CW]]) : (tensor<2x4x3x3x3xf32>, tensor<4x8x3x3x3xf32>) -> (tensor<2x8x5x5x5xf32>, tensor<2x4x2xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv_transpose %[[A0]], %[[A1]] {{.*}} -> tensor<2x8x5x5x5xf32>
// CHECK-NEXT:   %[[R:.*]] = solder.relu %[[Y]] : tensor<2x8x5x5x5xf32>
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[R]] num_groups = 4 {{.*}} -> tensor<2x4x2xf32>
// CHECK-NEXT:   solder.yield %[[R]], %[[S]] : tensor<2x8x5x5x5xf32>, tensor<2x4x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "w2_k1_pointwise" (%[[B0:.*]] = %[[K0]]#0, %[[B1:.*]] = %[[K0]]#1, %[[B2:.*]] = %[[NW]], %[[B3:.*]] = %[[NB]]) : (tensor<2x8x5x5x5xf32>, tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x5x5x5xf32> {
// CHECK-NEXT:   %[[N:.*]] = solder.group_normalize %[[B0]], %[[B1]] weight = %[[B2]] bias = %[[B3]]
// CHECK-NEXT:   solder.yield %[[N]] : tensor<2x8x5x5x5xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]]
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

//===----------------------------------------------------------------------===//
// W3: Conv2d -> GroupNorm -> Tanh -> HardSwish -> residual add -> LogSumExp.
// conv + stats, then normalize, tanh, the expanded hardswish, the residual add
// (reading the conv output) and the logsumexp in one region.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @w3(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf32>, %[[CW:[a-z0-9]+]]: tensor<8x3x3x3xf32>, %[[CB:[a-z0-9]+]]: tensor<8xf32>, %[[NW:[a-z0-9]+]]: tensor<8xf32>, %[[NB:[a-z0-9]+]]: tensor<8xf32>)
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "w3_k0_conv" (%[[A0:.*]] = %[[X]], %[[A1:.*]] = %[[CW]], %[[A2:.*]] = %[[CB]]) : ({{.*}}) -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv %[[A0]], %[[A1]], %[[A2]]
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]] num_groups = 4
// CHECK-NEXT:   solder.yield %[[Y]], %[[S]] : tensor<2x8x6x6xf32>, tensor<2x4x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "w3_k1_pointwise" (%[[B0:.*]] = %[[K0]]#0, %[[B1:.*]] = %[[K0]]#1, %[[B2:.*]] = %[[NW]], %[[B3:.*]] = %[[NB]]) : (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x1x6x6xf32> {
// CHECK-NEXT:   %[[THREE:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:   %[[SIX:.*]] = arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NEXT:   %[[N:.*]] = solder.group_normalize %[[B0]], %[[B1]] weight = %[[B2]] bias = %[[B3]]
// CHECK-NEXT:   %[[T:.*]] = solder.tanh %[[N]]
// CHECK-NEXT:   %[[T3:.*]] = solder.add %[[T]], %[[THREE]]
// CHECK-NEXT:   %[[TM:.*]] = solder.mul %[[T]], %[[T3]]
// CHECK-NEXT:   %[[Z:.*]] = solder.div %[[TM]], %[[SIX]]
// CHECK-NEXT:   %[[RES:.*]] = solder.add %[[B0]], %[[Z]] : tensor<2x8x6x6xf32>
// CHECK-NEXT:   %[[L:.*]] = solder.reduce logsumexp %[[RES]] dims = [1] keepdim : tensor<2x8x6x6xf32> -> tensor<2x1x6x6xf32>
// CHECK-NEXT:   solder.yield %[[L]] : tensor<2x1x6x6xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]]
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

// DOT-LABEL: digraph "w3" {
// DOT-NEXT:   rankdir=TB;
// DOT-NEXT:   node [shape=box, fontname="monospace"];
// DOT-NEXT:   arg0 [label="%arg0", shape=ellipse];
// DOT-NEXT:   arg1 [label="%arg1", shape=ellipse];
// DOT-NEXT:   arg2 [label="%arg2", shape=ellipse];
// DOT-NEXT:   arg3 [label="%arg3", shape=ellipse];
// DOT-NEXT:   arg4 [label="%arg4", shape=ellipse];
// DOT-NEXT:   [[K0:n[0-9]+]] [label="w3_k0_conv\nconv -> group_stats", style=filled, fillcolor=lightblue];
// DOT-NEXT:   arg0 -> [[K0]] [label="tensor<2x3x8x8xf32>"];
// DOT-NEXT:   arg1 -> [[K0]] [label="tensor<8x3x3x3xf32>"];
// DOT-NEXT:   arg2 -> [[K0]] [label="tensor<8xf32>"];
// DOT-NEXT:   [[K1:n[0-9]+]] [label="w3_k1_pointwise\ngroup_normalize -> tanh -> add -> mul -> div -> add -> reduce", style=filled, fillcolor=lightblue];
// DOT-NEXT:   [[K0]] -> [[K1]] [label="tensor<2x8x6x6xf32>"];
// DOT-NEXT:   [[K0]] -> [[K1]] [label="tensor<2x4x2xf32>"];
// DOT-NEXT:   arg3 -> [[K1]] [label="tensor<8xf32>"];
// DOT-NEXT:   arg4 -> [[K1]] [label="tensor<8xf32>"];
// DOT-NEXT:   [[RET:n[0-9]+]] [label="func.return"];
// DOT-NEXT:   [[K1]] -> [[RET]] [label="tensor<2x1x6x6xf32>"];
// DOT-NEXT: }
// DOT-NOT: digraph

//===----------------------------------------------------------------------===//
// No conv: group_norm -> relu -> sum on an argument. The statistics are a
// reduction region of their own; normalize, relu and sum share the next.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @norm_relu_sum(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x3x3xf32>, %[[W:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "norm_relu_sum_k0_reduction" (%[[A0:.*]] = %[[X]]) : (tensor<2x4x3x3xf32>) -> tensor<2x2x2xf32> {
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[A0]] num_groups = 2
// CHECK-NEXT:   solder.yield %[[S]] : tensor<2x2x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "norm_relu_sum_k1_pointwise" (%[[B0:.*]] = %[[X]], %[[B1:.*]] = %[[K0]], %[[B2:.*]] = %[[W]], %[[B3:.*]] = %[[B]]) : (tensor<2x4x3x3xf32>, tensor<2x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:   %[[N:.*]] = solder.group_normalize %[[B0]], %[[B1]] weight = %[[B2]] bias = %[[B3]]
// CHECK-NEXT:   %[[R:.*]] = solder.relu %[[N]]
// CHECK-NEXT:   %[[SUM:.*]] = solder.reduce sum %[[R]] dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT:   solder.yield %[[SUM]] : tensor<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]]
func.func @norm_relu_sum(%x: tensor<2x4x3x3xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %n = solder.group_norm %x weight = %w bias = %b num_groups = 2 epsilon = 1.0e-05
       : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %r = solder.relu %n : tensor<2x4x3x3xf32>
  %s = solder.reduce sum %r dims = [2, 3] : tensor<2x4x3x3xf32> -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// A value with two consumers (and a use outside): both consumers join the
// conv region, which yields all three values once each.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @two_consumers(
// CHECK-NEXT: %[[K0:.*]]:3 = solder.fusion "two_consumers_k0_conv" ({{.*}}) : ({{.*}}) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv
// CHECK-NEXT:   %[[T:.*]] = solder.tanh %[[Y]]
// CHECK-NEXT:   %[[S:.*]] = solder.sigmoid %[[Y]]
// CHECK-NEXT:   solder.yield %[[Y]], %[[T]], %[[S]] :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K0]]#1, %[[K0]]#2, %[[K0]]#0 :
func.func @two_consumers(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>)
    -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %a = solder.tanh %y : tensor<1x3x3x3xf32>
  %b = solder.sigmoid %y : tensor<1x3x3x3xf32>
  return %a, %b, %y : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
}

// Several per-channel reductions of one conv output share its region
// (multi-output): group_stats, and sum/mean over all spatial dims (keepdim or
// not).
// CHECK-LABEL: func.func @multi_reduction(
// CHECK-NEXT: %[[K0:.*]]:3 = solder.fusion "multi_reduction_k0_conv" ({{.*}}) : ({{.*}}) -> (tensor<1x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]] num_groups = 2
// CHECK-NEXT:   %[[MEAN:.*]] = solder.reduce mean %[[Y]] dims = [2, 3] keepdim
// CHECK-NEXT:   %[[SUM:.*]] = solder.reduce sum %[[Y]] dims = [2, 3] :
// CHECK-NEXT:   solder.yield %[[S]], %[[MEAN]], %[[SUM]] :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K0]]#0, %[[K0]]#1, %[[K0]]#2 :
func.func @multi_reduction(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>)
    -> (tensor<1x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %s = solder.group_stats %y num_groups = 2 epsilon = 1.0e-05 : tensor<1x4x3x3xf32> -> tensor<1x2x2xf32>
  %a = solder.reduce mean %y dims = [2, 3] keepdim : tensor<1x4x3x3xf32> -> tensor<1x4x1x1xf32>
  %b = solder.reduce sum %y dims = [2, 3] : tensor<1x4x3x3xf32> -> tensor<1x4xf32>
  return %s, %a, %b : tensor<1x2x2xf32>, tensor<1x4x1x1xf32>, tensor<1x4xf32>
}

// Without a conv, a region computes one reduction: two of one pooled tensor
// (an InstanceNorm's statistics and a mean beside them) take a region each,
// the second reading the pool's output.
// CHECK-LABEL: func.func @sibling_reductions_of_a_pool(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "sibling_reductions_of_a_pool_k0_pool" ({{.*}}) -> (tensor<1x4x3x3xf32>, tensor<1x4x2xf32>) {
// CHECK-NEXT:   %[[P:.*]] = solder.pool avg
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[P]] num_groups = 4
// CHECK-NEXT:   solder.yield %[[P]], %[[S]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "sibling_reductions_of_a_pool_k1_reduction" (%[[A:.*]] = %[[K0]]#0) : (tensor<1x4x3x3xf32>) -> tensor<1x4x1x1xf32> {
// CHECK-NEXT:   solder.reduce mean %[[A]] dims = [2, 3] keepdim
func.func @sibling_reductions_of_a_pool(%x: tensor<1x4x6x6xf32>)
    -> (tensor<1x4x2xf32>, tensor<1x4x1x1xf32>) {
  %p = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %s = solder.group_stats %p num_groups = 4 epsilon = 1.0e-05 : tensor<1x4x3x3xf32> -> tensor<1x4x2xf32>
  %m = solder.reduce mean %p dims = [2, 3] keepdim : tensor<1x4x3x3xf32> -> tensor<1x4x1x1xf32>
  return %s, %m : tensor<1x4x2xf32>, tensor<1x4x1x1xf32>
}

// A conv kernel tiles the channels across blocks: a reduction across channels
// (max over dim 1) or over only part of the spatial dims does not join the conv
// region; each becomes a reduction region reading the conv output, while the
// pointwise tanh still joins the conv.
// CHECK-LABEL: func.func @cross_channel_reductions(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "cross_channel_reductions_k0_conv" ({{.*}}) : ({{.*}}) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv
// CHECK-NEXT:   %[[T:.*]] = solder.tanh %[[Y]]
// CHECK-NEXT:   solder.yield %[[Y]], %[[T]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "cross_channel_reductions_k1_reduction" (%[[A:.*]] = %[[K0]]#0) : (tensor<1x4x3x3xf32>) -> tensor<1x1x3x3xf32> {
// CHECK-NEXT:   %[[M:.*]] = solder.reduce max %[[A]] dims = [1] keepdim
// CHECK-NEXT:   solder.yield %[[M]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "cross_channel_reductions_k2_reduction" (%[[B:.*]] = %[[K0]]#0) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3xf32> {
// CHECK-NEXT:   %[[P:.*]] = solder.reduce sum %[[B]] dims = [3] :
// CHECK-NEXT:   solder.yield %[[P]] :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]], %[[K2]], %[[K0]]#1 :
func.func @cross_channel_reductions(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>)
    -> (tensor<1x1x3x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3x3xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %m = solder.reduce max %y dims = [1] keepdim : tensor<1x4x3x3xf32> -> tensor<1x1x3x3xf32>
  %p = solder.reduce sum %y dims = [3] : tensor<1x4x3x3xf32> -> tensor<1x4x3xf32>
  %t = solder.tanh %y : tensor<1x4x3x3xf32>
  return %m, %p, %t : tensor<1x1x3x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3x3xf32>
}

//===----------------------------------------------------------------------===//
// An opaque op (arith.addf on tensors: not a solder op) stays outside every
// fusion, between the regions, and nothing is dropped: the add that reads
// both the relu and the opaque op cannot join the conv region (the opaque op
// depends on it), so it starts a region. (No numerical check: the
// interpreter runs solder ops only.) A pool starts
// a region of its own (it reads windows of a tensor an earlier kernel
// finished), and the pointwise ops after it join it.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @opaque_between(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "opaque_between_k0_conv" ({{.*}}) : ({{.*}}) -> tensor<1x3x4x4xf32> {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv
// CHECK-NEXT:   %[[R:.*]] = solder.relu %[[Y]]
// CHECK-NEXT:   solder.yield %[[R]] : tensor<1x3x4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[L:.*]] = arith.addf %[[K0]], %[[K0]] : tensor<1x3x4x4xf32>
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "opaque_between_k1_pointwise" (%[[B0:.*]] = %[[K0]], %[[B1:.*]] = %[[L]]) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
// CHECK-NEXT:   %[[A:.*]] = solder.add %[[B0]], %[[B1]]
// CHECK-NEXT:   %[[T:.*]] = solder.tanh %[[A]]
// CHECK-NEXT:   solder.yield %[[T]] : tensor<1x3x4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "opaque_between_k2_pool" (%[[C0:.*]] = %[[K1]]) : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32> {
// CHECK-NEXT:   %[[P:.*]] = solder.pool max %[[C0]]
// CHECK-NEXT:   %[[E:.*]] = solder.exp %[[P]]
// CHECK-NEXT:   solder.yield %[[E]] : tensor<1x3x2x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]], %[[K2]] :
func.func @opaque_between(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x3x3xf32>)
    -> (tensor<1x3x4x4xf32>, tensor<1x3x2x2xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  %r = solder.relu %y : tensor<1x3x4x4xf32>
  %l = arith.addf %r, %r : tensor<1x3x4x4xf32>
  %a = solder.add %r, %l : tensor<1x3x4x4xf32>
  %t = solder.tanh %a : tensor<1x3x4x4xf32>
  %p = solder.pool max %t kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  %e = solder.exp %p : tensor<1x3x2x2xf32>
  return %t, %e : tensor<1x3x4x4xf32>, tensor<1x3x2x2xf32>
}

//===----------------------------------------------------------------------===//
// A reshape joins no region: the conv region yields its input, and the
// GroupNorm over the regrouped channels reads the reshape's result (its
// statistics in a reduction region, the apply step in a pointwise one).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_between(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "reshape_between_k0_conv" ({{.*}}) : ({{.*}}) -> tensor<2x4x4x4xf32> {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv
// CHECK-NEXT:   %[[R:.*]] = solder.relu %[[Y]]
// CHECK-NEXT:   solder.yield %[[R]] : tensor<2x4x4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[V:.*]] = solder.reshape %[[K0]] : tensor<2x4x4x4xf32> -> tensor<2x8x2x4xf32>
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "reshape_between_k1_reduction" (%[[B0:.*]] = %[[V]]) : (tensor<2x8x2x4xf32>) -> tensor<2x2x2xf32> {
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[B0]] num_groups = 2
// CHECK-NEXT:   solder.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "reshape_between_k2_pointwise" (%[[C0:.*]] = %[[V]], %[[C1:.*]] = %[[K1]]) : (tensor<2x8x2x4xf32>, tensor<2x2x2xf32>) -> tensor<2x8x2x4xf32> {
// CHECK-NEXT:   %[[N:.*]] = solder.group_normalize %[[C0]], %[[C1]]
// CHECK-NEXT:   %[[T:.*]] = solder.tanh %[[N]]
// CHECK-NEXT:   solder.yield %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K2]] :
func.func @reshape_between(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>)
    -> tensor<2x8x2x4xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %r = solder.relu %y : tensor<2x4x4x4xf32>
  %v = solder.reshape %r : tensor<2x4x4x4xf32> -> tensor<2x8x2x4xf32>
  %g = solder.group_norm %v num_groups = 2 epsilon = 1.0e-05 : (tensor<2x8x2x4xf32>) -> tensor<2x8x2x4xf32>
  %t = solder.tanh %g : tensor<2x8x2x4xf32>
  return %t : tensor<2x8x2x4xf32>
}

//===----------------------------------------------------------------------===//
// Reduction barrier: the decomposed softmax (after an exp that the max joins)
// is split so that no op reads a reduction of its own region:
// [exp, max] -> [sub, exp, sum] -> [div].
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @softmax_barrier(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x5x3xf32>)
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "softmax_barrier_k0_pointwise" (%[[A0:.*]] = %[[X]]) : (tensor<2x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x3xf32>) {
// CHECK-NEXT:   %[[E0:.*]] = solder.exp %[[A0]]
// CHECK-NEXT:   %[[MAX:.*]] = solder.reduce max %[[E0]] dims = [1] keepdim
// CHECK-NEXT:   solder.yield %[[E0]], %[[MAX]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]]:2 = solder.fusion "softmax_barrier_k1_pointwise" (%[[B0:.*]] = %[[K0]]#0, %[[B1:.*]] = %[[K0]]#1) : (tensor<2x5x3xf32>, tensor<2x1x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x1x3xf32>) {
// CHECK-NEXT:   %[[SUB:.*]] = solder.sub %[[B0]], %[[B1]]
// CHECK-NEXT:   %[[E1:.*]] = solder.exp %[[SUB]]
// CHECK-NEXT:   %[[SUM:.*]] = solder.reduce sum %[[E1]] dims = [1] keepdim
// CHECK-NEXT:   solder.yield %[[E1]], %[[SUM]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "softmax_barrier_k2_pointwise" (%[[C0:.*]] = %[[K1]]#0, %[[C1:.*]] = %[[K1]]#1) : (tensor<2x5x3xf32>, tensor<2x1x3xf32>) -> tensor<2x5x3xf32> {
// CHECK-NEXT:   %[[DIV:.*]] = solder.div %[[C0]], %[[C1]]
// CHECK-NEXT:   solder.yield %[[DIV]] :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K2]]
func.func @softmax_barrier(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %e = solder.exp %x : tensor<2x5x3xf32>
  %s = solder.softmax %e dim = 1 : tensor<2x5x3xf32>
  return %s : tensor<2x5x3xf32>
}

//===----------------------------------------------------------------------===//
// Acyclicity: the sub reads the conv output (region k0) and a max computed in
// region k1, which depends on k0; joining k0 would close a cycle (and joining
// k1 would read k1's own reduction), so it starts k2.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @no_cycle(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "no_cycle_k0_conv" ({{.*}}) : ({{.*}}) -> (tensor<1x4x3x3xf32>, tensor<1x2x2xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv
// CHECK-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]]
// CHECK-NEXT:   solder.yield %[[Y]], %[[S]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "no_cycle_k1_pointwise" (%[[B0:.*]] = %[[K0]]#0, %[[B1:.*]] = %[[K0]]#1) : ({{.*}}) -> tensor<1x1x3x3xf32> {
// CHECK-NEXT:   %[[N:.*]] = solder.group_normalize %[[B0]], %[[B1]]
// CHECK-NEXT:   %[[M:.*]] = solder.reduce max %[[N]] dims = [1] keepdim
// CHECK-NEXT:   solder.yield %[[M]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "no_cycle_k2_pointwise" (%[[C0:.*]] = %[[K0]]#0, %[[C1:.*]] = %[[K1]]) : (tensor<1x4x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x4x3x3xf32> {
// CHECK-NEXT:   %[[SUB:.*]] = solder.sub %[[C0]], %[[C1]]
// CHECK-NEXT:   solder.yield %[[SUB]] :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K2]]
func.func @no_cycle(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %n = solder.group_norm %y num_groups = 2 epsilon = 1.0e-05 : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %m = solder.reduce max %n dims = [1] keepdim : tensor<1x4x3x3xf32> -> tensor<1x1x3x3xf32>
  %s = solder.sub %y, %m : tensor<1x4x3x3xf32>, tensor<1x1x3x3xf32> -> tensor<1x4x3x3xf32>
  return %s : tensor<1x4x3x3xf32>
}

//===----------------------------------------------------------------------===//
// No prologue when the pointwise producer of the conv input has another user:
// the relu stays a region of its own (the positive prologue case is in
// form-fusions-prologue.mlir).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @prologue_shared_input(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x5x5xf32>, %[[W:[a-z0-9]+]]: tensor<3x2x3x3xf32>)
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "prologue_shared_input_k0_pointwise" (%[[A0:.*]] = %[[X]]) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
// CHECK-NEXT:   %[[R:.*]] = solder.relu %[[A0]]
// CHECK-NEXT:   solder.yield %[[R]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "prologue_shared_input_k1_conv" (%[[B0:.*]] = %[[K0]], %[[B1:.*]] = %[[W]]) : ({{.*}}) -> tensor<1x3x3x3xf32> {
// CHECK-NEXT:   %[[Y:.*]] = solder.conv %[[B0]], %[[B1]]
// CHECK-NEXT:   solder.yield %[[Y]] :
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K0]], %[[K1]] :
func.func @prologue_shared_input(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>)
    -> (tensor<1x2x5x5xf32>, tensor<1x3x3x3xf32>) {
  %r = solder.relu %x : tensor<1x2x5x5xf32>
  %y = solder.conv %r, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %r, %y : tensor<1x2x5x5xf32>, tensor<1x3x3x3xf32>
}

//===----------------------------------------------------------------------===//
// ResNet's stem into its first block: conv -> relu -> max-pool -> conv. The
// pool region is not taken as the second conv's prologue (a prologue is
// pointwise), and the add after the second conv joins its epilogue.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @pool_between_convs(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "pool_between_convs_k0_conv"
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.relu
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "pool_between_convs_k1_pool" (%[[A0:.*]] = %[[K0]]) : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32> {
// CHECK-NEXT:   solder.pool max %[[A0]]
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "pool_between_convs_k2_conv" ({{.*}}%[[K1]]{{.*}}) : {{.*}} -> tensor<2x4x4x4xf32> {
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.add
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K2]] :
func.func @pool_between_convs(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
    %w2: tensor<4x4x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %r = solder.relu %y : tensor<2x4x8x8xf32>
  %p = solder.pool max %r kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1]
       : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  %z = solder.conv %p, %w2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<2x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x4x4xf32>
  %s = solder.add %z, %p : tensor<2x4x4x4xf32>
  return %s : tensor<2x4x4x4xf32>
}

// Squeeze-excitation: the pool is a reduction region (statistics of the
// block's input); the two small GEMMs (1x1 convs on one pixel a sample), the
// ReLU between them, the bias add after the first and the sigmoid are one
// rows region; the scale is applied by a pointwise region on the full-size
// tensor.
// CHECK-LABEL: func.func @squeeze_excitation_rows(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "squeeze_excitation_rows_k0_reduction"
// CHECK-NEXT:   solder.reduce mean
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "squeeze_excitation_rows_k1_rows" ({{.*}}%[[K0]]{{.*}}) : {{.*}} -> tensor<2x8x1x1xf32> {
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.add
// CHECK-NEXT:   solder.relu
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.sigmoid
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "squeeze_excitation_rows_k2_pointwise"
// CHECK-NEXT:   solder.mul
// CHECK-NEXT:   solder.yield
func.func @squeeze_excitation_rows(%x: tensor<2x8x6x6xf32>, %w1: tensor<4x8x1x1xf32>,
    %b1: tensor<4x1x1xf32>, %w2: tensor<8x4x1x1xf32>) -> tensor<2x8x6x6xf32> {
  %m = solder.reduce mean %x dims = [2, 3] keepdim : tensor<2x8x6x6xf32> -> tensor<2x8x1x1xf32>
  %f1 = solder.conv %m, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x8x1x1xf32>, tensor<4x8x1x1xf32>) -> tensor<2x4x1x1xf32>
  %b = solder.add %f1, %b1 : tensor<2x4x1x1xf32>, tensor<4x1x1xf32> -> tensor<2x4x1x1xf32>
  %a = solder.relu %b : tensor<2x4x1x1xf32>
  %f2 = solder.conv %a, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x4x1x1xf32>, tensor<8x4x1x1xf32>) -> tensor<2x8x1x1xf32>
  %s = solder.sigmoid %f2 : tensor<2x8x1x1xf32>
  %r = solder.mul %x, %s : tensor<2x8x6x6xf32>, tensor<2x8x1x1xf32> -> tensor<2x8x6x6xf32>
  return %r : tensor<2x8x6x6xf32>
}

// A rows region holds a row of each value in a block's shared memory
// (kMaxRowSharedFloats): 1024 -> 4096 takes 5120 floats, the ReLU's 4096 more
// would pass 8192, so the ReLU starts a region and the second GEMM joins it.
// CHECK-LABEL: func.func @rows_past_shared_memory(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "rows_past_shared_memory_k0_rows"
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "rows_past_shared_memory_k1_rows" ({{.*}}%[[K0]]{{.*}})
// CHECK-NEXT:   solder.relu
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.yield
func.func @rows_past_shared_memory(%x: tensor<1x1024x1xf32>, %w1: tensor<4096x1024x1xf32>,
    %w2: tensor<1024x4096x1xf32>) -> tensor<1x1024x1xf32> {
  %f1 = solder.conv %x, %w1 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<1x1024x1xf32>, tensor<4096x1024x1xf32>) -> tensor<1x4096x1xf32>
  %a = solder.relu %f1 : tensor<1x4096x1xf32>
  %f2 = solder.conv %a, %w2 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<1x4096x1xf32>, tensor<1024x4096x1xf32>) -> tensor<1x1024x1xf32>
  return %f2 : tensor<1x1024x1xf32>
}

// A small GEMM does not join a pointwise region that holds a reduction (its
// input's exp with a max over it): that region is not a rows region, and
// the GEMM starts one of its own.
// CHECK-LABEL: func.func @rows_after_reduction(
// CHECK-NEXT: %[[K0:.*]]:2 = solder.fusion "rows_after_reduction_k0_pointwise"
// CHECK-NEXT:   solder.exp
// CHECK-NEXT:   solder.reduce max
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "rows_after_reduction_k1_rows"
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.yield
func.func @rows_after_reduction(%x: tensor<4x32x1x1xf32>, %w: tensor<16x32x1x1xf32>)
    -> (tensor<4x1x1x1xf32>, tensor<4x16x1x1xf32>) {
  %e = solder.exp %x : tensor<4x32x1x1xf32>
  %m = solder.reduce max %e dims = [1] keepdim : tensor<4x32x1x1xf32> -> tensor<4x1x1x1xf32>
  %y = solder.conv %e, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<4x32x1x1xf32>, tensor<16x32x1x1xf32>) -> tensor<4x16x1x1xf32>
  return %m, %y : tensor<4x1x1x1xf32>, tensor<4x16x1x1xf32>
}

// ConvNeXt's LayerNorm over the channels between a depthwise conv and a
// Linear (a 1x1 conv): the mean and the variance of mean - x are two
// reductions over dim 1 (the second's mean - x stays inside its region);
// rstd one small pointwise region; (x - mean) * rstd and the affine
// parameters the prologue of the first 1x1 conv, GELU its epilogue; the
// layer scale and the residual the second conv's epilogue.
// RUN: solder-opt %solder_src/test/gpu/cases/channels_last_layernorm_mlp.mlir --solder-form-fusions | FileCheck %s --check-prefix=LNMLP
// LNMLP: solder.fusion "channels_last_layernorm_mlp_k0_conv"
// LNMLP-NEXT: solder.conv {{.*}} groups = 24
// LNMLP-NEXT: solder.yield
// LNMLP: solder.fusion "channels_last_layernorm_mlp_k1_reduction"
// LNMLP-NEXT: solder.reduce mean {{.*}} dims = [1] keepdim
// LNMLP-NEXT: solder.yield
// LNMLP: solder.fusion "channels_last_layernorm_mlp_k2_pointwise"
// LNMLP-NEXT: solder.sub
// LNMLP-NEXT: solder.mul
// LNMLP-NEXT: solder.reduce mean {{.*}} dims = [1] keepdim
// LNMLP-NEXT: solder.yield {{.*}} : tensor<2x1x15x13xf32>
// LNMLP: solder.fusion "channels_last_layernorm_mlp_k3_pointwise"
// LNMLP: solder.rsqrt
// LNMLP-NEXT: solder.yield
// LNMLP: solder.fusion "channels_last_layernorm_mlp_k4_conv"
// LNMLP-NEXT: solder.sub
// LNMLP-NEXT: solder.mul
// LNMLP-NEXT: solder.mul
// LNMLP-NEXT: solder.add
// LNMLP-NEXT: solder.conv
// LNMLP-NEXT: solder.gelu
// LNMLP-NEXT: solder.yield
// LNMLP: solder.fusion "channels_last_layernorm_mlp_k5_conv"
// LNMLP-NEXT: solder.conv
// LNMLP-NEXT: solder.mul
// LNMLP-NEXT: solder.add
// LNMLP-NEXT: solder.yield
// LNMLP-NOT: solder.fusion

// A GEMM (a Linear as a 1x1 conv over (rows, features, 1)): GroupNorm's
// statistics over its rows are not partials of its epilogue (one per
// element) but a reduction region that reads the GELU'd rows once.
// RUN: solder-opt %solder_src/test/gpu/cases/gemm_layernorm_mlp_groupnorm_residual.mlir --solder-decompose --solder-simplify --cse --solder-form-fusions | FileCheck %s --check-prefix=GEMM
// GEMM: solder.fusion "gemm_layernorm_mlp_groupnorm_residual_k1_conv"
// GEMM: solder.conv
// GEMM-NEXT: solder.gelu
// GEMM-NEXT: solder.yield {{.*}} : tensor<2100x160x1xf32>
// GEMM: solder.fusion "gemm_layernorm_mlp_groupnorm_residual_k2_reduction"
// GEMM-NEXT: solder.group_stats {{.*}} num_groups = 4
// GEMM-NEXT: solder.yield

// A reduce-and-apply row: LayerNorm over a conv output's last dim reads its
// mean and variance back in the region that computes them (a warp a row in
// the kernel), so the norm and the gelu after it are one region beside the
// conv's. x - mean(x) over a row of 5000 elements (past a row's 4096) keeps
// the reduction barrier: the subtraction is a region of its own.
// CHECK-LABEL: func.func @reduce_apply_rows(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "reduce_apply_rows_k0_conv"
// CHECK-NEXT:   solder.conv
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "reduce_apply_rows_k1_reduction" (%[[Y:.*]] = %[[K0]]) : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   %[[M:.*]] = solder.reduce mean %[[Y]] dims = [3] keepdim
// CHECK-NEXT:   %[[D:.*]] = solder.sub %[[Y]], %[[M]]
// CHECK-NEXT:   %[[SQ:.*]] = solder.mul %[[D]], %[[D]]
// CHECK-NEXT:   %[[V:.*]] = solder.reduce mean %[[SQ]] dims = [3] keepdim
// CHECK-NEXT:   %[[VE:.*]] = solder.add %[[V]]
// CHECK-NEXT:   %[[R:.*]] = solder.rsqrt %[[VE]]
// CHECK-NEXT:   %[[N:.*]] = solder.mul %[[D]], %[[R]]
// CHECK-NEXT:   %[[G:.*]] = solder.gelu %[[N]]
// CHECK-NEXT:   solder.yield %[[G]] :
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "reduce_apply_rows_k2_reduction"
// CHECK-NEXT:   solder.reduce mean
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K3:.*]] = solder.fusion "reduce_apply_rows_k3_pointwise"
// CHECK-NEXT:   solder.sub
func.func @reduce_apply_rows(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>,
    %long: tensor<2x5000xf32>) -> (tensor<1x4x3x3xf32>, tensor<2x5000xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %n = solder.layer_norm %y normalized_shape = [3] epsilon = 1.0e-05
       : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %g = solder.gelu %n : tensor<1x4x3x3xf32>
  %m = solder.reduce mean %long dims = [1] keepdim : tensor<2x5000xf32> -> tensor<2x1xf32>
  %c = solder.sub %long, %m : tensor<2x5000xf32>, tensor<2x1xf32> -> tensor<2x5000xf32>
  return %g, %c : tensor<1x4x3x3xf32>, tensor<2x5000xf32>
}

// A pool of a reduce-and-apply row's values joins the row's region where a
// warp holds its windows whole (poolsRowWindows: the row the last dim,
// windows that tile it), and the pointwise ops after it follow: LayerNorm
// over the last dim, avg_pool3d 2x2x2, GELU in one region. A pool whose
// windows overlap (kernel 3, stride 2) reads the row's values back from
// memory: a region of its own, the sigmoid after it there too; so does a
// pool of rows of 256 (32 lanes a row, 8 elements a lane: 128 windows of 2
// a warp, more than its lanes). After a pool the row's kernel runs only
// what reads the pool alone: a product with the row's mean (a lane's mean
// is its own row's, not its window's) and a difference of the row's shape
// (a (2, 1) pool over a dim of 2 broadcasts back to the row) are regions
// of their own.
// CHECK-LABEL: func.func @reduce_apply_row_pool(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "reduce_apply_row_pool_k0_reduction" ({{.*}}) : ({{.*}}) -> tensor<1x2x2x4x4xf32> {
// CHECK:        solder.rsqrt
// CHECK:        %[[N:.*]] = solder.add
// CHECK-NEXT:   %[[P:.*]] = solder.pool avg %[[N]] kernel = [2, 2, 2]
// CHECK-NEXT:   %[[G:.*]] = solder.gelu %[[P]]
// CHECK-NEXT:   solder.yield %[[G]] : tensor<1x2x2x4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K1:.*]] = solder.fusion "reduce_apply_row_pool_k1_reduction"
// CHECK-NOT:    solder.pool
// CHECK:        solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K2:.*]] = solder.fusion "reduce_apply_row_pool_k2_pool"
// CHECK-NEXT:   solder.pool avg {{.*}} kernel = [3, 3] strides = [2, 2]
// CHECK-NEXT:   solder.sigmoid
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K3:.*]] = solder.fusion "reduce_apply_row_pool_k3_reduction"
// CHECK-NOT:    solder.pool
// CHECK:        solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K4:.*]] = solder.fusion "reduce_apply_row_pool_k4_pool"
// CHECK-NEXT:   solder.pool max {{.*}} kernel = [2] strides = [2]
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K5:.*]]:2 = solder.fusion "reduce_apply_row_pool_k5_reduction"
// CHECK-NEXT:   solder.reduce mean
// CHECK-NEXT:   solder.sub
// CHECK-NEXT:   solder.pool avg {{.*}} kernel = [2] strides = [2]
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K6:.*]] = solder.fusion "reduce_apply_row_pool_k6_pointwise"
// CHECK-NEXT:   solder.mul
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K7:.*]] = solder.fusion "reduce_apply_row_pool_k7_reduction"
// CHECK:        solder.pool max {{.*}} kernel = [2, 1] strides = [2, 1]
// CHECK-NEXT:   solder.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K8:.*]] = solder.fusion "reduce_apply_row_pool_k8_pointwise"
// CHECK-NEXT:   solder.sub
// CHECK-NEXT:   solder.yield
func.func @reduce_apply_row_pool(%x: tensor<1x2x4x8x8xf32>, %w: tensor<8xf32>,
    %b: tensor<8xf32>, %y: tensor<1x2x7x8xf32>, %z: tensor<2x3x256xf32>,
    %r: tensor<2x4x8xf32>, %s4: tensor<1x2x2x8xf32>)
    -> (tensor<1x2x2x4x4xf32>, tensor<1x2x3x3xf32>, tensor<2x3x128xf32>, tensor<2x4x4xf32>,
        tensor<1x2x2x8xf32>) {
  %n = solder.layer_norm %x weight = %w bias = %b normalized_shape = [8] epsilon = 1.0e-05
       : (tensor<1x2x4x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x2x4x8x8xf32>
  %p = solder.pool avg %n kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0] dilations = [1, 1, 1]
       : tensor<1x2x4x8x8xf32> -> tensor<1x2x2x4x4xf32>
  %g = solder.gelu %p : tensor<1x2x2x4x4xf32>
  %s = solder.softmax %y dim = 3 : tensor<1x2x7x8xf32>
  %o = solder.pool avg %s kernel = [3, 3] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<1x2x7x8xf32> -> tensor<1x2x3x3xf32>
  %q = solder.sigmoid %o : tensor<1x2x3x3xf32>
  %sz = solder.softmax %z dim = 2 : tensor<2x3x256xf32>
  %mz = solder.pool max %sz kernel = [2] strides = [2] padding = [0] dilations = [1]
       : tensor<2x3x256xf32> -> tensor<2x3x128xf32>
  %mr = solder.reduce mean %r dims = [2] keepdim : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %cr = solder.sub %r, %mr : tensor<2x4x8xf32>, tensor<2x4x1xf32> -> tensor<2x4x8xf32>
  %pr = solder.pool avg %cr kernel = [2] strides = [2] padding = [0] dilations = [1]
       : tensor<2x4x8xf32> -> tensor<2x4x4xf32>
  %qr = solder.mul %pr, %mr : tensor<2x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %s4s = solder.softmax %s4 dim = 3 : tensor<1x2x2x8xf32>
  %p4 = solder.pool max %s4s kernel = [2, 1] strides = [2, 1] padding = [0, 0] dilations = [1, 1]
       : tensor<1x2x2x8xf32> -> tensor<1x2x1x8xf32>
  %d4 = solder.sub %s4, %p4 : tensor<1x2x2x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x2x8xf32>
  return %g, %q, %mz, %qr, %d4 : tensor<1x2x2x4x4xf32>, tensor<1x2x3x3xf32>, tensor<2x3x128xf32>,
      tensor<2x4x4xf32>, tensor<1x2x2x8xf32>
}
