// Reduce-and-apply rows: a warp reduces a row of consecutive elements and
// then rewrites it, one kernel a chain. LayerNorm over the last two dims
// (60 elements a row, weight and bias of the row's shape); softmax over a
// last dim of 130 (chunks of 4 loads a lane: one step of 128, then a tail
// of 2); log_softmax over 33; x - mean(x) over the last two dims of 8 x 9,
// the mean also returned (stored once a row); x / sum(x) over 17 of exp(x);
// a softmax over 5000 (past a row's 4096 elements: two kernels); and a sum
// and a max of one exp over rows of 40 that nothing reads back (siblings of
// one row: one kernel, each stored once a row).
func.func @reduce_apply(%x: tensor<4x3x6x10xf32>, %w: tensor<6x10xf32>, %b: tensor<6x10xf32>,
    %y: tensor<5x7x130xf32>, %z: tensor<2x3x33xf32>, %u: tensor<2x4x8x9xf32>,
    %v: tensor<6x17xf32>, %long: tensor<3x5000xf32>, %sib: tensor<16x40xf32>)
    -> (tensor<4x3x6x10xf32>, tensor<5x7x130xf32>, tensor<2x3x33xf32>,
        tensor<2x4x8x9xf32>, tensor<2x4x1x1xf32>, tensor<6x17xf32>, tensor<3x5000xf32>,
        tensor<16x1xf32>, tensor<16x1xf32>) {
  %ln = solder.layer_norm %x weight = %w bias = %b normalized_shape = [6, 10] epsilon = 1.0e-05
       : (tensor<4x3x6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>) -> tensor<4x3x6x10xf32>
  %s = solder.softmax %y dim = 2 : tensor<5x7x130xf32>
  %three = arith.constant dense<3.0> : tensor<f32>
  %s3 = solder.mul %s, %three : tensor<5x7x130xf32>, tensor<f32> -> tensor<5x7x130xf32>
  %l = solder.log_softmax %z dim = 2 : tensor<2x3x33xf32>
  %mean = solder.reduce mean %u dims = [2, 3] keepdim : tensor<2x4x8x9xf32> -> tensor<2x4x1x1xf32>
  %centered = solder.sub %u, %mean : tensor<2x4x8x9xf32>, tensor<2x4x1x1xf32> -> tensor<2x4x8x9xf32>
  %t = solder.tanh %centered : tensor<2x4x8x9xf32>
  %e = solder.exp %v : tensor<6x17xf32>
  %sum = solder.reduce sum %e dims = [1] keepdim : tensor<6x17xf32> -> tensor<6x1xf32>
  %n = solder.div %e, %sum : tensor<6x17xf32>, tensor<6x1xf32> -> tensor<6x17xf32>
  %ls = solder.softmax %long dim = 1 : tensor<3x5000xf32>
  %se = solder.exp %sib : tensor<16x40xf32>
  %ssum = solder.reduce sum %se dims = [1] keepdim : tensor<16x40xf32> -> tensor<16x1xf32>
  %smax = solder.reduce max %se dims = [1] keepdim : tensor<16x40xf32> -> tensor<16x1xf32>
  return %ln, %s3, %l, %t, %mean, %n, %ls, %ssum, %smax : tensor<4x3x6x10xf32>, tensor<5x7x130xf32>,
      tensor<2x3x33xf32>, tensor<2x4x8x9xf32>, tensor<2x4x1x1xf32>, tensor<6x17xf32>,
      tensor<3x5000xf32>, tensor<16x1xf32>, tensor<16x1xf32>
}
