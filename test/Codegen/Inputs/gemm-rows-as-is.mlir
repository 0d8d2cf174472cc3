// Two Linears as the importer writes them, 32 -> 16 -> 8 features over 64
// rows, ReLU between them in the first one's epilogue: neither pads a
// channel or has a prologue, so both read their rows and weights as they are.
func.func @gemm_rows_as_is(%x: tensor<64x32x1xf32>, %w1: tensor<16x32x1xf32>,
    %w2: tensor<8x16x1xf32>) -> tensor<64x8x1xf32> {
  %h = solder.conv %x, %w1 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<64x32x1xf32>, tensor<16x32x1xf32>) -> tensor<64x16x1xf32>
  %r = solder.relu %h : tensor<64x16x1xf32>
  %y = solder.conv %r, %w2 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<64x16x1xf32>, tensor<8x16x1xf32>) -> tensor<64x8x1xf32>
  return %y : tensor<64x8x1xf32>
}
