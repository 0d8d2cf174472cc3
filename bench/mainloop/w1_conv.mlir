// Main-loop microbenchmark: W1's Conv3d alone (3 -> 24, kernel 3).
func.func @w1_conv(%x: tensor<128x3x24x32x32xf32>, %w: tensor<24x3x3x3x3xf32>) -> tensor<128x24x22x30x30xf32> {
  %y = solder.conv %x, %w strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<128x3x24x32x32xf32>, tensor<24x3x3x3x3xf32>) -> tensor<128x24x22x30x30xf32>
  return %y : tensor<128x24x22x30x30xf32>
}
