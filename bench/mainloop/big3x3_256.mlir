// Main-loop microbenchmark: a large 3x3 conv, 256 -> 256 channels, N = 64, 56 x 56, padding 1 (the anchors' first row).
func.func @big3x3_256(%x: tensor<64x256x56x56xf32>, %w: tensor<256x256x3x3xf32>) -> tensor<64x256x56x56xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<64x256x56x56xf32>, tensor<256x256x3x3xf32>) -> tensor<64x256x56x56xf32>
  return %y : tensor<64x256x56x56xf32>
}
