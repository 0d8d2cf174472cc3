// ConvTranspose3d(4 -> 6, kernel (3, 2, 3), strides (2, 3, 1), padding
// (1, 0, 1), output_padding (1, 2, 0), dilation (1, 1, 2)) -> GroupNorm(3)
// -> relu: the FMA fallback splits the output into 2 x 3 phases, each
// reducing over its valid taps only (no products with the zeros between
// strided inputs), its tiles' statistics merged by the finalize.
func.func @convtranspose3d_mixed_strides_groupnorm(%x: tensor<2x4x3x4x5xf32>,
    %w: tensor<4x6x3x2x3xf32>, %gw: tensor<6xf32>, %gb: tensor<6xf32>)
    -> tensor<2x6x6x13x7xf32> {
  %y = solder.conv_transpose %x, %w strides = [2, 3, 1] padding = [1, 0, 1]
         output_padding = [1, 2, 0] dilations = [1, 1, 2] groups = 1
       : (tensor<2x4x3x4x5xf32>, tensor<4x6x3x2x3xf32>) -> tensor<2x6x6x13x7xf32>
  %n = solder.group_norm %y weight = %gw bias = %gb num_groups = 3 epsilon = 1.0e-05
       : (tensor<2x6x6x13x7xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x6x13x7xf32>
  %r = solder.relu %n : tensor<2x6x6x13x7xf32>
  return %r : tensor<2x6x6x13x7xf32>
}
