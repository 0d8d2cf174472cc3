// MobileNet's depthwise conv with a channel multiplier: Conv2d(6 -> 18,
// k3, stride 2, padding 1, groups 6) + bias -> * per-channel scale (eval
// BatchNorm) -> ReLU6 (clamp 0, 6). On the depthwise main loop, one tile
// of 7 x 6 positions a plane, 32 channels a block (18: a ragged channel
// tile), each output channel over its group's one input channel; 13 x 11
// -> 7 x 6, the stride's last column padded.
func.func @depthwise2d_multiplier_stride_scale_relu6(%x: tensor<3x6x13x11xf32>,
    %w: tensor<18x1x3x3xf32>, %b: tensor<18xf32>, %scale: tensor<18x1x1xf32>)
    -> tensor<3x18x7x6xf32> {
  %y = solder.conv %x, %w, %b strides = [2, 2] padding = [1, 1] dilations = [1, 1] groups = 6
       : (tensor<3x6x13x11xf32>, tensor<18x1x3x3xf32>, tensor<18xf32>) -> tensor<3x18x7x6xf32>
  %s = solder.mul %y, %scale : tensor<3x18x7x6xf32>, tensor<18x1x1xf32> -> tensor<3x18x7x6xf32>
  %c = solder.clamp %s {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<3x18x7x6xf32>
  return %c : tensor<3x18x7x6xf32>
}
