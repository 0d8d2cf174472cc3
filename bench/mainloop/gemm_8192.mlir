// Main-loop microbenchmark: a GEMM 8192 x 8192 x 8192 as the importer writes a bias-free Linear (a 1x1 conv over (rows, features, 1), its rows the tiles' pixels).
func.func @gemm_8192(%x: tensor<8192x8192x1xf32>, %w: tensor<8192x8192x1xf32>) -> tensor<8192x8192x1xf32> {
  %y = solder.conv %x, %w strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<8192x8192x1xf32>, tensor<8192x8192x1xf32>) -> tensor<8192x8192x1xf32>
  return %y : tensor<8192x8192x1xf32>
}
