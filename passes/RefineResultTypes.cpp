//===- RefineResultTypes.cpp - give graph ops their inferred result types -===//
//
// The graph IR contract lets a model write `?` where shape inference knows a
// dimension (`graph.add ... -> tensor<2x?xf32>` of static operands). The
// lowering builds each op's result from its operands, so a result less
// static than they make it is refined here, before anything else runs: the
// op gets the inferred type, and so do the ops after it whose result type
// follows (inference, or the same type as the operand); any other user gets
// a tensor.cast back to the type it read, and the function returns the
// refined types (a dynamic dimension of a compiled interface is the batch,
// which these are not).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_REFINERESULTTYPES
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Whether `written` may become `refined`: same rank and element type, each
/// dimension equal or written dynamic.
bool refines(RankedTensorType refined, RankedTensorType written) {
  if (refined == written || refined.getRank() != written.getRank() ||
      refined.getElementType() != written.getElementType())
    return false;
  for (int64_t i = 0; i < written.getRank(); ++i)
    if (!written.isDynamicDim(i) &&
        written.getDimSize(i) != refined.getDimSize(i))
      return false;
  return true;
}

/// The result type `op` takes from its current operands: the inferred one
/// for ops with result type inference, the operand's for same-type ops;
/// null for every other op (which gets casts back to what it read).
RankedTensorType derivedResultType(Operation *op) {
  if (op->getNumResults() != 1 || !isa<graph::GraphDialect>(op->getDialect()))
    return nullptr;
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>())
    return dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  // Ops without inference report it as an error: not one of these.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<RankedTensorType> inferred = graph::inferResultType(op);
  return succeeded(inferred) ? *inferred : nullptr;
}

struct RefineResultTypesPass
    : tfcc::impl::RefineResultTypesBase<RefineResultTypesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The types refined values had, for the users that keep them.
    DenseMap<Value, Type> written;
    OpBuilder b(func.getContext());
    // Program order: an op's operands are settled before the op.
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      RankedTensorType derived = derivedResultType(op);
      if (!derived && !isa<func::ReturnOp>(op))
        for (OpOperand &operand : op->getOpOperands())
          if (auto it = written.find(operand.get()); it != written.end()) {
            b.setInsertionPoint(op);
            operand.set(b.create<tensor::CastOp>(op->getLoc(), it->second,
                                                 operand.get()));
          }
      if (!derived)
        return;
      Value result = op->getResult(0);
      auto type = cast<RankedTensorType>(result.getType());
      if (!refines(derived, type))
        return;
      written[result] = type;
      result.setType(derived);
    });
    // The function's results: the types of what it returns.
    SmallVector<Type> results(func.getResultTypes());
    bool changed = false;
    func.walk([&](func::ReturnOp ret) {
      for (auto [i, value] : llvm::enumerate(ret.getOperands()))
        if (i < results.size() && value.getType() != results[i]) {
          results[i] = value.getType();
          changed = true;
        }
    });
    if (changed)
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getArgumentTypes(), results));
  }
};

} // namespace
