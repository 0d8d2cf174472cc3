// ResNet's stem at a small size: conv 7x7/2 -> eval-mode BatchNorm (scale, shift) -> ReLU ->
// max-pool 3x3/2 padding 1; then pools in sequence and every pooling
// argument: avg 3x3/2 with ceil_mode and count_include_pad = false,
// avg 2x2 with a divisor_override, a dilated max-pool, and a pool followed
// by pointwise ops and a mean over the spatial dims.
func.func @conv2d_bn_relu_maxpool_avgpool_chain(%x: tensor<4x3x45x45xf32>,
    %w: tensor<16x3x7x7xf32>, %scale: tensor<16x1x1xf32>, %shift: tensor<16x1x1xf32>)
    -> (tensor<4x16x12x12xf32>, tensor<4x16x7x7xf32>, tensor<4x16x3x3xf32>,
        tensor<4x16x1x1xf32>) {
  %c = solder.conv %x, %w strides = [2, 2] padding = [3, 3] dilations = [1, 1] groups = 1
       : (tensor<4x3x45x45xf32>, tensor<16x3x7x7xf32>) -> tensor<4x16x23x23xf32>
  %b = solder.mul %c, %scale : tensor<4x16x23x23xf32>, tensor<16x1x1xf32> -> tensor<4x16x23x23xf32>
  %n = solder.add %b, %shift : tensor<4x16x23x23xf32>, tensor<16x1x1xf32> -> tensor<4x16x23x23xf32>
  %r = solder.relu %n : tensor<4x16x23x23xf32>
  %p = solder.pool max %r kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1]
       : tensor<4x16x23x23xf32> -> tensor<4x16x12x12xf32>
  %a = solder.pool avg %p kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1] ceil_mode {count_include_pad = false}
       : tensor<4x16x12x12xf32> -> tensor<4x16x7x7xf32>
  %d = solder.pool avg %a kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] {divisor_override = 3 : i64}
       : tensor<4x16x7x7xf32> -> tensor<4x16x3x3xf32>
  %m = solder.pool max %r kernel = [3, 3] strides = [3, 3] padding = [1, 1] dilations = [2, 2] ceil_mode
       : tensor<4x16x23x23xf32> -> tensor<4x16x8x8xf32>
  %t = solder.tanh %m : tensor<4x16x8x8xf32>
  %s = solder.reduce mean %t dims = [2, 3] keepdim : tensor<4x16x8x8xf32> -> tensor<4x16x1x1xf32>
  return %p, %a, %d, %s : tensor<4x16x12x12xf32>, tensor<4x16x7x7xf32>, tensor<4x16x3x3xf32>, tensor<4x16x1x1xf32>
}
