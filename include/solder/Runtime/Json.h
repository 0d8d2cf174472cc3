//===- Json.h - The JSON of bundle manifests --------------------*- C++ -*-===//
//
// The runtime builds where only CUDA is (no LLVM), so LLVM's JSON is out of
// reach: nlohmann/json (header-only, Debian's nlohmann-json3-dev, carried to
// the GPU machine beside the CUTLASS headers) parses, into this small tree
// the manifest reader walks.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_RUNTIME_JSON_H
#define SOLDER_RUNTIME_JSON_H

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace solder::json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  /// The member `key` of an object, or null.
  const Value *get(const std::string &key) const;
};

/// Parses `text`; on failure returns false with `error` naming the line,
/// column and byte offset. Numbers must be finite, nesting at most 64 deep.
bool parse(const std::string &text, Value &value, std::string &error);

} // namespace solder::json

#endif // SOLDER_RUNTIME_JSON_H
