// ragged-channel-max.mlir with rows of 15 pixels (225 a plane): no tail of
// a multiple of 4 floats, so one output a thread, chunks of 8 channels, the
// last one ragged (3600 outputs).
func.func @ragged_channel_max_odd_rows(%x: tensor<16x13x15x15xf32>) -> tensor<16x1x15x15xf32> {
  %e = solder.exp %x : tensor<16x13x15x15xf32>
  %m = solder.reduce max %e dims = [1] keepdim : tensor<16x13x15x15xf32> -> tensor<16x1x15x15xf32>
  return %m : tensor<16x1x15x15xf32>
}
