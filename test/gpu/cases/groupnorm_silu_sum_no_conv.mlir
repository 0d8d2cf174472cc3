// No conv: GroupNorm(4 groups) -> SiLU -> sum over all but the batch.
func.func @groupnorm_silu_sum_no_conv(%x: tensor<6x32x14x14xf32>, %g: tensor<32xf32>,
    %beta: tensor<32xf32>) -> tensor<6xf32> {
  %n = solder.group_norm %x weight = %g bias = %beta num_groups = 4 epsilon = 1.0e-05
       : (tensor<6x32x14x14xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<6x32x14x14xf32>
  %a = solder.silu %n : tensor<6x32x14x14xf32>
  %s = solder.reduce sum %a dims = [1, 2, 3] : tensor<6x32x14x14xf32> -> tensor<6xf32>
  return %s : tensor<6xf32>
}
