// W1's chain (Conv3d -> GroupNorm -> mean) with 2048 samples: the mean's
// last kernel runs a thread per output, in chunks.
func.func @w1_many(%x: tensor<2048x3x4x4x4xf32>, %w: tensor<6x3x3x3x3xf32>, %b: tensor<6xf32>,
                   %g: tensor<6xf32>, %beta: tensor<6xf32>) -> tensor<2048xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<2048x3x4x4x4xf32>, tensor<6x3x3x3x3xf32>, tensor<6xf32>) -> tensor<2048x6x2x2x2xf32>
  %n = solder.group_norm %y weight = %g bias = %beta num_groups = 2 epsilon = 1.0e-05
       : (tensor<2048x6x2x2x2xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2048x6x2x2x2xf32>
  %m = solder.reduce mean %n dims = [1, 2, 3, 4] : tensor<2048x6x2x2x2xf32> -> tensor<2048xf32>
  return %m : tensor<2048xf32>
}
