// SE-ResNet's block and head on 8x64x14x14: conv 3x3 -> eval BatchNorm
// (scale, shift) -> squeeze-excitation (the pool's partials in the conv's
// epilogue; conv 64 -> 16 + bias, ReLU, conv 16 -> 64 + bias, sigmoid as
// one region of small GEMMs, a block per sample; the scale applied with
// the residual and the ReLU), and a head (Linear 64 -> 10) on the same
// pooled means, a block per sample too.
func.func @squeeze_excitation_rows_head(%x: tensor<8x64x14x14xf32>,
    %w: tensor<64x64x3x3xf32>, %scale: tensor<64x1x1xf32>, %shift: tensor<64x1x1xf32>,
    %w1: tensor<16x64x1x1xf32>, %b1: tensor<16xf32>, %w2: tensor<64x16x1x1xf32>,
    %b2: tensor<64xf32>, %wh: tensor<10x64x1x1xf32>, %bh: tensor<10xf32>)
    -> (tensor<8x64x14x14xf32>, tensor<8x10x1x1xf32>) {
  %c = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x64x14x14xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x14x14xf32>
  %cs = solder.mul %c, %scale : tensor<8x64x14x14xf32>, tensor<64x1x1xf32> -> tensor<8x64x14x14xf32>
  %bn = solder.add %cs, %shift : tensor<8x64x14x14xf32>, tensor<64x1x1xf32> -> tensor<8x64x14x14xf32>
  %pool = solder.reduce mean %bn dims = [2, 3] keepdim : tensor<8x64x14x14xf32> -> tensor<8x64x1x1xf32>
  %f1 = solder.conv %pool, %w1, %b1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x64x1x1xf32>, tensor<16x64x1x1xf32>, tensor<16xf32>) -> tensor<8x16x1x1xf32>
  %a = solder.relu %f1 : tensor<8x16x1x1xf32>
  %f2 = solder.conv %a, %w2, %b2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x16x1x1xf32>, tensor<64x16x1x1xf32>, tensor<64xf32>) -> tensor<8x64x1x1xf32>
  %s = solder.sigmoid %f2 : tensor<8x64x1x1xf32>
  %se = solder.mul %bn, %s : tensor<8x64x14x14xf32>, tensor<8x64x1x1xf32> -> tensor<8x64x14x14xf32>
  %r = solder.add %x, %se : tensor<8x64x14x14xf32>
  %y = solder.relu %r : tensor<8x64x14x14xf32>
  %logits = solder.conv %pool, %wh, %bh strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x64x1x1xf32>, tensor<10x64x1x1xf32>, tensor<10xf32>) -> tensor<8x10x1x1xf32>
  return %y, %logits : tensor<8x64x14x14xf32>, tensor<8x10x1x1xf32>
}
