// A 1x1 conv over one pixel a sample, padded by 1 with stride 3: its one
// output reads only padding (the bias alone), so it is no GEMM over the
// samples (SamplesAsPixels has no padding).
func.func @padded_one_pixel_conv(%x: tensor<64x32x1x1xf32>, %w: tensor<16x32x1x1xf32>,
    %b: tensor<16xf32>) -> tensor<64x16x1x1xf32> {
  %y = solder.conv %x, %w, %b strides = [3, 3] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<64x32x1x1xf32>, tensor<16x32x1x1xf32>, tensor<16xf32>) -> tensor<64x16x1x1xf32>
  return %y : tensor<64x16x1x1xf32>
}
