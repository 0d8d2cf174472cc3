// Two-pass patterns whose reduction region also yields an elementwise
// tensor: softmax over a conv3d's 13 channels (its exponentials stored by
// the region that sums them), a LayerNorm over the last dim only (the
// centered values stored by the region that reduces their squares), and a
// max-pool whose GroupNorm statistics the pool's own region computes.
func.func @conv3d_softmax_layernorm_pool_groupnorm(
    %x: tensor<3x5x9x11x21xf32>, %w: tensor<13x5x3x3x3xf32>, %b: tensor<13xf32>,
    %gamma: tensor<19xf32>, %beta: tensor<19xf32>,
    %gn_gamma: tensor<13xf32>, %gn_beta: tensor<13xf32>)
    -> (tensor<3x13x7x9x19xf32>, tensor<3x13x7x9x19xf32>, tensor<3x13x3x4x9xf32>) {
  %y = solder.conv %x, %w, %b strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<3x5x9x11x21xf32>, tensor<13x5x3x3x3xf32>, tensor<13xf32>) -> tensor<3x13x7x9x19xf32>
  %s = solder.softmax %y dim = 1 : tensor<3x13x7x9x19xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %s2 = solder.mul %s, %two : tensor<3x13x7x9x19xf32>, tensor<f32> -> tensor<3x13x7x9x19xf32>
  %l = solder.layer_norm %y weight = %gamma bias = %beta normalized_shape = [19] epsilon = 1.0e-05
       : (tensor<3x13x7x9x19xf32>, tensor<19xf32>, tensor<19xf32>) -> tensor<3x13x7x9x19xf32>
  %t = solder.tanh %y : tensor<3x13x7x9x19xf32>
  %p = solder.pool max %t kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0] dilations = [1, 1, 1]
       : tensor<3x13x7x9x19xf32> -> tensor<3x13x3x4x9xf32>
  %n = solder.group_norm %p weight = %gn_gamma bias = %gn_beta num_groups = 1 epsilon = 1.0e-05
       : (tensor<3x13x3x4x9xf32>, tensor<13xf32>, tensor<13xf32>) -> tensor<3x13x3x4x9xf32>
  return %s2, %l, %n : tensor<3x13x7x9x19xf32>, tensor<3x13x7x9x19xf32>, tensor<3x13x3x4x9xf32>
}
