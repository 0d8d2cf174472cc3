// Views that regroup a computed tensor, as solder.reshape: no kernel, no
// copy; the kernel after a reshape reads the buffer the kernel before it
// stored. A conv's output regrouped into GroupNorm over (4, 2, 36) (the view
// merges channels with a spatial dim), the same output both returned and
// reshaped; pointwise work regrouped into a max-pool; a conv flattened into a
// Linear (a 1x1 conv over (N, C*H*W, 1)); and a reshape of an argument read
// by a reduction.
func.func @host_reshapes(%x: tensor<2x3x6x6xf32>, %w: tensor<8x3x3x3xf32>,
    %gamma: tensor<4xf32>, %beta: tensor<4xf32>, %fc: tensor<5x128x1xf32>,
    %z: tensor<3x4x10xf32>)
    -> (tensor<2x8x4x4xf32>, tensor<2x4x2x16xf32>, tensor<2x4x1x8xf32>,
        tensor<2x5x1xf32>, tensor<3x5xf32>) {
  %c = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x6x6xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x4x4xf32>
  %r = solder.relu %c : tensor<2x8x4x4xf32>
  %v = solder.reshape %r : tensor<2x8x4x4xf32> -> tensor<2x4x2x16xf32>
  %g = solder.group_norm %v weight = %gamma bias = %beta num_groups = 2 epsilon = 1.0e-05
       : (tensor<2x4x2x16xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x2x16xf32>
  %t = solder.tanh %g : tensor<2x4x2x16xf32>
  %p = solder.pool max %t kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<2x4x2x16xf32> -> tensor<2x4x1x8xf32>
  %flat = solder.reshape %r : tensor<2x8x4x4xf32> -> tensor<2x128x1xf32>
  %y = solder.conv %flat, %fc strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<2x128x1xf32>, tensor<5x128x1xf32>) -> tensor<2x5x1xf32>
  %zv = solder.reshape %z : tensor<3x4x10xf32> -> tensor<3x5x8xf32>
  %m = solder.reduce logsumexp %zv dims = [2] : tensor<3x5x8xf32> -> tensor<3x5xf32>
  return %r, %t, %p, %y, %m : tensor<2x8x4x4xf32>, tensor<2x4x2x16xf32>, tensor<2x4x1x8xf32>,
      tensor<2x5x1xf32>, tensor<3x5xf32>
}
