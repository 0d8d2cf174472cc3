// Main-loop microbenchmark: W2's ConvTranspose3d alone (64 -> 128, kernel 3, stride 1).
func.func @w2_convT(%x: tensor<16x64x32x32x32xf32>, %w: tensor<64x128x3x3x3xf32>) -> tensor<16x128x34x34x34xf32> {
  %y = solder.conv_transpose %x, %w strides = [1, 1, 1] padding = [0, 0, 0] output_padding = [0, 0, 0]
       dilations = [1, 1, 1] groups = 1
       : (tensor<16x64x32x32x32xf32>, tensor<64x128x3x3x3xf32>) -> tensor<16x128x34x34x34xf32>
  return %y : tensor<16x128x34x34x34xf32>
}
