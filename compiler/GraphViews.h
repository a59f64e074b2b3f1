//===- GraphViews.h - renderings of an exported graph -----------*- C++ -*-===//
//
// tfcc --emit=graphdef|dot|html (docs/tensorboard.md, "Graph views"): the
// nodes of exportGraph (GraphExport.h) as
//   - a serialized TensorFlow GraphDef (TensorBoard's Graphs tab): each node
//     under its entry's name scope, "T" and "_output_shapes" on the edges;
//   - Graphviz DOT: a cluster per entry, fused ops boxed twice and listing
//     the nodes they absorbed, shapes and dtypes on the edges;
//   - a self-contained HTML page with that graph drawn as SVG (layered
//     layout, no script, no external resource).
// No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_GRAPHVIEWS_H
#define TFCC_COMPILER_GRAPHVIEWS_H

#include "compiler/GraphExport.h"

#include <string>
#include <vector>

namespace tfcc {

std::string graphDefOf(const std::vector<ExportedScope> &scopes);
std::string dotOf(const std::vector<ExportedScope> &scopes,
                  const std::string &modelName);
std::string htmlOf(const std::vector<ExportedScope> &scopes,
                   const std::string &modelName);

/// "f32[?, 28, 28, 1]".
std::string typeText(const ExportedType &type);

} // namespace tfcc

#endif // TFCC_COMPILER_GRAPHVIEWS_H
