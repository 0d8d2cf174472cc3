// Reduce-and-apply rows whose values a pool reads (poolsRowWindows): the
// pool runs in the row's last walk, its windows combined across a warp's
// lanes, one kernel a chain. LayerNorm over the last dim (16: 4 lanes a row,
// 8 rows a warp, two windows' rows) then avg_pool3d 2x2x2, GELU and a
// per-channel scale, as KernelBench's ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU;
// softmax over the last dim then max_pool2d 2x2, the softmax returned too
// (stored at each element); a LayerNorm over 64 (32 lanes, one row a warp)
// then an avg_pool1d of 4 with a divisor_override and the pool returned; a
// pool whose windows overlap (kernel 3, stride 2): a kernel of its own;
// x - mean(x) pooled 2x2x2, the mean returned (stored once a row, the rows
// in window order, not memory's); and a max_pool2d (2, 1) of gelu(x) beside the mean of the
// same values, which nothing reads back.
func.func @reduce_apply_pool(%x: tensor<2x3x4x6x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>,
    %cs: tensor<1x3x1x1x1xf32>,
    %y: tensor<2x3x6x8xf32>, %z: tensor<3x5x64xf32>, %w64: tensor<64xf32>, %b64: tensor<64xf32>,
    %u: tensor<2x4x6x12xf32>, %v: tensor<2x3x4x4x8xf32>, %t: tensor<2x2x4x8xf32>)
    -> (tensor<2x3x2x3x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x3x4xf32>, tensor<3x5x16xf32>,
        tensor<2x4x2x5xf32>, tensor<2x3x4x4x1xf32>, tensor<2x3x2x2x4xf32>, tensor<2x2x4x1xf32>,
        tensor<2x2x2x8xf32>) {
  %ln = solder.layer_norm %x weight = %w bias = %b normalized_shape = [16] epsilon = 1.0e-05
       : (tensor<2x3x4x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x3x4x6x16xf32>
  %p = solder.pool avg %ln kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0] dilations = [1, 1, 1]
       : tensor<2x3x4x6x16xf32> -> tensor<2x3x2x3x8xf32>
  %g0 = solder.gelu %p : tensor<2x3x2x3x8xf32>
  %g = solder.mul %g0, %cs : tensor<2x3x2x3x8xf32>, tensor<1x3x1x1x1xf32> -> tensor<2x3x2x3x8xf32>
  %s = solder.softmax %y dim = 3 : tensor<2x3x6x8xf32>
  %m = solder.pool max %s kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<2x3x6x8xf32> -> tensor<2x3x3x4xf32>
  %ln64 = solder.layer_norm %z weight = %w64 bias = %b64 normalized_shape = [64] epsilon = 1.0e-05
       : (tensor<3x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<3x5x64xf32>
  %a = solder.pool avg %ln64 kernel = [4] strides = [4] padding = [0] dilations = [1] {divisor_override = 3 : i64}
       : tensor<3x5x64xf32> -> tensor<3x5x16xf32>
  %su = solder.softmax %u dim = 3 : tensor<2x4x6x12xf32>
  %o = solder.pool avg %su kernel = [3, 3] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<2x4x6x12xf32> -> tensor<2x4x2x5xf32>
  %mv = solder.reduce mean %v dims = [4] keepdim : tensor<2x3x4x4x8xf32> -> tensor<2x3x4x4x1xf32>
  %cv = solder.sub %v, %mv : tensor<2x3x4x4x8xf32>, tensor<2x3x4x4x1xf32> -> tensor<2x3x4x4x8xf32>
  %pv = solder.pool avg %cv kernel = [2, 2, 2] strides = [2, 2, 2] padding = [0, 0, 0] dilations = [1, 1, 1]
       : tensor<2x3x4x4x8xf32> -> tensor<2x3x2x2x4xf32>
  %gt = solder.gelu %t : tensor<2x2x4x8xf32>
  %mt = solder.reduce mean %gt dims = [3] keepdim : tensor<2x2x4x8xf32> -> tensor<2x2x4x1xf32>
  %pt = solder.pool max %gt kernel = [2, 1] strides = [2, 1] padding = [0, 0] dilations = [1, 1]
       : tensor<2x2x4x8xf32> -> tensor<2x2x2x8xf32>
  return %g, %s, %m, %a, %o, %mv, %pv, %mt, %pt : tensor<2x3x2x3x8xf32>, tensor<2x3x6x8xf32>,
      tensor<2x3x3x4xf32>, tensor<3x5x16xf32>, tensor<2x4x2x5xf32>, tensor<2x3x4x4x1xf32>,
      tensor<2x3x2x2x4xf32>, tensor<2x2x4x1xf32>, tensor<2x2x2x8xf32>
}
