// ResNet's layer4 at batch 8 (7x7 images, 512 channels), eval BatchNorm as
// scale and shift, then a 1x1 conv whose epilogue adds the block's input:
// on sm_90a the 3x3's tiles run across the samples (392 pixels in 4 tiles
// of 128 rows, not 8 of one sample's 49), and both convs' K steps split
// into shares whose last block adds them in a fixed order; the 3x3's
// result is stored channels-last, rounded in tf32, for the 1x1.
func.func @layer4_split_across_residual(%x: tensor<8x512x7x7xf32>,
    %w1: tensor<512x512x3x3xf32>, %s1: tensor<512x1x1xf32>, %b1: tensor<512x1x1xf32>,
    %w2: tensor<512x512x1x1xf32>, %s2: tensor<512x1x1xf32>)
    -> tensor<8x512x7x7xf32> {
  %c1 = solder.conv %x, %w1 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<8x512x7x7xf32>
  %n1 = solder.mul %c1, %s1 : tensor<8x512x7x7xf32>, tensor<512x1x1xf32> -> tensor<8x512x7x7xf32>
  %m1 = solder.add %n1, %b1 : tensor<8x512x7x7xf32>, tensor<512x1x1xf32> -> tensor<8x512x7x7xf32>
  %r1 = solder.relu %m1 : tensor<8x512x7x7xf32>
  %c2 = solder.conv %r1, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x512x7x7xf32>, tensor<512x512x1x1xf32>) -> tensor<8x512x7x7xf32>
  %n2 = solder.mul %c2, %s2 : tensor<8x512x7x7xf32>, tensor<512x1x1xf32> -> tensor<8x512x7x7xf32>
  %a2 = solder.add %n2, %x : tensor<8x512x7x7xf32>
  %y = solder.relu %a2 : tensor<8x512x7x7xf32>
  return %y : tensor<8x512x7x7xf32>
}
