// RUN: solder-opt %s | solder-opt | FileCheck %s
// RUN: solder-opt %s --mlir-print-op-generic | solder-opt | FileCheck %s

// Round trip of the kernel plan's attributes (what solder-plan sets on a
// solder.fusion and emit-cuda reads), one of each main loop's config.

// CHECK-LABEL: func.func @direct_tensorop
// CHECK: solder.estimate = #solder.estimate<conv, bytes = 37801760, flops = 10157875200, ns = 307814>
// CHECK-SAME: solder.finalize = #solder.finalize_launch<threads = 64, grid = [1024, 1, 1], f64_results = [0, 1]>
// CHECK-SAME: solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = step_sums, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [5, 1, 1]>, scheduler = persistent, tiles = [110, 1, 128], threads = 128, shared_bytes = 54304, min_blocks_per_sm = 4, epilogue = register_moments, reason = "3 input channels">
func.func @direct_tensorop(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x2x2xf32>) {
  %y, %s = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x2x2xf32>) attributes {
      solder.estimate = #solder.estimate<conv, bytes = 37801760, flops = 10157875200, ns = 307814>,
      solder.finalize = #solder.finalize_launch<threads = 64, grid = [1024, 1, 1], f64_results = [0, 1]>,
      solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = step_sums, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [5, 1, 1]>, scheduler = persistent, tiles = [110, 1, 128], threads = 128, shared_bytes = 54304, min_blocks_per_sm = 4, epilogue = register_moments, reason = "3 input channels">} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
    %g = solder.group_stats %c num_groups = 2 epsilon = 1.000000e-05 : tensor<2x4x4x4xf32> -> tensor<2x2x2xf32>
    solder.yield %c, %g : tensor<2x4x4x4xf32>, tensor<2x2x2xf32>
  }
  return %y, %s : tensor<2x4x4x4xf32>, tensor<2x2x2xf32>
}

// CHECK-LABEL: func.func @implicit_gemm
// CHECK: #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 4, input_grid = [1, 1, 2], weight_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "forced">
// CHECK-LABEL: func.func @fma
// CHECK: #solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 2], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "groups > 1", prologue_grid = [1, 1, 1]>
// CHECK-LABEL: func.func @direct_fma
// CHECK: #solder.conv_schedule<direct_fma, fma_f32, #solder.direct_fma_tile<[128, 4]>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 12672, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">
// CHECK-LABEL: func.func @depthwise
// CHECK: #solder.conv_schedule<depthwise, fma_f32, #solder.depthwise_tile<rows = 4, columns = 4, thread_rows = 4, channels = 32>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 11904, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">
func.func @implicit_gemm(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> attributes {
      solder.schedule = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 4, input_grid = [1, 1, 2], weight_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "forced">} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
    solder.yield %c : tensor<2x4x4x4xf32>
  }
  return %y : tensor<2x4x4x4xf32>
}
func.func @fma(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> attributes {
      solder.schedule = #solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 2], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "groups > 1", prologue_grid = [1, 1, 1]>} {
    %r = solder.relu %a : tensor<2x3x6x6xf32>
    %c = solder.conv %r, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
    solder.yield %c : tensor<2x4x4x4xf32>
  }
  return %y : tensor<2x4x4x4xf32>
}
func.func @direct_fma(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> attributes {
      solder.schedule = #solder.conv_schedule<direct_fma, fma_f32, #solder.direct_fma_tile<[128, 4]>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 12672, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
    solder.yield %c : tensor<2x4x4x4xf32>
  }
  return %y : tensor<2x4x4x4xf32>
}
func.func @depthwise(%x: tensor<2x3x6x6xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<2x3x4x4xf32> {
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<2x3x6x6xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x4x4xf32> attributes {
      solder.schedule = #solder.conv_schedule<depthwise, fma_f32, #solder.depthwise_tile<rows = 4, columns = 4, thread_rows = 4, channels = 32>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 11904, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 3 : (tensor<2x3x6x6xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x4x4xf32>
    solder.yield %c : tensor<2x3x4x4xf32>
  }
  return %y : tensor<2x3x4x4xf32>
}

// CHECK-LABEL: func.func @region
// CHECK: solder.estimate = #solder.estimate<pointwise, bytes = 64, flops = 8, ns = 0>
// CHECK-SAME: solder.schedule = #solder.region_launch<elementwise, chunk = 2, vector = 4, threads = 256, grid = [1, 1, 1]>
func.func @region(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = solder.fusion "k1_pointwise" (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> attributes {
      solder.estimate = #solder.estimate<pointwise, bytes = 64, flops = 8, ns = 0>,
      solder.schedule = #solder.region_launch<elementwise, chunk = 2, vector = 4, threads = 256, grid = [1, 1, 1]>} {
    %r = solder.relu %a : tensor<2x4xf32>
    solder.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// The Hopper main loop's tiles across the samples of a 7x7 image, each
// tile's 144 K steps in 5 shares (split-K): tiles (13 x 128 rows, 2
// channel tiles, 5 shares).
// CHECK-LABEL: func.func @split_across
// CHECK: #solder.implicit_gemm<tile = [128, 256, 32], warp = [64, 256], stages = 4, padded_channels = 512, weight_grid = [9216, 1, 1], pixels = across_samples, k_splits = 5>, scheduler = grid, tiles = [13, 2, 5]
func.func @split_across(%x: tensor<32x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<32x512x7x7xf32> {
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<32x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<32x512x7x7xf32> attributes {
      solder.schedule = #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], warp = [64, 256], stages = 4, padded_channels = 512, weight_grid = [9216, 1, 1], pixels = across_samples, k_splits = 5>, scheduler = grid, tiles = [13, 2, 5], threads = 384, shared_bytes = 197696, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1 : (tensor<32x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<32x512x7x7xf32>
    solder.yield %c : tensor<32x512x7x7xf32>
  }
  return %y : tensor<32x512x7x7xf32>
}

// A GEMM-shaped conv (one pixel a sample, a 1x1 kernel): tiles across
// samples, its rows and weights read as they are (no conversion grids).
// CHECK-LABEL: func.func @gemm
// CHECK: #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 8, pixels = across_samples>, scheduler = grid, tiles = [4, 1, 1]
func.func @gemm(%x: tensor<200x8x1xf32>, %w: tensor<16x8x1xf32>) -> tensor<200x16x1xf32> {
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<200x8x1xf32>, tensor<16x8x1xf32>) -> tensor<200x16x1xf32> attributes {
      solder.schedule = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 8, pixels = across_samples>, scheduler = grid, tiles = [4, 1, 1], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">} {
    %c = solder.conv %a, %b strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<200x8x1xf32>, tensor<16x8x1xf32>) -> tensor<200x16x1xf32>
    solder.yield %c : tensor<200x16x1xf32>
  }
  return %y : tensor<200x16x1xf32>
}
