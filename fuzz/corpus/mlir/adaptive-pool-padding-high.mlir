func.func @adaptive_pool_padding_high(%x: tensor<2x3x7x6xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<2x4x3x4xf32> {
  %c = solder.conv %x, %w strides = [1, 1] padding = [0, 0] padding_high = [1, 1] dilations = [1, 1] groups = 1 : (tensor<2x3x7x6xf32>, tensor<4x3x2x2xf32>) -> tensor<2x4x7x6xf32>
  %p = solder.adaptive_pool avg %c : tensor<2x4x7x6xf32> -> tensor<2x4x3x4xf32>
  return %p : tensor<2x4x3x4xf32>
}
