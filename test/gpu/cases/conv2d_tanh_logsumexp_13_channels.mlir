// Conv2d(5 -> 13, k3, padding 1) -> tanh -> logsumexp over the 13 channels:
// the direct conv on tensor cores (one TF32 product in tf32: no sum or mean
// downstream), 13 channels (a channel tile padded to 16), and a
// one-thread-per-output reduction whose 13 elements end in a ragged chunk.
func.func @conv2d_tanh_logsumexp_13_channels(%x: tensor<4x5x33x40xf32>, %w: tensor<13x5x3x3xf32>,
    %b: tensor<13xf32>) -> tensor<4x1x33x40xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<4x5x33x40xf32>, tensor<13x5x3x3xf32>, tensor<13xf32>) -> tensor<4x13x33x40xf32>
  %t = solder.tanh %y : tensor<4x13x33x40xf32>
  %l = solder.reduce logsumexp %t dims = [1] keepdim : tensor<4x13x33x40xf32> -> tensor<4x1x33x40xf32>
  return %l : tensor<4x1x33x40xf32>
}
