// ConvNeXt's 7x7 depthwise conv on rows cut into tiles, with eval
// BatchNorm: Conv2d(5 -> 5, k7, padding 3, groups 5) -> * scale + shift ->
// GELU on 13 x 128 positions, tiles of 7 rows x 64 columns (two along each
// row) visited through their positions: the first row of tiles whole (its
// visit unguarded), the second 6 rows deep (guarded), the outer tiles'
// windows reaching 3 columns into the padding.
func.func @depthwise2d_7x7_split_rows_gelu(%x: tensor<2x5x13x128xf32>,
    %w: tensor<5x1x7x7xf32>, %scale: tensor<5x1x1xf32>, %shift: tensor<5x1x1xf32>)
    -> tensor<2x5x13x128xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [3, 3] dilations = [1, 1] groups = 5
       : (tensor<2x5x13x128xf32>, tensor<5x1x7x7xf32>) -> tensor<2x5x13x128xf32>
  %s = solder.mul %y, %scale : tensor<2x5x13x128xf32>, tensor<5x1x1xf32> -> tensor<2x5x13x128xf32>
  %t = solder.add %s, %shift : tensor<2x5x13x128xf32>, tensor<5x1x1xf32> -> tensor<2x5x13x128xf32>
  %g = solder.gelu %t : tensor<2x5x13x128xf32>
  return %g : tensor<2x5x13x128xf32>
}
