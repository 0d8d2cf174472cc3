// The caller's layouts (solder.channels_last on a function's arguments and
// results, as the importer marks a channels-last model's): the plan keeps
// each where every reader takes the tensor so, or its producer stores it so,
// and drops it elsewhere (the caller then passes or gets it in NCDHW).

// A basic block on a channels-last input, returned channels-last: both kept.
// RUN: solder-opt %solder_src/test/gpu/cases/basic_block_channels_last_io.mlir --solder-pipeline | FileCheck %s --check-prefix=KEPT
// KEPT: func.func @basic_block_channels_last_io(%arg0: tensor<3x64x14x14xf32> {solder.channels_last}, {{.*}}) -> (tensor<3x64x14x14xf32> {solder.channels_last})
// KEPT: solder.fusion "basic_block_channels_last_io_k0_conv"{{.*}}solder.channels_last = array<i64: 0>
// KEPT-SAME: padded_channels = 64, weight_grid
// KEPT: solder.fusion "basic_block_channels_last_io_k1_conv"{{.*}}solder.channels_last = array<i64: 0>
// RUN: solder-opt %solder_src/test/gpu/cases/basic_block_channels_last_io.mlir --solder-pipeline=report=true -o /dev/null | FileCheck %s --check-prefix=KEPTREPORT
// KEPTREPORT: input #0: channels-last, as the caller stores it
// KEPTREPORT-NEXT: output #0: channels-last, as the caller wants it
// KEPTREPORT: basic_block_channels_last_io_k0_conv: {{.*}}; layout conversions (weights -> KTRSC): 0.3 MB; its input read as it is (stored channels-last by the caller, input #0); stores result #0 channels-last (NDHWC)

// An inverted residual: the caller's input kept (a 1x1 conv and the
// project's residual read it); the expand's result stays NCDHW for the
// depthwise conv, which stages a caller's channels-last input as it is
// (the other way is the caller's copy) but a conv's NCDHW one faster.
// RUN: solder-opt %solder_src/test/gpu/cases/inverted_residual_channels_last.mlir --solder-pipeline=report=true -o /dev/null | FileCheck %s --check-prefix=INVRES
// INVRES: input #0: channels-last, as the caller stores it
// INVRES-NEXT: output #0: channels-last, as the caller wants it
// INVRES: inverted_residual_channels_last_k0_conv: {{.*}}; its input read as it is (stored channels-last by the caller, input #0); its weights read as they are (1x1, no channel padded){{$}}
// INVRES: inverted_residual_channels_last_k1_conv: depthwise {{.*}}; stores result #0 channels-last (NDHWC){{$}}
// RUN: solder-opt %solder_src/test/gpu/cases/depthwise2d_channels_last_input_multiplier_gelu.mlir --solder-pipeline=report=true -o /dev/null | FileCheck %s --check-prefix=DWINPUT
// DWINPUT: input #0: channels-last, as the caller stores it
// DWINPUT: depthwise2d_channels_last_input_multiplier_gelu_k0_conv: depthwise {{.*}}; its input read as it is (stored channels-last by the caller, input #0){{$}}

// RUN: solder-opt %s --solder-pipeline | FileCheck %s --check-prefix=DROPPED
// RUN: solder-opt %s --solder-pipeline=report=true -o /dev/null | FileCheck %s --check-prefix=DROPPEDREPORT

// %x is also read by a reduction over its channels, which takes NCDHW, and
// the reduction's result is not a conv's: both dropped, and the conv
// converts its input as it does any NCDHW input. The conv region's result
// (its epilogue's relu and sigmoid) stays channels-last.
// DROPPED-LABEL: func.func @read_by_a_reduction(%arg0: tensor<2x16x8x8xf32>, %arg1: tensor<16x16x3x3xf32>) -> (tensor<2x16x8x8xf32> {solder.channels_last}, tensor<2x1x8x8xf32>)
// DROPPED: solder.fusion "read_by_a_reduction_k0_conv"{{.*}}solder.channels_last = array<i64: 0>
// DROPPED: return
// DROPPEDREPORT: Solder plan for @read_by_a_reduction
// DROPPEDREPORT: input #0: NCDHW (the caller's is channels-last, but a reader takes NCDHW: the caller converts it)
// DROPPEDREPORT-NEXT: output #0: channels-last, as the caller wants it
// DROPPEDREPORT-NEXT: output #1: NCDHW (the caller wants it channels-last, but it is not a conv region's result that every reader takes so)
// DROPPEDREPORT: read_by_a_reduction_k0_conv: {{.*}}layout conversions (input NCDHW -> NDHWC with 16 channels, weights -> KTRSC)
func.func @read_by_a_reduction(%x: tensor<2x16x8x8xf32> {solder.channels_last},
    %w: tensor<16x16x3x3xf32>)
    -> (tensor<2x16x8x8xf32> {solder.channels_last}, tensor<2x1x8x8xf32> {solder.channels_last}) {
  %c = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<2x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x8x8xf32>
  %m = solder.reduce mean %x dims = [1] keepdim : tensor<2x16x8x8xf32> -> tensor<2x1x8x8xf32>
  %r = solder.relu %c : tensor<2x16x8x8xf32>
  %s = solder.sigmoid %r : tensor<2x16x8x8xf32>
  return %s, %m : tensor<2x16x8x8xf32>, tensor<2x1x8x8xf32>
}

// A channels-last result that a reduction also reads (it takes NCDHW): the
// conv region stores it NCDHW.
// DROPPED-LABEL: func.func @returned_and_reduced(%arg0: tensor<2x16x8x8xf32>, %arg1: tensor<16x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<2x16x1x1xf32>)
// DROPPED-NOT: solder.channels_last
// DROPPED: return
// DROPPEDREPORT: Solder plan for @returned_and_reduced
// DROPPEDREPORT: output #0: NCDHW (the caller wants it channels-last, but it is not a conv region's result that every reader takes so)
func.func @returned_and_reduced(%x: tensor<2x16x8x8xf32>, %w: tensor<16x16x1x1xf32>)
    -> (tensor<2x16x8x8xf32> {solder.channels_last}, tensor<2x16x1x1xf32>) {
  %c = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<2x16x8x8xf32>
  %r = solder.relu %c : tensor<2x16x8x8xf32>
  %m = solder.reduce max %r dims = [2, 3] keepdim : tensor<2x16x8x8xf32> -> tensor<2x16x1x1xf32>
  return %r, %m : tensor<2x16x8x8xf32>, tensor<2x16x1x1xf32>
}
