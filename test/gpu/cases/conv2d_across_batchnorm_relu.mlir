// ResNet's layer4 3x3 conv at batch 8 (7x7 images, 512 channels) with a
// training BatchNorm and ReLU: the BatchNorm's statistics span the batch,
// so on sm_90a the conv's tiles run across the samples (392 pixels in 4
// tiles of 128 rows, not 8 of one sample's 49) with its K steps split, and
// the epilogue's partial statistics are a tile's; the finalize merges them
// in a fixed order.
func.func @conv2d_across_batchnorm_relu(%x: tensor<8x512x7x7xf32>,
    %w: tensor<512x512x3x3xf32>, %g: tensor<512xf32>, %b: tensor<512xf32>)
    -> tensor<8x512x7x7xf32> {
  %c = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<8x512x7x7xf32>
  %n = solder.batch_norm %c weight = %g bias = %b epsilon = 1.0e-05
       : (tensor<8x512x7x7xf32>, tensor<512xf32>, tensor<512xf32>) -> tensor<8x512x7x7xf32>
  %y = solder.relu %n : tensor<8x512x7x7xf32>
  return %y : tensor<8x512x7x7xf32>
}
