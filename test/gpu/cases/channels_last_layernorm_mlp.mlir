// ConvNeXt's block as the importer writes it, permutes being layout
// bookkeeping: a depthwise 7x7 conv, LayerNorm over the channels at each
// position (the mean, then the variance of mean - x, over dim 1; then
// (x - mean) * rstd and the affine parameters), Linear 24 -> 96 as a 1x1
// conv, GELU, Linear 96 -> 24, the layer scale and the residual.
func.func @channels_last_layernorm_mlp(%x: tensor<2x24x15x13xf32>, %dw: tensor<24x1x7x7xf32>,
    %dwb: tensor<24xf32>, %g: tensor<24x1x1xf32>, %b: tensor<24x1x1xf32>,
    %w1: tensor<96x24x1x1xf32>, %b1: tensor<96xf32>, %w2: tensor<24x96x1x1xf32>,
    %b2: tensor<24xf32>, %gamma: tensor<1x24x1x1xf32>) -> tensor<2x24x15x13xf32> {
  %y = solder.conv %x, %dw, %dwb strides = [1, 1] padding = [3, 3] dilations = [1, 1] groups = 24
       : (tensor<2x24x15x13xf32>, tensor<24x1x7x7xf32>, tensor<24xf32>) -> tensor<2x24x15x13xf32>
  %mean = solder.reduce mean %y dims = [1] keepdim : tensor<2x24x15x13xf32> -> tensor<2x1x15x13xf32>
  %deviation = solder.sub %mean, %y : tensor<2x1x15x13xf32>, tensor<2x24x15x13xf32> -> tensor<2x24x15x13xf32>
  %squares = solder.mul %deviation, %deviation : tensor<2x24x15x13xf32>
  %variance = solder.reduce mean %squares dims = [1] keepdim : tensor<2x24x15x13xf32> -> tensor<2x1x15x13xf32>
  %eps = arith.constant dense<1.0e-06> : tensor<f32>
  %variance_eps = solder.add %variance, %eps : tensor<2x1x15x13xf32>, tensor<f32> -> tensor<2x1x15x13xf32>
  %rstd = solder.rsqrt %variance_eps : tensor<2x1x15x13xf32>
  %centered = solder.sub %y, %mean : tensor<2x24x15x13xf32>, tensor<2x1x15x13xf32> -> tensor<2x24x15x13xf32>
  %normalized = solder.mul %centered, %rstd : tensor<2x24x15x13xf32>, tensor<2x1x15x13xf32> -> tensor<2x24x15x13xf32>
  %weighted = solder.mul %normalized, %g : tensor<2x24x15x13xf32>, tensor<24x1x1xf32> -> tensor<2x24x15x13xf32>
  %norm = solder.add %weighted, %b : tensor<2x24x15x13xf32>, tensor<24x1x1xf32> -> tensor<2x24x15x13xf32>
  %fc1 = solder.conv %norm, %w1, %b1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x24x15x13xf32>, tensor<96x24x1x1xf32>, tensor<96xf32>) -> tensor<2x96x15x13xf32>
  %gelu = solder.gelu %fc1 : tensor<2x96x15x13xf32>
  %fc2 = solder.conv %gelu, %w2, %b2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x96x15x13xf32>, tensor<24x96x1x1xf32>, tensor<24xf32>) -> tensor<2x24x15x13xf32>
  %scale = solder.mul %gamma, %fc2 : tensor<1x24x1x1xf32>, tensor<2x24x15x13xf32> -> tensor<2x24x15x13xf32>
  %out = solder.add %x, %scale : tensor<2x24x15x13xf32>
  return %out : tensor<2x24x15x13xf32>
}
