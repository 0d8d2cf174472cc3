func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = solder.relu %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
