// Training BatchNorm's statistics over 2 x 8 x 1536 x 1536 (18.9M elements
// a channel, past a float count's 2^24): the reduction kernel keeps them in
// double.
func.func @batchnorm_stats(%x: tensor<8x2x1536x1536xf32>) -> tensor<1x2x2xf32> {
  %s = solder.group_stats %x num_groups = 2 epsilon = 1.0e-05 across_batch
       : tensor<8x2x1536x1536xf32> -> tensor<1x2x2xf32>
  return %s : tensor<1x2x2xf32>
}
