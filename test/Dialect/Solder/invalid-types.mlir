// RUN: solder-opt %s -split-input-file -verify-diagnostics

// What ODS and the parser reject before any op verifier runs: the type
// constraint of every solder tensor (static shape, f16/bf16/f32/f64 elements,
// ranked), attribute constraints, traits, enum keywords and malformed custom
// syntax. One case per rule; the list of rules is at the end of the file.

//===----------------------------------------------------------------------===//
// Solder_Tensor: StaticShapeTensorOf<[F16, BF16, F32, F64]>
//===----------------------------------------------------------------------===//

func.func @dynamic_operand(%x: tensor<?x3x4x4xf32>) {
  // expected-error @+1 {{'solder.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<?x3x4x4xf32>'}}
  %0 = solder.relu %x : tensor<?x3x4x4xf32>
  return
}

// -----

func.func @dynamic_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x4x?x6xf32>'}}
  %0 = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return
}

// -----

func.func @integer_elements(%x: tensor<4xi32>) {
  // expected-error @+1 {{'solder.add' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = solder.add %x, %x : tensor<4xi32>
  return
}

// -----

// In the generic form an unranked tensor reaches the ODS type constraint.
func.func @unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'solder.reduce' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "solder.reduce"(%x) <{dims = array<i64: 0>, kind = #solder.reduce_kind<sum>}> : (tensor<*xf32>) -> tensor<f32>
  return
}

// -----

// The custom form parses operand types as RankedTensorType already.
func.func @unranked_custom(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'solder.reduce' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = solder.reduce sum %x dims = [0] : tensor<*xf32> -> tensor<f32>
  return
}

// -----

func.func @not_a_tensor(%x: memref<4xf32>) {
  // expected-error @+1 {{custom op 'solder.exp' invalid kind of type specified: expected builtin.tensor, but found 'memref<4xf32>'}}
  %0 = solder.exp %x : memref<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

func.func @unknown_reduce_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{custom op 'solder.reduce' unknown reduce_kind 'average'}}
  %0 = solder.reduce average %x dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @unknown_pool_kind(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{custom op 'solder.pool' unknown pool_kind 'median'}}
  %0 = solder.pool median %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @unknown_gelu_approximation(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::solder::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Solder_GeluApproximationAttr parameter 'value' which is to be a `::mlir::solder::GeluApproximation`}}
  %0 = solder.gelu %x {approximate = #solder.gelu_approximation<fast>} : tensor<4xf32>
  return
}

// -----

// An enum attribute of the wrong enum.
func.func @wrong_enum_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {dims = array<i64: 0>, kind = #solder.pool_kind<max>} for op solder.reduce: Invalid attribute `kind` in property conversion: #solder.pool_kind<max>}}
  %0 = "solder.reduce"(%x) <{dims = array<i64: 0>, kind = #solder.pool_kind<max>}> : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attribute constraints and traits
//===----------------------------------------------------------------------===//

func.func @float_attr_constraint(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'solder.clamp' 'solder.clamp' op attribute 'min' failed to satisfy constraint: 32-bit float attribute}}
  %0 = solder.clamp %x {min = 1 : i32} : tensor<4xf32>
  return
}

// -----

func.func @integer_attr_constraint(%x: tensor<4xf32>) {
  // expected-error @+1 {{'solder.softmax' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "solder.softmax"(%x) <{dim = 0 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @missing_attribute(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'solder.conv' op requires attribute 'groups'}}
  %0 = "solder.conv"(%x, %w) <{dilations = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// SameOperandsAndResultType of the unary ops (the custom form cannot express it).
func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'solder.relu' op requires the same type for all operands and results}}
  %0 = "solder.relu"(%x) : (tensor<4xf32>) -> tensor<1x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Malformed custom syntax
//===----------------------------------------------------------------------===//

// Two types need the result type too: `L, R -> Res`.
func.func @binary_missing_arrow(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected '->'}}
  %0 = solder.add %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @reduce_missing_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'solder.reduce' expected valid keyword}}
  %0 = solder.reduce %x dims = [0] : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_missing_dims(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'solder.reduce' expected 'dims'}}
  %0 = solder.reduce sum %x : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @array_attr_not_a_list(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected '['}}
  %0 = solder.conv %x, %w strides = 1 padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// `weight = %x` adds an operand, so functional-type must list its type.
func.func @norm_operand_type_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{custom op 'solder.layer_norm' number of operands and types do not match: got 2 operands and 1 types}}
  %0 = solder.layer_norm %x weight = %x normalized_shape = [2, 3] epsilon = 1.0e-05 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @unary_two_operands(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = solder.relu %x, %x : tensor<4xf32>
  return
}

// -----

// TensorSizeLimit (every solder op): at most 2^40 elements a tensor, counted
// without overflow (2^32 x 2^32 wraps to 0 in int64).
func.func @more_than_2_40_elements(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'solder.relu' op takes or yields 'tensor<4294967296x4294967296xf32>': more than 2^40 elements, larger than any GPU}}
  %0 = solder.relu %x : tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @just_over_2_40_elements(%x: tensor<1024x1024x1024x1025xf32>) {
  // expected-error @+1 {{'solder.reduce' op takes or yields 'tensor<1024x1024x1024x1025xf32>': more than 2^40 elements, larger than any GPU}}
  %0 = solder.reduce sum %x dims = [3] : tensor<1024x1024x1024x1025xf32> -> tensor<1024x1024x1024xf32>
  return
}

// -----

func.func @exactly_2_40_elements(%x: tensor<1024x1024x1024x1024xf32>) {
  %0 = solder.relu %x : tensor<1024x1024x1024x1024xf32>
  return
}

// Rules covered, in file order:
//    1. Solder_Tensor: static shape (operand)
//    2. Solder_Tensor: static shape (result)
//    3. Solder_Tensor: f16/bf16/f32/f64 elements only
//    4. Solder_Tensor: ranked (generic form, ODS constraint)
//    5. custom form: operand types parse as ranked tensors
//    6. custom form: operand types parse as tensors (no memref)
//    7. parseEnumKeyword (SolderOps.cpp): unknown reduce kind
//    8. parseEnumKeyword (SolderOps.cpp): unknown pool kind
//    9. #solder.gelu_approximation<...>: unknown value
//   10. property conversion: an enum attribute of the wrong enum
//   11. F32Attr constraint (clamp min)
//   12. I64Attr constraint (softmax dim)
//   13. required attribute missing (conv groups)
//   14. SameOperandsAndResultType (unary ops)
//   15. BroadcastTypes (SolderOps.cpp): `L, R` must be followed by `-> Res`
//   16. reduce: the kind keyword is required
//   17. reduce: `dims = [...]` is required
//   18. DenseI64ArrayAttr: a list is required
//   19. norm ops: functional-type lists one type per operand
//   20. unary ops take one operand
//   21. TensorSizeLimit: more than 2^40 elements (overflowing int64, and just over)
