//===- import_session.h - shared by the importer harnesses ------*- C++ -*-===//
//
// The context the importer harnesses (onnx_import, tflite_import) import
// into, and the checks they make of what an import returns.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_FUZZ_IMPORT_SESSION_H
#define TFCC_FUZZ_IMPORT_SESSION_H

#include "compiler/Registration.h"
#include "dialects/graph/IR/TensorSize.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace tfcc::fuzz {

/// One context for many inputs (creating one costs more than most imports);
/// renewed now and then, since it keeps every type and attribute it made.
/// Counts the error diagnostics of the current input.
struct ImportSession {
  std::unique_ptr<mlir::MLIRContext> context;
  int uses = 0;
  int errors = 0;

  /// The context for the next input, its error count reset.
  mlir::MLIRContext &next() {
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
    errors = 0;
    return *context;
  }

  /// What tfcc does after an import (the model-size check), then the
  /// harness's rules: a refused model has an error diagnostic, an accepted
  /// one verifies. Aborts, naming `harness`, when one does not hold.
  void check(mlir::OwningOpRef<mlir::ModuleOp> module, const char *harness) {
    if (module && failed(mlir::graph::verifyModelSizes(*module)))
      module = nullptr;
    if (!module && errors == 0) {
      std::fprintf(stderr, "%s: refused without an error diagnostic\n",
                   harness);
      std::abort();
    }
    if (module && failed(mlir::verify(*module))) {
      std::fprintf(stderr, "%s: an imported module does not verify\n", harness);
      std::abort();
    }
  }
};

} // namespace tfcc::fuzz

#endif // TFCC_FUZZ_IMPORT_SESSION_H
