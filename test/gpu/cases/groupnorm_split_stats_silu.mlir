// No conv: GroupNorm(32 groups) -> SiLU over 2 x 256 x 128 x 128 (a VAE
// ResnetBlock's first norm at batch 2): 64 statistics of 131072 elements,
// each reduced by 16 blocks whose shares the last of them merges
// (RegionLaunch's split reductions), then normalize and SiLU elementwise.
func.func @groupnorm_split_stats_silu(%x: tensor<2x256x128x128xf32>, %g: tensor<256xf32>,
    %beta: tensor<256xf32>) -> tensor<2x256x128x128xf32> {
  %n = solder.group_norm %x weight = %g bias = %beta num_groups = 32 epsilon = 1.0e-05
       : (tensor<2x256x128x128xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<2x256x128x128xf32>
  %a = solder.silu %n : tensor<2x256x128x128xf32>
  return %a : tensor<2x256x128x128xf32>
}
