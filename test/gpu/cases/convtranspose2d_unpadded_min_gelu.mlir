// ConvTranspose2d(32 -> 16, kernel 4, stride 2, no padding) -> + 0.5 ->
// min(x, 0) -> GELU -> x2 (KernelBench's ConvTranspose2d_Add_Min_GELU_Multiply):
// 4 output phases of 17 x 17 positions each on tensor cores, the output 34
// wide, the tail in the epilogue.
func.func @convtranspose2d_unpadded_min_gelu(%x: tensor<4x32x16x16xf32>,
    %w: tensor<32x16x4x4xf32>, %b: tensor<16xf32>, %floor: tensor<f32>)
    -> tensor<4x16x34x34xf32> {
  %y = solder.conv_transpose %x, %w, %b strides = [2, 2] padding = [0, 0]
         output_padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<4x32x16x16xf32>, tensor<32x16x4x4xf32>, tensor<16xf32>) -> tensor<4x16x34x34xf32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %a = solder.add %y, %half : tensor<4x16x34x34xf32>, tensor<f32> -> tensor<4x16x34x34xf32>
  %m = solder.minimum %a, %floor : tensor<4x16x34x34xf32>, tensor<f32> -> tensor<4x16x34x34xf32>
  %g = solder.gelu %m : tensor<4x16x34x34xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %r = solder.mul %g, %two : tensor<4x16x34x34xf32>, tensor<f32> -> tensor<4x16x34x34xf32>
  return %r : tensor<4x16x34x34xf32>
}
