// RUN: solder-opt %s -split-input-file -verify-diagnostics
//
// The rules of verifyNormCommon (lib/Dialect/Solder/IR/NormOps.cpp) that it
// reports through its `Diag`. solder-opt currently crashes (SEGV in
// Operation::emitOpError) on each of these: verifyNormCommon builds
//   Diag diag([op] { return op->emitOpError(); });
// and Diag keeps a function_ref to that temporary lambda, which is destroyed at
// the end of the declaration, so every diag.fail(...) calls a dangling
//
// One case per rule; each result has the type of the input.

// Rule: verifyNormCommon -> checkSameElementType (input, result, weight, bias).
func.func @norm_element_type(%x: tensor<2x6x4x4xf32>, %w: tensor<6xf16>) {
  // expected-error @+1 {{'solder.group_norm' op operands and result must have one element type, got 'f32' and 'f16'}}
  %0 = solder.group_norm %x weight = %w num_groups = 3 epsilon = 1.0e-05 : (tensor<2x6x4x4xf32>, tensor<6xf16>) -> tensor<2x6x4x4xf32>
  return
}

// -----

// Rule: verifyNormCommon: epsilon >= 0.
func.func @norm_epsilon(%x: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{'solder.batch_norm' op epsilon must be non-negative, got -1.000000e+00}}
  %0 = solder.batch_norm %x epsilon = -1.0 : (tensor<8x16x4x4xf32>) -> tensor<8x16x4x4xf32>
  return
}

// -----

// Rule: verifyNormCommon: weight has the parameter shape ((C) here).
func.func @norm_weight_shape(%x: tensor<8x16x4x4xf32>, %w: tensor<16x1x1xf32>) {
  // expected-error @+1 {{'solder.instance_norm' op weight must have shape (16), got 'tensor<16x1x1xf32>'}}
  %0 = solder.instance_norm %x weight = %w epsilon = 1.0e-05 : (tensor<8x16x4x4xf32>, tensor<16x1x1xf32>) -> tensor<8x16x4x4xf32>
  return
}

// -----

// Rule: verifyNormCommon: bias has the parameter shape (normalized_shape here).
func.func @norm_bias_shape(%x: tensor<8x16x4x4xf32>, %w: tensor<4x4xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'solder.layer_norm' op bias must have shape (4, 4), got 'tensor<16xf32>'}}
  %0 = solder.layer_norm %x weight = %w bias = %b normalized_shape = [4, 4] epsilon = 1.0e-05 : (tensor<8x16x4x4xf32>, tensor<4x4xf32>, tensor<16xf32>) -> tensor<8x16x4x4xf32>
  return
}

// Rules covered, in file order (NormOps.cpp, verifyNormCommon):
//   1. checkSameElementType (Verification.cpp)
//   2. epsilon >= 0
//   3. weight shape == parameter shape
//   4. bias shape == parameter shape
