// Conv2d(3 -> 13, k3, no bias) -> GroupNorm(1 group) -> mean: the direct
// conv on tensor cores hands the statistics' epilogue each tile's channel
// moments from registers. Rows of 36 pixels, 6 a tile: a ragged last row
// tile (5 of 11 rows), 8 warps whose last holds no pixel of a tile, a
// partial 16-row block, and 13 channels in a tile of 16.
func.func @conv2d_ragged_rows_groupnorm_mean(%x: tensor<2x3x13x38xf32>, %w: tensor<13x3x3x3xf32>,
    %g: tensor<13xf32>, %beta: tensor<13xf32>) -> tensor<2xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x13x38xf32>, tensor<13x3x3x3xf32>) -> tensor<2x13x11x36xf32>
  %n = solder.group_norm %y weight = %g bias = %beta num_groups = 1 epsilon = 1.0e-05
       : (tensor<2x13x11x36xf32>, tensor<13xf32>, tensor<13xf32>) -> tensor<2x13x11x36xf32>
  %m = solder.reduce mean %n dims = [1, 2, 3] : tensor<2x13x11x36xf32> -> tensor<2xf32>
  return %m : tensor<2xf32>
}
