// An inverted residual's depthwise conv and project conv on rows cut into
// tiles: Conv2d(32 -> 32, k3, padding 1, groups 32) + bias -> * scale +
// shift -> ReLU6 -> Conv2d(32 -> 48, k1) + bias. The depthwise output is
// stored channels-last for the project conv's implicit GEMM, each thread a
// channel down a slice of the tile's positions; 7 x 81 positions in tiles
// of 41 columns (two a row, the second 40 wide): the whole tiles visited
// without a check a position, the ragged one with it.
func.func @depthwise2d_split_rows_channels_last_project(%x: tensor<2x32x7x81xf32>,
    %w: tensor<32x1x3x3xf32>, %b: tensor<32xf32>, %scale: tensor<32x1x1xf32>,
    %shift: tensor<32x1x1xf32>, %pw: tensor<48x32x1x1xf32>, %pb: tensor<48xf32>)
    -> tensor<2x48x7x81xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 32
       : (tensor<2x32x7x81xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<2x32x7x81xf32>
  %s = solder.mul %y, %scale : tensor<2x32x7x81xf32>, tensor<32x1x1xf32> -> tensor<2x32x7x81xf32>
  %t = solder.add %s, %shift : tensor<2x32x7x81xf32>, tensor<32x1x1xf32> -> tensor<2x32x7x81xf32>
  %c = solder.clamp %t {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<2x32x7x81xf32>
  %p = solder.conv %c, %pw, %pb strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x32x7x81xf32>, tensor<48x32x1x1xf32>, tensor<48xf32>) -> tensor<2x48x7x81xf32>
  return %p : tensor<2x48x7x81xf32>
}
