//===- tflite_import.cpp - libFuzzer harness: TFLite bytes -> the importer ===//
//
// compiler/tflite (importTfliteModelFromBytes: the FlatBuffers verifier, then
// tfcc's reader and one converter per operator) and the model-size check tfcc
// runs after it: no crash, no hang, no huge allocation; a refused model has
// an error diagnostic; an accepted one verifies.
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"
#include "compiler/tflite/TfliteImporter.h"
#include "dialects/graph/IR/TensorSize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

// One context for many inputs (creating one costs more than most imports);
// renewed now and then, since it keeps every type and attribute it made.
struct Session {
  std::unique_ptr<mlir::MLIRContext> context;
  int uses = 0;
  int errors = 0;
  mlir::MLIRContext &get() {
    if (!context || ++uses > 2000) {
      mlir::DialectRegistry registry;
      tfcc::registerCompilerDialects(registry);
      context = std::make_unique<mlir::MLIRContext>(registry);
      context->getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
          ++errors;
      });
      uses = 0;
    }
    return *context;
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Session session;
  mlir::MLIRContext &context = session.get();
  session.errors = 0;
  std::vector<uint8_t> bytes(data, data + size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tfcc::importTfliteModelFromBytes(bytes, "fuzz.tflite", context);
  if (module && failed(mlir::graph::verifyModelSizes(*module)))
    module = nullptr;
  if (!module && session.errors == 0) {
    std::fprintf(stderr,
                 "tflite_import: refused without an error diagnostic\n");
    std::abort();
  }
  if (module && failed(mlir::verify(*module))) {
    std::fprintf(stderr, "tflite_import: an imported module does not verify\n");
    std::abort();
  }
  return 0;
}
