// ConvTranspose2d(3 -> 4, kernel 3, stride 2, dilation 2, output_padding 1)
// -> sigmoid -> mean over H, W: with dilation 2 every tap lands on even
// outputs, so the odd phases have no taps at all and hold the bias alone.
func.func @convtranspose2d_dilated_stride_sigmoid_mean(%x: tensor<2x3x5x5xf32>,
    %w: tensor<3x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = solder.conv_transpose %x, %w, %b strides = [2, 2] padding = [0, 0]
         output_padding = [1, 1] dilations = [2, 2] groups = 1
       : (tensor<2x3x5x5xf32>, tensor<3x4x3x3xf32>, tensor<4xf32>) -> tensor<2x4x14x14xf32>
  %s = solder.sigmoid %y : tensor<2x4x14x14xf32>
  %m = solder.reduce mean %s dims = [2, 3] : tensor<2x4x14x14xf32> -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}
