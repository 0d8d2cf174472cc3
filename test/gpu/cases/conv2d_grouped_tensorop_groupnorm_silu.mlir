// ResNeXt-style: a 1x1 conv -> ReLU stored channels-last for a grouped 3x3
// conv (4 groups of 16 -> 24 channels, on tensor cores group by group: a
// ragged channel tile of 24 of 32 a group) that reads it as it is, then
// GroupNorm(8) -> SiLU, its statistics from the grouped conv's epilogue.
// Odd spatial extents (13 x 11) leave the last pixel tile ragged.
func.func @conv2d_grouped_tensorop_groupnorm_silu(%x: tensor<3x64x13x11xf32>,
    %w1: tensor<64x64x1x1xf32>, %w2: tensor<96x16x3x3xf32>, %b2: tensor<96xf32>,
    %g: tensor<96xf32>, %beta: tensor<96xf32>) -> tensor<3x96x13x11xf32> {
  %y = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<3x64x13x11xf32>, tensor<64x64x1x1xf32>) -> tensor<3x64x13x11xf32>
  %r = solder.relu %y : tensor<3x64x13x11xf32>
  %z = solder.conv %r, %w2, %b2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 4
       : (tensor<3x64x13x11xf32>, tensor<96x16x3x3xf32>, tensor<96xf32>) -> tensor<3x96x13x11xf32>
  %n = solder.group_norm %z weight = %g bias = %beta num_groups = 8 epsilon = 1.0e-05
       : (tensor<3x96x13x11xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<3x96x13x11xf32>
  %s = solder.silu %n : tensor<3x96x13x11xf32>
  return %s : tensor<3x96x13x11xf32>
}
