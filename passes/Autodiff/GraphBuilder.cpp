//===- GraphBuilder.cpp - graph ops with inferred result types ------------===//

#include "passes/Autodiff/Autodiff.h"

#include "dialects/graph/IR/ShapeInference.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::tfcc::autodiff;

namespace {
/// A placeholder result type, replaced by the inferred one in finish().
RankedTensorType placeholder(Value like) {
  return RankedTensorType::get({}, GraphBuilder::elementOf(like));
}
} // namespace

Value GraphBuilder::finish(Operation *op) {
  FailureOr<RankedTensorType> type = inferResultType(op);
  if (::mlir::failed(type)) {
    hasFailed = true;
    return op->getResult(0);
  }
  op->getResult(0).setType(*type);
  return op->getResult(0);
}

Value GraphBuilder::scalar(double value, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  return constant(type, {value});
}

Value GraphBuilder::constant(RankedTensorType type, ArrayRef<double> values) {
  Type element = type.getElementType();
  SmallVector<Attribute> attrs;
  for (double v : values) {
    if (isa<FloatType>(element))
      attrs.push_back(b.getFloatAttr(element, v));
    else
      attrs.push_back(b.getIntegerAttr(element, static_cast<int64_t>(v)));
  }
  auto attr = DenseElementsAttr::get(type, attrs);
  return b.create<ConstantOp>(loc, type, attr);
}

#define TFCC_BINARY(NAME, OP)                                                  \
  Value GraphBuilder::NAME(Value x, Value y) {                                 \
    return finish(b.create<OP>(loc, placeholder(x), x, y));                    \
  }
TFCC_BINARY(add, AddOp)
TFCC_BINARY(sub, SubOp)
TFCC_BINARY(mul, MulOp)
TFCC_BINARY(div, DivOp)
TFCC_BINARY(maximum, MaximumOp)
TFCC_BINARY(pow, PowOp)
#undef TFCC_BINARY

#define TFCC_UNARY(NAME, OP)                                                   \
  Value GraphBuilder::NAME(Value x) { return b.create<OP>(loc, x.getType(), x); }
TFCC_UNARY(neg, NegOp)
TFCC_UNARY(exp, ExpOp)
TFCC_UNARY(log, LogOp)
TFCC_UNARY(sqrt, SqrtOp)
TFCC_UNARY(rsqrt, RsqrtOp)
TFCC_UNARY(square, SquareOp)
TFCC_UNARY(tanh, TanhOp)
TFCC_UNARY(erf, ErfOp)
TFCC_UNARY(hardSigmoid, HardSigmoidOp)
#undef TFCC_UNARY

Value GraphBuilder::softmax(Value x, int64_t axis) {
  return b.create<SoftmaxOp>(loc, x.getType(), x, b.getI64IntegerAttr(axis));
}

Value GraphBuilder::logSoftmax(Value x, int64_t axis) {
  return b.create<LogSoftmaxOp>(loc, x.getType(), x, b.getI64IntegerAttr(axis));
}

Value GraphBuilder::compare(Value x, Value y, StringRef predicate) {
  return finish(b.create<CompareOp>(loc, placeholder(x), x, y,
                                    b.getStringAttr(predicate)));
}

Value GraphBuilder::select(Value condition, Value x, Value y) {
  return finish(b.create<SelectOp>(loc, placeholder(x), condition, x, y));
}

Value GraphBuilder::cast(Value x, Type elementType) {
  if (elementOf(x) == elementType)
    return x;
  auto type = RankedTensorType::get(typeOf(x).getShape(), elementType);
  return b.create<CastOp>(loc, type, x);
}

Value GraphBuilder::reshape(Value x, RankedTensorType type) {
  if (x.getType() == type)
    return x;
  return finish(b.create<ReshapeOp>(loc, type, x));
}

Value GraphBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  return finish(
      b.create<TransposeOp>(loc, placeholder(x), x, b.getI64ArrayAttr(perm)));
}

Value GraphBuilder::matmul(Value x, Value y, bool transposeA,
                           bool transposeB) {
  return finish(b.create<MatmulOp>(loc, placeholder(x), x, y,
                                   b.getBoolAttr(transposeA),
                                   b.getBoolAttr(transposeB)));
}

Value GraphBuilder::reduceSum(Value x, ArrayRef<int64_t> axes, bool keepDims) {
  return finish(b.create<ReduceSumOp>(loc, placeholder(x), x,
                                      b.getI64ArrayAttr(axes),
                                      b.getBoolAttr(keepDims)));
}

Value GraphBuilder::reduceMean(Value x, ArrayRef<int64_t> axes, bool keepDims) {
  return finish(b.create<ReduceMeanOp>(loc, placeholder(x), x,
                                       b.getI64ArrayAttr(axes),
                                       b.getBoolAttr(keepDims)));
}

Value GraphBuilder::slice(Value x, ArrayRef<int64_t> starts,
                          ArrayRef<int64_t> limits, ArrayRef<int64_t> strides) {
  return finish(b.create<SliceOp>(loc, placeholder(x), x,
                                  b.getI64ArrayAttr(starts),
                                  b.getI64ArrayAttr(limits),
                                  b.getI64ArrayAttr(strides)));
}

Value GraphBuilder::concat(ValueRange inputs, int64_t axis) {
  if (inputs.size() == 1)
    return inputs.front();
  return finish(b.create<ConcatOp>(loc, placeholder(inputs.front()), inputs,
                                   b.getI64IntegerAttr(axis)));
}

Value GraphBuilder::pad(Value x, ArrayRef<int64_t> pads) {
  return finish(b.create<PadOp>(loc, placeholder(x), x,
                                b.getI64ArrayAttr(pads), b.getF32FloatAttr(0)));
}

Value GraphBuilder::broadcastLike(Value value, Value like) {
  if (value.getType() == like.getType())
    return value;
  auto type =
      RankedTensorType::get(typeOf(like).getShape(), elementOf(value));
  return b.create<BroadcastLikeOp>(loc, type, value, like);
}

Value GraphBuilder::elementCount(Value x, ArrayRef<int64_t> axes,
                                 Type elementType) {
  return b.create<ElementCountOp>(loc, RankedTensorType::get({}, elementType),
                                  x, b.getI64ArrayAttr(axes));
}

Value GraphBuilder::unbroadcast(Value gradient, RankedTensorType target) {
  RankedTensorType type = typeOf(gradient);
  if (type == target)
    return gradient;
  int64_t lead = type.getRank() - target.getRank();
  if (lead > 0) {
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < lead; ++i)
      axes.push_back(i);
    gradient = reduceSum(gradient, axes, /*keepDims=*/false);
    type = typeOf(gradient);
  }
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < target.getRank(); ++i)
    if (target.getDimSize(i) == 1 && type.getDimSize(i) != 1)
      axes.push_back(i);
  if (!axes.empty())
    gradient = reduceSum(gradient, axes, /*keepDims=*/true);
  // Only static/dynamic differences may remain: give the target type where a
  // reshape can express it.
  if (gradient.getType() != target && target.getNumDynamicDims() <= 1)
    gradient = reshape(gradient, target);
  return gradient;
}
