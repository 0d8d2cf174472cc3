// GroupNorm(2 groups) over 1 x 8 x 128 x 128: 2 statistics of 65536
// elements, each reduced by 8 blocks of 256 threads whose shares the last
// of them merges (RegionLaunch's split reductions), then normalized.
func.func @split_stats(%x: tensor<1x8x128x128xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>)
    -> tensor<1x8x128x128xf32> {
  %n = solder.group_norm %x weight = %g bias = %b num_groups = 2 epsilon = 1.0e-05
       : (tensor<1x8x128x128xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x128x128xf32>
  return %n : tensor<1x8x128x128xf32>
}
