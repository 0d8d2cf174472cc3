// An elementwise kernel with two results over 3 x 5 x 7 x 11 = 1155
// elements: one tile of 4 x 256 and a ragged second one; GroupNorm's
// normalize broadcasts per (sample, channel).
func.func @ragged_elementwise(%x: tensor<3x5x7x11xf32>, %stats: tensor<3x5x2xf32>)
    -> (tensor<3x5x7x11xf32>, tensor<3x5x7x11xf32>) {
  %n = solder.group_normalize %x, %stats
       : (tensor<3x5x7x11xf32>, tensor<3x5x2xf32>) -> tensor<3x5x7x11xf32>
  %s = solder.sigmoid %n : tensor<3x5x7x11xf32>
  %g = solder.gelu %x : tensor<3x5x7x11xf32>
  %m = solder.mul %s, %g : tensor<3x5x7x11xf32>
  return %s, %m : tensor<3x5x7x11xf32>, tensor<3x5x7x11xf32>
}
