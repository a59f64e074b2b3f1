//===- NodeNames.h - the model's node names of a location -------*- C++ -*-===//
//
// Importers give each op a NameLoc with its node's name (ONNX node, TFLite
// tensor, `loc("conv1")` in graph IR); passes keep it through fusion
// (FusedLoc) and inlining (CallSiteLoc). The graph views, the profiler's
// spans and check-numerics' messages name ops by it.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_NODENAMES_H
#define TFCC_PASSES_NODENAMES_H

#include "mlir/IR/Location.h"

#include <string>
#include <vector>

namespace mlir::tfcc {

/// The node names of `loc` (NameLoc names, outermost first, each once, a
/// leading '/' dropped: ONNX's "/conv1/Conv" would make an empty name scope).
std::vector<std::string> locationNames(Location loc);

/// One label for the op at `loc`: its node names joined by '+' (a fused
/// op's), else "file:line:col" of its first file location with a line (the
/// file's name without folders), else "".
std::string nodeLabel(Location loc);

} // namespace mlir::tfcc

#endif // TFCC_PASSES_NODENAMES_H
