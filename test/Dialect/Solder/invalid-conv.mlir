// RUN: solder-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of solder.conv and solder.conv_transpose
// (lib/Dialect/Solder/IR/ConvOps.cpp and the helpers it calls in
// Verification.cpp). Every case but the result-type ones gives the result the
// type the op would have, so that it trips exactly one rule. The list of rules
// is at the end of the file.

//===----------------------------------------------------------------------===//
// solder.conv
//===----------------------------------------------------------------------===//

func.func @conv_element_type(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf16>) {
  // expected-error @+1 {{'solder.conv' op operands and result must have one element type, got 'f32' and 'f16'}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf16>) -> tensor<1x2x2x2xf32>
  return
}

// -----

// (N, C) with no spatial dim: there is no valid result type.
func.func @conv_input_rank(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{'solder.conv' op input must have rank 3 to 5 (N, C and 1 to 3 spatial dims), got rank 2}}
  %0 = solder.conv %x, %w strides = [] padding = [] dilations = [] groups = 1 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op weight must have rank 4 like the input, got rank 3}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_strides_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op 'strides' must have 2 entries (one per spatial dim), got 1}}
  %0 = solder.conv %x, %w strides = [1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_strides_min(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op 'strides' entries must be at least 1, got (1, 0)}}
  %0 = solder.conv %x, %w strides = [1, 0] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op 'padding' must have 2 entries (one per spatial dim), got 3}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_min(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op 'padding' entries must be at least 0, got (0, -1)}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, -1] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x4xf32>
  return
}

// -----

func.func @conv_padding_high_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x4x4xf32>) {
  // expected-error @+1 {{'solder.conv' op 'padding_high' must have 2 entries (one per spatial dim), got 1}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [1, 1] padding_high = [2] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_padding_high_min(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x4x4xf32>) {
  // expected-error @+1 {{'solder.conv' op 'padding_high' entries must be at least 0, got (2, -1)}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [1, 1] padding_high = [2, -1] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32>) -> tensor<1x4x8x5xf32>
  return
}

// -----

// The output size counts the zeros before and after: 8 + 1 + 2 - 3 - 1 + 1.
func.func @conv_padding_high_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x4x4xf32>) {
  // expected-error @+1 {{'solder.conv' op result type 'tensor<1x4x7x7xf32>' does not match the inferred type 'tensor<1x4x8x8xf32>'}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [1, 1] padding_high = [2, 2] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x4x4xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @conv_dilations_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op 'dilations' must have 2 entries (one per spatial dim), got 0}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_dilations_min(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op 'dilations' entries must be at least 1, got (0, 1)}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [0, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x6xf32>
  return
}

// -----

func.func @conv_groups_min(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op groups must be at least 1, got 0}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 0 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_input_channels_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op input channels (3) must be divisible by groups (2)}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 2 : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_output_channels_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op output channels (weight dim 0 = 3) must be divisible by groups (2)}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 2 : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

// With groups = 2 a weight of (Cout, Cin, ...) is wrong: it must be (Cout, Cin / 2, ...).
func.func @conv_weight_dim1(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op weight dim 1 (4) must equal input channels / groups (2)}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 2 : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'solder.conv' op bias must have shape (4), got 'tensor<3xf32>'}}
  %0 = solder.conv %x, %w, %b strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Spatial dim 0 is fine (5 - 3 + 1 = 3); dim 1 has no room for the kernel.
func.func @conv_output_size(%x: tensor<1x3x5x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op output size of spatial dim 1 is 0 for input (1, 3, 5, 2); it must be at least 1}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x5x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x0xf32>
  return
}

// -----

// floor((8 + 0 - 2 - 1) / 2) + 1 = 3, not ceil (4).
func.func @conv_result_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op result type 'tensor<1x4x4x4xf32>' does not match the inferred type 'tensor<1x4x3x3xf32>'}}
  %0 = solder.conv %x, %w strides = [2, 2] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// solder.conv_transpose
//===----------------------------------------------------------------------===//

func.func @conv_transpose_element_type(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{'solder.conv_transpose' op operands and result must have one element type, got 'f32' and 'f64'}}
  %0 = solder.conv_transpose %x, %w, %b strides = [1, 1] padding = [0, 0] output_padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf64>) -> tensor<1x2x7x7xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_count(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op 'output_padding' must have 2 entries (one per spatial dim), got 1}}
  %0 = solder.conv_transpose %x, %w strides = [2, 2] padding = [0, 0] output_padding = [1] dilations = [1, 1] groups = 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x12x12xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_min(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op 'output_padding' entries must be at least 0, got (0, -1)}}
  %0 = solder.conv_transpose %x, %w strides = [1, 1] padding = [0, 0] output_padding = [0, -1] dilations = [1, 1] groups = 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x6xf32>
  return
}

// -----

// The weight of a transposed conv is (Cin, Cout / groups, ...), not (Cout, Cin, ...).
func.func @conv_transpose_weight_dim0(%x: tensor<1x4x5x5xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op weight dim 0 (2) must equal input channels (4)}}
  %0 = solder.conv_transpose %x, %w strides = [1, 1] padding = [0, 0] output_padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x4x5x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

// Cout = weight dim 1 * groups = 3 * 2.
func.func @conv_transpose_bias_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op bias must have shape (6), got 'tensor<3xf32>'}}
  %0 = solder.conv_transpose %x, %w, %b strides = [1, 1] padding = [0, 0] output_padding = [0, 0] dilations = [1, 1] groups = 2 : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x6x7x7xf32>
  return
}

// -----

// Spatial dim 0 (stride 2) may take output_padding 1; dim 1 may not take 2.
func.func @conv_transpose_output_padding_max(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op output_padding (2) of spatial dim 1 must be smaller than its stride (2) or its dilation (1)}}
  %0 = solder.conv_transpose %x, %w strides = [2, 2] padding = [0, 0] output_padding = [1, 2] dilations = [1, 1] groups = 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x12x13xf32>
  return
}

// -----

// (1 - 1) * 1 - 2 * 1 + 1 * (1 - 1) + 0 + 1 = -1.
func.func @conv_transpose_output_size(%x: tensor<1x2x1xf32>, %w: tensor<2x2x1xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op output size of spatial dim 0 is -1 for input (1, 2, 1); it must be at least 1}}
  %0 = solder.conv_transpose %x, %w strides = [1] padding = [1] output_padding = [0] dilations = [1] groups = 1 : (tensor<1x2x1xf32>, tensor<2x2x1xf32>) -> tensor<1x2x1xf32>
  return
}

// -----

// (5 - 1) * 2 - 0 + 2 + 0 + 1 = 11 (a conv's shape rule would give 2).
func.func @conv_transpose_result_type(%x: tensor<1x4x5xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op result type 'tensor<1x2x2xf32>' does not match the inferred type 'tensor<1x2x11xf32>'}}
  %0 = solder.conv_transpose %x, %w strides = [2] padding = [0] output_padding = [0] dilations = [1] groups = 1 : (tensor<1x4x5xf32>, tensor<4x2x3xf32>) -> tensor<1x2x2xf32>
  return
}

// Rules covered, in file order (ConvOps.cpp unless noted):
//   conv:
//    1. ConvOp::verify checkSameElementType (Verification.cpp)
//    2. checkConvCommon -> checkBatchChannelSpatialRank: input rank 3 to 5
//    3. checkConvCommon: weight rank == input rank
//    4. checkConvCommon -> checkSpatialArray 'strides': entry count
//    5. checkConvCommon -> checkSpatialArray 'strides': entries >= 1
//    6. checkConvCommon -> checkSpatialArray 'padding': entry count
//    7. checkConvCommon -> checkSpatialArray 'padding': entries >= 0
//    7a. ConvOp::inferResultType -> checkSpatialArray 'padding_high': entry count
//    7b. ConvOp::inferResultType -> checkSpatialArray 'padding_high': entries >= 0,
//        and the output size counts it (its result-type case)
//    8. checkConvCommon -> checkSpatialArray 'dilations': entry count
//    9. checkConvCommon -> checkSpatialArray 'dilations': entries >= 1
//   10. checkConvCommon: groups >= 1
//   11. checkConvCommon: input channels % groups == 0
//   12. ConvOp::inferResultType: output channels % groups == 0
//   13. ConvOp::inferResultType: weight dim 1 == input channels / groups
//   14. ConvOp::inferResultType -> checkPerChannelParameter: bias is (Cout)
//   15. ConvOp::inferResultType -> checkOutputSizes: every output size >= 1
//   16. ConvOp::verify checkResultType: result == inferred type
//   conv_transpose (checkConvCommon's rules 2-11 are shared with conv and
//   covered there):
//   17. ConvTransposeOp::verify checkSameElementType (bias checked too)
//   18. ConvTransposeOp::inferResultType -> checkSpatialArray 'output_padding': entry count
//   19. ConvTransposeOp::inferResultType -> checkSpatialArray 'output_padding': entries >= 0
//   20. ConvTransposeOp::inferResultType: weight dim 0 == input channels
//   21. ConvTransposeOp::inferResultType -> checkPerChannelParameter: bias is (weight dim 1 * groups)
//   22. ConvTransposeOp::inferResultType: output_padding < max(stride, dilation)
//   23. ConvTransposeOp::inferResultType -> checkOutputSizes: every output size >= 1
//   24. ConvTransposeOp::verify checkResultType: result == inferred type
//   25. ConvOp and ConvTransposeOp::inferResultType: sizes in checked
//       arithmetic (the cases at the end of the file); output channels too

// -----

func.func @conv_kernel_size_zero(%x: tensor<1x2x4xf32>, %w: tensor<3x2x0xf32>) {
  // expected-error @+1 {{'solder.conv' op weight kernel sizes must be at least 1, got (0)}}
  %0 = solder.conv %x, %w strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<1x2x4xf32>, tensor<3x2x0xf32>) -> tensor<1x3x5xf32>
  return
}

// -----

// The reported size is PyTorch's (negative here), not clipped to 0.
func.func @conv_output_size_negative(%x: tensor<1x2x1xf32>, %w: tensor<3x2x5xf32>) {
  // expected-error @+1 {{'solder.conv' op output size of spatial dim 0 is -3 for input (1, 2, 1); it must be at least 1}}
  %0 = solder.conv %x, %w strides = [1] padding = [0] dilations = [1] groups = 1 : (tensor<1x2x1xf32>, tensor<3x2x5xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// Sizes and attributes come from the user: 2 * padding past int64 is an
// error, not a wrapped size.
func.func @conv_padding_overflow(%x: tensor<1x2x4xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+1 {{'solder.conv' op the size of spatial dim 0 overflows 64-bit arithmetic}}
  %0 = solder.conv %x, %w strides = [1] padding = [4611686018427387904] dilations = [1] groups = 1 : (tensor<1x2x4xf32>, tensor<3x2x3xf32>) -> tensor<1x3x2xf32>
  return
}

// -----

func.func @conv_transpose_stride_overflow(%x: tensor<1x2x5xf32>, %w: tensor<2x3x3xf32>) {
  // expected-error @+1 {{'solder.conv_transpose' op the size of spatial dim 0 overflows 64-bit arithmetic}}
  %0 = solder.conv_transpose %x, %w strides = [4611686018427387904] padding = [0] output_padding = [0] dilations = [1] groups = 1 : (tensor<1x2x5xf32>, tensor<2x3x3xf32>) -> tensor<1x3x7xf32>
  return
}
