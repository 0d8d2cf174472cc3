// Pools whose float4 lanes are four outputs of one row, over rows of a
// multiple of 4 columns: solder::poolWindows reads each input row the lanes
// span once, in float4s. Every pooling argument on that path: avg with and
// without the padding counted, a clipped ceil_mode window, stride 1, a
// dilated max pool; their input of both signs (max: padding never wins).
func.func @pools_float4_rows(%x: tensor<4x16x32x32xf32>)
    -> (tensor<4x16x16x16xf32>, tensor<4x16x32x32xf32>) {
  %half = arith.constant dense<0.5> : tensor<f32>
  %y = solder.sub %x, %half : tensor<4x16x32x32xf32>, tensor<f32> -> tensor<4x16x32x32xf32>
  %a = solder.pool avg %y kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1] {count_include_pad = false}
       : tensor<4x16x32x32xf32> -> tensor<4x16x16x16xf32>
  %b = solder.pool max %y kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<4x16x32x32xf32> -> tensor<4x16x16x16xf32>
  %c = solder.pool max %y kernel = [2, 2] strides = [2, 2] padding = [1, 1] dilations = [2, 2]
       : tensor<4x16x32x32xf32> -> tensor<4x16x16x16xf32>
  %e = solder.pool avg %y kernel = [3, 3] strides = [2, 2] padding = [0, 0] dilations = [1, 1] ceil_mode
       : tensor<4x16x32x32xf32> -> tensor<4x16x16x16xf32>
  %ab = solder.add %a, %b : tensor<4x16x16x16xf32>, tensor<4x16x16x16xf32> -> tensor<4x16x16x16xf32>
  %abc = solder.mul %ab, %c : tensor<4x16x16x16xf32>, tensor<4x16x16x16xf32> -> tensor<4x16x16x16xf32>
  %s = solder.sub %abc, %e : tensor<4x16x16x16xf32>, tensor<4x16x16x16xf32> -> tensor<4x16x16x16xf32>
  %f = solder.pool avg %y kernel = [3, 3] strides = [1, 1] padding = [1, 1] dilations = [1, 1]
       : tensor<4x16x32x32xf32> -> tensor<4x16x32x32xf32>
  return %s, %f : tensor<4x16x16x16xf32>, tensor<4x16x32x32xf32>
}
