// What the importer writes for conv -> LayerNorm over the last dim: each op
// located at its ATen node around the user's line. The code generator
// refuses the layer_norm (no fusion region takes it); its error names the
// node.
func.func @refused(%x: tensor<2x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32> loc("conv2d"("model.py":11:1))
  %n = solder.layer_norm %y normalized_shape = [4] epsilon = 1.0e-05 : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32> loc("layer_norm"("model.py":12:1))
  return %n : tensor<2x8x4x4xf32>
}
