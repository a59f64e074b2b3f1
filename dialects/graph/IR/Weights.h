//===- Weights.h - a model's weights as graph.variable ops ------*- C++ -*-===//
//
// The importers (ONNX, TFLite) keep every large constant of a model as a
// graph.variable whose value is a dense_resource blob, read where it is used.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_WEIGHTS_H
#define TFCC_DIALECTS_GRAPH_IR_WEIGHTS_H

#include "dialects/graph/IR/GraphOps.h"

namespace mlir::graph {

/// Declares `graph.variable @symbol` of `type` holding a copy of `raw`
/// (row-major, little-endian, aligned to `alignment`) just before `before`
/// (the entry function), at `variableLoc`, and returns a `graph.read` of it
/// built with `b` at its insertion point and `readLoc`.
Value createWeightVariable(OpBuilder &b, Operation *before,
                           Location variableLoc, Location readLoc,
                           StringRef symbol, RankedTensorType type,
                           ArrayRef<char> raw, size_t alignment);

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_WEIGHTS_H
