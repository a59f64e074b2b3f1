//===- TensorSize.h - checked element counts and byte sizes -----*- C++ -*-===//
//
// The one place tensor sizes are computed with overflow checks, and the
// largest tensor a model may declare (docs/reliability.md, "Limits"). The graph
// dialect's ops verify every operand and result against it (the
// TensorSizeLimited trait), and the frontend the signatures and weights
// (verifyModelSizes), so code after verification (the planner, the header
// emitter) may multiply static dimensions without overflow; the ONNX
// importer and tfcc-run check what they build with the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_TENSORSIZE_H
#define TFCC_DIALECTS_GRAPH_IR_TENSORSIZE_H

#include "dialects/graph/IR/Limits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"

#include <cstdint>
#include <optional>

namespace mlir::graph {

// kMaxTensorBytes: Limits.h.

/// Bytes of one element (i1 takes a byte; 1 for a type without a bit
/// width, which no graph op accepts).
int64_t elementBytes(Type elementType);

/// Product of `dims` (dynamic ones count 1), or nullopt when it overflows
/// int64 or a dimension is negative and not dynamic.
std::optional<int64_t> checkedElementCount(llvm::ArrayRef<int64_t> dims);

/// Bytes of the static part of `type`, or nullopt when over kMaxTensorBytes.
std::optional<int64_t> checkedStaticBytes(ShapedType type);

/// a * b, or nullopt past kMaxTensorBytes (for a batch times its per-sample
/// bytes, and for totals).
std::optional<int64_t> checkedBytesProduct(int64_t a, int64_t b);

/// Emits "<what> 'TYPE' exceeds the largest tensor tfcc accepts (...)" and
/// fails when `type` (a shaped type) is over the limit. `what` is a Twine:
/// built only for the message (the verifier checks every op's types).
LogicalResult verifyTensorSize(function_ref<InFlightDiagnostic()> emitError,
                               Type type, const llvm::Twine &what);

/// Every operand and result of `op` within the limit.
LogicalResult verifyOperandAndResultSizes(Operation *op);

/// Function signatures within the limit (a function may return an argument
/// no graph op reads), and all variables and constants together.
LogicalResult verifyModelSizes(ModuleOp module);

/// The graph ops' trait: operands and results within kMaxTensorBytes.
template <typename ConcreteType>
class TensorSizeLimited
    : public mlir::OpTrait::TraitBase<ConcreteType, TensorSizeLimited> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyOperandAndResultSizes(op);
  }
};

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_TENSORSIZE_H
