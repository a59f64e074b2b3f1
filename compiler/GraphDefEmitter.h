//===- GraphDefEmitter.h - the graph IR as a TensorFlow GraphDef -*- C++
//-*-===//
//
// tfcc --emit=graphdef: the graph after the graph-level passes as a serialized
// tensorflow.GraphDef, what TensorBoard's Graphs tab shows (a training program
// writes it into its event file, docs/tensorboard.md). One name scope per
// entry point; a node per op, named by the op's location name (the model's
// node names; fused ops join theirs with '+') or the symbol it refers to (a
// variable's read), its op the graph op's name;
// entry arguments are Placeholder nodes, results Identity nodes named after
// them; "_output_shapes" and "T" carry shapes and dtypes for the edges.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_GRAPHDEFEMITTER_H
#define TFCC_COMPILER_GRAPHDEFEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tfcc {

/// The serialized GraphDef of every public function of `module`.
std::string emitGraphDef(mlir::ModuleOp module);

} // namespace tfcc

#endif // TFCC_COMPILER_GRAPHDEFEMITTER_H
