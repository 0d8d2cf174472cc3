//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Format: magic "\x93NUMPY", version (1.0, 2.0 or 3.0), header length, then a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (..)}
// padded so that the data starts at a multiple of 64 bytes.
//
//===----------------------------------------------------------------------===//

#include "solder/Support/Npy.h"
#include "solder/Support/OneLine.h"

#include <cstring>
#include <fstream>
#include <sstream>

using namespace solder;

namespace {
/// The value after `'key':` in the header dict, up to the next `,` or `)`
/// closing a tuple.
bool findHeaderValue(const std::string &header, const std::string &key,
                     std::string &value) {
  size_t keyPos = header.find("'" + key + "'");
  if (keyPos == std::string::npos)
    return false;
  size_t colon = header.find(':', keyPos);
  if (colon == std::string::npos)
    return false;
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return false;
  size_t end = header[start] == '('
                   ? header.find(')', start) + 1
                   : header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0)
    return false;
  value = header.substr(start, end - start);
  return true;
}
} // namespace

bool solder::parseNpy(const char *data, size_t size, NpyArray &array,
                      std::string &error) {
  auto fail = [&](const std::string &what) {
    error = oneLine(what); // it quotes the header
    return false;
  };
  if (size < 8 || std::memcmp(data, "\x93NUMPY", 6) != 0)
    return fail("not a .npy file (bad magic)");
  size_t offset = 8;
  uint64_t headerLength = 0;
  auto byte = [&](size_t i) { return uint64_t(static_cast<unsigned char>(data[i])); };
  if (data[6] == 1) {
    if (size < offset + 2)
      return fail("truncated header");
    headerLength = byte(8) | byte(9) << 8;
    offset += 2;
  } else if (data[6] == 2 || data[6] == 3) {
    if (size < offset + 4)
      return fail("truncated header");
    headerLength = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    offset += 4;
  } else {
    return fail("unsupported .npy version " + std::to_string(int(data[6])));
  }
  // Sizes come from the file: each is checked against what the file holds
  // before anything is allocated for it.
  if (headerLength > size - offset)
    return fail("truncated header: it says " + std::to_string(headerLength) +
                " bytes, the file has " + std::to_string(size - offset));
  std::string header(data + offset, headerLength);
  offset += headerLength;

  std::string descr, fortran, shapeText;
  if (!findHeaderValue(header, "descr", descr) ||
      !findHeaderValue(header, "fortran_order", fortran) ||
      !findHeaderValue(header, "shape", shapeText))
    return fail("malformed header: " + header.substr(0, 200));
  size_t elementSize;
  if (descr == "'<f4'") {
    array.dtype = NpyDtype::f32;
    elementSize = 4;
  } else if (descr == "'<f8'") {
    array.dtype = NpyDtype::f64;
    elementSize = 8;
  } else {
    return fail("unsupported dtype " + descr.substr(0, 40) +
                " (expected float32 '<f4' or float64 '<f8')");
  }
  if (fortran != "False")
    return fail("Fortran-order arrays are not supported");

  if (shapeText.size() < 2 || shapeText.front() != '(' || shapeText.back() != ')')
    return fail("malformed shape " + shapeText.substr(0, 80));
  array.shape.clear();
  uint64_t count = 1;
  const uint64_t available = (size - offset) / elementSize;
  std::stringstream stream(shapeText.substr(1, shapeText.size() - 2));
  std::string item;
  while (std::getline(stream, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    size_t last = item.find_last_not_of(' ');
    std::string digits = item.substr(first, last - first + 1);
    if (digits.empty() || digits.size() > 18 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return fail("malformed shape " + shapeText.substr(0, 80) +
                  ": dims must be non-negative integers");
    uint64_t dim = std::stoull(digits);
    array.shape.push_back(static_cast<int64_t>(dim));
    if (__builtin_mul_overflow(count, dim, &count))
      count = UINT64_MAX; // saturated: more than any file holds
  }
  uint64_t bytes;
  if (count > available) {
    bool overflow = __builtin_mul_overflow(count, uint64_t(elementSize), &bytes);
    return fail("truncated data: the shape " + shapeText.substr(0, 80) + " needs " +
                (overflow || count == UINT64_MAX ? std::string("more than 2^64 bytes")
                                                 : std::to_string(bytes) + " bytes") +
                ", the file has " + std::to_string(size - offset));
  }
  array.values.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const char *element = data + offset + i * elementSize;
    if (elementSize == 4) {
      float value;
      std::memcpy(&value, element, 4);
      array.values[i] = value;
    } else {
      std::memcpy(&array.values[i], element, 8);
    }
  }
  return true;
}

bool solder::readNpy(const std::string &path, NpyArray &array,
                     std::string &error) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    error = path + ": cannot open file";
    return false;
  }
  std::string bytes(static_cast<size_t>(file.tellg()), '\0');
  file.seekg(0);
  if (!file.read(bytes.data(), bytes.size())) {
    error = path + ": cannot read file";
    return false;
  }
  if (!parseNpy(bytes.data(), bytes.size(), array, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool solder::writeNpy(const std::string &path, const NpyArray &array,
                      std::string &error) {
  std::string header = "{'descr': '";
  header += array.dtype == NpyDtype::f32 ? "<f4" : "<f8";
  header += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    header += (i ? ", " : "") + std::to_string(array.shape[i]);
  // A 1-tuple needs its comma: (5,).
  header += array.shape.size() == 1 ? ",)" : ")";
  header += ", }";
  // Pad with spaces so that 10 + header + '\n' is a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::ofstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open for writing";
    return false;
  }
  uint16_t headerLength = static_cast<uint16_t>(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  char lengthBytes[2] = {static_cast<char>(headerLength & 0xff),
                         static_cast<char>(headerLength >> 8)};
  file.write(lengthBytes, 2);
  file.write(header.data(), header.size());
  for (double value : array.values) {
    if (array.dtype == NpyDtype::f32) {
      float narrowed = static_cast<float>(value);
      file.write(reinterpret_cast<const char *>(&narrowed), 4);
    } else {
      file.write(reinterpret_cast<const char *>(&value), 8);
    }
  }
  if (!file) {
    error = path + ": write failed";
    return false;
  }
  return true;
}
