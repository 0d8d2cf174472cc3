// solder-compile refuses a declaration: no body to compile.
func.func private @decl(%x: tensor<2xf32>) -> tensor<2xf32>
