//===- Json.cpp - Bundle manifests' JSON, read with nlohmann/json ----------===//
//
// nlohmann/json parses (RFC 8259, byte offsets in its errors); the document
// becomes the small Value tree the manifest reader walks, with a bound on the
// nesting so that no manifest can exhaust the stack.
//
//===----------------------------------------------------------------------===//

#include "solder/Runtime/Json.h"

#include <cmath>
#include <nlohmann/json.hpp>

using namespace solder::json;

const Value *Value::get(const std::string &key) const {
  if (kind != Kind::object)
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

namespace {
constexpr int kMaxDepth = 64;

bool convert(const nlohmann::json &from, Value &to, int depth, std::string &error) {
  if (depth > kMaxDepth) {
    error = "nested deeper than " + std::to_string(kMaxDepth) + " levels";
    return false;
  }
  switch (from.type()) {
  case nlohmann::json::value_t::null:
  case nlohmann::json::value_t::discarded:
    to.kind = Value::Kind::null;
    return true;
  case nlohmann::json::value_t::boolean:
    to.kind = Value::Kind::boolean;
    to.boolean = from.get<bool>();
    return true;
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
  case nlohmann::json::value_t::number_float:
    to.kind = Value::Kind::number;
    to.number = from.get<double>();
    if (!std::isfinite(to.number)) {
      error = "a number out of range";
      return false;
    }
    return true;
  case nlohmann::json::value_t::string:
    to.kind = Value::Kind::string;
    to.string = from.get_ref<const std::string &>();
    return true;
  case nlohmann::json::value_t::array:
    to.kind = Value::Kind::array;
    to.array.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i)
      if (!convert(from[i], to.array[i], depth + 1, error))
        return false;
    return true;
  case nlohmann::json::value_t::object:
    to.kind = Value::Kind::object;
    for (const auto &[key, member] : from.items())
      if (!convert(member, to.object[key], depth + 1, error))
        return false;
    return true;
  case nlohmann::json::value_t::binary:
    break;
  }
  error = "an unsupported JSON value";
  return false;
}
} // namespace

bool solder::json::parse(const std::string &text, Value &value,
                         std::string &error) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &failure) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    std::string what = failure.what();
    size_t start = what.find("parse error");
    error = (start == std::string::npos ? what : what.substr(start)) +
            " (byte offset " + std::to_string(failure.byte) + ")";
    return false;
  } catch (const nlohmann::json::exception &failure) {
    // Found by the manifest fuzzer: a number past double's range is an
    // out_of_range (406), not a parse_error.
    std::string what = failure.what();
    size_t start = what.find("] ");
    error = start == std::string::npos ? what : what.substr(start + 2);
    return false;
  }
  value = Value();
  return convert(document, value, 0, error);
}
