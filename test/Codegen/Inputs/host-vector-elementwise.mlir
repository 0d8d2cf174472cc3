// Elementwise kernels that load and store float4 (RegionLaunch::vector).
// Over 3 x 6 x 2 x 10 the vectors run along the last two dims (20 floats;
// 10 alone is not a multiple of 4): %c is dense over them, %b broadcasts
// along them, and 90 vectors leave the one tile of 2 x 256 ragged. Over
// 5 x 12 the vectors run along the channels: each lane normalizes with its
// own channel's group.
func.func @vector_elementwise(%x: tensor<3x6x2x10xf32>, %b: tensor<6x1x1xf32>,
                              %c: tensor<2x10xf32>, %y: tensor<5x12xf32>,
                              %stats: tensor<5x3x2xf32>)
    -> (tensor<3x6x2x10xf32>, tensor<3x6x2x10xf32>, tensor<5x12xf32>) {
  %s = solder.sigmoid %x : tensor<3x6x2x10xf32>
  %t = solder.mul %s, %b : tensor<3x6x2x10xf32>, tensor<6x1x1xf32> -> tensor<3x6x2x10xf32>
  %u = solder.add %t, %c : tensor<3x6x2x10xf32>, tensor<2x10xf32> -> tensor<3x6x2x10xf32>
  %n = solder.group_normalize %y, %stats
       : (tensor<5x12xf32>, tensor<5x3x2xf32>) -> tensor<5x12xf32>
  %e = solder.exp %n : tensor<5x12xf32>
  return %t, %u, %e : tensor<3x6x2x10xf32>, tensor<3x6x2x10xf32>, tensor<5x12xf32>
}
