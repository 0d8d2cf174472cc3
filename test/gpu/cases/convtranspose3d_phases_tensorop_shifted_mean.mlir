// ConvTranspose3d(12 -> 16, kernel (3, 4, 3), strides (2, 2, 3), padding
// (1, 1, 1), output_padding (0, 1, 2), dilation (1, 1, 2)) -> ReLU -> mean
// over the spatial dims: 12 output phases on tensor cores, of 1 to 4 taps;
// along W one phase reads the input from position 1 on (its first output
// reads past input 0: a negative padding) and one is padded. Only the mean
// is returned: the epilogue visits the phases' tiles without storing them.
func.func @convtranspose3d_phases_tensorop_shifted_mean(%x: tensor<2x12x3x4x5xf32>,
    %w: tensor<12x16x3x4x3xf32>) -> tensor<2x16xf32> {
  %y = solder.conv_transpose %x, %w strides = [2, 2, 3] padding = [1, 1, 1]
         output_padding = [0, 1, 2] dilations = [1, 1, 2] groups = 1
       : (tensor<2x12x3x4x5xf32>, tensor<12x16x3x4x3xf32>) -> tensor<2x16x5x9x17xf32>
  %r = solder.relu %y : tensor<2x16x5x9x17xf32>
  %m = solder.reduce mean %r dims = [2, 3, 4] : tensor<2x16x5x9x17xf32> -> tensor<2x16xf32>
  return %m : tensor<2x16xf32>
}
