// Conv1d(8 -> 16, k3, dilation 2, groups 4, padding 2) -> GELU -> mean over the length.
func.func @conv1d_dilated_grouped_gelu_mean(%x: tensor<16x8x300xf32>, %w: tensor<16x2x3xf32>,
    %b: tensor<16xf32>) -> tensor<16x16x1xf32> {
  %y = solder.conv %x, %w, %b strides = [1] padding = [2] dilations = [2] groups = 4
       : (tensor<16x8x300xf32>, tensor<16x2x3xf32>, tensor<16xf32>) -> tensor<16x16x300xf32>
  %a = solder.gelu %y : tensor<16x16x300xf32>
  %m = solder.reduce mean %a dims = [2] keepdim : tensor<16x16x300xf32> -> tensor<16x16x1xf32>
  return %m : tensor<16x16x1xf32>
}
