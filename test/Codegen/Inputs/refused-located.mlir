// An op the CUDA code generator takes in no fusion region (arith.addf on
// tensors: no pass puts it in one), located as the importer locates each op:
// at its ATen node around the user's line. The error names the node.
func.func @refused(%x: tensor<2x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x4x4xf32> loc("conv2d"("model.py":11:1))
  %n = arith.addf %y, %y : tensor<2x8x4x4xf32> loc("add"("model.py":12:1))
  return %n : tensor<2x8x4x4xf32>
}
