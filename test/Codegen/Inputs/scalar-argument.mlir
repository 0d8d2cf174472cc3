// A function of scalars: solder-compile takes f32 tensors.
func.func @scalar(%x: i32) -> i32 {
  return %x : i32
}
