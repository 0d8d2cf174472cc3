// A 3-d depthwise conv, dilated: Conv3d(12 -> 12, k (3, 3, 3), padding (1,
// 2, 1), dilation (1, 2, 1), groups 12) -> GroupNorm(3) -> mean over the
// spatial dims. On the depthwise main loop, its window spanning planes,
// tiles of 5 x 10 positions of a plane (6 a sample: the statistics through
// 6 partials).
func.func @depthwise3d_dilated_groupnorm_mean(%x: tensor<2x12x3x10x10xf32>,
    %w: tensor<12x1x3x3x3xf32>, %gw: tensor<12xf32>, %gb: tensor<12xf32>)
    -> tensor<2x12x1x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1, 1] padding = [1, 2, 1] dilations = [1, 2, 1] groups = 12
       : (tensor<2x12x3x10x10xf32>, tensor<12x1x3x3x3xf32>) -> tensor<2x12x3x10x10xf32>
  %n = solder.group_norm %y weight = %gw bias = %gb num_groups = 3 epsilon = 1.0e-05
       : (tensor<2x12x3x10x10xf32>, tensor<12xf32>, tensor<12xf32>) -> tensor<2x12x3x10x10xf32>
  %m = solder.reduce mean %n dims = [2, 3, 4] keepdim : tensor<2x12x3x10x10xf32> -> tensor<2x12x1x1x1xf32>
  return %m : tensor<2x12x1x1x1xf32>
}
