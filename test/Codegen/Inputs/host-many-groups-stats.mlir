// GroupNorm's statistics over 64 samples x 32 groups of 15 elements: 2048
// outputs, so one thread per (sample, group), chunks of 8, the second ragged.
func.func @many_groups_stats(%x: tensor<64x32x3x5xf32>) -> tensor<64x32x2xf32> {
  %s = solder.group_stats %x num_groups = 32 epsilon = 1.0e-05
       : tensor<64x32x3x5xf32> -> tensor<64x32x2xf32>
  return %s : tensor<64x32x2xf32>
}
