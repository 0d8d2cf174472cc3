// A hand-written plan that gives a reduce-and-apply row (a max over the
// last dim read back by a sub) a thread per output: the code generator
// runs such a region only a warp per row.
func.func @misplanned(%x: tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x4xf32>) {
  %0:2 = solder.fusion "misplanned_k0_reduction" (%a = %x) : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x4xf32>) attributes {solder.schedule = #solder.region_launch<thread_per_output, chunk = 1, vector = 1, threads = 256, grid = [1, 1, 1]>} {
    %r = solder.reduce max %a dims = [1] keepdim : tensor<2x4xf32> -> tensor<2x1xf32>
    %s = solder.sub %a, %r : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
    solder.yield %r, %s : tensor<2x1xf32>, tensor<2x4xf32>
  }
  return %0#0, %0#1 : tensor<2x1xf32>, tensor<2x4xf32>
}
