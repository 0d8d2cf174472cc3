// A MobileNetV2 inverted residual (eval BatchNorm as scale and shift) on a
// caller's channels-last input, returned channels-last. The 1x1 expand
// reads %x as it is and stores its ReLU6'd result NCDHW for the depthwise
// conv (whose loop stages an NCDHW window faster than an NDHWC one); the
// depthwise result is stored channels-last for the 1x1 project, whose
// epilogue adds %x (read NDHWC) and stores the output channels-last.
// 2x24x13x19: 494 pixels, ragged tiles; 96 expanded channels.
func.func @inverted_residual_channels_last(%x: tensor<2x24x13x19xf32> {solder.channels_last},
    %w1: tensor<96x24x1x1xf32>, %s1: tensor<96x1x1xf32>, %b1: tensor<96x1x1xf32>,
    %wd: tensor<96x1x3x3xf32>, %s2: tensor<96x1x1xf32>, %b2: tensor<96x1x1xf32>,
    %w3: tensor<24x96x1x1xf32>, %s3: tensor<24x1x1xf32>, %b3: tensor<24x1x1xf32>)
    -> (tensor<2x24x13x19xf32> {solder.channels_last}) {
  %e = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x24x13x19xf32>, tensor<96x24x1x1xf32>) -> tensor<2x96x13x19xf32>
  %e1 = solder.mul %e, %s1 : tensor<2x96x13x19xf32>, tensor<96x1x1xf32> -> tensor<2x96x13x19xf32>
  %e2 = solder.add %e1, %b1 : tensor<2x96x13x19xf32>, tensor<96x1x1xf32> -> tensor<2x96x13x19xf32>
  %e3 = solder.clamp %e2 {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<2x96x13x19xf32>
  %d = solder.conv %e3, %wd strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 96
       : (tensor<2x96x13x19xf32>, tensor<96x1x3x3xf32>) -> tensor<2x96x13x19xf32>
  %d1 = solder.mul %d, %s2 : tensor<2x96x13x19xf32>, tensor<96x1x1xf32> -> tensor<2x96x13x19xf32>
  %d2 = solder.add %d1, %b2 : tensor<2x96x13x19xf32>, tensor<96x1x1xf32> -> tensor<2x96x13x19xf32>
  %d3 = solder.clamp %d2 {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<2x96x13x19xf32>
  %p = solder.conv %d3, %w3 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x96x13x19xf32>, tensor<24x96x1x1xf32>) -> tensor<2x24x13x19xf32>
  %p1 = solder.mul %p, %s3 : tensor<2x24x13x19xf32>, tensor<24x1x1xf32> -> tensor<2x24x13x19xf32>
  %p2 = solder.add %p1, %b3 : tensor<2x24x13x19xf32>, tensor<24x1x1xf32> -> tensor<2x24x13x19xf32>
  %y = solder.add %p2, %x : tensor<2x24x13x19xf32>
  return %y : tensor<2x24x13x19xf32>
}
