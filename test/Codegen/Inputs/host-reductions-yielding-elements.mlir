// Reduction regions that yield values of the reduced tensor's shape beside
// their reduction: softmax and log_softmax over the channels (ragged: 19 of
// them), softmax over a long spatial dim (a block per output), and a max-pool
// whose GroupNorm statistics the same region computes.
func.func @two_pass(%x: tensor<2x19x5x7xf32>, %y: tensor<3x4x600xf32>,
    %z: tensor<2x8x10x12xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>)
    -> (tensor<2x19x5x7xf32>, tensor<2x19x5x7xf32>, tensor<3x4x600xf32>, tensor<2x8x5x6xf32>) {
  %s = solder.softmax %x dim = 1 : tensor<2x19x5x7xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %a = solder.mul %s, %two : tensor<2x19x5x7xf32>, tensor<f32> -> tensor<2x19x5x7xf32>
  %t = solder.tanh %x : tensor<2x19x5x7xf32>
  %l = solder.log_softmax %t dim = 1 : tensor<2x19x5x7xf32>
  %e = solder.softmax %y dim = 2 : tensor<3x4x600xf32>
  %p = solder.pool max %z kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<2x8x10x12xf32> -> tensor<2x8x5x6xf32>
  %n = solder.group_norm %p weight = %gamma bias = %beta num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x5x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x5x6xf32>
  return %a, %l, %e, %n : tensor<2x19x5x7xf32>, tensor<2x19x5x7xf32>, tensor<3x4x600xf32>, tensor<2x8x5x6xf32>
}
