// A GEMM-shaped conv (pixels = across_samples) with GroupNorm statistics in
// its epilogue, written by hand: the plan never forms it.
func.func @gemm_epilogue_reduction(%x: tensor<200x8x1xf32>, %w: tensor<16x8x1xf32>) -> tensor<200x2x2xf32> {
  %s = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<200x8x1xf32>, tensor<16x8x1xf32>) -> tensor<200x2x2xf32> attributes {
      solder.finalize = #solder.finalize_launch<threads = 32, grid = [400, 1, 1], f64_results = []>,
      solder.schedule = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 8, input_grid = [2, 1, 1], weight_grid = [1, 1, 1], pixels = across_samples>, scheduler = grid, tiles = [4, 1, 1], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">} {
    %c = solder.conv %a, %b strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<200x8x1xf32>, tensor<16x8x1xf32>) -> tensor<200x16x1xf32>
    %g = solder.group_stats %c num_groups = 2 epsilon = 1.000000e-05 : tensor<200x16x1xf32> -> tensor<200x2x2xf32>
    solder.yield %g : tensor<200x2x2xf32>
  }
  return %s : tensor<200x2x2xf32>
}
