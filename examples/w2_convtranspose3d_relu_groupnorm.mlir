// W2 — ConvTranspose3d → ReLU → GroupNorm (../shared/workloads.md).
// x: (16, 64, 32, 32, 32); ConvTranspose3d(64 → 128, kernel 3, no bias); ReLU;
// GroupNorm(8 groups, 128 channels, eps 1e-5, affine) → (16, 128, 34, 34, 34).
func.func @w2(%x: tensor<16x64x32x32x32xf32>,
              %conv_weight: tensor<64x128x3x3x3xf32> {solder.parameter},
              %norm_weight: tensor<128xf32> {solder.parameter},
              %norm_bias: tensor<128xf32> {solder.parameter})
    -> tensor<16x128x34x34x34xf32> {
  %y = solder.conv_transpose %x, %conv_weight strides = [1, 1, 1]
         padding = [0, 0, 0] output_padding = [0, 0, 0] dilations = [1, 1, 1]
         groups = 1
       : (tensor<16x64x32x32x32xf32>, tensor<64x128x3x3x3xf32>) -> tensor<16x128x34x34x34xf32>
  %r = solder.relu %y : tensor<16x128x34x34x34xf32>
  %out = solder.group_norm %r weight = %norm_weight bias = %norm_bias
           num_groups = 8 epsilon = 1.0e-05
       : (tensor<16x128x34x34x34xf32>, tensor<128xf32>, tensor<128xf32>)
         -> tensor<16x128x34x34x34xf32>
  return %out : tensor<16x128x34x34x34xf32>
}
