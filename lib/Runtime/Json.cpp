//===- Json.cpp - A small JSON reader for bundle manifests ----------------===//

#include "solder/Runtime/Json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace solder::json;

const Value *Value::get(const std::string &key) const {
  if (kind != Kind::object)
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

namespace {
class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  bool parseDocument(Value &value, std::string &error) {
    if (!parseValue(value, 0)) {
      error = message;
      return false;
    }
    skipSpace();
    if (pos != text.size()) {
      error = "unexpected text after the JSON value at offset " +
              std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  bool fail(const std::string &what) {
    message = what + " at offset " + std::to_string(pos);
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(const char *literal) {
    size_t length = std::char_traits<char>::length(literal);
    if (text.compare(pos, length, literal) != 0)
      return false;
    pos += length;
    return true;
  }

  bool parseValue(Value &value, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = Value::Kind::string;
      return parseString(value.string);
    }
    if (consume("true")) {
      value.kind = Value::Kind::boolean;
      value.boolean = true;
      return true;
    }
    if (consume("false")) {
      value.kind = Value::Kind::boolean;
      return true;
    }
    if (consume("null"))
      return true;
    return parseNumber(value);
  }

  /// JSON's number grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
  /// checked before strtod, which also takes inf, nan and hex floats; and a
  /// finite value, so that what write() prints reads back.
  bool parseNumber(Value &value) {
    size_t end = pos;
    auto digits = [&] {
      size_t first = end;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9')
        ++end;
      return end > first;
    };
    if (end < text.size() && text[end] == '-')
      ++end;
    if (end < text.size() && text[end] == '0')
      ++end;
    else if (!digits())
      return fail("expected a value");
    if (end < text.size() && text[end] == '.' && (++end, !digits()))
      return fail("expected digits after '.'");
    if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
      ++end;
      if (end < text.size() && (text[end] == '+' || text[end] == '-'))
        ++end;
      if (!digits())
        return fail("expected digits in the exponent");
    }
    double number = std::strtod(text.substr(pos, end - pos).c_str(), nullptr);
    if (!std::isfinite(number))
      return fail("number out of range");
    pos = end;
    value.kind = Value::Kind::number;
    value.number = number;
    return true;
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        break;
      char escaped = text[pos++];
      switch (escaped) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        if (pos + 4 > text.size())
          return fail("truncated \\u escape");
        unsigned code = std::strtoul(text.substr(pos, 4).c_str(), nullptr, 16);
        pos += 4;
        // Manifests are ASCII; other code points are kept as UTF-8.
        if (code < 0x80) {
          out += static_cast<char>(code);
        } else if (code < 0x800) {
          out += static_cast<char>(0xC0 | (code >> 6));
          out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (code >> 12));
          out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default: out += escaped;
      }
    }
    if (pos >= text.size())
      return fail("unterminated string");
    ++pos; // closing quote
    return true;
  }

  bool parseArray(Value &value, int depth) {
    value.kind = Value::Kind::array;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      Value element;
      if (!parseValue(element, depth + 1))
        return false;
      value.array.push_back(std::move(element));
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool parseObject(Value &value, int depth) {
    value.kind = Value::Kind::object;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a member name");
      std::string key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (pos >= text.size() || text[pos] != ':')
        return fail("expected ':'");
      ++pos;
      if (!parseValue(value.object[key], depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};

void writeString(const std::string &text, std::string &out) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  out += '"';
}

void writeValue(const Value &value, std::string &out) {
  switch (value.kind) {
  case Value::Kind::null: out += "null"; break;
  case Value::Kind::boolean: out += value.boolean ? "true" : "false"; break;
  case Value::Kind::number: {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", value.number);
    out += buffer;
    break;
  }
  case Value::Kind::string: writeString(value.string, out); break;
  case Value::Kind::array:
    out += '[';
    for (size_t i = 0; i < value.array.size(); ++i) {
      if (i)
        out += ',';
      writeValue(value.array[i], out);
    }
    out += ']';
    break;
  case Value::Kind::object: {
    out += '{';
    bool first = true;
    for (const auto &[key, member] : value.object) {
      if (!first)
        out += ',';
      first = false;
      writeString(key, out);
      out += ':';
      writeValue(member, out);
    }
    out += '}';
    break;
  }
  }
}
} // namespace

bool solder::json::parse(const std::string &text, Value &value,
                         std::string &error) {
  return Parser(text).parseDocument(value, error);
}

std::string solder::json::write(const Value &value) {
  std::string out;
  writeValue(value, out);
  return out;
}
