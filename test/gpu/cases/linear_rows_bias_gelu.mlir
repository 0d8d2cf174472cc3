// A Linear over 4100 rows of 250 features -> 1150, bias and GELU, as the
// importer writes it: a 1x1 conv over (rows, features, 1). Its grid fills
// the SMs, so on sm_90a it runs the Hopper main loop over rows of samples
// (pixels = across_samples): the last row tile ragged (4100 = 32 x 128 + 4),
// the features padded to 252 and the last K step of 32 part zero, the last
// channel tile part empty.
func.func @linear_rows_bias_gelu(%x: tensor<4100x250x1xf32>, %w: tensor<1150x250x1xf32>,
    %b: tensor<1150xf32>) -> tensor<4100x1150x1xf32> {
  %y = solder.conv %x, %w, %b strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<4100x250x1xf32>, tensor<1150x250x1xf32>, tensor<1150xf32>) -> tensor<4100x1150x1xf32>
  %gelu = solder.gelu %y : tensor<4100x1150x1xf32>
  return %gelu : tensor<4100x1150x1xf32>
}
