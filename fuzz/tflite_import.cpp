//===- tflite_import.cpp - libFuzzer harness: TFLite bytes -> the importer ===//
//
// compiler/tflite (importTfliteModelFromBytes: the FlatBuffers verifier, then
// tfcc's reader and one converter per operator) and the model-size check tfcc
// runs after it: no crash, no hang, no huge allocation; a refused model has
// an error diagnostic; an accepted one verifies.
//
//===----------------------------------------------------------------------===//

#include "compiler/tflite/TfliteImporter.h"
#include "fuzz/import_session.h"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tfcc::fuzz::ImportSession session;
  mlir::MLIRContext &context = session.next();
  std::vector<uint8_t> bytes(data, data + size);
  session.check(tfcc::importTfliteModelFromBytes(bytes, "fuzz.tflite", context),
                "tflite_import");
  return 0;
}
