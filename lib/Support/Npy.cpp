//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Format: magic "\x93NUMPY", version (1.0, 2.0 or 3.0), header length, then a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (..)}
// padded so that the data starts at a multiple of 64 bytes.
//
//===----------------------------------------------------------------------===//

#include "solder/Support/Npy.h"

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

bool solder::readNpy(const std::string &path, NpyArray &array,
                     std::string &error) {
  auto fail = [&](const std::string &what) {
    error = path + ": " + what;
    return false;
  };
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return fail("cannot open file");
  char magic[8];
  if (!file.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return fail("not a .npy file (bad magic)");
  uint32_t headerLength = 0;
  if (magic[6] == 1) {
    unsigned char bytes[2];
    if (!file.read(reinterpret_cast<char *>(bytes), 2))
      return fail("truncated header");
    headerLength = bytes[0] | (bytes[1] << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    unsigned char bytes[4];
    if (!file.read(reinterpret_cast<char *>(bytes), 4))
      return fail("truncated header");
    headerLength = bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) |
                   (uint32_t(bytes[3]) << 24);
  } else {
    return fail("unsupported .npy version " + std::to_string(magic[6]));
  }
  std::string header(headerLength, '\0');
  if (!file.read(header.data(), headerLength))
    return fail("truncated header");

  std::string descr, fortran, shapeText;
  if (!findHeaderValue(header, "descr", descr) ||
      !findHeaderValue(header, "fortran_order", fortran) ||
      !findHeaderValue(header, "shape", shapeText))
    return fail("malformed header: " + header);
  size_t elementSize;
  if (descr == "'<f4'") {
    array.dtype = NpyDtype::f32;
    elementSize = 4;
  } else if (descr == "'<f8'") {
    array.dtype = NpyDtype::f64;
    elementSize = 8;
  } else {
    return fail("unsupported dtype " + descr +
                " (expected float32 '<f4' or float64 '<f8')");
  }
  if (fortran != "False")
    return fail("Fortran-order arrays are not supported");

  array.shape.clear();
  std::string dims = shapeText.substr(1, shapeText.size() - 2);
  std::stringstream stream(dims);
  std::string item;
  int64_t count = 1;
  while (std::getline(stream, item, ',')) {
    if (item.find_first_not_of(' ') == std::string::npos)
      continue;
    int64_t dim = std::stoll(item);
    if (dim < 0)
      return fail("negative dim in shape " + shapeText);
    array.shape.push_back(dim);
    count *= dim;
  }

  std::vector<char> bytes(count * elementSize);
  if (!file.read(bytes.data(), bytes.size()))
    return fail("truncated data: expected " + std::to_string(count) +
                " elements of shape " + shapeText);
  array.values.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    if (elementSize == 4) {
      float value;
      std::memcpy(&value, bytes.data() + 4 * i, 4);
      array.values[i] = value;
    } else {
      std::memcpy(&array.values[i], bytes.data() + 8 * i, 8);
    }
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
