// ConvTranspose2d(20 -> 24, kernel 4, stride 2, padding 1, output_padding 1)
// + bias -> GroupNorm(4) -> SiLU, the KernelBench shape of an upsampling
// conv at odd sizes: on tensor cores as 4 output phases, each a conv of
// stride 1 over its 2 x 2 taps (its own CUTLASS problem and weight block),
// the phases' tiles (13 x 11 -> 27 x 23: ragged phases) feeding GroupNorm's
// statistics through the partials.
func.func @convtranspose2d_phases_tensorop_groupnorm_silu(%x: tensor<3x20x13x11xf32>,
    %w: tensor<20x24x4x4xf32>, %b: tensor<24xf32>, %gw: tensor<24xf32>, %gb: tensor<24xf32>)
    -> tensor<3x24x27x23xf32> {
  %y = solder.conv_transpose %x, %w, %b strides = [2, 2] padding = [1, 1]
         output_padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<3x20x13x11xf32>, tensor<20x24x4x4xf32>, tensor<24xf32>) -> tensor<3x24x27x23xf32>
  %n = solder.group_norm %y weight = %gw bias = %gb num_groups = 4 epsilon = 1.0e-05
       : (tensor<3x24x27x23xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<3x24x27x23xf32>
  %s = solder.silu %n : tensor<3x24x27x23xf32>
  return %s : tensor<3x24x27x23xf32>
}
