// A reshape of a constant: no kernel stores the constant, so there is no
// storage for the reshape to share.
func.func @reshape_of_constant(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = arith.constant dense<1.0> : tensor<8xf32>
  %v = solder.reshape %c : tensor<8xf32> -> tensor<2x4xf32>
  %y = solder.add %x, %v : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
