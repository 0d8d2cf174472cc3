// Pools of every rank after pointwise work: a dilated 1-D max-pool with
// ceil_mode, a 3-D average with padding counted (ceil_mode clips the
// divisor to the padded input), a 3-D average without, then pointwise ops
// on the pooled tensor.
func.func @pools(%x: tensor<3x5x29xf32>, %y: tensor<2x4x9x10x11xf32>,
    %s: tensor<4x1x1x1xf32>) -> (tensor<3x5x10xf32>, tensor<2x4x5x6x6xf32>,
                                 tensor<2x4x5x6x6xf32>) {
  %a = solder.sigmoid %x : tensor<3x5x29xf32>
  %p = solder.pool max %a kernel = [4] strides = [3] padding = [2] dilations = [2] ceil_mode
       : tensor<3x5x29xf32> -> tensor<3x5x10xf32>
  %q = solder.pool avg %y kernel = [3, 2, 3] strides = [2, 2, 2] padding = [1, 1, 1] dilations = [1, 1, 1] ceil_mode
       : tensor<2x4x9x10x11xf32> -> tensor<2x4x5x6x6xf32>
  %r = solder.pool avg %y kernel = [3, 2, 3] strides = [2, 2, 2] padding = [1, 1, 1] dilations = [1, 1, 1] ceil_mode {count_include_pad = false}
       : tensor<2x4x9x10x11xf32> -> tensor<2x4x5x6x6xf32>
  %t = solder.mul %r, %s : tensor<2x4x5x6x6xf32>, tensor<4x1x1x1xf32> -> tensor<2x4x5x6x6xf32>
  %u = solder.hardswish %t : tensor<2x4x5x6x6xf32>
  return %p, %q, %u : tensor<3x5x10xf32>, tensor<2x4x5x6x6xf32>, tensor<2x4x5x6x6xf32>
}
