// W2 small — W2 at the small input size (../shared/workloads.md).
// x: (16, 64, 8, 16, 16) → (16, 128, 10, 18, 18).
func.func @w2_small(%x: tensor<16x64x8x16x16xf32>,
                    %conv_weight: tensor<64x128x3x3x3xf32> {solder.parameter},
                    %norm_weight: tensor<128xf32> {solder.parameter},
                    %norm_bias: tensor<128xf32> {solder.parameter})
    -> tensor<16x128x10x18x18xf32> {
  %y = solder.conv_transpose %x, %conv_weight strides = [1, 1, 1]
         padding = [0, 0, 0] output_padding = [0, 0, 0] dilations = [1, 1, 1]
         groups = 1
       : (tensor<16x64x8x16x16xf32>, tensor<64x128x3x3x3xf32>) -> tensor<16x128x10x18x18xf32>
  %r = solder.relu %y : tensor<16x128x10x18x18xf32>
  %out = solder.group_norm %r weight = %norm_weight bias = %norm_bias
           num_groups = 8 epsilon = 1.0e-05
       : (tensor<16x128x10x18x18xf32>, tensor<128xf32>, tensor<128xf32>)
         -> tensor<16x128x10x18x18xf32>
  return %out : tensor<16x128x10x18x18xf32>
}
