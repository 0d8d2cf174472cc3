// W3's tail on given statistics: GroupNorm's normalize, tanh, hardswish, the
// residual add and a logsumexp over 64 channels, one thread per output
// (2 x 32 x 40 = 2560 outputs) in chunks of 8.
func.func @w3_tail(%y: tensor<2x64x32x40xf32>, %stats: tensor<2x16x2xf32>,
                   %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x1x32x40xf32> {
  %n = solder.group_normalize %y, %stats weight = %w bias = %b
       : (tensor<2x64x32x40xf32>, tensor<2x16x2xf32>, tensor<64xf32>, tensor<64xf32>)
         -> tensor<2x64x32x40xf32>
  %t = solder.tanh %n : tensor<2x64x32x40xf32>
  %z = solder.hardswish %t : tensor<2x64x32x40xf32>
  %s = solder.add %y, %z : tensor<2x64x32x40xf32>
  %out = solder.reduce logsumexp %s dims = [1] keepdim
       : tensor<2x64x32x40xf32> -> tensor<2x1x32x40xf32>
  return %out : tensor<2x1x32x40xf32>
}
