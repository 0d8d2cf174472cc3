// Conv2d(3 -> 80, k3, padding 1, dilation 2) -> sigmoid -> mean over H, W:
// the direct conv on tensor cores with two channel tiles (64 + 16), a dilated
// window with padding, and rows of 35 pixels (tiles not a multiple of 16).
func.func @conv2d_dilated_wide_sigmoid_mean(%x: tensor<2x3x20x37xf32>, %w: tensor<80x3x3x3xf32>,
    %b: tensor<80xf32>) -> tensor<2x80xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1] padding = [1, 1] dilations = [2, 2] groups = 1
       : (tensor<2x3x20x37xf32>, tensor<80x3x3x3xf32>, tensor<80xf32>) -> tensor<2x80x18x35xf32>
  %s = solder.sigmoid %y : tensor<2x80x18x35xf32>
  %m = solder.reduce mean %s dims = [2, 3] : tensor<2x80x18x35xf32> -> tensor<2x80xf32>
  return %m : tensor<2x80xf32>
}
