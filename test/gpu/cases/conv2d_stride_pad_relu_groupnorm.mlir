// Conv2d(6 -> 20, k5, stride 2, padding 2) -> ReLU -> GroupNorm(5 groups).
func.func @conv2d_stride_pad_relu_groupnorm(%x: tensor<8x6x33x31xf32>, %w: tensor<20x6x5x5xf32>,
    %b: tensor<20xf32>, %g: tensor<20xf32>, %beta: tensor<20xf32>) -> tensor<8x20x17x16xf32> {
  %y = solder.conv %x, %w, %b strides = [2, 2] padding = [2, 2] dilations = [1, 1] groups = 1
       : (tensor<8x6x33x31xf32>, tensor<20x6x5x5xf32>, tensor<20xf32>) -> tensor<8x20x17x16xf32>
  %r = solder.relu %y : tensor<8x20x17x16xf32>
  %n = solder.group_norm %r weight = %g bias = %beta num_groups = 5 epsilon = 1.0e-05
       : (tensor<8x20x17x16xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<8x20x17x16xf32>
  return %n : tensor<8x20x17x16xf32>
}
