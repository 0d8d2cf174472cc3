// Conv prologues on every main loop. A pre-activation ResnetBlock
// (GroupNorm(8) -> SiLU -> conv3x3 -> GroupNorm(8) -> SiLU -> conv3x3, plus
// the input): each norm and SiLU is applied as the tensor-core implicit
// GEMM converts its input, the second norm's statistics come from the first
// conv's epilogue, and the padded border reads 0, not SiLU(shift). A
// per-channel scale, shift and ReLU before a grouped conv (the FMA main
// loop) and before a 3-channel conv (the direct conv on tensor cores):
// their prologue kernels write the input these main loops read.
func.func @groupnorm_silu_conv_prologues(%x: tensor<2x64x20x20xf32>,
    %g1: tensor<64xf32>, %b1: tensor<64xf32>, %w1: tensor<64x64x3x3xf32>, %c1: tensor<64xf32>,
    %g2: tensor<64xf32>, %b2: tensor<64xf32>, %w2: tensor<64x64x3x3xf32>, %c2: tensor<64xf32>,
    %scale: tensor<64x1x1xf32>, %shift: tensor<64x1x1xf32>, %wg: tensor<32x16x3x3xf32>,
    %img: tensor<2x3x33x31xf32>, %iscale: tensor<3x1x1xf32>, %ishift: tensor<3x1x1xf32>,
    %wd: tensor<16x3x3x3xf32>)
    -> (tensor<2x64x20x20xf32>, tensor<2x32x10x10xf32>, tensor<2x16x33x31xf32>) {
  %n1 = solder.group_norm %x weight = %g1 bias = %b1 num_groups = 8 epsilon = 1.0e-05
        : (tensor<2x64x20x20xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64x20x20xf32>
  %s1 = solder.silu %n1 : tensor<2x64x20x20xf32>
  %h1 = solder.conv %s1, %w1, %c1 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
        : (tensor<2x64x20x20xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<2x64x20x20xf32>
  %n2 = solder.group_norm %h1 weight = %g2 bias = %b2 num_groups = 8 epsilon = 1.0e-05
        : (tensor<2x64x20x20xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64x20x20xf32>
  %s2 = solder.silu %n2 : tensor<2x64x20x20xf32>
  %h2 = solder.conv %s2, %w2, %c2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
        : (tensor<2x64x20x20xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<2x64x20x20xf32>
  %block = solder.add %x, %h2 : tensor<2x64x20x20xf32>
  %m = solder.mul %x, %scale : tensor<2x64x20x20xf32>, tensor<64x1x1xf32> -> tensor<2x64x20x20xf32>
  %a = solder.add %m, %shift : tensor<2x64x20x20xf32>, tensor<64x1x1xf32> -> tensor<2x64x20x20xf32>
  %r = solder.relu %a : tensor<2x64x20x20xf32>
  %grouped = solder.conv %r, %wg strides = [2, 2] padding = [1, 1] dilations = [1, 1] groups = 4
        : (tensor<2x64x20x20xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x10x10xf32>
  %im = solder.mul %img, %iscale : tensor<2x3x33x31xf32>, tensor<3x1x1xf32> -> tensor<2x3x33x31xf32>
  %ia = solder.add %im, %ishift : tensor<2x3x33x31xf32>, tensor<3x1x1xf32> -> tensor<2x3x33x31xf32>
  %direct = solder.conv %ia, %wd strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
        : (tensor<2x3x33x31xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x33x31xf32>
  return %block, %grouped, %direct : tensor<2x64x20x20xf32>, tensor<2x32x10x10xf32>, tensor<2x16x33x31xf32>
}
