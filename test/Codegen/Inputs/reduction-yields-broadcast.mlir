// A hand-written plan whose reduction region also yields a value of another
// shape than the reduced tensor's (a per-column exp): no element of the
// reduction's walk computes it, so the code generator refuses the region.
func.func @broadcast_yield(%x: tensor<2x4xf32>, %b: tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %0:2 = solder.fusion "broadcast_yield_k0_reduction" (%a = %x, %c = %b) : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>) attributes {solder.schedule = #solder.region_launch<thread_per_output, chunk = 1, vector = 1, threads = 256, grid = [1, 1, 1]>} {
    %e = solder.exp %c : tensor<4xf32>
    %s = solder.add %a, %e : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
    %r = solder.reduce sum %s dims = [1] : tensor<2x4xf32> -> tensor<2xf32>
    solder.yield %r, %e : tensor<2xf32>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<4xf32>
}
