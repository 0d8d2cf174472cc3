// A max over 13 channels, one thread per output (4096 outputs): chunks of 8,
// the last one ragged.
func.func @ragged_channel_max(%x: tensor<4x13x32x32xf32>) -> tensor<4x1x32x32xf32> {
  %e = solder.exp %x : tensor<4x13x32x32xf32>
  %m = solder.reduce max %e dims = [1] keepdim : tensor<4x13x32x32xf32> -> tensor<4x1x32x32xf32>
  return %m : tensor<4x1x32x32xf32>
}
