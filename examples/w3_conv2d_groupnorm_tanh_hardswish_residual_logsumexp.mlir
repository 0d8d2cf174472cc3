// W3 — Conv2d → GroupNorm → Tanh → HardSwish → residual add → LogSumExp
// (../shared/workloads.md). x: (128, 8, 128, 128); y = Conv2d(8 → 64, kernel 3,
// bias)(x); z = HardSwish(Tanh(GroupNorm(16 groups, 64 channels)(y)));
// out = logsumexp(y + z, dim=1, keepdim=True) → (128, 1, 126, 126).
func.func @w3(%x: tensor<128x8x128x128xf32>,
              %conv_weight: tensor<64x8x3x3xf32> {solder.parameter},
              %conv_bias: tensor<64xf32> {solder.parameter},
              %norm_weight: tensor<64xf32> {solder.parameter},
              %norm_bias: tensor<64xf32> {solder.parameter})
    -> tensor<128x1x126x126xf32> {
  %y = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1]
         padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<128x8x128x128xf32>, tensor<64x8x3x3xf32>, tensor<64xf32>)
         -> tensor<128x64x126x126xf32>
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 16 epsilon = 1.0e-05
       : (tensor<128x64x126x126xf32>, tensor<64xf32>, tensor<64xf32>)
         -> tensor<128x64x126x126xf32>
  %t = solder.tanh %n : tensor<128x64x126x126xf32>
  %z = solder.hardswish %t : tensor<128x64x126x126xf32>
  %s = solder.add %y, %z : tensor<128x64x126x126xf32>
  %out = solder.reduce logsumexp %s dims = [1] keepdim
       : tensor<128x64x126x126xf32> -> tensor<128x1x126x126xf32>
  return %out : tensor<128x1x126x126xf32>
}
