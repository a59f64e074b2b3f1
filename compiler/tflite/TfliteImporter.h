//===- TfliteImporter.h - TFLite models to graph IR -------------*- C++ -*-===//

#ifndef TFCC_COMPILER_TFLITE_TFLITEIMPORTER_H
#define TFCC_COMPILER_TFLITE_TFLITEIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfcc {

/// Whether `path` names a TFLite model (ends in .tflite).
bool isTflitePath(const std::string &path);

/// Imports the main subgraph (subgraph 0) of a TFLite model (`.tflite`, the
/// FlatBuffer format declared by compiler/tflite/tflite_format.fbs) as a
/// graph-IR module named after `moduleName` (the file stem when empty), with
/// one entry point `predict` whose arguments and results are the subgraph's
/// inputs and outputs in order and layout (NHWC), named after their tensors.
/// Constant tensors become graph.variable ops (dense_resource values) or
/// graph.constant; operator locations are the names of their first output
/// tensors. Shapes are the tensors' static `shape`s. Errors (not a TFLite
/// file, a corrupt or truncated one, an unsupported operator, type or
/// option) are emitted as diagnostics on the context and return null.
mlir::OwningOpRef<mlir::ModuleOp>
importTfliteModel(const std::string &path, mlir::MLIRContext &context,
                  const std::string &moduleName = "");

/// importTfliteModel of the file's bytes; `sourceName` names it in messages
/// and gives the module its name when `moduleName` is empty.
mlir::OwningOpRef<mlir::ModuleOp> importTfliteModelFromBytes(
    const std::vector<uint8_t> &bytes, const std::string &sourceName,
    mlir::MLIRContext &context, const std::string &moduleName = "");

} // namespace tfcc

#endif // TFCC_COMPILER_TFLITE_TFLITEIMPORTER_H
