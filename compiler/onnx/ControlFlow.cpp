//===- ControlFlow.cpp - ONNX If to graph IR ------------------------------===//
//
// If with a condition known at import time (a constant, or a comparison of
// static shapes) becomes the nodes of the branch it takes. With a condition
// known only at run time both branches are converted and each output
// selects between them (graph.select on a scalar condition): correct for
// branches without side effects, which ONNX's are, at the cost of running
// both. Loop and Scan are not supported.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

using SubgraphOutputs = std::vector<ImportContext::SubgraphOutput>;

FailureOr<SubgraphOutputs> importBranch(ImportContext &ctx,
                                        llvm::StringRef name) {
  FailureOr<SubgraphOutputs> outputs = ctx.importSubgraph(name);
  if (failed(outputs))
    return failure();
  if (static_cast<int>(outputs->size()) != ctx.numOutputs())
    return ctx.invalid("'" + name + "' with " +
                       llvm::Twine(outputs->size()) + " outputs for " +
                       llvm::Twine(ctx.numOutputs()) + " node outputs");
  return outputs;
}

/// An output of a branch as a graph value.
FailureOr<Value> branchValue(ImportContext &ctx,
                             ImportContext::SubgraphOutput &output,
                             llvm::StringRef branch, int index) {
  if (output.value)
    return output.value;
  if (output.host->hasUnknowns())
    return ctx.unsupported("output " + llvm::Twine(index) + " of '" + branch +
                           "', derived from a dynamic dimension, under a "
                           "condition known only at run time");
  return ctx.constant(*output.host);
}

LogicalResult convertIf(ImportContext &ctx) {
  if (const HostTensor *cond = ctx.constantInput(0)) {
    if (cond->numElements() != 1)
      return ctx.invalid("condition of " + llvm::Twine(cond->numElements()) +
                         " elements (If takes one boolean)");
    bool taken = cond->isFloat() ? cond->floats[0] != 0.0 : cond->ints[0] != 0;
    FailureOr<SubgraphOutputs> outputs =
        importBranch(ctx, taken ? "then_branch" : "else_branch");
    if (failed(outputs))
      return failure();
    for (auto [i, output] : llvm::enumerate(*outputs)) {
      if (output.value)
        ctx.setOutput(i, output.value);
      else
        ctx.setConstantOutput(i, std::move(*output.host));
    }
    return success();
  }

  RankedTensorType condType = ctx.inputType(0);
  if (condType && (!condType.getElementType().isInteger(1) ||
                   !condType.hasStaticShape() ||
                   condType.getNumElements() != 1))
    return ctx.invalid("condition of type " + typeName(condType) +
                       " (If takes one boolean)");
  FailureOr<Value> cond = ctx.input(0);
  if (failed(cond))
    return failure();
  FailureOr<Value> scalarCond = ctx.reshape(*cond, {});
  if (failed(scalarCond))
    return failure();
  FailureOr<SubgraphOutputs> thenOutputs = importBranch(ctx, "then_branch");
  if (failed(thenOutputs))
    return failure();
  FailureOr<SubgraphOutputs> elseOutputs = importBranch(ctx, "else_branch");
  if (failed(elseOutputs))
    return failure();
  for (int i = 0; i < ctx.numOutputs(); ++i) {
    FailureOr<Value> a = branchValue(ctx, (*thenOutputs)[i], "then_branch", i);
    if (failed(a))
      return failure();
    FailureOr<Value> b = branchValue(ctx, (*elseOutputs)[i], "else_branch", i);
    if (failed(b))
      return failure();
    if (a->getType() != b->getType())
      return ctx.unsupported(
          "output " + llvm::Twine(i) + " of type " + typeName(a->getType()) +
          " in 'then_branch' and " + typeName(b->getType()) +
          " in 'else_branch' under a condition known only at run time (tfcc "
          "computes both branches and selects; they must yield one type)");
    FailureOr<Value> y = ctx.create<SelectOp>(*scalarCond, *a, *b);
    if (failed(y))
      return failure();
    ctx.setOutput(i, *y);
  }
  return success();
}

} // namespace
} // namespace tfcc::onnx_import

void tfcc::onnx_import::registerControlFlowConverters(ConverterTable &table) {
  table["If"] = convertIf;
}
