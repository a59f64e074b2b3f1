//===- npy_read.cpp - libFuzzer harness: .npy bytes -> the reader ---------===//
//
// compiler/Npy.cpp's parseNpy (tfcc-run --input, tfcc-run --output files).
// A file it accepts must encode back to bytes that parse to the same array.
//
//===----------------------------------------------------------------------===//

#include "compiler/Npy.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  tfcc::NpyArray array;
  std::string error;
  if (!tfcc::parseNpy(bytes, array, error)) {
    if (error.empty()) {
      std::fprintf(stderr, "parseNpy failed without a message\n");
      std::abort();
    }
    return 0;
  }
  std::vector<uint8_t> encoded;
  if (!tfcc::encodeNpy(array, encoded, error)) {
    std::fprintf(stderr, "an accepted array does not encode: %s\n",
                 error.c_str());
    std::abort();
  }
  tfcc::NpyArray again;
  if (!tfcc::parseNpy(encoded, again, error) || again.dtype != array.dtype ||
      again.shape != array.shape || again.data != array.data) {
    std::fprintf(stderr, "an accepted array does not round-trip: %s\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
