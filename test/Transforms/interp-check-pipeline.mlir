// solder-interp --check-pipeline takes both spellings of a pipeline: anchored
// ('builtin.module(...)', as README.md shows) and a pass list on the module
// ('func.func(solder-decompose)', 'solder-pipeline'). Both must really run it.

// The decomposed softmax rounds differently in f32: with zero tolerance the
// check must fail, as it does with the unanchored spelling.
// RUN: not solder-interp %s --check-pipeline='builtin.module(func.func(solder-decompose))' --seed=10 --precision=f32 --rtol=0 --atol=0 | FileCheck %s --check-prefix=RAN
// RAN: output #0 (2, 5, 3): max abs err {{[1-9]}}
// RAN: {{^}}FAIL
// A pass that can only fail must make the check fail.
// RUN: not solder-interp %s --check-pipeline='builtin.module(solder-plan{force=banana})' 2>&1 | FileCheck %s --check-prefix=BANANA
// BANANA: force must be auto, materialize or recompute

func.func @softmax_dim1(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = solder.softmax %x dim = 1 : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
