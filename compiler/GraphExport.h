//===- GraphExport.h - the graph IR as plain nodes and edges ----*- C++ -*-===//
//
// What the graph views show (tfcc --emit=graphdef|dot|html): the graph after
// the graph-level passes as plain data, one scope per entry point. A node per
// op, named by the op's location names (the model's node names; a fused op
// keeps each of the ops it absorbed that had one) or the symbol it refers to
// (a variable's read), else its op; entry arguments are Placeholder nodes,
// results Identity nodes named after them. No MLIR types here: the renderings
// (GraphViews.h) stay light.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_GRAPHEXPORT_H
#define TFCC_COMPILER_GRAPHEXPORT_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tfcc {

/// A value's type: TensorFlow's DataType number and name ("f32") of its
/// element type, and its dims (-1 dynamic); unranked when !ranked.
struct ExportedType {
  int dataType = 0;
  std::string dtype;
  bool ranked = true;
  std::vector<int64_t> dims;
};

struct ExportedNode {
  std::string name; // unique within its scope
  std::string op; // "Placeholder", "Identity" or the graph op ("fused_conv2d")
  /// The model's node names it carries (several for a fused op).
  std::vector<std::string> names;
  /// Producers, as node names of the same scope ("conv1", "split:1").
  std::vector<std::string> inputs;
  std::vector<ExportedType> outputs;
  /// Where the memory plan put the node's buffers in the arena ("arena @0,
  /// 86528*batch bytes"), one line each; empty for a node whose results are
  /// the caller's buffers or live in no buffer. Filled by
  /// annotateArenaOffsets.
  std::vector<std::string> arena;
};

struct ExportedScope {
  std::string name; // the entry point
  std::vector<ExportedNode> nodes;
};

/// Every public function of `module` with a body, in order.
std::vector<ExportedScope> exportGraph(mlir::ModuleOp module);

/// Fills ExportedNode::arena from the memory plans tfcc-arena-allocation
/// recorded on `planned` (the same module after the arena pipeline): each
/// planned buffer goes to the node of its entry's scope that carries the
/// buffer's node name.
void annotateArenaOffsets(std::vector<ExportedScope> &scopes,
                          mlir::ModuleOp planned);

} // namespace tfcc

#endif // TFCC_COMPILER_GRAPHEXPORT_H
