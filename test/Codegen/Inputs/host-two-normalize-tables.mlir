// Two group_normalize in a thread-per-output reduction, each with its
// (scale, shift) table in shared memory: the first on batch-wide statistics
// (a table of 16 channels), the second per sample (two samples' worth). A
// sample has 15 x 20 = 300 outputs, so blocks of 256 straddle samples.
func.func @two_tables(%x: tensor<8x16x15x20xf32>, %batch: tensor<1x4x2xf32>,
                      %stats: tensor<8x4x2xf32>, %w: tensor<16xf32>)
    -> tensor<8x1x15x20xf32> {
  %a = solder.group_normalize %x, %batch
       : (tensor<8x16x15x20xf32>, tensor<1x4x2xf32>) -> tensor<8x16x15x20xf32>
  %b = solder.group_normalize %a, %stats weight = %w
       : (tensor<8x16x15x20xf32>, tensor<8x4x2xf32>, tensor<16xf32>) -> tensor<8x16x15x20xf32>
  %out = solder.reduce logsumexp %b dims = [1] keepdim
       : tensor<8x16x15x20xf32> -> tensor<8x1x15x20xf32>
  return %out : tensor<8x1x15x20xf32>
}
