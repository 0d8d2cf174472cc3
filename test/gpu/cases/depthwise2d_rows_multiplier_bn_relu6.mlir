// MobileNet's depthwise conv with eval BatchNorm, on whole-row tiles:
// Conv2d(6 -> 12, k3, padding 1, groups 6) + bias -> * scale + shift ->
// ReLU6. 12 output channels of a 32-channel tile (ragged: the visit's
// guarded path), each over its group's input channel (multiplier 2); full
// channel pairs take the unguarded visit, which loads a channel's bias,
// scale and shift once.
func.func @depthwise2d_rows_multiplier_bn_relu6(%x: tensor<2x6x8x16xf32>,
    %w: tensor<12x1x3x3xf32>, %b: tensor<12xf32>, %scale: tensor<12x1x1xf32>,
    %shift: tensor<12x1x1xf32>) -> tensor<2x12x8x16xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 6
       : (tensor<2x6x8x16xf32>, tensor<12x1x3x3xf32>, tensor<12xf32>) -> tensor<2x12x8x16xf32>
  %s = solder.mul %y, %scale : tensor<2x12x8x16xf32>, tensor<12x1x1xf32> -> tensor<2x12x8x16xf32>
  %t = solder.add %s, %shift : tensor<2x12x8x16xf32>, tensor<12x1x1xf32> -> tensor<2x12x8x16xf32>
  %c = solder.clamp %t {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<2x12x8x16xf32>
  return %c : tensor<2x12x8x16xf32>
}
