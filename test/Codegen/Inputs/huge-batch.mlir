// A batch beyond grid z's 65535 blocks.
func.func @huge_batch(%x: tensor<70000x8x4x4xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<70000x16x2x2xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<70000x8x4x4xf32>, tensor<16x8x3x3xf32>) -> tensor<70000x16x2x2xf32>
  return %y : tensor<70000x16x2x2xf32>
}
