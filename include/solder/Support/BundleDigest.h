//===- BundleDigest.h - What a bundle's kernels were compiled for -*- C++ -*-===//
//
// Generated kernels bake their tensors' shapes in. solder-compile writes this
// digest of the manifest's inputs, outputs, buffers and launches, and the
// runtime recomputes it when it loads a bundle: an edited manifest (a shape
// changed to 2^31 elements, a grid enlarged) is refused before anything is
// allocated for it, instead of running kernels on tensors they were not
// compiled for. FNV-1a, 64 bits: it catches edits and corruption, it is no
// signature. Plain C++ so the MLIR-free runtime shares it.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_SUPPORT_BUNDLEDIGEST_H
#define SOLDER_SUPPORT_BUNDLEDIGEST_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace solder {

/// Feed the fields in the manifest's order: every tensor (inputs, then
/// outputs), every buffer, every launch with its arguments, every constant.
class BundleDigest {
public:
  void tensor(const std::string &name, const int64_t *dims, size_t rank) {
    add("t");
    add(name);
    for (size_t i = 0; i < rank; ++i)
      add(std::to_string(dims[i]));
  }
  /// After tensor(), for a tensor stored channels-last (nothing for the
  /// others, so that their digests stay what they were).
  void channelsLast() { add("n"); }
  void buffer(const std::string &name, int64_t bytes, bool zeroed) {
    add("b");
    add(name);
    add(std::to_string(bytes));
    add(zeroed ? "1" : "0");
  }
  void launch(const std::string &kernel, const int64_t grid[3],
              const int64_t block[3], int64_t sharedBytes) {
    add("l");
    add(kernel);
    for (int i = 0; i < 3; ++i)
      add(std::to_string(grid[i]) + "," + std::to_string(block[i]));
    add(std::to_string(sharedBytes));
  }
  /// After launch(), for a persistent launch (nothing for the others, so
  /// that their digests stay what they were).
  void persistent() { add("p"); }
  /// After launch() (and its arguments), for a preparation: the inputs it
  /// is computed from (nothing for the others).
  template <class InputIndices> void preparedFrom(const InputIndices &inputs) {
    add("r");
    for (auto input : inputs)
      add(std::to_string(input));
  }
  /// kind: "input", "output" or "buffer".
  void argument(const char *kind, int64_t index) {
    add(kind);
    add(std::to_string(index));
  }
  void constant(const std::string &symbol, const std::string &builder) {
    add("c");
    add(symbol);
    add(builder);
  }
  /// A tensor map (manifest "tensor_maps"): where it goes, the buffer it
  /// covers and its encoding (Spec: TensorMapSpec of conv/wgmma_layout.h).
  template <class Spec>
  void tensorMap(const std::string &symbol, int64_t offset, int64_t buffer, const Spec &spec) {
    add("m");
    add(symbol);
    add(std::to_string(offset) + "," + std::to_string(buffer) + (spec.im2col ? ",i" : ",t"));
    for (int i = 0; i < spec.rank; ++i)
      add(std::to_string(spec.dims[i]) + "," + std::to_string(spec.elementStrides[i]) + "," +
          (i + 1 < spec.rank ? std::to_string(spec.byteStrides[i]) : std::string("-")));
    for (int i = 0; i < spec.boxDims(); ++i)
      add(std::to_string(spec.box[i]));
    for (int i = 0; i < spec.cornerDims(); ++i)
      add(std::to_string(spec.lowerCorner[i]) + "," + std::to_string(spec.upperCorner[i]));
  }
  std::string hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx",
                  static_cast<unsigned long long>(state));
    return text;
  }

private:
  void add(const std::string &field) {
    for (unsigned char c : field)
      state = (state ^ c) * 1099511628211ull;
    state = (state ^ 0x1f) * 1099511628211ull; // field separator
  }
  uint64_t state = 14695981039346656037ull;
};

} // namespace solder

#endif // SOLDER_SUPPORT_BUNDLEDIGEST_H
