// ConvTranspose3d(32 -> 64, kernel 4, stride 2, padding 1, output_padding
// (1, 0, 1)) + bias -> GroupNorm(8) -> SiLU, the upsampling conv of the
// KernelBench LayerNorm chains at odd sizes: on sm_90a the Hopper main loop
// runs its 8 output phases, each a conv of stride 1 over its 2 x 2 x 2 taps
// (8 K steps of 32 channels) through an im2col map of its own, the phases'
// weight blocks rows of one tiled map; 5 x 6 x 7 -> 11 x 12 x 15 leaves
// ragged phases whose positions past the output the epilogue drops, and
// GroupNorm's statistics come from the phases' tile partials.
func.func @convtranspose3d_phases_wgmma_groupnorm_silu(%x: tensor<2x32x5x6x7xf32>,
    %w: tensor<32x64x4x4x4xf32>, %b: tensor<64xf32>, %gw: tensor<64xf32>, %gb: tensor<64xf32>)
    -> tensor<2x64x11x12x15xf32> {
  %y = solder.conv_transpose %x, %w, %b strides = [2, 2, 2] padding = [1, 1, 1]
         output_padding = [1, 0, 1] dilations = [1, 1, 1] groups = 1
       : (tensor<2x32x5x6x7xf32>, tensor<32x64x4x4x4xf32>, tensor<64xf32>) -> tensor<2x64x11x12x15xf32>
  %n = solder.group_norm %y weight = %gw bias = %gb num_groups = 8 epsilon = 1.0e-05
       : (tensor<2x64x11x12x15xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64x11x12x15xf32>
  %s = solder.silu %n : tensor<2x64x11x12x15xf32>
  return %s : tensor<2x64x11x12x15xf32>
}
