// Two Linears as the importer writes them, 64 -> 32 -> 24 features over
// 8192 rows (too many to run a row at a time: isRowConv), ReLU between them
// in the first one's epilogue: neither pads a channel or has a prologue, so
// both read their rows and weights as they are.
func.func @gemm_rows_as_is(%x: tensor<8192x64x1xf32>, %w1: tensor<32x64x1xf32>,
    %w2: tensor<24x32x1xf32>) -> tensor<8192x24x1xf32> {
  %h = solder.conv %x, %w1 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<8192x64x1xf32>, tensor<32x64x1xf32>) -> tensor<8192x32x1xf32>
  %r = solder.relu %h : tensor<8192x32x1xf32>
  %y = solder.conv %r, %w2 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<8192x32x1xf32>, tensor<24x32x1xf32>) -> tensor<8192x24x1xf32>
  return %y : tensor<8192x24x1xf32>
}
