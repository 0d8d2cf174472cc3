//===- Json.h - A small JSON reader for bundle manifests --------*- C++ -*-===//
//
// The runtime must build where only CUDA is (no LLVM), so it carries its own
// reader: objects, arrays, strings, numbers, true/false/null; errors name the
// byte offset.
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

/// Parses `text`; on failure returns false with `error` naming the offset.
bool parse(const std::string &text, Value &value, std::string &error);

/// Writes `value` as compact JSON.
std::string write(const Value &value);

} // namespace solder::json

#endif // SOLDER_RUNTIME_JSON_H
