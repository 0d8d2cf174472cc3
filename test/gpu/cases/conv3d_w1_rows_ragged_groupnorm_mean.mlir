// W1's rows (32 wide: whole 16-byte copies a thread column, each thread one
// row height of every other input plane) with a ragged last row tile whose
// window runs two rows past the input (17 output rows, 6 a tile).
func.func @conv3d_w1_rows_ragged_groupnorm_mean(%x: tensor<2x3x5x19x32xf32>, %w: tensor<24x3x3x3x3xf32>,
                    %b: tensor<24xf32>, %g: tensor<24xf32>, %beta: tensor<24xf32>) -> tensor<2xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<2x3x5x19x32xf32>, tensor<24x3x3x3x3xf32>, tensor<24xf32>) -> tensor<2x24x3x17x30xf32>
  %n = solder.group_norm %y weight = %g bias = %beta num_groups = 8 epsilon = 1.0e-05
       : (tensor<2x24x3x17x30xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<2x24x3x17x30xf32>
  %m = solder.reduce mean %n dims = [1, 2, 3, 4] : tensor<2x24x3x17x30xf32> -> tensor<2xf32>
  return %m : tensor<2xf32>
}
