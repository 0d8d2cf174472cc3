func.func @chain(%x: tensor<2x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x1x4x4xf32> {
  %c = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x4x4xf32>
  %n = solder.group_norm %c weight = %g bias = %b num_groups = 2 epsilon = 1.0e-05 : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %t = solder.tanh %n : tensor<2x8x4x4xf32>
  %h = solder.hardtanh %t {min = -0.5 : f32, max = 0.5 : f32} : tensor<2x8x4x4xf32>
  %a = solder.add %c, %h : tensor<2x8x4x4xf32>
  %l = solder.reduce logsumexp %a dims = [1] keepdim : tensor<2x8x4x4xf32> -> tensor<2x1x4x4xf32>
  return %l : tensor<2x1x4x4xf32>
}
