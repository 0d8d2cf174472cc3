// A ResNet bottleneck and a basic block after it on 4x64x28x28, eval
// BatchNorm as scale and shift: every activation between convs is stored
// channels-last by its producer's epilogue (solder.channels_last) and read
// as it is by the next tensor-core conv (no NCDHW -> NDHWC pass), the
// block output %y also by the last conv's epilogue as its residual (in
// TF32 on sm_90a stored twice: rounded for the Hopper conv, exact for the
// residual); only the block's input %x (a function input) is converted.
func.func @bottleneck_channels_last(%x: tensor<4x64x28x28xf32>,
    %w1: tensor<32x64x1x1xf32>, %s1: tensor<32x1x1xf32>, %b1: tensor<32x1x1xf32>,
    %w2: tensor<32x32x3x3xf32>, %s2: tensor<32x1x1xf32>, %b2: tensor<32x1x1xf32>,
    %w3: tensor<64x32x1x1xf32>, %s3: tensor<64x1x1xf32>, %b3: tensor<64x1x1xf32>,
    %w4: tensor<64x64x3x3xf32>, %w5: tensor<64x64x3x3xf32>, %b5: tensor<64xf32>)
    -> tensor<4x64x28x28xf32> {
  %c1 = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<4x64x28x28xf32>, tensor<32x64x1x1xf32>) -> tensor<4x32x28x28xf32>
  %n1 = solder.mul %c1, %s1 : tensor<4x32x28x28xf32>, tensor<32x1x1xf32> -> tensor<4x32x28x28xf32>
  %m1 = solder.add %n1, %b1 : tensor<4x32x28x28xf32>, tensor<32x1x1xf32> -> tensor<4x32x28x28xf32>
  %r1 = solder.relu %m1 : tensor<4x32x28x28xf32>
  %c2 = solder.conv %r1, %w2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<4x32x28x28xf32>, tensor<32x32x3x3xf32>) -> tensor<4x32x28x28xf32>
  %n2 = solder.mul %c2, %s2 : tensor<4x32x28x28xf32>, tensor<32x1x1xf32> -> tensor<4x32x28x28xf32>
  %m2 = solder.add %n2, %b2 : tensor<4x32x28x28xf32>, tensor<32x1x1xf32> -> tensor<4x32x28x28xf32>
  %r2 = solder.relu %m2 : tensor<4x32x28x28xf32>
  %c3 = solder.conv %r2, %w3 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<4x32x28x28xf32>, tensor<64x32x1x1xf32>) -> tensor<4x64x28x28xf32>
  %n3 = solder.mul %c3, %s3 : tensor<4x64x28x28xf32>, tensor<64x1x1xf32> -> tensor<4x64x28x28xf32>
  %m3 = solder.add %n3, %b3 : tensor<4x64x28x28xf32>, tensor<64x1x1xf32> -> tensor<4x64x28x28xf32>
  %a3 = solder.add %m3, %x : tensor<4x64x28x28xf32>
  %y = solder.relu %a3 : tensor<4x64x28x28xf32>
  %c4 = solder.conv %y, %w4 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<4x64x28x28xf32>, tensor<64x64x3x3xf32>) -> tensor<4x64x28x28xf32>
  %h = solder.relu %c4 : tensor<4x64x28x28xf32>
  %c5 = solder.conv %h, %w5, %b5 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<4x64x28x28xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<4x64x28x28xf32>
  %out = solder.add %c5, %y : tensor<4x64x28x28xf32>
  return %out : tensor<4x64x28x28xf32>
}
