// W1 — Conv3d → GroupNorm → mean (../shared/workloads.md).
// x: (128, 3, 24, 32, 32); Conv3d(3 → 24, kernel 3, bias); GroupNorm(8 groups,
// 24 channels, eps 1e-5, affine); mean over dims [1, 2, 3, 4] → (128,).
func.func @w1(%x: tensor<128x3x24x32x32xf32>,
              %conv_weight: tensor<24x3x3x3x3xf32> {solder.parameter},
              %conv_bias: tensor<24xf32> {solder.parameter},
              %norm_weight: tensor<24xf32> {solder.parameter},
              %norm_bias: tensor<24xf32> {solder.parameter})
    -> tensor<128xf32> {
  %y = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1, 1]
         padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<128x3x24x32x32xf32>, tensor<24x3x3x3x3xf32>, tensor<24xf32>)
         -> tensor<128x24x22x30x30xf32>
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 8 epsilon = 1.0e-05
       : (tensor<128x24x22x30x30xf32>, tensor<24xf32>, tensor<24xf32>)
         -> tensor<128x24x22x30x30xf32>
  %out = solder.reduce mean %n dims = [1, 2, 3, 4]
       : tensor<128x24x22x30x30xf32> -> tensor<128xf32>
  return %out : tensor<128xf32>
}
