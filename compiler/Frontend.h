//===- Frontend.h - load a graph-IR model -----------------------*- C++ -*-===//

#ifndef TFCC_COMPILER_FRONTEND_H
#define TFCC_COMPILER_FRONTEND_H

#include "dialects/graph/IR/DimNames.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

namespace tfcc {

/// Prints diagnostics as file:line:col: error: ..., naming the model node
/// (`loc("conv1")`) the diagnostic is about when there is one.
class ModelDiagnosticHandler : public mlir::SourceMgrDiagnosticHandler {
public:
  /// Prints to `os` (stderr by default).
  ModelDiagnosticHandler(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                         llvm::raw_ostream &os = llvm::errs());
};

/// Attribute on entry arguments/results holding the name written in the
/// model (`%image` -> "image"), for the header and the reflective table.
inline constexpr const char *kArgNameAttr = mlir::graph::kArgNameAttr;

/// Parses and verifies the model in `sourceMgr`'s main buffer. Diagnostics go
/// to the context's handler. Bare `loc("name")` locations keep the file, line
/// and column of their op; entry arguments and results get their source
/// names in `tfcc.name` attributes.
mlir::OwningOpRef<mlir::ModuleOp> loadModel(llvm::SourceMgr &sourceMgr,
                                            mlir::MLIRContext &context);

/// Loads a model file: graph IR (.mlir, parsed into `sourceMgr`), TFLite
/// (.tflite, importTfliteModel) or ONNX (.onnx, imported, with the graph inputs
/// named in `inputShapes` pinned to those dims, -1 keeping a dim, and those in
/// `inputValues` fixed to a value: importOnnxModel). Diagnostics go to the
/// context's handler.
mlir::OwningOpRef<mlir::ModuleOp> loadModelFile(
    const std::string &path, llvm::SourceMgr &sourceMgr,
    mlir::MLIRContext &context,
    const std::map<std::string, std::vector<int64_t>> &inputShapes = {},
    const std::map<std::string, std::string> &inputValues = {});

/// Parses and verifies graph-IR `text` (copied into `sourceMgr`), named
/// `name` in diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> loadModelText(llvm::StringRef text,
                                                const std::string &name,
                                                llvm::SourceMgr &sourceMgr,
                                                mlir::MLIRContext &context);

/// True for paths the ONNX importer reads.
bool isOnnxPath(const std::string &path);

/// True for model files tfcc imports rather than parses (.onnx, .tflite).
bool isImportedModelPath(const std::string &path);

} // namespace tfcc

#endif // TFCC_COMPILER_FRONTEND_H
