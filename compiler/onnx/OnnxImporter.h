//===- OnnxImporter.h - ONNX models to graph IR -----------------*- C++ -*-===//

#ifndef TFCC_COMPILER_ONNX_ONNXIMPORTER_H
#define TFCC_COMPILER_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tfcc {

/// The versions of the default ONNX domain the importer reads.
constexpr int64_t kMinOnnxOpset = 6;
constexpr int64_t kMaxOnnxOpset = 21;

/// Imports an ONNX model (opsets kMinOnnxOpset to kMaxOnnxOpset of the
/// default domain) as a graph-IR
/// module named after `moduleName` (the file stem when empty), with one
/// entry point `predict` whose arguments and results are the graph's inputs and
/// outputs in ONNX order and layout. Weights become graph.variable ops with
/// dense_resource values; node names become locations. Errors (a corrupt or
/// truncated file, an unsupported op, opset or attribute) are emitted as
/// diagnostics on the context and return null.
///
/// `inputShapes` pins the dims of graph inputs by name (-1 leaves a dim as the
/// model has it, e.g. dynamic): models exported with dynamic H and W, say,
/// compile for one image size. Naming an input the graph lacks, a different
/// rank, or a static dim of another size is an error.
///
/// `inputValues` fixes graph inputs to a value (the text of a number, every
/// element of the input): each becomes a constant and leaves the entry's
/// arguments, so that what depends on it folds (Silero VAD's sample rate
/// picks one If branch). The input needs a static shape (after
/// `inputShapes`); an integer input takes an integer.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(
    const std::string &path, mlir::MLIRContext &context,
    const std::string &moduleName = "",
    const std::map<std::string, std::vector<int64_t>> &inputShapes = {},
    const std::map<std::string, std::string> &inputValues = {});

/// importOnnxModel of the serialized ModelProto in `bytes` (the fuzz
/// harness, fuzz/onnx_import.cpp); `sourceName` names it in messages and
/// gives the module its name when `moduleName` is empty.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModelFromBytes(
    const std::vector<uint8_t> &bytes, const std::string &sourceName,
    mlir::MLIRContext &context, const std::string &moduleName = "",
    const std::map<std::string, std::vector<int64_t>> &inputShapes = {},
    const std::map<std::string, std::string> &inputValues = {});

} // namespace tfcc

#endif // TFCC_COMPILER_ONNX_ONNXIMPORTER_H
