//===- DimNames.h - the attributes naming entry args and dims -*- C++ -*-===//
//
// No MLIR. kArgNameAttr, on an entry's arguments and results, holds the name
// the header and the reflective table give it.
//
// Dimensions beyond the batch (docs/c-api.md, "Dimensions", also the graph-IR
// notation). An entry argument's kDimNamesAttr (an array
// of strings, one per dim: "" for static dims and the batch) names its
// dynamic dims; the module's kDimBoundsAttr (a dictionary name -> largest
// value, from tfcc --dim-bound) bounds named dimensions. A dynamic dim without
// a bounded name takes the batch's value.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_DIMNAMES_H
#define TFCC_DIALECTS_GRAPH_IR_DIMNAMES_H

namespace mlir::graph {

inline constexpr const char *kArgNameAttr = "tfcc.name";
inline constexpr const char *kDimNamesAttr = "tfcc.dim_names";
inline constexpr const char *kDimBoundsAttr = "tfcc.dim_bounds";
/// Output dimensions computed from the named ones (the memory planner's
/// record, on the module: an array of {name, bound}, k = 1 + the number of
/// bounds + the position), and the prefix of the entries' shape functions
/// that compute them (`<prefix><entry function>(memref<?xi64> dims)`).
inline constexpr const char *kDerivedDimsAttr = "tfcc.derived_dims";
inline constexpr const char *kShapeFunctionPrefix = "__tfcc_dims_";

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_DIMNAMES_H
