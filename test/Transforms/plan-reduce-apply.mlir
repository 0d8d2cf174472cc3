// A conv whose output a reduce-and-apply row reads (y - mean(y), divided
// by the mean of its square: the region reads its reductions back) is not
// recomputed there: a conv epilogue cannot read its own reductions back.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: solder-plan: cannot recompute centered_over_its_variance_k0_conv#0: centered_over_its_variance_k1_pointwise reads its reductions back (a reduce-and-apply row), which a conv epilogue cannot
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan)' | FileCheck %s
// CHECK: solder.fusion "centered_over_its_variance_k1_pointwise"
// CHECK-SAME: solder.schedule = #solder.region_launch<warp_per_row, chunk = 8, vector = 1, threads = 256, grid = [1, 1, 1]>
// CHECK-NOT: solder.conv
// CHECK: solder.reduce mean
// CHECK: solder.div
func.func @centered_over_its_variance(%x: tensor<2x3x10x10xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %m = solder.reduce mean %y dims = [2, 3] keepdim : tensor<2x4x8x8xf32> -> tensor<2x4x1x1xf32>
  %d = solder.sub %y, %m : tensor<2x4x8x8xf32>, tensor<2x4x1x1xf32> -> tensor<2x4x8x8xf32>
  %q = solder.mul %d, %d : tensor<2x4x8x8xf32>
  %v = solder.reduce mean %q dims = [2, 3] keepdim : tensor<2x4x8x8xf32> -> tensor<2x4x1x1xf32>
  %r = solder.div %d, %v : tensor<2x4x8x8xf32>, tensor<2x4x1x1xf32> -> tensor<2x4x8x8xf32>
  return %r : tensor<2x4x8x8xf32>
}
