//===- Losses.cpp - ONNX NLL and softmax cross-entropy losses ------------===//
//
// Both losses are composed from graph ops as ONNX's function bodies define
// them: the log-probability of each target class picked with
// graph.gather_elements along the class axis (1), weighted by `weight[t]`
// (0 where t == ignore_index), negated, then summed, averaged over the
// weights, or left per element. SoftmaxCrossEntropyLoss is the NLL loss of
// log_softmax(scores, axis 1), whose log_prob output it may also return.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"

#include "llvm/ADT/Sequence.h"

#include <optional>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The loss attributes and inputs after their checks.
struct LossInputs {
  Value logProb; ///< [N, C, d1, ..., dk], f32 or f64
  Value target;  ///< [N, d1, ..., dk], i32 or i64
  Value weight;  ///< [C], or null
  std::optional<int64_t> ignoreIndex;
  std::string reduction;
};

/// Reads target (input 1), weight (input 2) and the attributes; the first
/// input, `scores`, is read by the caller.
LogicalResult readLossInputs(ImportContext &ctx, Value scores, LossInputs &in) {
  RankedTensorType scoresType = typeOf(scores);
  Type floatType = scoresType.getElementType();
  if (!floatType.isF32() && !floatType.isF64())
    return ctx.unsupported("input element type " + typeName(floatType));
  if (scoresType.getRank() < 2)
    return ctx.invalid("input of rank " + llvm::Twine(scoresType.getRank()) +
                       " (it must be [N, C, d1, ...])");
  FailureOr<Value> target = ctx.input(1);
  if (failed(target))
    return failure();
  RankedTensorType targetType = typeOf(*target);
  Type indexType = targetType.getElementType();
  if (!indexType.isSignlessInteger(32) && !indexType.isSignlessInteger(64))
    return ctx.unsupported("target element type " + typeName(indexType));
  bool shapesFit = targetType.getRank() == scoresType.getRank() - 1;
  for (int64_t d = 0; shapesFit && d < targetType.getRank(); ++d) {
    int64_t scoreDim = scoresType.getDimSize(d == 0 ? 0 : d + 1);
    shapesFit = targetType.isDynamicDim(d) || ShapedType::isDynamic(scoreDim) ||
                targetType.getDimSize(d) == scoreDim;
  }
  if (!shapesFit)
    return ctx.invalid("target " + typeName(targetType) + " for input " +
                       typeName(scoresType) +
                       " (it must be [N, d1, ...] of input [N, C, d1, ...])");
  in.logProb = scores;
  in.target = *target;
  if (ctx.hasInput(2)) {
    FailureOr<Value> weight = ctx.input(2);
    if (failed(weight))
      return failure();
    RankedTensorType weightType = typeOf(*weight);
    if (weightType.getElementType() != floatType || weightType.getRank() != 1 ||
        (!weightType.isDynamicDim(0) && !scoresType.isDynamicDim(1) &&
         weightType.getDimSize(0) != scoresType.getDimSize(1)))
      return ctx.invalid("weight " + typeName(weightType) + " for input " +
                         typeName(scoresType) +
                         " (it must be [C] of its type)");
    in.weight = *weight;
  }
  if (ctx.hasAttr("ignore_index"))
    in.ignoreIndex = ctx.attrInt("ignore_index", 0);
  in.reduction = ctx.attrString("reduction", "mean");
  if (in.reduction != "none" && in.reduction != "sum" && in.reduction != "mean")
    return ctx.invalid("attribute 'reduction' = \"" + in.reduction +
                       "\" (none, sum or mean)");
  return success();
}

/// ONNX NegativeLogLikelihoodLoss of `in` (see the file comment).
Value nllLoss(OpChain &b, const LossInputs &in) {
  ImportContext &ctx = b.ctx;
  RankedTensorType logProbType = typeOf(in.logProb);
  RankedTensorType targetType = typeOf(in.target);
  Type floatType = logProbType.getElementType();
  Type indexType = targetType.getElementType();

  // Ignored targets read class 0 and weigh 0.
  Value target = in.target, kept;
  if (in.ignoreIndex) {
    Value ignore = ctx.constant(makeFilled(indexType, {}, *in.ignoreIndex));
    kept = b.compare(target, ignore, "ne");
    target = b.select(kept, target, ctx.constant(makeFilled(indexType, {}, 0)));
  }
  // Pick logProb[n, target[n, d...], d...] through a size-1 class axis.
  SmallVector<int64_t> withClassAxis(targetType.getShape());
  withClassAxis.insert(withClassAxis.begin() + 1, 1);
  Value picked = b.reshape(
      b.op<GatherElementsOp>(in.logProb, b.reshape(target, withClassAxis),
                             ctx.builder().getI64IntegerAttr(1)),
      targetType.getShape());

  Value weight; // per element; null: every element weighs 1
  if (in.weight)
    weight =
        b.op<GatherOp>(in.weight, target, ctx.builder().getI64IntegerAttr(0));
  if (kept)
    weight = weight ? b.select(kept, weight, b.scalar(0.0, floatType))
                    : b.cast(kept, floatType);
  Value loss =
      b.unary<NegOp>(weight ? b.binary<MulOp>(picked, weight) : picked);
  if (in.reduction == "none" || b.failed)
    return loss;

  auto all = llvm::to_vector(llvm::seq<int64_t>(0, targetType.getRank()));
  ArrayAttr axes = ctx.builder().getI64ArrayAttr(all);
  BoolAttr keep = ctx.builder().getBoolAttr(false);
  if (in.reduction == "mean" && !weight)
    return b.op<ReduceMeanOp>(loss, axes, keep);
  Value sum = b.op<ReduceSumOp>(loss, axes, keep);
  if (in.reduction == "sum" || b.failed)
    return sum;
  // Mean over the weights of the elements (ONNX's definition).
  return b.binary<DivOp>(sum, b.op<ReduceSumOp>(weight, axes, keep));
}

LogicalResult convertNegativeLogLikelihoodLoss(ImportContext &ctx) {
  FailureOr<Value> input = ctx.input(0);
  if (failed(input))
    return failure();
  LossInputs in;
  if (failed(readLossInputs(ctx, *input, in)))
    return failure();
  OpChain b{ctx};
  return b.finish(nllLoss(b, in));
}

LogicalResult convertSoftmaxCrossEntropyLoss(ImportContext &ctx) {
  FailureOr<Value> scores = ctx.input(0);
  if (failed(scores))
    return failure();
  LossInputs in;
  if (failed(readLossInputs(ctx, *scores, in)))
    return failure();
  OpChain b{ctx};
  in.logProb = ctx.builder().create<LogSoftmaxOp>(
      ctx.loc(), *scores, ctx.builder().getI64IntegerAttr(1));
  Value loss = nllLoss(b, in);
  if (failed(b.finish(loss)))
    return failure();
  if (ctx.hasOutput(1))
    ctx.setOutput(1, in.logProb);
  return success();
}

} // namespace

void registerLossConverters(ConverterTable &table) {
  table["NegativeLogLikelihoodLoss"] = convertNegativeLogLikelihoodLoss;
  table["SoftmaxCrossEntropyLoss"] = convertSoftmaxCrossEntropyLoss;
}

} // namespace tfcc::onnx_import
