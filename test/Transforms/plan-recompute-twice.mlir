// A conv region yields two recomputable tensors (relu(y) and tanh(y)) to one
// consumer: force=recompute recomputes both from a single conv in the
// consumer (the second recompute reuses the first's conv, CSE merges the
// copies), the producer keeps only the statistics, and the report numbers
// the decisions by the producer's original results.
// RUN: solder-opt %s --solder-pipeline=force=recompute | FileCheck %s
// RUN: solder-opt %s --solder-pipeline="force=recompute report=true" -o /dev/null | FileCheck %s --check-prefix=REPORT
// Numerically it is right either way.
// RUN: solder-interp %s --check-pipeline='solder-pipeline{force=recompute}' --seed=1 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

// CHECK-LABEL: func.func @two_shared(
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "two_shared_k0_conv" {{.*}} -> tensor<1x2x2xf32> attributes {{.*}}
// CHECK: solder.fusion "two_shared_k1_pointwise" (%{{.*}} = %[[K0]], %{{[^=]*}} = %arg0, %{{[^=]*}} = %arg1) {{.*}}
// CHECK-NEXT: solder.conv
// CHECK-NOT: solder.conv
// CHECK: solder.yield
// REPORT: shared two_shared_k0_conv#0 tensor<1x4x3x3xf32> {{.*}}: recompute (forced;
// REPORT: shared two_shared_k0_conv#1 tensor<1x4x3x3xf32> {{.*}}: recompute (forced;
func.func @two_shared(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %r = solder.relu %y : tensor<1x4x3x3xf32>
  %t = solder.tanh %y : tensor<1x4x3x3xf32>
  %n = solder.group_norm %r num_groups = 2 epsilon = 1.0e-05 : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %a = solder.add %n, %t : tensor<1x4x3x3xf32>
  return %a : tensor<1x4x3x3xf32>
}
