// RUN: solder-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the pointwise ops (lib/Dialect/Solder/IR/
// PointwiseOps.cpp). Every case but the result-type one gives the result the
// type it would have, so that it trips exactly one rule. The list of rules is
// at the end of the file.

//===----------------------------------------------------------------------===//
// Unary ops with attributes
//===----------------------------------------------------------------------===//

func.func @softplus_beta_zero(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'solder.softplus' op beta must be non-zero}}
  %0 = solder.softplus %x {beta = 0.0 : f32} : tensor<2x3xf32>
  return
}

// -----

func.func @hardtanh_min_above_max(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'solder.hardtanh' op min (2.000000e+00) must not exceed max (1.500000e+00)}}
  %0 = solder.hardtanh %x {min = 2.0 : f32, max = 1.5 : f32} : tensor<2x3xf32>
  return
}

// -----

func.func @hardtanh_nan_bound(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'solder.hardtanh' op bounds must not be NaN}}
  %0 = solder.hardtanh %x {min = 0x7FC00000 : f32, max = 1.5 : f32} : tensor<2x3xf32>
  return
}

// -----

func.func @clamp_nan_bound(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'solder.clamp' op bounds must not be NaN}}
  %0 = solder.clamp %x {max = 0x7FC00000 : f32} : tensor<2x3xf32>
  return
}

// -----

func.func @clamp_no_bound(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'solder.clamp' op needs at least one of min and max}}
  %0 = solder.clamp %x : tensor<2x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Binary ops (one shared verifier, verifyBinaryOp)
//===----------------------------------------------------------------------===//

func.func @binary_element_type(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'solder.add' op operands must have one element type, got 'f32' and 'f16'}}
  %0 = solder.add %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

// Aligned at the trailing dims: (2, 3) and (4) meet at result dim 1.
func.func @binary_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'solder.mul' op operands are not broadcast-compatible: (2, 3) and (4) differ at result dim 1 (3 vs 4)}}
  %0 = solder.mul %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

// A broadcast result is the larger shape, not the lhs shape.
func.func @binary_result_type(%a: tensor<16x1x1xf32>, %b: tensor<8x16x4x4xf32>) {
  // expected-error @+1 {{'solder.pow' op result type 'tensor<16x1x1xf32>' does not match the inferred type 'tensor<8x16x4x4xf32>'}}
  %0 = solder.pow %a, %b : tensor<16x1x1xf32>, tensor<8x16x4x4xf32> -> tensor<16x1x1xf32>
  return
}

// Rules covered, in file order (PointwiseOps.cpp):
//   1. SoftplusOp::verify: beta != 0
//   2. HardtanhOp::verify: bounds not NaN, min <= max
//   3. ClampOp::verify: min or max given, bounds not NaN
//   4. inferBroadcastType: lhs and rhs have one element type
//   5. inferBroadcastType: each aligned pair of sizes is equal or has a 1
//   6. verifyBinaryOp -> checkResultType: result == broadcast type
// The binary rules 4-6 live in the one verifier that all seven binary ops
// (add, sub, mul, div, maximum, minimum, pow) call; the unary ops without
// attributes have no verifier of their own (see invalid-types.mlir for the
// SameOperandsAndResultType trait).
