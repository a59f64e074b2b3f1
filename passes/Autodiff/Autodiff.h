//===- Autodiff.h - reverse-mode differentiation of graph IR ----*- C++ -*-===//
//
// Internal to tfcc-autodiff (docs/autodiff.md): a builder of graph ops whose
// result types are inferred, and the gradient rule of each differentiable op.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_AUTODIFF_AUTODIFF_H
#define TFCC_PASSES_AUTODIFF_AUTODIFF_H

#include "dialects/graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::tfcc::autodiff {

/// Builds graph ops at the builder's insertion point, inferring each result
/// type with mlir::graph::inferResultType. An op whose type cannot be
/// inferred gets an error (on the op) and sets failed().
class GraphBuilder {
public:
  GraphBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }
  void setLocation(Location newLoc) { loc = newLoc; }
  bool failed() const { return hasFailed; }

  static RankedTensorType typeOf(Value v) {
    return llvm::cast<RankedTensorType>(v.getType());
  }
  static Type elementOf(Value v) { return typeOf(v).getElementType(); }

  /// A 0-D constant of `elementType` (float or integer).
  Value scalar(double value, Type elementType);
  /// A 0-D constant of `like`'s element type.
  Value scalarLike(double value, Value like) {
    return scalar(value, elementOf(like));
  }
  /// A constant of `type` from row-major values.
  Value constant(RankedTensorType type, ArrayRef<double> values);

  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  Value div(Value a, Value b);
  Value maximum(Value a, Value b);
  Value pow(Value a, Value b);
  Value neg(Value x);
  Value exp(Value x);
  Value log(Value x);
  Value sqrt(Value x);
  Value rsqrt(Value x);
  Value square(Value x);
  Value tanh(Value x);
  Value erf(Value x);
  Value hardSigmoid(Value x);
  Value softmax(Value x, int64_t axis);
  Value logSoftmax(Value x, int64_t axis);
  Value compare(Value a, Value b, StringRef predicate);
  Value select(Value condition, Value a, Value b);
  /// Converts `x` to `elementType` (same shape); `x` itself if it already is.
  Value cast(Value x, Type elementType);
  /// Reshapes `x` to `type`; `x` itself if it already has that type.
  Value reshape(Value x, RankedTensorType type);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  Value matmul(Value a, Value b, bool transposeA, bool transposeB);
  Value reduceSum(Value x, ArrayRef<int64_t> axes, bool keepDims);
  Value reduceMean(Value x, ArrayRef<int64_t> axes, bool keepDims);
  Value slice(Value x, ArrayRef<int64_t> starts, ArrayRef<int64_t> limits,
              ArrayRef<int64_t> strides);
  Value pad(Value x, ArrayRef<int64_t> pads);
  /// `inputs` (at least one) joined along `axis`; the one input itself.
  Value concat(ValueRange inputs, int64_t axis);
  /// `value` broadcast to the shape of `like` (graph.broadcast_like).
  Value broadcastLike(Value value, Value like);
  /// The product of dimensions `axes` of `x` as a 0-D tensor of `elementType`
  /// (graph.element_count).
  Value elementCount(Value x, ArrayRef<int64_t> axes, Type elementType);

  /// Sums `gradient` (the gradient of a broadcast result) down to `target`,
  /// the type of the operand that was broadcast (NumPy rules): leading
  /// dimensions and dimensions of size 1 in `target` are summed.
  Value unbroadcast(Value gradient, RankedTensorType target);

  /// Sets the inferred result type of a just-built op with one result.
  Value finish(Operation *op);

private:
  OpBuilder &b;
  Location loc;
  bool hasFailed = false;
};

/// Emits the gradients of `op`'s operands from the gradient `dy` of its
/// result. `wanted[i]` says whether operand i needs one; `grads[i]` receives
/// it (null where none is wanted). Emits an error naming the op and returns
/// failure when the op has no rule or the rule cannot handle its shapes.
LogicalResult emitOperandGradients(Operation *op, Value dy,
                                   ArrayRef<bool> wanted, GraphBuilder &g,
                                   SmallVectorImpl<Value> &grads);

/// Whether an op's float result depends differentiably on its operands
/// (false for floor, ceil, argmax, compare, integer casts, constants,
/// reads and the shape-only training helpers).
bool propagatesGradient(Operation *op);

} // namespace mlir::tfcc::autodiff

#endif // TFCC_PASSES_AUTODIFF_AUTODIFF_H
