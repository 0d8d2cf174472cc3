// A ResNet basic block (eval BatchNorm as scale and shift) on a caller's
// channels-last activation, returned channels-last (solder.channels_last on
// the argument and the result, as solder.compile imports a channels-last
// model): the first conv reads %x as it is (no NCDHW -> NDHWC pass), the
// second conv's epilogue reads it as its residual at its own element, and
// that epilogue stores the block's output channels-last. 3x64x14x14: 588
// pixels, a ragged tile of rows.
func.func @basic_block_channels_last_io(%x: tensor<3x64x14x14xf32> {solder.channels_last},
    %w1: tensor<64x64x3x3xf32>, %s1: tensor<64x1x1xf32>, %b1: tensor<64x1x1xf32>,
    %w2: tensor<64x64x3x3xf32>, %s2: tensor<64x1x1xf32>, %b2: tensor<64x1x1xf32>)
    -> (tensor<3x64x14x14xf32> {solder.channels_last}) {
  %c1 = solder.conv %x, %w1 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<3x64x14x14xf32>, tensor<64x64x3x3xf32>) -> tensor<3x64x14x14xf32>
  %n1 = solder.mul %c1, %s1 : tensor<3x64x14x14xf32>, tensor<64x1x1xf32> -> tensor<3x64x14x14xf32>
  %m1 = solder.add %n1, %b1 : tensor<3x64x14x14xf32>, tensor<64x1x1xf32> -> tensor<3x64x14x14xf32>
  %r1 = solder.relu %m1 : tensor<3x64x14x14xf32>
  %c2 = solder.conv %r1, %w2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<3x64x14x14xf32>, tensor<64x64x3x3xf32>) -> tensor<3x64x14x14xf32>
  %n2 = solder.mul %c2, %s2 : tensor<3x64x14x14xf32>, tensor<64x1x1xf32> -> tensor<3x64x14x14xf32>
  %m2 = solder.add %n2, %b2 : tensor<3x64x14x14xf32>, tensor<64x1x1xf32> -> tensor<3x64x14x14xf32>
  %a2 = solder.add %m2, %x : tensor<3x64x14x14xf32>
  %y = solder.relu %a2 : tensor<3x64x14x14xf32>
  return %y : tensor<3x64x14x14xf32>
}
