func.func @reshape(%x: tensor<2x3x4x4xf32>) -> tensor<2x2xf32> {
  %r = solder.relu %x : tensor<2x3x4x4xf32>
  %v = solder.reshape %r : tensor<2x3x4x4xf32> -> tensor<2x2x24xf32>
  %m = solder.reduce max %v dims = [2] : tensor<2x2x24xf32> -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}
