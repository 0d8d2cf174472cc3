// A depthwise conv (multiplier 2, stride 2) on a caller's channels-last
// input: its main loop stages the NDHWC windows as they are (a warp's
// lanes along a position's channels), no conversion first. 2x24x11x13:
// 48 output channels in tiles of 32, a ragged one; ragged rows of tiles.
func.func @depthwise2d_channels_last_input_multiplier_gelu(
    %x: tensor<2x24x11x13xf32> {solder.channels_last}, %w: tensor<48x1x3x3xf32>,
    %scale: tensor<48x1x1xf32>, %shift: tensor<48x1x1xf32>) -> tensor<2x48x6x7xf32> {
  %c = solder.conv %x, %w strides = [2, 2] padding = [1, 1] dilations = [1, 1] groups = 24
       : (tensor<2x24x11x13xf32>, tensor<48x1x3x3xf32>) -> tensor<2x48x6x7xf32>
  %s = solder.mul %c, %scale : tensor<2x48x6x7xf32>, tensor<48x1x1xf32> -> tensor<2x48x6x7xf32>
  %b = solder.add %s, %shift : tensor<2x48x6x7xf32>, tensor<48x1x1xf32> -> tensor<2x48x6x7xf32>
  %g = solder.gelu %b : tensor<2x48x6x7xf32>
  return %g : tensor<2x48x6x7xf32>
}
