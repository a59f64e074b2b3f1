//===- Reductions.cpp - ONNX reductions and ArgMax to graph IR ------------===//
//
// ReduceMean/Sum/Max/Min map onto graph reductions; ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum and ReduceLogSumExp compose them with unary
// ops; ReduceProd is folded when its input is known (the graph IR has no
// product reduction). ArgMax/ArgMin yield i64 as ONNX does (graph.argmax
// yields i32).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// What a reduction converter computes: pre(x), reduce, post(result).
enum class Pre { None, Abs, Square, Exp };
enum class Post { None, Sqrt, Log };
enum class Kind { Sum, Mean, Max, Min, Prod };

struct ReductionAxes {
  SmallVector<int64_t> axes; // normalized, sorted
  bool identity = false;     // noop_with_empty_axes with no axes
};

/// Axes from the attribute (before opset 13 for ReduceSum, 18 for the
/// others) or the optional input 1, normalized; empty means all.
FailureOr<ReductionAxes> reductionAxes(ImportContext &ctx, int64_t rank) {
  bool fromInput = ctx.opset() >= (ctx.node().op_type() == "ReduceSum" ? 13 : 18);
  std::vector<int64_t> axes;
  if (fromInput) {
    if (ctx.hasInput(1)) {
      FailureOr<std::vector<int64_t>> a = constantIntsInput(ctx, 1, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  } else {
    axes = ctx.attrInts("axes");
  }
  ReductionAxes result;
  if (axes.empty()) {
    if (ctx.attrInt("noop_with_empty_axes", 0) != 0) {
      result.identity = true;
      return result;
    }
    for (int64_t i = 0; i < rank; ++i)
      result.axes.push_back(i);
    return result;
  }
  for (int64_t axis : axes) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a || llvm::is_contained(result.axes, *a))
      return ctx.unsupported("'axes' = " + formatInts(axes) +
                             " (out of range or repeated for rank " +
                             llvm::Twine(rank) + ")");
    result.axes.push_back(*a);
  }
  llvm::sort(result.axes);
  return result;
}

HostReduce hostReduceOf(Kind kind) {
  switch (kind) {
  case Kind::Sum:
    return HostReduce::Sum;
  case Kind::Mean:
    return HostReduce::Mean;
  case Kind::Max:
    return HostReduce::Max;
  case Kind::Min:
    return HostReduce::Min;
  case Kind::Prod:
    return HostReduce::Prod;
  }
  return HostReduce::Sum;
}

template <Kind K, Pre P = Pre::None, Post Q = Post::None>
LogicalResult convertReduce(ImportContext &ctx) {
  RankedTensorType inType = ctx.inputType(0);
  if (!inType)
    return ctx.unsupported("input 0 of unknown shape");
  int64_t rank = inType.getRank();
  FailureOr<ReductionAxes> axes = reductionAxes(ctx, rank);
  if (failed(axes))
    return failure();
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  constexpr bool plain = P == Pre::None && Q == Post::None;

  // Fold plain reductions of known inputs.
  if (const HostTensor *c = ctx.constantInput(0);
      plain && c && c->numElements() <= kMaxFoldedElements) {
    if (axes->identity) {
      ctx.setConstantOutput(0, *c);
      return success();
    }
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : axes->axes)
      reduced[a] = true;
    ctx.setConstantOutput(0, foldReduce(hostReduceOf(K), *c, reduced, keepDims));
    return success();
  }
  if (K == Kind::Prod)
    return ctx.unsupported("non-constant input (the graph IR has no product "
                           "reduction)");

  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type type = inType.getElementType();
  bool needsFloat = K == Kind::Mean || P == Pre::Exp || Q != Post::None;
  if (type.isSignlessInteger(1) || (needsFloat && !type.isF32()))
    return ctx.unsupported("input element type " + typeName(type));
  if (axes->identity) {
    ctx.setOutput(0, *x);
    return success();
  }

  OpBuilder &b = ctx.builder();
  Value value = *x;
  switch (P) {
  case Pre::None:
    break;
  case Pre::Abs:
    value = b.create<AbsOp>(ctx.loc(), value);
    break;
  case Pre::Square:
    value = b.create<SquareOp>(ctx.loc(), value);
    break;
  case Pre::Exp:
    value = b.create<ExpOp>(ctx.loc(), value);
    break;
  }
  FailureOr<Value> reduced;
  ArrayAttr axesAttr = b.getI64ArrayAttr(axes->axes);
  BoolAttr keepAttr = b.getBoolAttr(keepDims);
  if (rank == 0) {
    reduced = value; // nothing to reduce
  } else if (K == Kind::Sum) {
    reduced = ctx.create<ReduceSumOp>(value, axesAttr, keepAttr);
  } else if (K == Kind::Mean) {
    reduced = ctx.create<ReduceMeanOp>(value, axesAttr, keepAttr);
  } else if (K == Kind::Max) {
    reduced = ctx.create<ReduceMaxOp>(value, axesAttr, keepAttr);
  } else {
    reduced = ctx.create<ReduceMinOp>(value, axesAttr, keepAttr);
  }
  if (failed(reduced))
    return failure();
  value = *reduced;
  if (Q == Post::Sqrt)
    value = b.create<SqrtOp>(ctx.loc(), value);
  else if (Q == Post::Log)
    value = b.create<LogOp>(ctx.loc(), value);
  ctx.setOutput(0, value);
  return success();
}

/// ArgMax, and ArgMin as the ArgMax of -x (f32 only: exact, same ties).
template <bool IsMin>
LogicalResult convertArgExtremum(ImportContext &ctx) {
  int64_t selectLast = ctx.attrInt("select_last_index", 0);
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  if (type.getElementType().isSignlessInteger(1) ||
      (IsMin && !type.getElementType().isF32()))
    return ctx.unsupported("input element type " +
                           typeName(type.getElementType()));
  int64_t attrAxis = ctx.attrInt("axis", 0);
  std::optional<int64_t> axis = normalizeAxis(attrAxis, type.getRank());
  if (!axis)
    return ctx.unsupported("attribute 'axis' = " + llvm::Twine(attrAxis) +
                           " out of range for rank " +
                           llvm::Twine(type.getRank()));
  int64_t dim = type.getDimSize(*axis);
  if (selectLast && (selectLast != 1 || dim == ShapedType::kDynamic))
    return ctx.unsupported("attribute 'select_last_index' = " +
                           llvm::Twine(selectLast) +
                           (selectLast == 1 ? " on a dynamic axis" : ""));
  OpBuilder &b = ctx.builder();
  Value input = *x;
  if (IsMin)
    input = b.create<NegOp>(ctx.loc(), input);
  if (selectLast) {
    // The last extremum is the first one of the reversed axis:
    // index = (dim - 1) - argmax(reverse(x)).
    SmallVector<int64_t> reversed;
    for (int64_t i = dim - 1; i >= 0; --i)
      reversed.push_back(i);
    FailureOr<Value> flipped = ctx.create<GatherOp>(
        input, ctx.constant(makeI64Tensor(ctx.context(), reversed)),
        b.getI64IntegerAttr(*axis));
    if (failed(flipped))
      return failure();
    input = *flipped;
  }
  FailureOr<Value> index =
      ctx.create<ArgmaxOp>(input, b.getI64IntegerAttr(*axis));
  if (failed(index))
    return failure();
  Value result = *index;
  if (selectLast) {
    Value last = ctx.constant(makeFilled(b.getI32Type(), {}, dim - 1));
    FailureOr<Value> fromEnd = ctx.create<SubOp>(last, result);
    if (failed(fromEnd))
      return failure();
    result = *fromEnd;
  }
  if (ctx.attrInt("keepdims", 1) != 0) {
    SmallVector<int64_t> shape(type.getShape());
    shape[*axis] = 1;
    FailureOr<Value> reshaped = ctx.reshape(result, shape);
    if (failed(reshaped))
      return failure();
    result = *reshaped;
  }
  ctx.setOutput(0, ctx.cast(result, b.getI64Type()));
  return success();
}

} // namespace

void registerReductionConverters(ConverterTable &table) {
  table["ReduceSum"] = convertReduce<Kind::Sum>;
  table["ReduceMean"] = convertReduce<Kind::Mean>;
  table["ReduceMax"] = convertReduce<Kind::Max>;
  table["ReduceMin"] = convertReduce<Kind::Min>;
  table["ReduceProd"] = convertReduce<Kind::Prod>;
  table["ReduceL1"] = convertReduce<Kind::Sum, Pre::Abs>;
  table["ReduceL2"] = convertReduce<Kind::Sum, Pre::Square, Post::Sqrt>;
  table["ReduceSumSquare"] = convertReduce<Kind::Sum, Pre::Square>;
  table["ReduceLogSum"] = convertReduce<Kind::Sum, Pre::None, Post::Log>;
  table["ReduceLogSumExp"] = convertReduce<Kind::Sum, Pre::Exp, Post::Log>;
  table["ArgMax"] = convertArgExtremum<false>;
  table["ArgMin"] = convertArgExtremum<true>;
}

} // namespace tfcc::onnx_import
