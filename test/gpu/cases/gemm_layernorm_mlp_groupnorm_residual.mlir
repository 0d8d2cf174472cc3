// An MLP on 2100 rows of 94 features as the importer writes Linear: a 1x1
// conv over (rows, features, 1), which the plan runs as a GEMM whose tiles
// span the rows (pixels = across_samples), its input copied row by row with
// the features padded to 96. LayerNorm over the features (statistics, then
// its apply in the first GEMM's input copy), Linear 94 -> 160, GELU,
// GroupNorm(4) (its statistics in a reduction kernel; its apply and ReLU in
// the second GEMM's input copy), Linear 160 -> 40, plus a bias-free skip
// Linear 94 -> 40. 2100 rows leave the last tile of each GEMM ragged, and take
// a warp per row for LayerNorm's statistics (the last block's warps past
// row 2100 leave at once).
func.func @gemm_layernorm_mlp_groupnorm_residual(%x: tensor<2100x94x1xf32>,
    %ln_w: tensor<94x1xf32>, %ln_b: tensor<94x1xf32>, %fc1_weight: tensor<160x94x1xf32>,
    %fc1_bias: tensor<160xf32>, %gn_weight: tensor<160xf32>, %gn_bias: tensor<160xf32>,
    %fc2_weight: tensor<40x160x1xf32>, %fc2_bias: tensor<40xf32>,
    %skip_weight: tensor<40x94x1xf32>) -> (tensor<2100x40x1xf32>) {
  %norm = solder.layer_norm %x weight = %ln_w bias = %ln_b normalized_shape = [94, 1] epsilon = 1.0e-05 : (tensor<2100x94x1xf32>, tensor<94x1xf32>, tensor<94x1xf32>) -> tensor<2100x94x1xf32>
  %fc1 = solder.conv %norm, %fc1_weight, %fc1_bias strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<2100x94x1xf32>, tensor<160x94x1xf32>, tensor<160xf32>) -> tensor<2100x160x1xf32>
  %gelu = solder.gelu %fc1 : tensor<2100x160x1xf32>
  %gn = solder.group_norm %gelu weight = %gn_weight bias = %gn_bias num_groups = 4 epsilon = 1.0e-05 : (tensor<2100x160x1xf32>, tensor<160xf32>, tensor<160xf32>) -> tensor<2100x160x1xf32>
  %relu = solder.relu %gn : tensor<2100x160x1xf32>
  %fc2 = solder.conv %relu, %fc2_weight, %fc2_bias strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<2100x160x1xf32>, tensor<40x160x1xf32>, tensor<40xf32>) -> tensor<2100x40x1xf32>
  %skip = solder.conv %x, %skip_weight strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<2100x94x1xf32>, tensor<40x94x1xf32>) -> tensor<2100x40x1xf32>
  %add = solder.add %fc2, %skip : tensor<2100x40x1xf32>
  return %add : tensor<2100x40x1xf32>
}

