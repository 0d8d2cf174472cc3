//===- npy_fuzzer.cpp - libFuzzer target: the .npy reader ------------------===//
//
// Any bytes: parseNpy must answer true or a one-line error, never crash,
// read out of bounds or allocate what a header merely claims.
//
//===----------------------------------------------------------------------===//

#include "solder/Support/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  solder::NpyArray array;
  std::string error;
  if (solder::parseNpy(reinterpret_cast<const char *>(data), size, array, error)) {
    uint64_t count = 1;
    for (int64_t dim : array.shape)
      count *= static_cast<uint64_t>(dim);
    if (count != array.values.size())
      __builtin_trap(); // the shape and the values read must agree
  } else if (error.empty() || error.find('\n') != std::string::npos) {
    std::fprintf(stderr, "not a one-line error: [%s]\n", error.c_str());
    __builtin_trap(); // failures are one line
  }
  return 0;
}
