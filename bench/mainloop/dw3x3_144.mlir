// Main-loop microbenchmark: MobileNetV2's depthwise 3x3 (144 channels,
// padding 1) alone on 32x144x56x56.
func.func @dw3x3_144(%x: tensor<32x144x56x56xf32>, %w: tensor<144x1x3x3xf32>) -> tensor<32x144x56x56xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 144
       : (tensor<32x144x56x56xf32>, tensor<144x1x3x3xf32>) -> tensor<32x144x56x56xf32>
  return %y : tensor<32x144x56x56xf32>
}
