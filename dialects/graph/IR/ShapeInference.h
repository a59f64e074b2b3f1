//===- ShapeInference.h - result types of graph ops -------------*- C++ -*-===//
//
// The result type each graph op must have, computed from its operands and
// attributes. Verifiers compare written types against these; other code (the
// interpreter, importers) may call them too.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_SHAPEINFERENCE_H
#define TFCC_DIALECTS_GRAPH_IR_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::graph {

/// Infers the result type of a graph op printed with a functional type.
/// Emits an op error naming the offending types/attribute and returns failure
/// when the operands or attributes are invalid.
FailureOr<RankedTensorType> inferResultType(Operation *op);

/// NumPy broadcasting of two shapes (dynamic dims are ShapedType::kDynamic).
/// Returns failure when the shapes are incompatible.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                               ArrayRef<int64_t> b);

/// Output size of a windowed dimension, as TensorFlow computes it.
int64_t windowedOutputSize(int64_t in, int64_t window, int64_t stride,
                           int64_t dilation, bool samePadding);

/// Padding before a windowed dimension (TF SAME puts the extra at the end).
int64_t samePaddingBefore(int64_t in, int64_t window, int64_t stride,
                          int64_t dilation);

/// Whether a reshape of `in` to `out` with two or more dynamic dims in `out`
/// keeps the dynamic dims in order: `in` has as many, and the products of the
/// static dims before the first dynamic dim, between consecutive ones and
/// after the last agree. Result dynamic dim j then carries input dynamic dim
/// j (an unsqueeze, a squeeze, merging or splitting static dims around
/// them): the graph IR's rule for a reshape with several dynamic dims.
bool isOrderPreservingReshape(ArrayRef<int64_t> in, ArrayRef<int64_t> out);

/// Normalizes a possibly negative axis against a rank; nullopt if invalid.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_SHAPEINFERENCE_H
