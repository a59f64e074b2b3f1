//===- onnx_import.cpp - libFuzzer harness: ONNX bytes -> the importer ----===//
//
// compiler/onnx (importOnnxModelFromBytes) and the model-size check tfcc runs
// after it: no crash, no hang, no huge allocation; a refused model has an
// error diagnostic; an accepted one verifies.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"
#include "fuzz/import_session.h"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static tfcc::fuzz::ImportSession session;
  mlir::MLIRContext &context = session.next();
  std::vector<uint8_t> bytes(data, data + size);
  session.check(tfcc::importOnnxModelFromBytes(bytes, "fuzz.onnx", context),
                "onnx_import");
  return 0;
}
