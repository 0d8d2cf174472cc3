// Regions of small GEMMs, a block per row: a squeeze-excitation on
// 3x40x5x5 (the pool's mean, conv 40 -> 6 with bias, silu, a per-channel
// add, conv 6 -> 40 without bias, sigmoid, the scale applied by the
// consumer; the first conv's result is also an output, stored from its
// shared row), and a head of 300 -> 70 -> 50 channels over rows read from
// an input (more outputs than warps, inputs past a warp's 32 lanes).
func.func @rows(%x: tensor<3x40x5x5xf32>, %w1: tensor<6x40x1x1xf32>, %b1: tensor<6xf32>,
    %shift: tensor<6x1x1xf32>, %w2: tensor<40x6x1x1xf32>, %h: tensor<3x300x1xf32>,
    %w3: tensor<70x300x1xf32>, %b3: tensor<70xf32>, %w4: tensor<50x70x1xf32>)
    -> (tensor<3x40x5x5xf32>, tensor<3x6x1x1xf32>, tensor<3x50x1xf32>) {
  %pool = solder.reduce mean %x dims = [2, 3] keepdim : tensor<3x40x5x5xf32> -> tensor<3x40x1x1xf32>
  %fc1 = solder.conv %pool, %w1, %b1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<3x40x1x1xf32>, tensor<6x40x1x1xf32>, tensor<6xf32>) -> tensor<3x6x1x1xf32>
  %act = solder.silu %fc1 : tensor<3x6x1x1xf32>
  %shifted = solder.add %act, %shift : tensor<3x6x1x1xf32>, tensor<6x1x1xf32> -> tensor<3x6x1x1xf32>
  %fc2 = solder.conv %shifted, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<3x6x1x1xf32>, tensor<40x6x1x1xf32>) -> tensor<3x40x1x1xf32>
  %scale = solder.sigmoid %fc2 : tensor<3x40x1x1xf32>
  %y = solder.mul %x, %scale : tensor<3x40x5x5xf32>, tensor<3x40x1x1xf32> -> tensor<3x40x5x5xf32>
  %l1 = solder.conv %h, %w3, %b3 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<3x300x1xf32>, tensor<70x300x1xf32>, tensor<70xf32>) -> tensor<3x70x1xf32>
  %g = solder.gelu %l1 : tensor<3x70x1xf32>
  %l2 = solder.conv %g, %w4 strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<3x70x1xf32>, tensor<50x70x1xf32>) -> tensor<3x50x1xf32>
  return %y, %fc1, %l2 : tensor<3x40x5x5xf32>, tensor<3x6x1x1xf32>, tensor<3x50x1xf32>
}
