// W1 at a reduced size (sanitizer runs and the x + 1000 case).
func.func @small_w1(%x: tensor<4x3x6x10x10xf32>, %w: tensor<24x3x3x3x3xf32>, %b: tensor<24xf32>,
                    %g: tensor<24xf32>, %beta: tensor<24xf32>) -> tensor<4xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1, 1] padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<4x3x6x10x10xf32>, tensor<24x3x3x3x3xf32>, tensor<24xf32>) -> tensor<4x24x4x8x8xf32>
  %n = solder.group_norm %y weight = %g bias = %beta num_groups = 8 epsilon = 1.0e-05
       : (tensor<4x24x4x8x8xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<4x24x4x8x8xf32>
  %m = solder.reduce mean %n dims = [1, 2, 3, 4] : tensor<4x24x4x8x8xf32> -> tensor<4xf32>
  return %m : tensor<4xf32>
}
