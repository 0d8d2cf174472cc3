// ConvTranspose3d(32 -> 32, kernel 3, stride 2, padding 1, output_padding
// 1, groups 2) -> ReLU -> mean over the spatial dims: 8 output phases of 1
// or 2 taps a dim, each run group by group on tensor cores (2 groups of
// 16 -> 16 channels, half of a 32-wide tile).
func.func @convtranspose3d_grouped_phases_tensorop_mean(%x: tensor<2x32x5x6x7xf32>,
    %w: tensor<32x16x3x3x3xf32>) -> tensor<2x32xf32> {
  %y = solder.conv_transpose %x, %w strides = [2, 2, 2] padding = [1, 1, 1]
         output_padding = [1, 1, 1] dilations = [1, 1, 1] groups = 2
       : (tensor<2x32x5x6x7xf32>, tensor<32x16x3x3x3xf32>) -> tensor<2x32x10x12x14xf32>
  %r = solder.relu %y : tensor<2x32x10x12x14xf32>
  %m = solder.reduce mean %r dims = [2, 3, 4] : tensor<2x32x10x12x14xf32> -> tensor<2x32xf32>
  return %m : tensor<2x32xf32>
}
