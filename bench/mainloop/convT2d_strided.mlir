// Main-loop microbenchmark: KernelBench's ConvTranspose2d alone (64 -> 128,
// kernel 4, stride 2, padding 1) on 32x64x64x64: 4 output phases of 2 x 2
// taps each, a conv of stride 1 apiece.
func.func @convT2d_strided(%x: tensor<32x64x64x64xf32>, %w: tensor<64x128x4x4xf32>) -> tensor<32x128x128x128xf32> {
  %y = solder.conv_transpose %x, %w strides = [2, 2] padding = [1, 1] output_padding = [0, 0]
       dilations = [1, 1] groups = 1
       : (tensor<32x64x64x64xf32>, tensor<64x128x4x4xf32>) -> tensor<32x128x128x128xf32>
  return %y : tensor<32x128x128x128xf32>
}
