// W3 at a reduced size.
func.func @small_w3(%x: tensor<2x8x20x20xf32>, %w: tensor<64x8x3x3xf32>, %b: tensor<64xf32>,
                    %g: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<2x1x18x18xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x8x20x20xf32>, tensor<64x8x3x3xf32>, tensor<64xf32>) -> tensor<2x64x18x18xf32>
  %n = solder.group_norm %y weight = %g bias = %beta num_groups = 16 epsilon = 1.0e-05
       : (tensor<2x64x18x18xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64x18x18xf32>
  %t = solder.tanh %n : tensor<2x64x18x18xf32>
  %z = solder.hardswish %t : tensor<2x64x18x18xf32>
  %s = solder.add %y, %z : tensor<2x64x18x18xf32>
  %o = solder.reduce logsumexp %s dims = [1] keepdim : tensor<2x64x18x18xf32> -> tensor<2x1x18x18xf32>
  return %o : tensor<2x1x18x18xf32>
}
