// Adaptive pools to sizes that do not divide the input: PyTorch's windows
// [floor(i * in / out), ceil((i + 1) * in / out)) of varying size, which
// overlap (7 -> 3: [0, 3), [2, 5), [4, 7)); 1-D max, 2-D avg after a
// pointwise op, 3-D avg to a larger size than the input along one dim, and
// a reduction after one.
func.func @host_adaptive_pools(%x: tensor<3x5x9xf32>, %y: tensor<2x4x7x5xf32>,
    %z: tensor<2x3x6x9x4xf32>)
    -> (tensor<3x5x4xf32>, tensor<2x4x3x2xf32>, tensor<2x3x4x5x6xf32>, tensor<2x4xf32>) {
  %p = solder.adaptive_pool max %x : tensor<3x5x9xf32> -> tensor<3x5x4xf32>
  %t = solder.tanh %y : tensor<2x4x7x5xf32>
  %q = solder.adaptive_pool avg %t : tensor<2x4x7x5xf32> -> tensor<2x4x3x2xf32>
  %r = solder.adaptive_pool avg %z : tensor<2x3x6x9x4xf32> -> tensor<2x3x4x5x6xf32>
  %s = solder.reduce sum %q dims = [2, 3] : tensor<2x4x3x2xf32> -> tensor<2x4xf32>
  return %p, %q, %r, %s : tensor<3x5x4xf32>, tensor<2x4x3x2xf32>, tensor<2x3x4x5x6xf32>,
      tensor<2x4xf32>
}
