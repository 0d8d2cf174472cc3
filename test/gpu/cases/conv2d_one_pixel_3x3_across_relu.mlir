// ResNet's layer4 on 32x32 (CIFAR) images: a 3x3 conv with padding 1 over
// 1x1 images, 512 channels, batch 32. One pixel a sample, but not a GEMM
// (nine taps, eight of them padding): on sm_90a its tiles run across the
// samples with the conv's own geometry (the im2col copy walks from one
// sample into the next) and its K steps split into shares.
func.func @conv2d_one_pixel_3x3_across_relu(%x: tensor<32x512x1x1xf32>,
    %w: tensor<512x512x3x3xf32>) -> tensor<32x512x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<32x512x1x1xf32>, tensor<512x512x3x3xf32>) -> tensor<32x512x1x1xf32>
  %r = solder.relu %y : tensor<32x512x1x1xf32>
  return %r : tensor<32x512x1x1xf32>
}
