//===- Elementwise.cpp - ONNX elementwise ops to graph IR -----------------===//
//
// Unary math and activations, broadcasting binary arithmetic, comparisons,
// boolean logic, Where, Cast, Identity and Dropout. ONNX (opset >= 7)
// broadcasts like NumPy, as the graph IR does; the binary ops of older opsets
// (`broadcast` and `axis` attributes) get their second operand reshaped so
// that NumPy broadcasting means the same (BinaryInputs). Ops whose inputs are
// all known at import time and whose result is small are folded
// (HostFolding.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
Type elementOf(Value v) { return typeOf(v).getElementType(); }

/// Fails with "input element type T" unless `v` is f32 or f64.
LogicalResult requireFloat(ImportContext &ctx, Value v) {
  if (elementOf(v).isF32() || elementOf(v).isF64())
    return success();
  return ctx.unsupported("input element type " + typeName(elementOf(v)));
}

LogicalResult setResult(ImportContext &ctx, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value);
  return success();
}

/// A scalar of `elementType` holding the integer `value`.
Value scalarConstant(ImportContext &ctx, Type elementType, int64_t value) {
  return ctx.constant(makeFilled(elementType, {}, value));
}

/// A scalar f32/f64 constant.
Value floatConstant(ImportContext &ctx, Type floatType, double value) {
  return ctx.constant(makeFilledFloat(floatType, {}, value));
}

//===--- folding ----------------------------------------------------------===//

bool foldUnaryInput(ImportContext &ctx, HostUnary fn) {
  const HostTensor *x = ctx.constantInput(0);
  if (!x || x->numElements() > kMaxFoldedElements)
    return false;
  std::optional<HostTensor> result = foldUnary(fn, *x);
  if (!result)
    return false;
  ctx.setConstantOutput(0, std::move(*result));
  return true;
}

/// Folds a binary op of two host tensors whose broadcast result is small.
std::optional<HostTensor> foldSmallBinary(HostBinary fn, const HostTensor &a,
                                          const HostTensor &b) {
  auto shape = broadcastStaticShapes(a.shape, b.shape);
  if (!shape || productOf(*shape) > kMaxFoldedElements)
    return std::nullopt;
  return foldBinary(fn, a, b);
}

//===--- unary ------------------------------------------------------------===//

/// Float-only unary ops that map 1:1 onto a graph op.
template <typename OpTy>
LogicalResult convertFloatUnary(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  ctx.setOutput(0, ctx.builder().create<OpTy>(ctx.loc(), *x));
  return success();
}

/// Float-only unary ops that can also be folded.
template <typename OpTy, HostUnary Fn>
LogicalResult convertFoldableFloatUnary(ImportContext &ctx) {
  if (foldUnaryInput(ctx, Fn))
    return success();
  return convertFloatUnary<OpTy>(ctx);
}

/// Neg and Abs: any numeric type.
template <typename OpTy, HostUnary Fn>
LogicalResult convertNumericUnary(ImportContext &ctx) {
  if (foldUnaryInput(ctx, Fn))
    return success();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (elementOf(*x).isSignlessInteger(1))
    return ctx.unsupported("input element type i1");
  ctx.setOutput(0, ctx.builder().create<OpTy>(ctx.loc(), *x));
  return success();
}

/// The math-library functions of graph.math (MathFunctions.def), on floats.
template <MathFunction Fn> LogicalResult convertMath(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  ctx.setOutput(
      0, ctx.builder().create<MathOp>(ctx.loc(), *x, mathFunctionName(Fn)));
  return success();
}

/// IsNaN: x != x, the one comparison NaN satisfies with itself.
LogicalResult convertIsNaN(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  return setResult(
      ctx, ctx.create<CompareOp>(*x, *x, ctx.builder().getStringAttr("ne")));
}

/// IsInf: x == +inf, x == -inf, |x| == +inf when both signs count, and
/// x < -inf (false everywhere) when neither does.
LogicalResult convertIsInf(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  bool positive = ctx.attrInt("detect_positive", 1) != 0;
  bool negative = ctx.attrInt("detect_negative", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  Value probe = *x;
  if (positive && negative)
    probe = ctx.builder().create<AbsOp>(ctx.loc(), *x);
  Value target = floatConstant(ctx, elementOf(*x), positive ? inf : -inf);
  StringRef predicate = positive || negative ? "eq" : "lt";
  return setResult(
      ctx, ctx.create<CompareOp>(probe, target,
                                 ctx.builder().getStringAttr(predicate)));
}

LogicalResult convertRelu(ImportContext &ctx) {
  if (foldUnaryInput(ctx, HostUnary::Relu))
    return success();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type type = elementOf(*x);
  if (type.isF32()) {
    ctx.setOutput(0, ctx.builder().create<ReluOp>(ctx.loc(), *x));
    return success();
  }
  if (type.isSignlessInteger(1))
    return ctx.unsupported("input element type i1");
  // Integer Relu (opset 14): max(x, 0).
  return setResult(ctx,
                   ctx.create<MaximumOp>(*x, scalarConstant(ctx, type, 0)));
}

LogicalResult convertReciprocal(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  Value one = scalarConstant(ctx, elementOf(*x), 1);
  return setResult(ctx, ctx.create<DivOp>(one, *x));
}

LogicalResult convertLeakyRelu(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  float alpha = ctx.attrFloat("alpha", 0.01f);
  ctx.setOutput(0, ctx.builder().create<LeakyReluOp>(
                       ctx.loc(), *x, ctx.builder().getF32FloatAttr(alpha)));
  return success();
}

/// clip(alpha * x + beta, 0, 1) in f32, as ONNX HardSigmoid defines it.
FailureOr<Value> generalHardSigmoid(ImportContext &ctx, Value x, float alpha,
                                    float beta) {
  Type f32 = elementOf(x);
  FailureOr<Value> scaled =
      ctx.create<MulOp>(x, floatConstant(ctx, f32, alpha));
  if (failed(scaled))
    return failure();
  FailureOr<Value> shifted =
      ctx.create<AddOp>(*scaled, floatConstant(ctx, f32, beta));
  if (failed(shifted))
    return failure();
  OpBuilder &b = ctx.builder();
  return b
      .create<ClipOp>(ctx.loc(), *shifted, b.getF32FloatAttr(0.0f),
                      b.getF32FloatAttr(1.0f))
      .getResult();
}

LogicalResult convertHardSigmoid(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireFloat(ctx, *x)))
    return failure();
  float alpha = ctx.attrFloat("alpha", 0.2f);
  float beta = ctx.attrFloat("beta", 0.5f);
  // graph.hard_sigmoid is relu6(x + 3) / 6: alpha = 1/6, beta = 1/2.
  if (alpha == 1.0f / 6.0f && beta == 0.5f) {
    ctx.setOutput(0, ctx.builder().create<HardSigmoidOp>(ctx.loc(), *x));
    return success();
  }
  return setResult(ctx, generalHardSigmoid(ctx, *x, alpha, beta));
}

LogicalResult convertClip(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type type = elementOf(*x);
  if (type.isSignlessInteger(1))
    return ctx.unsupported("input element type i1");

  // Each bound: absent, a constant (a scalar of the input's type, so that
  // integer bounds stay exact), or a run-time value.
  struct Bound {
    std::optional<HostTensor> constant;
    Value value;
  } bounds[2];
  if (ctx.opset() < 11) {
    if (!isa<FloatType>(type))
      return ctx.unsupported("input element type " + typeName(type));
    bounds[0].constant = makeFilledFloat(
        type, {}, ctx.attrFloat("min", std::numeric_limits<float>::lowest()));
    bounds[1].constant = makeFilledFloat(
        type, {}, ctx.attrFloat("max", std::numeric_limits<float>::max()));
  } else {
    const char *names[] = {"min", "max"};
    for (int i = 0; i < 2; ++i) {
      if (!ctx.hasInput(i + 1))
        continue;
      if (const HostTensor *c = ctx.constantInput(i + 1)) {
        if (c->numElements() != 1)
          return ctx.unsupported(llvm::Twine("'") + names[i] +
                                 "' input with " +
                                 llvm::Twine(c->numElements()) +
                                 " elements (expected a scalar)");
        if (c->elementType != type)
          return ctx.unsupported(llvm::Twine("'") + names[i] +
                                 "' input of type " + typeName(c->elementType) +
                                 " for an input of type " + typeName(type));
        bounds[i].constant = foldReshape(*c, {});
        continue;
      }
      FailureOr<Value> v = ctx.input(i + 1);
      if (failed(v))
        return failure();
      bounds[i].value = *v;
    }
  }

  bool allConstant = !bounds[0].value && !bounds[1].value;
  if (type.isF32() && allConstant) {
    float lo = bounds[0].constant
                   ? static_cast<float>(bounds[0].constant->floats[0])
                   : std::numeric_limits<float>::lowest();
    float hi = bounds[1].constant
                   ? static_cast<float>(bounds[1].constant->floats[0])
                   : std::numeric_limits<float>::max();
    if (lo <= hi) {
      OpBuilder &b = ctx.builder();
      ctx.setOutput(0, b.create<ClipOp>(ctx.loc(), *x, b.getF32FloatAttr(lo),
                                        b.getF32FloatAttr(hi)));
      return success();
    }
  }
  // min(max(x, lo), hi): also right for lo > hi (all values become hi).
  Value result = *x;
  for (int i = 0; i < 2; ++i) {
    Value bound = bounds[i].value;
    if (!bound && bounds[i].constant)
      bound = ctx.constant(*bounds[i].constant);
    if (!bound)
      continue;
    FailureOr<Value> next = i == 0 ? ctx.create<MaximumOp>(result, bound)
                                   : ctx.create<MinimumOp>(result, bound);
    if (failed(next))
      return failure();
    result = *next;
  }
  ctx.setOutput(0, result);
  return success();
}

//===--- binary -----------------------------------------------------------===//

/// The two operands of a binary op (Add Sub Mul Div Pow, the comparisons,
/// And Or Xor). Before opset 7 these ops do not broadcast like NumPy:
/// without the attribute `broadcast` (= 0) both operands have the same shape;
/// with `broadcast` = 1 the second operand B is broadcast to the first one
/// A's shape, B's dims matching A's dims [axis, axis + rank(B)) (`axis`
/// absent: the trailing dims). B is then reshaped to B's dims followed by
/// rank(A) - axis - rank(B) ones, which NumPy broadcasting aligns the same
/// way. From opset 7 on the operands are used as they are.
class BinaryInputs {
public:
  explicit BinaryInputs(ImportContext &ctx) : ctx(ctx) {}

  /// Checks the legacy broadcasting attributes; fails with a diagnostic.
  LogicalResult init() {
    if (ctx.opset() >= 7)
      return success();
    int64_t broadcast = ctx.attrInt("broadcast", 0);
    if (broadcast != 0 && broadcast != 1)
      return ctx.unsupported("attribute 'broadcast' = " +
                             llvm::Twine(broadcast));
    RankedTensorType aType = ctx.inputType(0), bType = ctx.inputType(1);
    if (broadcast == 0) {
      if (ctx.hasAttr("axis"))
        return ctx.unsupported("attribute 'axis' without 'broadcast' = 1");
      // Equal shapes: NumPy broadcasting is the identity. Dims known on both
      // sides must agree.
      if (aType && bType &&
          (aType.getRank() != bType.getRank() ||
           llvm::any_of(llvm::seq<int64_t>(0, aType.getRank()), [&](int64_t d) {
             return !aType.isDynamicDim(d) && !bType.isDynamicDim(d) &&
                    aType.getDimSize(d) != bType.getDimSize(d);
           })))
        return ctx.unsupported(llvm::formatv("operands {0} and {1} of different "
                                             "shapes without 'broadcast' = 1",
                                             aType, bType)
                                   .str());
      return success();
    }
    if (!aType || !bType)
      return ctx.unsupported("'broadcast' = 1 with an operand of unknown rank");
    int64_t rankA = aType.getRank(), rankB = bType.getRank();
    int64_t axis = ctx.attrInt("axis", rankA - rankB);
    if (axis < 0 || rankB > rankA || axis + rankB > rankA)
      return ctx.unsupported(
          llvm::formatv("attribute 'axis' = {0} for operands {1} and {2}",
                        axis, aType, bType)
              .str());
    // B's dims must be 1 or A's dims (checked where both are known).
    for (int64_t d = 0; d < rankB; ++d) {
      int64_t bd = bType.getDimSize(d), ad = aType.getDimSize(axis + d);
      if (!ShapedType::isDynamic(bd) && !ShapedType::isDynamic(ad) &&
          bd != 1 && bd != ad)
        return ctx.unsupported(
            llvm::formatv("operand {0} broadcast to {1} at axis {2}", bType,
                          aType, axis)
                .str());
    }
    int64_t trailing = rankA - axis - rankB;
    if (trailing == 0)
      return success();
    SmallVector<int64_t> shape(bType.getShape());
    shape.append(trailing, 1);
    bShape = std::move(shape);
    return success();
  }

  /// Operand `i` when known at import time (B reshaped), else null;
  /// `partial`: possibly with unknown entries (partialConstantInput).
  const HostTensor *constant(int i, bool partial = false) {
    const HostTensor *c =
        partial ? ctx.partialConstantInput(i) : ctx.constantInput(i);
    if (!c || i == 0 || !bShape)
      return c;
    reshapedB = *c;
    reshapedB->shape.assign(bShape->begin(), bShape->end());
    return &*reshapedB;
  }

  /// Operand `i` as a graph value (B reshaped).
  FailureOr<Value> value(int i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v) || i == 0 || !bShape)
      return v;
    return ctx.reshape(*v, *bShape);
  }

private:
  ImportContext &ctx;
  std::optional<SmallVector<int64_t>> bShape; // B's shape when reshaped
  std::optional<HostTensor> reshapedB;
};

/// Arithmetic folds partially known operands too (unknown in, unknown out).
template <typename OpTy, HostBinary Fn>
LogicalResult convertBinary(ImportContext &ctx) {
  BinaryInputs in(ctx);
  if (failed(in.init()))
    return failure();
  const HostTensor *a = in.constant(0, /*partial=*/true),
                   *b = in.constant(1, /*partial=*/true);
  if (a && b)
    if (std::optional<HostTensor> folded = foldSmallBinary(Fn, *a, *b)) {
      ctx.setConstantOutput(0, std::move(*folded));
      return success();
    }
  FailureOr<Value> lhs = in.value(0);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = in.value(1);
  if (failed(rhs))
    return failure();
  return setResult(ctx, ctx.create<OpTy>(*lhs, *rhs));
}

/// Mod: graph.mod; `fmod` = 1 takes the dividend's sign and is required for
/// floats (ONNX's rule).
LogicalResult convertMod(ImportContext &ctx) {
  BinaryInputs in(ctx);
  if (failed(in.init()))
    return failure();
  FailureOr<Value> lhs = in.value(0);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = in.value(1);
  if (failed(rhs))
    return failure();
  int64_t fmod = ctx.attrInt("fmod", 0);
  Type element = elementOf(*lhs);
  if (element.isSignlessInteger(1))
    return ctx.unsupported("input element type i1");
  if (isa<FloatType>(element) && fmod == 0)
    return ctx.invalid("attribute 'fmod' = 0 on " + typeName(element) +
                       " inputs (ONNX requires fmod = 1 for floats)");
  return setResult(
      ctx, ctx.create<ModOp>(*lhs, *rhs, ctx.builder().getBoolAttr(fmod != 0)));
}

/// ONNX Pow allows an exponent type other than the base's: it is cast to the
/// base's type (the result has the base's type).
LogicalResult convertPow(ImportContext &ctx) {
  BinaryInputs in(ctx);
  if (failed(in.init()))
    return failure();
  const HostTensor *a = in.constant(0), *b = in.constant(1);
  if (a && b) {
    HostTensor exponent = foldCast(*b, a->elementType);
    if (std::optional<HostTensor> folded =
            foldSmallBinary(HostBinary::Pow, *a, exponent)) {
      ctx.setConstantOutput(0, std::move(*folded));
      return success();
    }
  }
  FailureOr<Value> base = in.value(0);
  if (failed(base))
    return failure();
  FailureOr<Value> exponent = in.value(1);
  if (failed(exponent))
    return failure();
  Value e = *exponent;
  if (elementOf(e) != elementOf(*base))
    e = ctx.cast(e, elementOf(*base));
  return setResult(ctx, ctx.create<PowOp>(*base, e));
}

/// Max, Min, Sum, Mean: variadic, folded pairwise from the left.
template <typename OpTy, HostBinary Fn, bool IsMean = false>
LogicalResult convertVariadic(ImportContext &ctx) {
  int n = ctx.numInputs();
  if (n < 1)
    return ctx.unsupported("node without inputs");
  if (std::optional<SmallVector<const HostTensor *>> c =
          allConstantInputs(ctx)) {
    std::optional<HostTensor> acc = *(*c)[0];
    for (int i = 1; i < n && acc; ++i)
      acc = (*c)[i] ? foldSmallBinary(Fn, *acc, *(*c)[i]) : std::nullopt;
    if (acc && IsMean)
      acc = foldSmallBinary(HostBinary::Div, *acc,
                            makeFilled(acc->elementType, {}, n));
    if (acc) {
      ctx.setConstantOutput(0, std::move(*acc));
      return success();
    }
  }
  FailureOr<Value> acc = ctx.input(0);
  for (int i = 1; i < n && succeeded(acc); ++i) {
    FailureOr<Value> next = ctx.input(i);
    if (failed(next))
      return failure();
    acc = ctx.create<OpTy>(*acc, *next);
  }
  if (failed(acc))
    return failure();
  if (IsMean) {
    if (failed(requireFloat(ctx, *acc)))
      return failure();
    acc = ctx.create<DivOp>(*acc, scalarConstant(ctx, elementOf(*acc), n));
  }
  return setResult(ctx, acc);
}

template <HostBinary Fn>
LogicalResult convertCompare(ImportContext &ctx) {
  BinaryInputs in(ctx);
  if (failed(in.init()))
    return failure();
  const HostTensor *a = in.constant(0), *b = in.constant(1);
  if (a && b)
    if (std::optional<HostTensor> folded = foldSmallBinary(Fn, *a, *b)) {
      ctx.setConstantOutput(0, std::move(*folded));
      return success();
    }
  StringRef predicate;
  switch (Fn) {
  case HostBinary::Eq:
    predicate = "eq";
    break;
  case HostBinary::Lt:
    predicate = "lt";
    break;
  case HostBinary::Le:
    predicate = "le";
    break;
  case HostBinary::Gt:
    predicate = "gt";
    break;
  default:
    predicate = "ge";
    break;
  }
  FailureOr<Value> lhs = in.value(0);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = in.value(1);
  if (failed(rhs))
    return failure();
  return setResult(ctx, ctx.create<CompareOp>(
                            *lhs, *rhs, ctx.builder().getStringAttr(predicate)));
}

//===--- boolean logic and selection --------------------------------------===//

LogicalResult requireBool(ImportContext &ctx, Value v) {
  if (elementOf(v).isSignlessInteger(1))
    return success();
  return ctx.unsupported("input element type " + typeName(elementOf(v)));
}

Value boolConstant(ImportContext &ctx, bool value) {
  return scalarConstant(ctx, ctx.builder().getI1Type(), value ? 1 : 0);
}

LogicalResult convertNot(ImportContext &ctx) {
  if (foldUnaryInput(ctx, HostUnary::Not))
    return success();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x) || failed(requireBool(ctx, *x)))
    return failure();
  // not x == (x == false)
  return setResult(ctx, ctx.create<CompareOp>(*x, boolConstant(ctx, false),
                                              ctx.builder().getStringAttr("eq")));
}

/// And: a ? b : false; Or: a ? true : b; Xor: a != b.
template <int Kind> // 0 And, 1 Or, 2 Xor
LogicalResult convertLogical(ImportContext &ctx) {
  BinaryInputs in(ctx);
  if (failed(in.init()))
    return failure();
  const HostTensor *ca = in.constant(0), *cb = in.constant(1);
  if (ca && cb && ca->elementType.isSignlessInteger(1)) {
    HostTensor f = makeFilled(ca->elementType, {}, 0);
    HostTensor t = makeFilled(ca->elementType, {}, 1);
    std::optional<HostTensor> folded;
    auto shape = broadcastStaticShapes(ca->shape, cb->shape);
    if (shape && productOf(*shape) <= kMaxFoldedElements) {
      if (Kind == 0)
        folded = foldSelect(*ca, *cb, f);
      else if (Kind == 1)
        folded = foldSelect(*ca, t, *cb);
      else if ((folded = foldBinary(HostBinary::Eq, *ca, *cb)))
        folded = foldUnary(HostUnary::Not, *folded);
    }
    if (folded) {
      ctx.setConstantOutput(0, std::move(*folded));
      return success();
    }
  }
  FailureOr<Value> a = in.value(0);
  if (failed(a) || failed(requireBool(ctx, *a)))
    return failure();
  FailureOr<Value> b = in.value(1);
  if (failed(b) || failed(requireBool(ctx, *b)))
    return failure();
  if (Kind == 0)
    return setResult(ctx, ctx.create<SelectOp>(*a, *b, boolConstant(ctx, false)));
  if (Kind == 1)
    return setResult(ctx, ctx.create<SelectOp>(*a, boolConstant(ctx, true), *b));
  return setResult(ctx, ctx.create<CompareOp>(*a, *b,
                                              ctx.builder().getStringAttr("ne")));
}

LogicalResult convertWhere(ImportContext &ctx) {
  if (auto c = allConstantInputs(ctx)) {
    auto shape = broadcastStaticShapes((*c)[0]->shape, (*c)[1]->shape);
    if (shape)
      shape = broadcastStaticShapes(*shape, (*c)[2]->shape);
    if (shape && productOf(*shape) <= kMaxFoldedElements)
      if (std::optional<HostTensor> folded =
              foldSelect(*(*c)[0], *(*c)[1], *(*c)[2])) {
        ctx.setConstantOutput(0, std::move(*folded));
        return success();
      }
  }
  FailureOr<Value> cond = ctx.input(0);
  if (failed(cond) || failed(requireBool(ctx, *cond)))
    return failure();
  FailureOr<Value> a = ctx.input(1);
  if (failed(a))
    return failure();
  FailureOr<Value> b = ctx.input(2);
  if (failed(b))
    return failure();
  return setResult(ctx, ctx.create<SelectOp>(*cond, *a, *b));
}

//===--- type conversion and identities -----------------------------------===//

bool isCastTarget(Type type) {
  return type &&
         (type.isF32() || type.isF64() || type.isF16() || type.isBF16() ||
          type.isSignlessInteger(1) || type.isSignlessInteger(32) ||
          type.isSignlessInteger(64) || type.isInteger(8));
}

/// Input 0 cast to `type` (one isCastTarget accepts), folded when small.
LogicalResult castInputTo(ImportContext &ctx, Type type) {
  // Unknown entries survive integer casts only (in f32 NaN is a value).
  if (const HostTensor *c = ctx.partialConstantInput(0);
      c && c->numElements() <= kMaxFoldedElements &&
      (!c->hasUnknowns() || type.isSignlessInteger(32) ||
       type.isSignlessInteger(64))) {
    ctx.setConstantOutput(0, foldCast(*c, type));
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, elementOf(*x) == type ? *x : ctx.cast(*x, type));
  return success();
}

LogicalResult convertCast(ImportContext &ctx) {
  if (!ctx.hasAttr("to"))
    return ctx.unsupported("missing attribute 'to'");
  int64_t to = ctx.attrInt("to", 0);
  Type type = elementTypeOf(ctx.context(), static_cast<int32_t>(to));
  if (!isCastTarget(type)) {
    std::string name = onnx::TensorProto_DataType_IsValid(to)
                           ? onnx::TensorProto_DataType_Name(
                                 static_cast<onnx::TensorProto_DataType>(to))
                           : std::to_string(to);
    return ctx.unsupported("attribute 'to' = " + name);
  }
  return castInputTo(ctx, type);
}

/// CastLike: Cast to the element type of input 1 (only its type is read).
LogicalResult convertCastLike(ImportContext &ctx) {
  FailureOr<Value> like = ctx.input(1);
  if (failed(like))
    return failure();
  Type type = elementOf(*like);
  if (!isCastTarget(type))
    return ctx.unsupported("target element type " + typeName(type) +
                           " (of input 'target_type')");
  return castInputTo(ctx, type);
}

LogicalResult convertIdentity(ImportContext &ctx) {
  if (const HostTensor *c = ctx.partialConstantInput(0);
      c && c->numElements() <= kMaxFoldedElements) {
    ctx.setConstantOutput(0, *c);
    return success();
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutput(0, *x);
  return success();
}

/// Inference: the identity. The mask output (all true in inference) is
/// supported for static shapes. Before opset 7 the attribute `is_test` must
/// be set: its default 0 is training mode (random dropout).
LogicalResult convertDropout(ImportContext &ctx) {
  if (ctx.opset() < 7 && ctx.attrInt("is_test", 0) == 0)
    return ctx.unsupported("attribute 'is_test' = 0 (training mode)");
  if (ctx.opset() >= 12 && ctx.hasInput(2)) {
    const HostTensor *training = ctx.constantInput(2);
    if (!training)
      return ctx.unsupported("non-constant 'training_mode' input");
    if (training->numElements() == 1 &&
        (training->isFloat() ? training->floats[0] != 0.0
                             : training->ints[0] != 0))
      return ctx.unsupported("'training_mode' = true");
  }
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (ctx.hasOutput(1)) {
    RankedTensorType type = typeOf(*x);
    if (!type.hasStaticShape())
      return ctx.unsupported("output 'mask' of the dynamic " +
                             typeName(type));
    ctx.setConstantOutput(1, makeFilled(ctx.builder().getI1Type(),
                                        type.getShape(), 1));
  }
  ctx.setOutput(0, *x);
  return success();
}

} // namespace

void registerElementwiseConverters(ConverterTable &table) {
  table["Abs"] = convertNumericUnary<AbsOp, HostUnary::Abs>;
  table["Neg"] = convertNumericUnary<NegOp, HostUnary::Neg>;
  table["Exp"] = convertFloatUnary<ExpOp>;
  table["Log"] = convertFloatUnary<LogOp>;
  table["Sqrt"] = convertFoldableFloatUnary<SqrtOp, HostUnary::Sqrt>;
  table["Reciprocal"] = convertReciprocal;
  table["Floor"] = convertFoldableFloatUnary<FloorOp, HostUnary::Floor>;
  table["Ceil"] = convertFoldableFloatUnary<CeilOp, HostUnary::Ceil>;
  table["Relu"] = convertRelu;
  table["LeakyRelu"] = convertLeakyRelu;
  table["Clip"] = convertClip;
  table["Sigmoid"] = convertFloatUnary<SigmoidOp>;
  table["Tanh"] = convertFloatUnary<TanhOp>;
  table["HardSigmoid"] = convertHardSigmoid;
  table["HardSwish"] = convertFloatUnary<HardSwishOp>;
  table["Erf"] = convertFloatUnary<ErfOp>;
#define TFCC_MATH_FUNCTION(Name, fn, onnx, reference, lowering)                \
  table[onnx] = convertMath<MathFunction::Name>;
#include "dialects/graph/IR/MathFunctions.def"
  table["IsNaN"] = convertIsNaN;
  table["IsInf"] = convertIsInf;

  table["Add"] = convertBinary<AddOp, HostBinary::Add>;
  table["Sub"] = convertBinary<SubOp, HostBinary::Sub>;
  table["Mul"] = convertBinary<MulOp, HostBinary::Mul>;
  table["Div"] = convertBinary<DivOp, HostBinary::Div>;
  table["Pow"] = convertPow;
  table["Mod"] = convertMod;
  table["Max"] = convertVariadic<MaximumOp, HostBinary::Max>;
  table["Min"] = convertVariadic<MinimumOp, HostBinary::Min>;
  table["Sum"] = convertVariadic<AddOp, HostBinary::Add>;
  table["Mean"] = convertVariadic<AddOp, HostBinary::Add, /*IsMean=*/true>;

  table["Equal"] = convertCompare<HostBinary::Eq>;
  table["Less"] = convertCompare<HostBinary::Lt>;
  table["LessOrEqual"] = convertCompare<HostBinary::Le>;
  table["Greater"] = convertCompare<HostBinary::Gt>;
  table["GreaterOrEqual"] = convertCompare<HostBinary::Ge>;
  table["Not"] = convertNot;
  table["And"] = convertLogical<0>;
  table["Or"] = convertLogical<1>;
  table["Xor"] = convertLogical<2>;
  table["Where"] = convertWhere;

  table["Cast"] = convertCast;
  table["CastLike"] = convertCastLike;
  table["Identity"] = convertIdentity;
  table["Dropout"] = convertDropout;
}

} // namespace tfcc::onnx_import
