// RUN: solder-opt %s -split-input-file -verify-diagnostics

// Each verifier message of the kernel plan's attributes (SolderAttrs.cpp),
// one case a message, and where the plan's attributes may stand.
// expected-error @+1 {{expects tile to have 3 positive dims, got [64, 128]}}
#bad = #solder.implicit_gemm<tile = [64, 128], warp = [32, 64], stages = 4, padded_channels = 4, input_grid = [1, 1, 1], weight_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects warps of 16 x 8 MMA steps tiling the block, at most 8, BM a multiple of 32 and BK of 16, got tile [64, 128, 16] and warp [24, 64]}}
#bad = #solder.implicit_gemm<tile = [64, 128, 16], warp = [24, 64], stages = 4, padded_channels = 4, input_grid = [1, 1, 1], weight_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expected input_grid, weight_grid, pixels or k_splits, got banana}}
#bad = #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 4, banana = [1]>

// -----
// expected-error @+1 {{expects 2 to 8 stages, got 1}}
#bad = #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 1, padded_channels = 4, input_grid = [1, 1, 1], weight_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects padded_channels to be a positive multiple of 4, got 3}}
#bad = #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 3, input_grid = [1, 1, 1], weight_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects BM and BN to be multiples of 16, got tile [128, 24, 16]}}
#bad = #solder.fma_tile<[128, 24, 16]>

// -----
// expected-error @+1 {{expects tile to have 2 positive dims, got [128, 0]}}
#bad = #solder.direct_fma_tile<[128, 0]>

// -----
// expected-error @+1 {{expects positive rows, columns and thread_rows, thread_rows dividing rows, got 8, 56 and 3}}
#bad = #solder.depthwise_tile<rows = 8, columns = 56, thread_rows = 3, channels = 8>

// -----
// expected-error @+1 {{expects channels to divide the block's 128 threads, got 24}}
#bad = #solder.depthwise_tile<rows = 8, columns = 56, thread_rows = 8, channels = 24>

// -----
// expected-error @+1 {{main loop depthwise does not take the config #solder.direct_fma_tile<[128, 24]>}}
#bad = #solder.conv_schedule<depthwise, fma_f32, #solder.direct_fma_tile<[128, 24]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects at least one row a tile, got 0}}
#bad = #solder.direct_tile<rows = 0, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects BM a multiple of 32, BN and the reduction multiples of 8, got tile [192, 20, 88]}}
#bad = #solder.direct_tile<rows = 6, tile = [192, 20, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects 4 or 8 warps, got 2}}
#bad = #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 2, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects the prepare kernel's bytes and threads, got 0 and 1056}}
#bad = #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 0, prepare_threads = 1056, prepare_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{main loop implicit_gemm_tensorop does not take the config #solder.fma_tile<[128, 16, 16]>}}
#bad = #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{main loop implicit_gemm_wgmma takes tiles of 128 or 256 rows, warp tiles of [BM / 2, BN], 32-deep K steps, converted weights (weight_grid) and, but in tf32, a converted input (input_grid), got #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 64], stages = 6, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 64], stages = 6, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [308, 1, 16], threads = 384, shared_bytes = 197728, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{main loop implicit_gemm_wgmma takes tiles of 128 or 256 rows, warp tiles of [BM / 2, BN], 32-deep K steps, converted weights (weight_grid) and, but in tf32, a converted input (input_grid)}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 128], stages = 6, padded_channels = 64, input_grid = [512, 1, 16]>, scheduler = grid, tiles = [308, 1, 16], threads = 384, shared_bytes = 197728, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----
// 3xTF32 reads its conversion's two parts of the input: no input read as it is.
// expected-error @+1 {{main loop implicit_gemm_wgmma takes tiles of 128 or 256 rows, warp tiles of [BM / 2, BN], 32-deep K steps, converted weights (weight_grid) and, but in tf32, a converted input (input_grid)}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, tf32x3, #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 128], stages = 3, padded_channels = 64, weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [308, 1, 16], threads = 384, shared_bytes = 197680, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{main loop implicit_gemm_wgmma computes in tf32 or tf32x3, not fma_f32}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, fma_f32, #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 128], stages = 6, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [308, 1, 16], threads = 384, shared_bytes = 197728, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{main loop implicit_gemm_wgmma in tf32x3 takes tiles of 128 rows and at most 128 channels (a stage's products held apart from the accumulators), got #solder.implicit_gemm<tile = [256, 128, 32], warp = [128, 128], stages = 2, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, tf32x3, #solder.implicit_gemm<tile = [256, 128, 32], warp = [128, 128], stages = 2, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [154, 1, 16], threads = 384, shared_bytes = 197696, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{main loop direct_tensorop computes in tf32 or tf32x3, not fma_f32}}
#bad = #solder.conv_schedule<direct_tensorop, fma_f32, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{main loop implicit_gemm_fma computes in fma_f32, not tf32}}
#bad = #solder.conv_schedule<implicit_gemm_fma, tf32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 1], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "">

// -----
// expected-error @+1 {{step_sums accumulation needs tf32x3 math}}
#bad = #solder.conv_schedule<direct_tensorop, tf32, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = step_sums, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{centered accumulation needs tf32 math}}
#bad = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = centered, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{only the direct conv on tensor cores takes the persistent tile scheduler}}
#bad = #solder.conv_schedule<direct_fma, fma_f32, #solder.direct_fma_tile<[128, 24]>, scheduler = persistent, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects tiles to have 3 positive dims, got [0, 1, 1]}}
#bad = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [0, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects threads to be a multiple of 32 from 32 to 1024, got 100}}
#bad = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 100, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects 32 threads a warp of the config's 4 warps, got 256 threads}}
#bad = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects shared_bytes and min_blocks_per_sm >= 0}}
#bad = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = -1, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{the element_welford epilogue is the implicit_gemm_fma main loop's, and only its}}
#bad = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = plain, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "">

// -----
// expected-error @+1 {{only the direct conv on tensor cores hands its epilogue register_moments}}
#bad = #solder.conv_schedule<direct_fma, fma_f32, #solder.direct_fma_tile<[128, 24]>, scheduler = grid, tiles = [1, 1, 1], threads = 128, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = register_moments, reason = "">

// -----
// expected-error @+1 {{the tensor-core implicit GEMM applies its prologue in its input conversion: no prologue_grid}}
#bad = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 4, input_grid = [1, 1, 2], weight_grid = [1, 1, 1]>, scheduler = grid, tiles = [1, 1, 2], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "", prologue_grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects prologue_grid to have 3 positive dims, got [1, 1]}}
#bad = #solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 2], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "", prologue_grid = [1, 1]>

// -----
// expected-error @+1 {{expects threads to be a power of two from 32 to 1024, got 96}}
#bad = #solder.region_launch<elementwise, chunk = 4, vector = 1, threads = 96, grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects a chunk of at least one item, got 0}}
#bad = #solder.region_launch<elementwise, chunk = 0, vector = 1, threads = 256, grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects vector 1, or 4 when elementwise, got 4}}
#bad = #solder.region_launch<thread_per_output, chunk = 8, vector = 4, threads = 256, grid = [1, 1, 1]>

// -----
// expected-error @+1 {{expects grid to have 3 positive dims, got [4, 1]}}
#bad = #solder.finalize_launch<threads = 64, grid = [4, 1], f64_results = []>

// -----
// expected-error @+1 {{expects f64_results to list result numbers}}
#bad = #solder.finalize_launch<threads = 64, grid = [4, 1, 1], f64_results = [-1]>

// -----
func.func @f(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+1 {{'solder.schedule' of a region with a conv must be a #solder.conv_schedule}}
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> attributes {solder.schedule = #solder.region_launch<elementwise, chunk = 4, vector = 1, threads = 256, grid = [1, 1, 1]>} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32>
    solder.yield %c : tensor<1x4x2x2xf32>
  }
  return %y : tensor<1x4x2x2xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+1 {{'solder.estimate' must be a #solder.estimate}}
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> attributes {solder.estimate = "fast"} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32>
    solder.yield %c : tensor<1x4x2x2xf32>
  }
  return %y : tensor<1x4x2x2xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'solder.finalize' must be a #solder.finalize_launch on a region with a conv}}
  %y = solder.fusion "k1_pointwise" (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> attributes {solder.finalize = #solder.finalize_launch<threads = 64, grid = [4, 1, 1], f64_results = []>} {
    %r = solder.relu %a : tensor<2x4xf32>
    solder.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'solder.schedule' of a region without a conv must be a #solder.region_launch}}
  %y = solder.fusion "k1_pointwise" (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> attributes {solder.schedule = #solder.fma_tile<[128, 16, 16]>} {
    %r = solder.relu %a : tensor<2x4xf32>
    solder.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{'solder.schedule' belongs on a solder.fusion}}
func.func @f() attributes {solder.schedule = #solder.region_launch<elementwise, chunk = 4, vector = 1, threads = 256, grid = [1, 1, 1]>} {
  return
}

// -----
// expected-error @+1 {{pixel tiles across samples take the samples in their tiles: expects tiles [..., 1], got [4, 1, 2]}}
#bad = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 4, input_grid = [1, 1, 2], weight_grid = [1, 1, 1], pixels = across_samples>, scheduler = grid, tiles = [4, 1, 2], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects k_splits from 1 to 8, got 9}}
#bad = #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 128], stages = 6, padded_channels = 512, k_splits = 9>

// -----
// expected-error @+1 {{expects k_splits from 1 to 8, got 0}}
#bad = #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 128], stages = 6, padded_channels = 512, k_splits = 0>

// -----
// expected-error @+1 {{only the Hopper main loop (implicit_gemm_wgmma) splits its K steps, got k_splits = 2 for implicit_gemm_tensorop}}
#bad = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 4, k_splits = 2>, scheduler = grid, tiles = [4, 1, 2], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{expects the tiles' third dim to be the samples times k_splits (3), got [13, 2, 5]}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], warp = [64, 256], stages = 4, padded_channels = 512, weight_grid = [9216, 1, 1], k_splits = 3>, scheduler = grid, tiles = [13, 2, 5], threads = 384, shared_bytes = 197696, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----
// expected-error @+1 {{pixel tiles across samples take the samples in their tiles: expects tiles [..., 5] (its k_splits), got [13, 2, 10]}}
#bad = #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], warp = [64, 256], stages = 4, padded_channels = 512, weight_grid = [9216, 1, 1], pixels = across_samples, k_splits = 5>, scheduler = grid, tiles = [13, 2, 10], threads = 384, shared_bytes = 197696, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "">

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'solder.schedule' block_per_row belongs on a region of small GEMMs (convs, no conv_transpose)}}
  %y = solder.fusion "k0_rows" (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> attributes {solder.schedule = #solder.region_launch<block_per_row, chunk = 1, vector = 1, threads = 256, grid = [2, 1, 1]>} {
    %r = solder.relu %a : tensor<2x4xf32>
    solder.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'solder.channels_last' lists result numbers of a solder.fusion with a conv}}
  %y = solder.fusion "k0_pointwise" (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> attributes {solder.channels_last = array<i64: 0>} {
    %r = solder.relu %a : tensor<2x4xf32>
    solder.yield %r : tensor<2x4xf32>
  }
  return %y : tensor<2x4xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+1 {{'solder.channels_last' lists result numbers of a solder.fusion with a conv}}
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> attributes {solder.channels_last = array<i64: 1>} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32>
    solder.yield %c : tensor<1x4x2x2xf32>
  }
  return %y : tensor<1x4x2x2xf32>
}

// -----

// Rounded to TF32 only where stored channels-last (for a Hopper conv's tensor map).
func.func @f(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+1 {{'solder.rounded_tf32' lists result numbers of a solder.fusion's 'solder.channels_last'}}
  %y = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32> attributes {solder.rounded_tf32 = array<i64: 0>} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32>
    solder.yield %c : tensor<1x4x2x2xf32>
  }
  return %y : tensor<1x4x2x2xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{'solder.rounded_tf32' lists result numbers of a solder.fusion's 'solder.channels_last'}}
  %y:2 = solder.fusion "k0_conv" (%a = %x, %b = %w) : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) attributes {solder.channels_last = array<i64: 0>, solder.rounded_tf32 = array<i64: 1>} {
    %c = solder.conv %a, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2x2xf32>
    %r = solder.relu %c : tensor<1x4x2x2xf32>
    solder.yield %c, %r : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
  }
  return %y#0, %y#1 : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
}

// -----

// expected-error @+1 {{'solder.parameter' is a unit attribute of a func.func argument}}
func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {solder.parameter = 1 : i64}) -> tensor<4xf32> {
  %y = solder.add %x, %w : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'solder.channels_last' is a unit attribute of a func.func argument of rank 3 or more}}
func.func @f(%x: tensor<2x4xf32> {solder.channels_last}) -> tensor<2x4xf32> {
  %y = solder.relu %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{'solder.channels_last' is a unit attribute of a func.func result of rank 3 or more}}
func.func @f(%x: tensor<1x4x2x2xf32>) -> (tensor<1x4x2x2xf32> {solder.channels_last = 1 : i64}) {
  %y = solder.relu %x : tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}
