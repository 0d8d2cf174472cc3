//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// Plain C++ (no MLIR, no LLVM) so that the runtime, which must build where
// only CUDA is, can use it too. Supports what Solder exchanges: C-order arrays
// of little-endian float32 or float64.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_SUPPORT_NPY_H
#define SOLDER_SUPPORT_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace solder {

enum class NpyDtype { f32, f64 };

/// An array read from or written to a .npy file; values widened to double.
struct NpyArray {
  std::vector<int64_t> shape;
  NpyDtype dtype = NpyDtype::f32;
  std::vector<double> values;
};

/// Parses the .npy file held in `data`. Every size the header claims is
/// checked against `size` before anything is allocated; on failure returns
/// false and sets `error` to a one-line message.
bool parseNpy(const char *data, size_t size, NpyArray &array,
              std::string &error);

/// Reads `path`. On failure returns false and sets `error` to a one-line
/// message naming the file and the problem.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// Writes `array` as `array.dtype` (values narrowed to float for f32).
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

} // namespace solder

#endif // SOLDER_SUPPORT_NPY_H
