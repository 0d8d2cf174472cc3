// Conv3d(4 -> 8, k3, padding 1) -> * per-channel scale -> LeakyReLU(0.2) -> clamp(-1, 1).
func.func @conv3d_scale_leakyrelu_clamp(%x: tensor<2x4x10x12x14xf32>, %w: tensor<8x4x3x3x3xf32>,
    %b: tensor<8xf32>, %scale: tensor<8x1x1x1xf32>) -> tensor<2x8x10x12x14xf32> {
  %y = solder.conv %x, %w, %b strides = [1, 1, 1] padding = [1, 1, 1] dilations = [1, 1, 1] groups = 1
       : (tensor<2x4x10x12x14xf32>, tensor<8x4x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x10x12x14xf32>
  %s = solder.mul %y, %scale : tensor<2x8x10x12x14xf32>, tensor<8x1x1x1xf32> -> tensor<2x8x10x12x14xf32>
  %l = solder.leaky_relu %s {alpha = 2.000000e-01 : f32} : tensor<2x8x10x12x14xf32>
  %c = solder.clamp %l {min = -1.000000e+00 : f32, max = 1.000000e+00 : f32} : tensor<2x8x10x12x14xf32>
  return %c : tensor<2x8x10x12x14xf32>
}
