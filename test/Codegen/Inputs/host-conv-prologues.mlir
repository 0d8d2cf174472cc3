// Conv prologues on the main loops that read PyTorch's layout, whose
// prologue kernel writes the input they read: a per-channel scale, shift
// and ReLU before a grouped, strided, padded conv (the FMA main loop), and
// a GroupNorm -> SiLU before a 3-channel padded conv (the direct conv;
// the padded border reads 0, not SiLU(shift)).
func.func @host_conv_prologues(%x: tensor<2x16x9x10xf32>, %scale: tensor<16x1x1xf32>,
    %shift: tensor<16x1x1xf32>, %wg: tensor<8x4x3x3xf32>,
    %img: tensor<2x3x11x13xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>,
    %wd: tensor<8x3x3x3xf32>, %bd: tensor<8xf32>)
    -> (tensor<2x8x5x5xf32>, tensor<2x8x11x13xf32>) {
  %m = solder.mul %x, %scale : tensor<2x16x9x10xf32>, tensor<16x1x1xf32> -> tensor<2x16x9x10xf32>
  %a = solder.add %m, %shift : tensor<2x16x9x10xf32>, tensor<16x1x1xf32> -> tensor<2x16x9x10xf32>
  %r = solder.relu %a : tensor<2x16x9x10xf32>
  %grouped = solder.conv %r, %wg strides = [2, 2] padding = [1, 1] dilations = [1, 1] groups = 4
        : (tensor<2x16x9x10xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x5x5xf32>
  %n = solder.group_norm %img weight = %g bias = %b num_groups = 1 epsilon = 1.0e-05
        : (tensor<2x3x11x13xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x11x13xf32>
  %s = solder.silu %n : tensor<2x3x11x13xf32>
  %direct = solder.conv %s, %wd, %bd strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
        : (tensor<2x3x11x13xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x11x13xf32>
  return %grouped, %direct : tensor<2x8x5x5xf32>, tensor<2x8x11x13xf32>
}
