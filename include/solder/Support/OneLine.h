//===- OneLine.h - Error messages that stay one line ------------*- C++ -*-===//
//
// Errors quote what they read (a header's dtype, a manifest's string): bytes
// from a file, which may hold newlines or control characters. Escaping them
// keeps every error one line, as the tools promise.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_SUPPORT_ONELINE_H
#define SOLDER_SUPPORT_ONELINE_H

#include <cstdio>
#include <string>

namespace solder {

/// `text` with control characters escaped (\n, \xNN).
inline std::string oneLine(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

} // namespace solder

#endif // SOLDER_SUPPORT_ONELINE_H
