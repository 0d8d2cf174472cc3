// ConvTranspose2d(8 -> 12, k3, stride 2, padding 1, output_padding 1, groups 2)
// -> Sigmoid -> max over channels.
func.func @convtranspose2d_stride_outpad_groups_sigmoid_max(%x: tensor<4x8x15x17xf32>,
    %w: tensor<8x6x3x3xf32>, %b: tensor<12xf32>) -> tensor<4x30x34xf32> {
  %y = solder.conv_transpose %x, %w, %b strides = [2, 2] padding = [1, 1] output_padding = [1, 1]
         dilations = [1, 1] groups = 2
       : (tensor<4x8x15x17xf32>, tensor<8x6x3x3xf32>, tensor<12xf32>) -> tensor<4x12x30x34xf32>
  %s = solder.sigmoid %y : tensor<4x12x30x34xf32>
  %m = solder.reduce max %s dims = [1] : tensor<4x12x30x34xf32> -> tensor<4x30x34xf32>
  return %m : tensor<4x30x34xf32>
}
