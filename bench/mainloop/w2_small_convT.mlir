// Main-loop microbenchmark: W2 small's ConvTranspose3d alone.
func.func @w2_small_convT(%x: tensor<16x64x8x16x16xf32>, %w: tensor<64x128x3x3x3xf32>) -> tensor<16x128x10x18x18xf32> {
  %y = solder.conv_transpose %x, %w strides = [1, 1, 1] padding = [0, 0, 0] output_padding = [0, 0, 0]
       dilations = [1, 1, 1] groups = 1
       : (tensor<16x64x8x16x16xf32>, tensor<64x128x3x3x3xf32>) -> tensor<16x128x10x18x18xf32>
  return %y : tensor<16x128x10x18x18xf32>
}
