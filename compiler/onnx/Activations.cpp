//===- Activations.cpp - ONNX activations, PRelu, Tile, InstanceNorm ------===//
//
// Activations that the graph IR has no single op for, composed from its
// elementwise ops (compare, select, exp, log, abs, ...): Elu, Selu, Celu,
// Softplus, Softsign, ThresholdedRelu and PRelu; Tile (concatenated copies)
// and InstanceNormalization (reduce_mean over the spatial dims). f32 only,
// but Tile, which moves any element type.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
Type elementOf(Value v) { return typeOf(v).getElementType(); }

/// The f32 input `i`; fails with "input element type T" for other types.
FailureOr<Value> floatInput(ImportContext &ctx, int i) {
  FailureOr<Value> x = ctx.input(i);
  if (failed(x))
    return failure();
  if (!elementOf(*x).isF32() && !elementOf(*x).isF64())
    return ctx.unsupported("input element type " + typeName(elementOf(*x)));
  return *x;
}

/// Fails unless `value` is finite (a float attribute).
LogicalResult requireFinite(ImportContext &ctx, StringRef name, float value) {
  if (std::isfinite(value))
    return success();
  return ctx.unsupported("attribute '" + name + "' = " +
                         std::to_string(value));
}

/// x > 0 ? x : alpha * (exp(x) - 1), as ONNX Elu (and Selu before gamma).
Value elu(OpChain &b, Value x, double alpha) {
  Value zero = b.scalar(0.0);
  Value negative = b.binary<MulOp>(
      b.binary<SubOp>(b.unary<ExpOp>(x), b.scalar(1.0)), b.scalar(alpha));
  return b.select(b.compare(x, zero, "gt"), x, negative);
}

LogicalResult convertElu(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  float alpha = ctx.attrFloat("alpha", 1.0f);
  if (failed(requireFinite(ctx, "alpha", alpha)))
    return failure();
  OpChain b{ctx};
  return b.finish(elu(b, *x, alpha));
}

LogicalResult convertSelu(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  float alpha = ctx.attrFloat("alpha", 1.67326319217681884765625f);
  float gamma = ctx.attrFloat("gamma", 1.05070102214813232421875f);
  if (failed(requireFinite(ctx, "alpha", alpha)) ||
      failed(requireFinite(ctx, "gamma", gamma)))
    return failure();
  OpChain b{ctx};
  return b.finish(b.binary<MulOp>(elu(b, *x, alpha), b.scalar(gamma)));
}

/// Celu (opset 12): max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
LogicalResult convertCelu(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  float alpha = ctx.attrFloat("alpha", 1.0f);
  if (failed(requireFinite(ctx, "alpha", alpha)))
    return failure();
  if (alpha == 0.0f)
    return ctx.unsupported("attribute 'alpha' = 0");
  OpChain b{ctx};
  Value zero = b.scalar(0.0);
  Value scaled = b.binary<DivOp>(*x, b.scalar(alpha));
  Value negative = b.binary<MulOp>(
      b.binary<SubOp>(b.unary<ExpOp>(scaled), b.scalar(1.0)),
      b.scalar(alpha));
  return b.finish(b.binary<AddOp>(b.binary<MaximumOp>(*x, zero),
                                  b.binary<MinimumOp>(negative, zero)));
}

/// log(exp(x) + 1), computed as max(x, 0) + log(1 + exp(-|x|)) so that
/// large inputs do not overflow.
Value softplus(OpChain &b, Value x) {
  Value decay = b.unary<ExpOp>(b.unary<NegOp>(b.unary<AbsOp>(x)));
  Value tail = b.unary<LogOp>(b.binary<AddOp>(decay, b.scalar(1.0)));
  return b.binary<AddOp>(b.binary<MaximumOp>(x, b.scalar(0.0)), tail);
}

LogicalResult convertSoftplus(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  OpChain b{ctx};
  return b.finish(softplus(b, *x));
}

/// Mish (opset 18): x * tanh(softplus(x)).
LogicalResult convertMish(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  OpChain b{ctx};
  return b.finish(b.binary<MulOp>(*x, b.unary<TanhOp>(softplus(b, *x))));
}

/// Gelu (opset 20): graph.gelu, exact ("none") or the tanh approximation.
LogicalResult convertGelu(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  if (!elementOf(*x).isF32())
    return ctx.unsupported("input element type " + typeName(elementOf(*x)));
  std::string approximate = ctx.attrString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.invalid("attribute 'approximate' = \"" + approximate +
                       "\" (ONNX allows \"none\" and \"tanh\")");
  ctx.setOutput(0,
                ctx.builder().create<GeluOp>(
                    ctx.loc(), *x, ctx.builder().getStringAttr(approximate)));
  return success();
}

/// x / (1 + |x|).
LogicalResult convertSoftsign(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  OpChain b{ctx};
  return b.finish(b.binary<DivOp>(
      *x, b.binary<AddOp>(b.unary<AbsOp>(*x), b.scalar(1.0))));
}

/// x > alpha ? x : 0 (opset 10; earlier versions were experimental).
LogicalResult convertThresholdedRelu(ImportContext &ctx) {
  if (ctx.opset() < 10)
    return ctx.unsupported("op version (ThresholdedRelu is in opset 10 on)");
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  float alpha = ctx.attrFloat("alpha", 1.0f);
  if (std::isnan(alpha))
    return ctx.unsupported("attribute 'alpha' = nan");
  OpChain b{ctx};
  return b.finish(
      b.select(b.compare(*x, b.scalar(alpha), "gt"), *x, b.scalar(0.0)));
}

/// x < 0 ? slope * x : x. From opset 7 on `slope` broadcasts to x
/// unidirectionally (NumPy alignment). Opset 6 states no broadcasting rule;
/// PyTorch's exports of that opset give a [C] slope for an [N, C, ...]
/// input, the slope of each channel (dim 1), or a one-element slope shared
/// by all. A 1-D slope whose size is dim 1 is aligned with dim 1 there;
/// other slopes broadcast like NumPy.
LogicalResult convertPRelu(ImportContext &ctx) {
  FailureOr<Value> x = floatInput(ctx, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> slope = floatInput(ctx, 1);
  if (failed(slope))
    return failure();
  ArrayRef<int64_t> xShape = typeOf(*x).getShape();
  ArrayRef<int64_t> sShape = typeOf(*slope).getShape();
  if (ctx.opset() < 7 && sShape.size() == 1 && xShape.size() >= 2 &&
      sShape[0] != 1 && sShape[0] == xShape[1] &&
      !ShapedType::isDynamic(sShape[0])) {
    SmallVector<int64_t> channel(xShape.size() - 1, 1);
    channel[0] = sShape[0];
    FailureOr<Value> reshaped = ctx.reshape(*slope, channel);
    if (failed(reshaped))
      return failure();
    slope = reshaped;
    sShape = typeOf(*slope).getShape();
  }
  // Unidirectional: every slope dim is 1 or the matching dim of x.
  bool fits = sShape.size() <= xShape.size();
  for (size_t i = 0; fits && i < sShape.size(); ++i) {
    int64_t s = sShape[sShape.size() - 1 - i];
    int64_t d = xShape[xShape.size() - 1 - i];
    fits = s == 1 || (!ShapedType::isDynamic(s) &&
                      (s == d || ShapedType::isDynamic(d)));
  }
  if (!fits)
    return ctx.unsupported("'slope' shape " + formatInts(sShape) +
                           " not broadcastable to input shape " +
                           formatInts(xShape));
  OpChain b{ctx};
  Value negative = b.compare(*x, b.scalar(0.0), "lt");
  return b.finish(b.select(negative, b.binary<MulOp>(*x, *slope), *x));
}

/// Tile: repeats[d] copies of x along each dim d, concatenated.
LogicalResult convertTile(ImportContext &ctx) {
  if (!ctx.hasInput(1))
    return ctx.unsupported("missing 'repeats' input");
  FailureOr<std::vector<int64_t>> repeats =
      constantIntsInput(ctx, 1, "repeats");
  if (failed(repeats))
    return failure();
  mlir::RankedTensorType inType = ctx.inputType(0);
  if (!inType)
    return ctx.unsupported("input of unknown shape");
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(repeats->size()) != rank)
    return ctx.unsupported("'repeats' = " + formatInts(*repeats) +
                           " for an input of rank " + std::to_string(rank));
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return ctx.unsupported("'repeats' = " + formatInts(*repeats) +
                           " (negative)");
  if (llvm::any_of(*repeats, [](int64_t r) { return r == 0; }))
    return ctx.unsupported("'repeats' = " + formatInts(*repeats) +
                           " (empty result)");

  // Bounded before anything is built: repeats of 2^20 x 2^20 made a concat
  // of a million operands before the size check refused it (seconds, and
  // far longer under the sanitizers: found by fuzz/onnx_import).
  constexpr int64_t kMaxRepeats = 4096;
  std::optional<int64_t> resultCount;
  if (llvm::all_of(*repeats, [&](int64_t r) { return r <= kMaxRepeats; })) {
    std::vector<int64_t> resultDims;
    for (int64_t d = 0; d < rank; ++d) // static dims of a verified type: no overflow
      resultDims.push_back(
          (inType.isDynamicDim(d) ? 1 : inType.getDimSize(d)) * (*repeats)[d]);
    resultCount = checkedProductOf(resultDims);
  }
  if (!resultCount || *resultCount > kMaxMaterializedElements)
    return ctx.unsupported("'repeats' = " + formatInts(*repeats) + " (more than " +
                           std::to_string(kMaxRepeats) +
                           " copies along a dimension, or a result of more than " +
                           std::to_string(kMaxMaterializedElements) + " elements)");

  // Small known inputs (shape computations) fold.
  if (const HostTensor *c = ctx.partialConstantInput(0);
      c && *resultCount <= kMaxFoldedElements) {
    HostTensor current = *c;
    for (int64_t d = 0; d < rank; ++d) {
      if ((*repeats)[d] == 1)
        continue;
      SmallVector<const HostTensor *> copies((*repeats)[d], &current);
      std::optional<HostTensor> next = foldConcat(copies, d);
      if (!next)
        return ctx.unsupported("Tile of a known input");
      current = std::move(*next);
    }
    ctx.setConstantOutput(0, std::move(current));
    return success();
  }

  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Value current = *x;
  OpBuilder &b = ctx.builder();
  for (int64_t d = 0; d < rank; ++d) {
    if ((*repeats)[d] == 1)
      continue;
    SmallVector<Value> copies((*repeats)[d], current);
    FailureOr<Value> next =
        ctx.create<ConcatOp>(ValueRange(copies), b.getI64IntegerAttr(d));
    if (failed(next))
      return failure();
    current = *next;
  }
  ctx.setOutput(0, current);
  return success();
}

/// (x - mean) / sqrt(var + epsilon), mean and (biased) variance over `axes`.
Value standardize(OpChain &b, Value x, ArrayRef<int64_t> axes, float epsilon) {
  if (b.failed)
    return {};
  ImportContext &ctx = b.ctx;
  OpBuilder &ob = ctx.builder();
  ArrayAttr axesAttr = ob.getI64ArrayAttr(axes);
  BoolAttr keep = ob.getBoolAttr(true);
  Value mean = b.check(ctx.create<ReduceMeanOp>(x, axesAttr, keep));
  Value centered = b.binary<SubOp>(x, mean);
  Value squared = b.binary<MulOp>(centered, centered);
  Value variance =
      b.failed ? Value()
               : b.check(ctx.create<ReduceMeanOp>(squared, axesAttr, keep));
  Value inverse =
      b.failed ? Value()
               : b.unary<RsqrtOp>(b.binary<AddOp>(variance, b.scalar(epsilon)));
  return b.binary<MulOp>(centered, inverse);
}

LogicalResult setResultValue(ImportContext &ctx, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value);
  return success();
}

/// The float inputs x, scale and B and the attribute epsilon of
/// InstanceNormalization and GroupNormalization.
struct NormInputs {
  Value x, scale, bias;
  float epsilon;
};
FailureOr<NormInputs> normInputs(ImportContext &ctx) {
  NormInputs in;
  Value *slots[] = {&in.x, &in.scale, &in.bias};
  for (int i = 0; i < 3; ++i) {
    FailureOr<Value> value = floatInput(ctx, i);
    if (failed(value))
      return failure();
    *slots[i] = *value;
  }
  in.epsilon = ctx.attrFloat("epsilon", 1e-5f);
  if (!std::isfinite(in.epsilon) || in.epsilon < 0)
    return ctx.unsupported("attribute 'epsilon' = " +
                           std::to_string(in.epsilon));
  return in;
}

/// Per (n, c): (x - mean) / sqrt(var + epsilon) * scale[c] + B[c], mean and
/// (biased) variance over the spatial dims [2, rank).
LogicalResult convertInstanceNormalization(ImportContext &ctx) {
  FailureOr<NormInputs> in = normInputs(ctx);
  if (failed(in))
    return failure();
  Value x = in->x, scale = in->scale, bias = in->bias;
  float epsilon = in->epsilon;
  RankedTensorType xType = typeOf(x);
  int64_t rank = xType.getRank();
  if (rank < 3)
    return ctx.unsupported("input of rank " + std::to_string(rank) +
                           " (expected [N, C, D1, ...])");
  int64_t channels = xType.getDimSize(1);
  for (Value v : {scale, bias}) {
    RankedTensorType t = typeOf(v);
    if (t.getRank() != 1 ||
        (!ShapedType::isDynamic(channels) && !t.isDynamicDim(0) &&
         t.getDimSize(0) != channels))
      return ctx.unsupported("'scale'/'B' shape " + formatInts(t.getShape()) +
                             " for input shape " +
                             formatInts(xType.getShape()));
  }
  // [C] -> [C, 1, ...]: broadcasts along dim 1 of x.
  SmallVector<int64_t> perChannel(rank - 1, 1);
  perChannel[0] = ShapedType::isDynamic(channels) ? ShapedType::kDynamic
                                                  : channels;
  FailureOr<Value> scaleC = ctx.reshape(scale, perChannel);
  FailureOr<Value> biasC = ctx.reshape(bias, perChannel);
  if (failed(scaleC) || failed(biasC))
    return failure();

  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  OpChain b{ctx};
  Value normalized = standardize(b, x, axes, epsilon);
  return b.finish(
      b.binary<AddOp>(b.binary<MulOp>(normalized, *scaleC), *biasC));
}

/// GroupNormalization (opset 18; 21 changed scale and B from one value per
/// group to one per channel): x [N, C, D...] seen as [N, G, C / G * D...],
/// standardized over the last axis, then scaled and shifted.
LogicalResult convertGroupNormalization(ImportContext &ctx) {
  FailureOr<NormInputs> in = normInputs(ctx);
  if (failed(in))
    return failure();
  Value x = in->x, scale = in->scale, bias = in->bias;
  float epsilon = in->epsilon;
  if (!ctx.hasAttr("num_groups"))
    return ctx.invalid("missing attribute 'num_groups'");
  int64_t groups = ctx.attrInt("num_groups", 0);
  RankedTensorType xType = typeOf(x);
  int64_t rank = xType.getRank();
  if (rank < 3)
    return ctx.unsupported("input of rank " + std::to_string(rank) +
                           " (expected [N, C, D1, ...])");
  ArrayRef<int64_t> shape = xType.getShape();
  if (llvm::any_of(shape.drop_front(), ShapedType::isDynamic))
    return ctx.unsupported("input shape " + formatInts(shape) +
                           " (channels and spatial sizes must be static)");
  int64_t channels = shape[1];
  if (groups < 1 || channels % groups != 0)
    return ctx.invalid("attribute 'num_groups' = " + std::to_string(groups) +
                       " for " + std::to_string(channels) + " channels");
  // Opset 18: a value per group; from 21: per channel.
  int64_t perParam = ctx.opset() < 21 ? groups : channels;
  for (Value v : {scale, bias}) {
    RankedTensorType t = typeOf(v);
    if (t.getRank() != 1 || t.getDimSize(0) != perParam)
      return ctx.invalid("'scale'/'bias' shape " + formatInts(t.getShape()) +
                         " (expected [" + std::to_string(perParam) +
                         "] at opset " + std::to_string(ctx.opset()) + ")");
  }
  int64_t perGroup = productOf(shape.drop_front()) / groups;
  FailureOr<Value> grouped = ctx.reshape(x, {shape[0], groups, perGroup});
  if (failed(grouped))
    return failure();
  OpChain b{ctx};
  Value normalized = standardize(b, *grouped, {2}, epsilon);
  if (b.failed)
    return failure();
  SmallVector<int64_t> paramShape = ctx.opset() < 21
                                        ? SmallVector<int64_t>{groups, 1}
                                        : SmallVector<int64_t>(rank - 1, 1);
  if (ctx.opset() >= 21)
    paramShape[0] = channels;
  FailureOr<Value> scaleB = ctx.reshape(scale, paramShape);
  FailureOr<Value> biasB = ctx.reshape(bias, paramShape);
  if (failed(scaleB) || failed(biasB))
    return failure();
  if (ctx.opset() < 21) {
    normalized = b.binary<AddOp>(b.binary<MulOp>(normalized, *scaleB), *biasB);
    if (b.failed)
      return failure();
    return setResultValue(ctx, ctx.reshape(normalized, shape));
  }
  FailureOr<Value> restored = ctx.reshape(normalized, shape);
  if (failed(restored))
    return failure();
  return b.finish(b.binary<AddOp>(b.binary<MulOp>(*restored, *scaleB), *biasB));
}

} // namespace

void registerActivationConverters(ConverterTable &table) {
  table["Elu"] = convertElu;
  table["Selu"] = convertSelu;
  table["Celu"] = convertCelu;
  table["Softplus"] = convertSoftplus;
  table["Mish"] = convertMish;
  table["Gelu"] = convertGelu;
  table["Softsign"] = convertSoftsign;
  table["ThresholdedRelu"] = convertThresholdedRelu;
  table["PRelu"] = convertPRelu;
  table["Tile"] = convertTile;
  table["InstanceNormalization"] = convertInstanceNormalization;
  table["GroupNormalization"] = convertGroupNormalization;
}

} // namespace tfcc::onnx_import
