// ConvNeXt's 7x7 depthwise conv on rows cut into tiles: Conv2d(5 -> 5, k7,
// padding 3, groups 5) -> GELU on 6 x 144 positions, tiles of 48 columns
// (three along each row, the visit through the tile's positions), the
// first and last tile's windows reaching 3 columns into the padding.
func.func @depthwise2d_7x7_split_rows_gelu(%x: tensor<2x5x6x144xf32>,
    %w: tensor<5x1x7x7xf32>) -> tensor<2x5x6x144xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [3, 3] dilations = [1, 1] groups = 5
       : (tensor<2x5x6x144xf32>, tensor<5x1x7x7xf32>) -> tensor<2x5x6x144xf32>
  %g = solder.gelu %y : tensor<2x5x6x144xf32>
  return %g : tensor<2x5x6x144xf32>
}
