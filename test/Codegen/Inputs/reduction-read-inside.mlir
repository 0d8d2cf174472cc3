// A hand-written plan whose reduction region reads its own reduction in an
// op it also yields: element() runs before the reduction is done, so the
// code generator refuses the region (a reduction over the leading dim is no
// reduce-and-apply row).
func.func @read_inside(%x: tensor<2x4xf32>) -> (tensor<1x4xf32>, tensor<2x4xf32>) {
  %0:2 = solder.fusion "read_inside_k0_reduction" (%a = %x) : (tensor<2x4xf32>) -> (tensor<1x4xf32>, tensor<2x4xf32>) attributes {solder.schedule = #solder.region_launch<thread_per_output, chunk = 1, vector = 1, threads = 256, grid = [1, 1, 1]>} {
    %r = solder.reduce max %a dims = [0] keepdim : tensor<2x4xf32> -> tensor<1x4xf32>
    %s = solder.sub %a, %r : tensor<2x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
    solder.yield %r, %s : tensor<1x4xf32>, tensor<2x4xf32>
  }
  return %0#0, %0#1 : tensor<1x4xf32>, tensor<2x4xf32>
}
