// A pool of a reduce-and-apply row's values in the row's own kernel
// (poolsRowWindows), as KernelBench's ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU
// at a smaller size: LayerNorm over a conv_transpose's last dim (32: 4
// lanes a row, 8 rows a warp), avg_pool3d 2x2x2 (a window's 2x2 rows four
// consecutive segments of a warp) and GELU, the normalized tensor never
// stored; and softmax over a conv's last dim (16), returned, and max-pooled
// 2x2.
func.func @layernorm_lastdim_pool_gelu(
    %x: tensor<2x8x4x8x16xf32>, %w: tensor<8x16x3x3x3xf32>, %b: tensor<16xf32>,
    %shift: tensor<1xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>,
    %x2: tensor<2x4x10x18xf32>, %w2: tensor<6x4x3x3xf32>)
    -> (tensor<2x16x4x8x16xf32>, tensor<2x6x8x16xf32>, tensor<2x6x4x8xf32>) {
  %y = solder.conv_transpose %x, %w, %b strides = [2, 2, 2] padding = [1, 1, 1] output_padding = [1, 1, 1] dilations = [1, 1, 1] groups = 1
       : (tensor<2x8x4x8x16xf32>, tensor<8x16x3x3x3xf32>, tensor<16xf32>) -> tensor<2x16x8x16x32xf32>
  %s = solder.add %y, %shift : tensor<2x16x8x16x32xf32>, tensor<1xf32> -> tensor<2x16x8x16x32xf32>
  %n = solder.layer_norm %s weight = %gamma bias = %beta normalized_shape = [32] epsilon = 1.0e-05
       : (tensor<2x16x8x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x16x8x16x32xf32>
  %p = solder.pool avg %n kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0] dilations = [1, 1, 1]
       : tensor<2x16x8x16x32xf32> -> tensor<2x16x4x8x16xf32>
  %g = solder.gelu %p : tensor<2x16x4x8x16xf32>
  %c = solder.conv %x2, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x4x10x18xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x8x16xf32>
  %sm = solder.softmax %c dim = 3 : tensor<2x6x8x16xf32>
  %m = solder.pool max %sm kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<2x6x8x16xf32> -> tensor<2x6x4x8xf32>
  return %g, %sm, %m : tensor<2x16x4x8x16xf32>, tensor<2x6x8x16xf32>, tensor<2x6x4x8xf32>
}
