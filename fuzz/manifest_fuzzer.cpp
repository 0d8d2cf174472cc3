//===- manifest_fuzzer.cpp - libFuzzer target: JSON and the manifest -------===//
//
// Any text as a bundle's manifest.json: the JSON parsing (nlohmann/json into
// Solder's tree, with its depth and number bounds) and the manifest's
// validation (fields, ranges, launch arguments, files, the digest) must give
// a one-line error or a manifest, never crash. The bundle folder holds the
// files the seed manifests name, so inputs get past the file checks to the
// digest.
//
//===----------------------------------------------------------------------===//

#include "solder/Runtime/Manifest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

static std::string bundleDir() {
  static std::string dir = [] {
    char path[] = "/tmp/solder-manifest-fuzz-XXXXXX";
    std::string made = mkdtemp(path);
    for (const char *file : {"kernels.sm_90.cubin", "kernels.ptx", "kernels.cu", "source.mlir"})
      std::ofstream(made + "/" + file) << "";
    return made;
  }();
  return dir;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::string dir = bundleDir();
  std::ofstream(dir + "/manifest.json", std::ios::binary) << text;
  solder::Manifest manifest;
  if (!solder::loadManifest(dir, manifest, error) &&
      (error.empty() || error.find('\n') != std::string::npos)) {
    std::fprintf(stderr, "not a one-line error: [%s]\n", error.c_str());
    __builtin_trap();
  }
  return 0;
}
