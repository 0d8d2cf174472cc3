// A 3x3 conv of 256 -> 256 channels (72 K steps) with bias and SiLU at
// batch 16, 56x56: on sm_90a its tiles run across the samples (a long
// reduction pays its MMAs for every row): 392 tiles of 128 pixels, a
// tile's rows running on from one sample into the next, where a sample a
// tile made 400 (each sample's 25th half empty).
func.func @conv2d_long_reduction_across_bias_silu(%x: tensor<16x256x56x56xf32>,
    %w: tensor<256x256x3x3xf32>, %b: tensor<256x1x1xf32>) -> tensor<16x256x56x56xf32> {
  %c = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<16x256x56x56xf32>, tensor<256x256x3x3xf32>) -> tensor<16x256x56x56xf32>
  %a = solder.add %c, %b : tensor<16x256x56x56xf32>, tensor<256x1x1xf32> -> tensor<16x256x56x56xf32>
  %y = solder.silu %a : tensor<16x256x56x56xf32>
  return %y : tensor<16x256x56x56xf32>
}
