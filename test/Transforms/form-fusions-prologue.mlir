// RUN: solder-opt %s --solder-form-fusions | FileCheck %s
// RUN: solder-interp %s --function=prologue --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions)' --seed=1 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

// The relu on the conv input and the tanh epilogue share the conv's kernel.
// CHECK-LABEL: func.func @prologue(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x5x5xf32>, %[[W:[a-z0-9]+]]: tensor<3x2x3x3xf32>)
// CHECK-NEXT: %[[K0:.*]] = solder.fusion "prologue_k0_conv" (%[[A0:.*]] = %[[X]], %[[A1:.*]] = %[[W]]) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
// CHECK-NEXT:   %[[R:.*]] = solder.relu %[[A0]]
// CHECK-NEXT:   %[[Y:.*]] = solder.conv %[[R]], %[[A1]]
// CHECK-NEXT:   %[[T:.*]] = solder.tanh %[[Y]]
// CHECK-NEXT:   solder.yield %[[T]] : tensor<1x3x3x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K0]]
// CHECK-NOT: solder.fusion
func.func @prologue(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %r = solder.relu %x : tensor<1x2x5x5xf32>
  %y = solder.conv %r, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %t = solder.tanh %y : tensor<1x3x3x3xf32>
  return %t : tensor<1x3x3x3xf32>
}
