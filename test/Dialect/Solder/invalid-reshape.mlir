// RUN: solder-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of solder.reshape (lib/Dialect/Solder/IR/ShapeOps.cpp).

func.func @reshape_element_count(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'solder.reshape' op needs the same number of elements in and out, got 24 ('tensor<2x3x4xf32>') and 25 ('tensor<5x5xf32>')}}
  %0 = solder.reshape %x : tensor<2x3x4xf32> -> tensor<5x5xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'solder.reshape' op operands and result must have one element type, got 'f32' and 'f16'}}
  %0 = solder.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf16>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'solder.reshape' op result #0 must be statically shaped tensor}}
  %0 = solder.reshape %x : tensor<2x3x4xf32> -> tensor<?x4xf32>
  return
}
