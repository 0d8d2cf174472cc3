// padding='same' with even kernels: one zero more after each dim than
// before (PyTorch's convention), on each main loop's padding: 3 input
// channels with a 4x4 kernel (the direct conv), 16 channels in 4 groups
// with a 2x2 kernel (the FMA implicit GEMM), a 4x4 depthwise conv, and a
// 1-D conv with kernel 2 and dilation 3 (1 zero before, 2 after).
func.func @host_padding_high(%x: tensor<2x3x9x10xf32>, %w: tensor<8x3x4x4xf32>,
    %b: tensor<8xf32>, %y: tensor<2x16x7x6xf32>, %v: tensor<16x4x2x2xf32>,
    %d: tensor<16x1x4x4xf32>, %z: tensor<2x4x11xf32>, %u: tensor<5x4x2xf32>)
    -> (tensor<2x8x9x10xf32>, tensor<2x16x7x6xf32>, tensor<2x16x7x6xf32>,
        tensor<2x5x11xf32>) {
  %c = solder.conv %x, %w, %b strides = [1, 1] padding = [1, 1] padding_high = [2, 2] dilations = [1, 1] groups = 1
       : (tensor<2x3x9x10xf32>, tensor<8x3x4x4xf32>, tensor<8xf32>) -> tensor<2x8x9x10xf32>
  %r = solder.tanh %c : tensor<2x8x9x10xf32>
  %g = solder.conv %y, %v strides = [1, 1] padding = [0, 0] padding_high = [1, 1] dilations = [1, 1] groups = 4
       : (tensor<2x16x7x6xf32>, tensor<16x4x2x2xf32>) -> tensor<2x16x7x6xf32>
  %s = solder.sigmoid %g : tensor<2x16x7x6xf32>
  %e = solder.conv %y, %d strides = [1, 1] padding = [1, 1] padding_high = [2, 2] dilations = [1, 1] groups = 16
       : (tensor<2x16x7x6xf32>, tensor<16x1x4x4xf32>) -> tensor<2x16x7x6xf32>
  %l = solder.conv %z, %u strides = [1] padding = [1] padding_high = [2] dilations = [3] groups = 1
       : (tensor<2x4x11xf32>, tensor<5x4x2xf32>) -> tensor<2x5x11xf32>
  return %r, %s, %e, %l : tensor<2x8x9x10xf32>, tensor<2x16x7x6xf32>, tensor<2x16x7x6xf32>,
      tensor<2x5x11xf32>
}
