// Main-loop microbenchmark: ConvNeXt's depthwise 7x7 (96 channels, padding
// 3) alone on 32x96x56x56.
func.func @dw7x7_96(%x: tensor<32x96x56x56xf32>, %w: tensor<96x1x7x7xf32>) -> tensor<32x96x56x56xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [3, 3] dilations = [1, 1] groups = 96
       : (tensor<32x96x56x56xf32>, tensor<96x1x7x7xf32>) -> tensor<32x96x56x56xf32>
  return %y : tensor<32x96x56x56xf32>
}
