// A UNet ResnetBlock's conv at its deepest (8x8, 640 channels, batch 2)
// with GroupNorm and SiLU: on sm_90a the 180 K steps of each of its few
// tiles split into shares (split-K), and the last block of a tile adds
// them in a fixed order before the epilogue takes each sample's group
// statistics (a tile holds one sample's pixels).
func.func @conv2d_split_k_groupnorm_silu(%x: tensor<2x640x8x8xf32>,
    %w: tensor<640x640x3x3xf32>, %b: tensor<640xf32>,
    %g: tensor<640xf32>, %beta: tensor<640xf32>) -> tensor<2x640x8x8xf32> {
  %c = solder.conv %x, %w, %b strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<2x640x8x8xf32>, tensor<640x640x3x3xf32>, tensor<640xf32>) -> tensor<2x640x8x8xf32>
  %n = solder.group_norm %c weight = %g bias = %beta num_groups = 32 epsilon = 1.0e-05
       : (tensor<2x640x8x8xf32>, tensor<640xf32>, tensor<640xf32>) -> tensor<2x640x8x8xf32>
  %y = solder.silu %n : tensor<2x640x8x8xf32>
  return %y : tensor<2x640x8x8xf32>
}
