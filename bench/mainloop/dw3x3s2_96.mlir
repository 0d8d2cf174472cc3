// Main-loop microbenchmark: MobileNetV2's strided depthwise 3x3 (96
// channels, stride 2, padding 1) alone on 32x96x112x112.
func.func @dw3x3s2_96(%x: tensor<32x96x112x112xf32>, %w: tensor<96x1x3x3xf32>) -> tensor<32x96x56x56xf32> {
  %y = solder.conv %x, %w strides = [2, 2] padding = [1, 1] dilations = [1, 1] groups = 96
       : (tensor<32x96x112x112xf32>, tensor<96x1x3x3xf32>) -> tensor<32x96x56x56xf32>
  return %y : tensor<32x96x56x56xf32>
}
