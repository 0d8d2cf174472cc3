// Main-loop microbenchmark: W3's Conv2d alone (8 -> 64, kernel 3).
func.func @w3_conv(%x: tensor<128x8x128x128xf32>, %w: tensor<64x8x3x3xf32>) -> tensor<128x64x126x126xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<128x8x128x128xf32>, tensor<64x8x3x3xf32>) -> tensor<128x64x126x126xf32>
  return %y : tensor<128x64x126x126xf32>
}
