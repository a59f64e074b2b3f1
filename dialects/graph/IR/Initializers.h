//===- Initializers.h - deterministic variable initial values ---*- C++ -*-===//
//
// The one definition of a variable's initial value. The interpreter and the
// compiler both call it, which is what makes their initial values
// bit-identical (the spec requires it). The generator is documented in
// docs/graph-ir.md#initializers.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_INITIALIZERS_H
#define TFCC_DIALECTS_GRAPH_IR_INITIALIZERS_H

#include "dialects/graph/IR/GraphOps.h"

namespace mlir::graph {

/// The splitmix64 mixing function: the generator of the initializers and of
/// graph.dropout_mask (docs/autodiff.md).
uint64_t splitmix64(uint64_t x);

/// Kinds accepted by #graph.init.
bool isKnownInitializerKind(StringRef kind);

/// Fills `values` (row-major, shape `shape`) from an initializer. Fans follow
/// Keras: the last dim is fan_out, the second to last fan_in, and the leading
/// (receptive field) dims multiply both.
void generateInitializer(StringRef kind, int64_t seed,
                         std::optional<double> scale, ArrayRef<int64_t> shape,
                         MutableArrayRef<float> values);

/// The initial value of a variable, whatever its INIT form (dense,
/// dense_resource, #graph.init). Emits an error on the op on failure.
FailureOr<DenseElementsAttr> getVariableInitialValue(VariableOp op);

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_INITIALIZERS_H
