// A conv region that says it stores its result channels-last (a hand-written
// plan: solder-plan never does for this reader) read by an elementwise kernel,
// which indexes NCDHW: the code generator refuses it.
module {
  func.func @misread(%arg0: tensor<2x8x6x6xf32>, %arg1: tensor<8x8x3x3xf32>) -> tensor<2x8x6x6xf32> {
    %0 = solder.fusion "misread_k0_conv" (%arg2 = %arg0, %arg3 = %arg1) : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x6x6xf32> attributes {solder.channels_last = array<i64: 0>, solder.estimate = #solder.estimate<conv, bytes = 13824, flops = 82944, ns = 3>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [64, 8, 72], warps = 4, accumulation = step_sums, prepared_bytes = 4608, prepare_threads = 288, prepare_grid = [2, 1, 1]>, scheduler = persistent, tiles = [1, 1, 2], threads = 128, shared_bytes = 11264, min_blocks_per_sm = 4, epilogue = tile_shifted_moments, reason = "8 input channels: a reduction of 72, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">} {
      %3 = solder.conv %arg2, %arg3 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1 : (tensor<2x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x6x6xf32>
      solder.yield %3 : tensor<2x8x6x6xf32>
    }
    %1 = solder.fusion "misread_k1_reduction" (%arg2 = %0) : (tensor<2x8x6x6xf32>) -> tensor<2x1x6x6xf32> attributes {solder.estimate = #solder.estimate<reduction, bytes = 2592, flops = 576, ns = 1>, solder.schedule = #solder.region_launch<block_per_output, chunk = 1, vector = 1, threads = 256, grid = [72, 1, 1]>} {
      %3 = solder.reduce sum %arg2 dims = [1] keepdim : tensor<2x8x6x6xf32> -> tensor<2x1x6x6xf32>
      solder.yield %3 : tensor<2x1x6x6xf32>
    }
    %2 = solder.fusion "misread_k2_pointwise" (%arg2 = %0, %arg3 = %1) : (tensor<2x8x6x6xf32>, tensor<2x1x6x6xf32>) -> tensor<2x8x6x6xf32> attributes {solder.estimate = #solder.estimate<pointwise, bytes = 4896, flops = 576, ns = 1>, solder.schedule = #solder.region_launch<elementwise, chunk = 2, vector = 4, threads = 256, grid = [1, 1, 1]>} {
      %3 = solder.sub %arg2, %arg3 : tensor<2x8x6x6xf32>, tensor<2x1x6x6xf32> -> tensor<2x8x6x6xf32>
      solder.yield %3 : tensor<2x8x6x6xf32>
    }
    return %2 : tensor<2x8x6x6xf32>
  }
}

