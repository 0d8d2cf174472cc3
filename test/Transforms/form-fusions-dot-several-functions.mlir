// With several functions, dot-file needs {func} in its name (the instances
// run in parallel): each function's graph goes to a file of its own, and a
// name without {func} is an error rather than a race on one file.
// RUN: solder-opt %s --solder-form-fusions="dot-file=%t.{func}.dot" -o /dev/null
// RUN: cat %t.first.dot %t.second.dot | FileCheck %s
// RUN: not solder-opt %s --solder-form-fusions="dot-file=%t.dot" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: error: dot-file: the module has several functions; put {func} in the file name
// RUN: solder-interp %s --function=first --check-pipeline='func.func(solder-form-fusions)' --seed=1 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=second --check-pipeline='func.func(solder-form-fusions)' --seed=1 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

// CHECK-DAG: digraph "first" {
// CHECK-DAG: digraph "second" {
func.func @first(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = solder.tanh %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @second(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = solder.exp %x : tensor<2x3xf32>
  %1 = solder.reduce sum %0 dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
