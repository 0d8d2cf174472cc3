//===- Manifest.cpp - The bundle manifest: model and validation -----------===//

#include "solder/Runtime/Manifest.h"
#include "solder/Runtime/Json.h"
#include "solder/Support/BundleDigest.h"
#include "solder/Support/OneLine.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>

using namespace solder;
using json::Value;

int64_t TensorSpec::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

namespace {
/// Validation with the path of the field in every message.
class Reader {
public:
  Reader(std::string manifestPath, std::string &error)
      : manifestPath(std::move(manifestPath)), error(error) {}

  bool fail(const std::string &field, const std::string &what) {
    error = oneLine(manifestPath + ": " + field + ": " + what); // quotes the file
    return false;
  }

  const Value *member(const Value &object, const std::string &key,
                      Value::Kind kind, const std::string &where) {
    const Value *value = object.get(key);
    static const char *names[] = {"null",   "a boolean", "a number",
                                  "a string", "an array", "an object"};
    if (!value) {
      fail(where + key, "missing");
      return nullptr;
    }
    if (value->kind != kind) {
      fail(where + key, std::string("must be ") +
                            names[static_cast<int>(kind)]);
      return nullptr;
    }
    return value;
  }

  bool readInt(const Value &object, const std::string &key, int64_t minValue,
               int64_t &out, const std::string &where) {
    const Value *value = member(object, key, Value::Kind::number, where);
    if (!value)
      return false;
    // In range before the cast: casting a double past int64 is undefined.
    if (!(value->number >= static_cast<double>(minValue) && value->number < 0x1p62) ||
        value->number != static_cast<double>(static_cast<int64_t>(value->number)))
      return fail(where + key, "must be an integer >= " +
                                   std::to_string(minValue));
    out = static_cast<int64_t>(value->number);
    return true;
  }

  bool readString(const Value &object, const std::string &key,
                  std::string &out, const std::string &where) {
    const Value *value = member(object, key, Value::Kind::string, where);
    if (!value)
      return false;
    out = value->string;
    return true;
  }

  /// `count` integers of [minValue, maxValue] from array `key`.
  template <class T>
  bool readInts(const Value &object, const std::string &key, int count, int64_t minValue,
                int64_t maxValue, T *out, const std::string &where) {
    const Value *array = member(object, key, Value::Kind::array, where);
    if (!array)
      return false;
    if (array->array.size() != static_cast<size_t>(count))
      return fail(where + key, "must hold " + std::to_string(count) + " integers");
    for (int i = 0; i < count; ++i) {
      const Value &value = array->array[i];
      if (value.kind != Value::Kind::number || !(value.number >= double(minValue)) ||
          !(value.number <= double(maxValue)) ||
          value.number != static_cast<double>(static_cast<int64_t>(value.number)))
        return fail(where + key + "[" + std::to_string(i) + "]",
                    "must be an integer in [" + std::to_string(minValue) + ", " +
                        std::to_string(maxValue) + "]");
      out[i] = static_cast<T>(value.number);
    }
    return true;
  }

  /// "tensor_maps" (optional): each over a buffer, its encoding's fields in
  /// the ranges cuTensorMapEncodeIm2col / Tiled accept (the driver checks
  /// the rest when the runtime encodes it).
  bool readTensorMaps(const Value &root, Manifest &manifest) {
    const Value *maps = root.get("tensor_maps");
    if (!maps)
      return true;
    if (maps->kind != Value::Kind::array)
      return fail("tensor_maps", "must be an array");
    for (size_t i = 0; i < maps->array.size(); ++i) {
      std::string where = "tensor_maps[" + std::to_string(i) + "].";
      const Value &entry = maps->array[i];
      if (entry.kind != Value::Kind::object)
        return fail(where, "must be an object");
      TensorMapEntry map;
      int64_t buffer = 0, rank = 0;
      std::string mode;
      if (!readString(entry, "symbol", map.symbol, where) ||
          !readInt(entry, "offset", 0, map.offset, where) ||
          !readInt(entry, "buffer", 0, buffer, where) || !readString(entry, "mode", mode, where))
        return false;
      if (map.offset % 64 != 0)
        return fail(where + "offset", "must be a multiple of 64 (a CUtensorMap's alignment)");
      if (buffer >= static_cast<int64_t>(manifest.buffers.size()))
        return fail(where + "buffer", "names buffer " + std::to_string(buffer) + " of " +
                                          std::to_string(manifest.buffers.size()));
      map.buffer = static_cast<int>(buffer);
      if (mode != "im2col" && mode != "tiled")
        return fail(where + "mode", "is '" + mode + "', not 'im2col' or 'tiled'");
      TensorMapSpec &spec = map.spec;
      spec.im2col = mode == "im2col";
      const Value *dims = member(entry, "dims", Value::Kind::array, where);
      if (!dims)
        return false;
      rank = static_cast<int64_t>(dims->array.size());
      if (rank < (spec.im2col ? 3 : 1) || rank > 5)
        return fail(where + "dims", spec.im2col ? "must hold 3 to 5 dims"
                                                : "must hold 1 to 5 dims");
      spec.rank = static_cast<int>(rank);
      if (!readInts(entry, "dims", spec.rank, 1, int64_t(1) << 32, spec.dims, where) ||
          !readInts(entry, "byte_strides", spec.rank - 1, 16, int64_t(1) << 40,
                    spec.byteStrides, where) ||
          !readInts(entry, "box", spec.boxDims(), 1, 256, spec.box, where) ||
          !readInts(entry, "element_strides", spec.rank, 1, 8, spec.elementStrides, where))
        return false;
      const int cornerLimit = im2colCornerLimit(std::max(spec.rank - 2, 1));
      if (spec.im2col &&
          (!readInts(entry, "lower_corner", spec.cornerDims(), -cornerLimit, cornerLimit - 1,
                     spec.lowerCorner, where) ||
           !readInts(entry, "upper_corner", spec.cornerDims(), -cornerLimit, cornerLimit - 1,
                     spec.upperCorner, where)))
        return false;
      // Strides of 16 bytes, each dim past the one before, and the last
      // element inside the buffer the map covers (TMA reads what the map
      // says, whatever was allocated).
      // (dims <= 2^32 and strides <= 2^40: products checked for overflow.)
      int64_t inner = spec.dims[0] * 4, last = spec.dims[0] * 4, reach = 0;
      for (int d = 1; d < spec.rank; ++d) {
        const int64_t stride = spec.byteStrides[d - 1];
        if (stride % 16 != 0 || stride < inner)
          return fail(where + "byte_strides[" + std::to_string(d - 1) + "]",
                      "must be a multiple of 16 bytes and at least the " +
                          std::to_string(inner) + " bytes of the dims inside it");
        if (__builtin_mul_overflow(stride, int64_t(spec.dims[d]), &inner) ||
            __builtin_mul_overflow(stride, int64_t(spec.dims[d] - 1), &reach) ||
            __builtin_add_overflow(last, reach, &last))
          return fail(where + "dims", "span more than 2^63 bytes");
      }
      if (last > manifest.buffers[map.buffer].bytes)
        return fail(where + "dims", "cover " + std::to_string(last) + " bytes of buffer '" +
                                        manifest.buffers[map.buffer].name + "', which holds " +
                                        std::to_string(manifest.buffers[map.buffer].bytes));
      manifest.tensorMaps.push_back(std::move(map));
    }
    return true;
  }

  bool readTensors(const Value &root, const std::string &key,
                   std::vector<TensorSpec> &out) {
    const Value *list = member(root, key, Value::Kind::array, "");
    if (!list)
      return false;
    for (size_t i = 0; i < list->array.size(); ++i) {
      std::string where = key + "[" + std::to_string(i) + "].";
      const Value &entry = list->array[i];
      if (entry.kind != Value::Kind::object)
        return fail(key + "[" + std::to_string(i) + "]", "must be an object");
      TensorSpec spec;
      if (!readString(entry, "name", spec.name, where) ||
          !readString(entry, "dtype", spec.dtype, where))
        return false;
      if (spec.dtype != "f32")
        return fail(where + "dtype", "unsupported dtype '" + spec.dtype +
                                         "' (this runtime runs f32)");
      if (const Value *parameter = entry.get("parameter")) {
        if (parameter->kind != Value::Kind::boolean || key != "inputs")
          return fail(where + "parameter", "must be true or false, on an input");
        spec.parameter = parameter->boolean;
      }
      if (const Value *layout = entry.get("layout")) {
        if (layout->kind != Value::Kind::string || layout->string != "channels_last")
          return fail(where + "layout", "must be \"channels_last\" (absent: NCDHW)");
        spec.channelsLast = true;
      }
      const Value *shape = member(entry, "shape", Value::Kind::array, where);
      if (!shape)
        return false;
      int64_t elements = 1;
      for (const Value &dim : shape->array) {
        if (dim.kind != Value::Kind::number || !(dim.number >= 1 && dim.number < 0x1p40) ||
            dim.number != static_cast<double>(static_cast<int64_t>(dim.number)))
          return fail(where + "shape", "dims must be positive integers");
        spec.shape.push_back(static_cast<int64_t>(dim.number));
        if (__builtin_mul_overflow(elements, spec.shape.back(), &elements) ||
            elements > kMaxTensorElements)
          return fail(where + "shape", "more than 2^40 elements: larger than any GPU");
      }
      if (spec.channelsLast && spec.shape.size() < 3)
        return fail(where + "layout", "channels_last needs a tensor of rank 3 or more");
      out.push_back(std::move(spec));
    }
    return true;
  }

  bool readLaunches(const Value &root, Manifest &manifest) {
    const Value *list = member(root, "launches", Value::Kind::array, "");
    if (!list)
      return false;
    if (list->array.empty())
      return fail("launches", "must not be empty");
    for (size_t i = 0; i < list->array.size(); ++i) {
      std::string where = "launches[" + std::to_string(i) + "].";
      const Value &entry = list->array[i];
      if (entry.kind != Value::Kind::object)
        return fail("launches[" + std::to_string(i) + "]", "must be an object");
      Launch launch;
      if (!readString(entry, "kernel", launch.kernel, where))
        return false;
      for (const char *key : {"grid", "block"}) {
        const Value *dims = member(entry, key, Value::Kind::array, where);
        if (!dims)
          return false;
        if (dims->array.size() != 3)
          return fail(where + key, "must have 3 entries");
        for (int d = 0; d < 3; ++d) {
          const Value &dim = dims->array[d];
          if (dim.kind != Value::Kind::number || dim.number < 1 ||
              dim.number > 2147483647.0)
            return fail(where + key, "entries must be positive integers");
          (key[0] == 'g' ? launch.grid : launch.block)[d] =
              static_cast<unsigned>(dim.number);
        }
      }
      if (static_cast<uint64_t>(launch.block[0]) * launch.block[1] *
              launch.block[2] > 1024)
        return fail(where + "block", "more than 1024 threads");
      int64_t shared = 0;
      if (!readInt(entry, "shared_bytes", 0, shared, where))
        return false;
      if (shared > (int64_t(1) << 30))
        return fail(where + "shared_bytes", "more than 1 GiB");
      launch.sharedBytes = static_cast<unsigned>(shared);
      if (const Value *persistent = entry.get("persistent")) {
        if (persistent->kind != Value::Kind::boolean)
          return fail(where + "persistent", "must be true or false");
        launch.persistent = persistent->boolean;
      }
      const Value *args = member(entry, "args", Value::Kind::array, where);
      if (!args)
        return false;
      for (size_t a = 0; a < args->array.size(); ++a) {
        std::string argWhere = where + "args[" + std::to_string(a) + "]";
        const Value &arg = args->array[a];
        std::string kind;
        int64_t index = 0;
        if (arg.kind != Value::Kind::object ||
            !readString(arg, "kind", kind, argWhere + ".") ||
            !readInt(arg, "index", 0, index, argWhere + "."))
          return error.empty() ? fail(argWhere, "must be an object") : false;
        KernelArg kernelArg;
        size_t limit;
        if (kind == "input") {
          kernelArg.kind = KernelArg::Kind::input;
          limit = manifest.inputs.size();
        } else if (kind == "output") {
          kernelArg.kind = KernelArg::Kind::output;
          limit = manifest.outputs.size();
        } else if (kind == "buffer") {
          kernelArg.kind = KernelArg::Kind::buffer;
          limit = manifest.buffers.size();
        } else {
          return fail(argWhere + ".kind", "must be input, output or buffer, got '" +
                                              kind + "'");
        }
        if (static_cast<size_t>(index) >= limit)
          return fail(argWhere + ".index", "out of range (" +
                                               std::to_string(limit) + " " +
                                               kind + "s)");
        kernelArg.index = static_cast<int>(index);
        launch.args.push_back(kernelArg);
      }
      if (const Value *from = entry.get("prepared_from")) {
        if (from->kind != Value::Kind::array || from->array.empty())
          return fail(where + "prepared_from", "must be a non-empty array of input indices");
        for (const Value &input : from->array) {
          if (input.kind != Value::Kind::number || input.number < 0 ||
              input.number >= static_cast<double>(manifest.inputs.size()) ||
              input.number != static_cast<double>(static_cast<int64_t>(input.number)))
            return fail(where + "prepared_from", "entries must be input indices (" +
                                                     std::to_string(manifest.inputs.size()) +
                                                     " inputs)");
          launch.preparedFrom.push_back(static_cast<int>(input.number));
        }
        for (const KernelArg &arg : launch.args)
          if (arg.kind == KernelArg::Kind::output)
            return fail(where + "prepared_from", "a preparation writes no output");
      }
      manifest.launches.push_back(std::move(launch));
    }
    return true;
  }

private:
  std::string manifestPath;
  std::string &error;
};

/// The digest of what the kernels were compiled for (BundleDigest.h), fed in
/// the order solder-compile feeds it.
std::string computeDigest(const Manifest &manifest) {
  BundleDigest digest;
  for (const std::vector<TensorSpec> *list : {&manifest.inputs, &manifest.outputs})
    for (const TensorSpec &tensor : *list) {
      digest.tensor(tensor.name, tensor.shape.data(), tensor.shape.size());
      if (tensor.channelsLast)
        digest.channelsLast();
    }
  for (const BufferSpec &buffer : manifest.buffers)
    digest.buffer(buffer.name, buffer.bytes, buffer.zeroed);
  for (const Launch &launch : manifest.launches) {
    int64_t grid[3], block[3];
    for (int d = 0; d < 3; ++d) {
      grid[d] = launch.grid[d];
      block[d] = launch.block[d];
    }
    digest.launch(launch.kernel, grid, block, launch.sharedBytes);
    if (launch.persistent)
      digest.persistent();
    for (const KernelArg &arg : launch.args)
      digest.argument(arg.kind == KernelArg::Kind::input    ? "input"
                      : arg.kind == KernelArg::Kind::output ? "output"
                                                            : "buffer",
                      arg.index);
    if (!launch.preparedFrom.empty())
      digest.preparedFrom(launch.preparedFrom);
  }
  for (const ModuleConstant &constant : manifest.constants)
    digest.constant(constant.symbol, constant.builder);
  for (const TensorMapEntry &map : manifest.tensorMaps)
    digest.tensorMap(map.symbol, map.offset, map.buffer, map.spec);
  return digest.hex();
}

bool fileExists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}
} // namespace

/// `bundleDir`/manifest.json parsed, its format ("solder-bundle" or
/// "solder-multi-arch") and version checked.
static bool readManifestRoot(const std::string &bundleDir, Value &root, std::string &format,
                             std::string &error) {
  struct stat info;
  if (stat(bundleDir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    error = bundleDir + ": no such bundle directory";
    return false;
  }
  std::string path = bundleDir + "/manifest.json";
  std::ifstream file(path);
  if (!file) {
    error = bundleDir + ": not a Solder bundle (no manifest.json)";
    return false;
  }
  std::stringstream text;
  text << file.rdbuf();
  std::string parseError;
  if (!json::parse(text.str(), root, parseError)) {
    error = oneLine(path + ": not valid JSON (truncated?): " + parseError);
    return false;
  }
  Reader reader(path, error);
  if (root.kind != Value::Kind::object)
    return reader.fail("(root)", "must be an object");
  int64_t version = 0;
  if (!reader.readString(root, "format", format, "") ||
      !reader.readInt(root, "version", 1, version, ""))
    return false;
  if (format != "solder-bundle" && format != "solder-multi-arch")
    return reader.fail("format",
                       "is '" + format + "', not 'solder-bundle' or 'solder-multi-arch'");
  if (version != kBundleFormatVersion)
    return reader.fail("version",
                       "is " + std::to_string(version) +
                           " but this runtime reads version " +
                           std::to_string(kBundleFormatVersion) +
                           ": recompile the bundle with a matching solder-compile");
  return true;
}

/// The compute capability of "sm_XY" or "sm_XYa" (10 X + Y), or -1.
static int targetCapability(const std::string &arch) {
  if (arch.size() < 5 || arch.compare(0, 3, "sm_") != 0)
    return -1;
  std::string digits = arch.substr(3, arch.back() == 'a' ? arch.size() - 4 : std::string::npos);
  if (digits.empty() || digits.size() > 3 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(digits);
}

bool solder::resolveBundleTarget(const std::string &bundleDir,
                                 const std::function<bool(int &, int &)> &deviceCapability,
                                 std::string &resolved, std::string &error) {
  Value root;
  std::string format;
  if (!readManifestRoot(bundleDir, root, format, error))
    return false;
  if (format == "solder-bundle") {
    resolved = bundleDir;
    return true;
  }
  int major = 0, minor = 0;
  if (!deviceCapability(major, minor))
    return false;
  Reader reader(bundleDir + "/manifest.json", error);
  const Value *targets = reader.member(root, "targets", Value::Kind::array, "");
  if (!targets)
    return false;
  if (targets->array.empty())
    return reader.fail("targets", "is empty");
  // The cubin built for this GPU (sm_90a's or sm_90's on a 9.0 GPU); else
  // the newest portable target below it, whose PTX the driver compiles.
  // An arch-specific target (sm_90a) runs on its own GPU alone.
  const int device = 10 * major + minor;
  std::string chosen, archs;
  int chosenRank = -1;
  for (size_t i = 0; i < targets->array.size(); ++i) {
    const Value &entry = targets->array[i];
    std::string where = "targets[" + std::to_string(i) + "].", arch, folder;
    if (entry.kind != Value::Kind::object)
      return reader.fail("targets[" + std::to_string(i) + "]", "must be an object");
    if (!reader.readString(entry, "arch", arch, where) ||
        !reader.readString(entry, "bundle", folder, where))
      return false;
    int capability = targetCapability(arch);
    if (capability < 0)
      return reader.fail(where + "arch", "is '" + arch + "', not sm_XY or sm_XYa");
    if (folder.empty() || folder.find('/') != std::string::npos || folder[0] == '.')
      return reader.fail(where + "bundle", "must name a folder inside the bundle");
    archs += (archs.empty() ? "" : ", ") + arch;
    bool archSpecific = arch.back() == 'a';
    int rank = capability == device ? 2000 + archSpecific
               : !archSpecific && capability < device ? capability
                                                      : -1;
    if (rank > chosenRank) {
      chosenRank = rank;
      chosen = folder;
    }
  }
  if (chosenRank < 0) {
    error = bundleDir + ": built for " + archs + ", none of which runs on sm_" +
            std::to_string(device) + ": compile it again with --arch=sm_" +
            std::to_string(device) + " among its targets";
    return false;
  }
  resolved = bundleDir + "/" + chosen;
  return true;
}

bool solder::loadManifest(const std::string &bundleDir, Manifest &manifest,
                          std::string &error) {
  Value root;
  std::string format;
  if (!readManifestRoot(bundleDir, root, format, error))
    return false;
  std::string path = bundleDir + "/manifest.json";
  Reader reader(path, error);
  if (format != "solder-bundle")
    return reader.fail("format", "is '" + format +
                                     "': a bundle of several archs is loaded through the "
                                     "runtime, which picks the one for the GPU");
  manifest.version = kBundleFormatVersion;
  if (!reader.readString(root, "target", manifest.target, "") ||
      !reader.readString(root, "entry", manifest.entry, "") ||
      !reader.readTensors(root, "inputs", manifest.inputs) ||
      !reader.readTensors(root, "outputs", manifest.outputs))
    return false;
  if (const Value *buffers = root.get("buffers")) {
    if (buffers->kind != Value::Kind::array)
      return reader.fail("buffers", "must be an array");
    for (size_t i = 0; i < buffers->array.size(); ++i) {
      std::string where = "buffers[" + std::to_string(i) + "].";
      const Value &entry = buffers->array[i];
      BufferSpec buffer;
      if (entry.kind != Value::Kind::object)
        return reader.fail(where, "must be an object");
      if (!reader.readString(entry, "name", buffer.name, where) ||
          !reader.readInt(entry, "bytes", 1, buffer.bytes, where))
        return false;
      if (const Value *zeroed = entry.get("zeroed"))
        buffer.zeroed = zeroed->kind == Value::Kind::boolean && zeroed->boolean;
      manifest.buffers.push_back(std::move(buffer));
    }
  }
  if (!reader.readLaunches(root, manifest))
    return false;
  // Required: a tensor-core conv whose constants were left out would read
  // a zeroed __constant__ context.
  const Value *constants = reader.member(root, "constants", Value::Kind::array, "");
  if (!constants)
    return false;
  for (size_t i = 0; i < constants->array.size(); ++i) {
    std::string entryName = "constants[" + std::to_string(i) + "]";
    const Value &entry = constants->array[i];
    ModuleConstant constant;
    if (entry.kind != Value::Kind::object)
      return reader.fail(entryName, "must be an object");
    if (!reader.readString(entry, "symbol", constant.symbol, entryName + ".") ||
        !reader.readString(entry, "builder", constant.builder, entryName + "."))
      return false;
    manifest.constants.push_back(std::move(constant));
  }
  if (!reader.readTensorMaps(root, manifest))
    return false;
  const Value *files = reader.member(root, "files", Value::Kind::object, "");
  if (!files)
    return false;
  auto optionalFile = [&](const char *key, std::string &out) -> bool {
    const Value *value = files->get(key);
    if (!value)
      return true;
    if (value->kind != Value::Kind::string)
      return reader.fail(std::string("files.") + key, "must be a string");
    out = bundleDir + "/" + value->string;
    if (!fileExists(out))
      return reader.fail(std::string("files.") + key,
                         "names '" + value->string + "', which is missing");
    return true;
  };
  if (!optionalFile("cubin", manifest.cubinFile) ||
      !optionalFile("ptx", manifest.ptxFile) ||
      !optionalFile("source", manifest.sourceFile) ||
      !optionalFile("ir", manifest.sourceIRFile))
    return false;
  if (manifest.cubinFile.empty() && manifest.ptxFile.empty())
    return reader.fail("files", "names neither a cubin nor PTX");
  if (const Value *plan = root.get("plan"))
    if (plan->kind == Value::Kind::string)
      manifest.plan = plan->string;
  std::string digest;
  if (!reader.readString(root, "digest", digest, ""))
    return false;
  std::string expected = computeDigest(manifest);
  if (digest != expected)
    return reader.fail("digest", "is " + digest + " but the manifest's tensors, "
                       "buffers, launches and constants give " + expected + ": it was edited "
                       "after solder-compile wrote it, and its kernels were "
                       "compiled for other shapes; recompile the bundle");
  return true;
}
