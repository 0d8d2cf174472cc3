// What the importer writes for GroupNorm -> SiLU -> conv: each op located at
// its ATen node around the user's line. The code generator refuses the
// conv's prologue; its error names the node.
func.func @refused(%x: tensor<2x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32> {
  %n = solder.group_norm %x num_groups = 2 epsilon = 1.0e-05 : (tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32> loc("group_norm"("model.py":11:1))
  %s = solder.silu %n : tensor<2x8x6x6xf32> loc("silu"("model.py":11:1))
  %y = solder.conv %s, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32> loc("conv2d"("model.py":12:1))
  return %y : tensor<2x8x4x4xf32>
}
