// Rows of consecutive elements, more than 2048 of them: a warp per output,
// for each accumulator. LayerNorm's statistics over 2050 rows of 70
// features (chunks of 2 loads a lane: one whole step of 64, then a tail of
// 6; the last block's warps past the 2050th row leave at once); a sum of
// exp, a mean, a max, a min and a logsumexp over the last two dims of
// 2051 x 9 x 11 (99 elements a row), a product over 2049 rows of 64.
func.func @warp_rows(%x: tensor<2050x70x1xf32>, %y: tensor<2051x9x11xf32>,
    %z: tensor<2049x64xf32>)
    -> (tensor<2050x1x2xf32>, tensor<2051xf32>, tensor<2051xf32>, tensor<2051xf32>,
        tensor<2051xf32>, tensor<2051xf32>, tensor<2049xf32>) {
  %s = solder.group_stats %x num_groups = 1 epsilon = 1.0e-05
       : tensor<2050x70x1xf32> -> tensor<2050x1x2xf32>
  %e = solder.exp %y : tensor<2051x9x11xf32>
  %sum = solder.reduce sum %e dims = [1, 2] : tensor<2051x9x11xf32> -> tensor<2051xf32>
  %mean = solder.reduce mean %y dims = [1, 2] : tensor<2051x9x11xf32> -> tensor<2051xf32>
  %max = solder.reduce max %y dims = [1, 2] : tensor<2051x9x11xf32> -> tensor<2051xf32>
  %min = solder.reduce min %y dims = [1, 2] : tensor<2051x9x11xf32> -> tensor<2051xf32>
  %lse = solder.reduce logsumexp %y dims = [1, 2] : tensor<2051x9x11xf32> -> tensor<2051xf32>
  %prod = solder.reduce prod %z dims = [1] : tensor<2049x64xf32> -> tensor<2049xf32>
  return %s, %sum, %mean, %max, %min, %lse, %prod : tensor<2050x1x2xf32>, tensor<2051xf32>,
      tensor<2051xf32>, tensor<2051xf32>, tensor<2051xf32>, tensor<2051xf32>, tensor<2049xf32>
}
