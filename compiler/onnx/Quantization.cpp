//===- Quantization.cpp - ONNX QuantizeLinear, DequantizeLinear, ... ------===//
//
// QuantizeLinear and DequantizeLinear become graph.quantize and
// graph.dequantize (docs/quantization.md); DynamicQuantizeLinear is composed
// of reductions and graph.quantize; MatMulInteger is an i32 graph.matmul of
// the widened operands minus their zero points, and QLinearMatMul that
// product scaled in f32 and quantized. A scale and zero point of one element
// are per tensor (ONNX's reference treats [1] as a scalar); a constant scale
// must be positive and finite, and a per-axis scale must have one entry per
// index of the axis: a model breaking either is refused, naming the node.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ImportContext.h"

#include "dialects/graph/IR/ShapeInference.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::graph;
using namespace tfcc::onnx_import;

namespace {

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string numberString(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// The scale and zero point of a Q/DQ node, checked and shaped for the
/// graph op: both scalars, or both 1-D with one entry per index of `axis`.
struct Parameters {
  Value scale, zeroPoint;
  int64_t axis = 1;
};

/// A host tensor of one element as a scalar.
HostTensor asScalar(HostTensor tensor) {
  tensor.shape.clear();
  return tensor;
}

/// Input `i`, a scale or zero point, as a graph value; one element becomes
/// a scalar.
FailureOr<Value> parameterInput(ImportContext &ctx, int i) {
  if (const HostTensor *c = ctx.constantInput(i))
    return ctx.constant(c->numElements() == 1 ? asScalar(*c) : *c);
  FailureOr<Value> value = ctx.input(i);
  if (failed(value))
    return failure();
  auto type = cast<RankedTensorType>(value->getType());
  if (type.getRank() == 1 && type.getDimSize(0) == 1)
    return ctx.reshape(*value, {});
  return value;
}

/// Reads and checks input 1 (scale) and input 2 (zero point, or zeros of
/// `quantized` when absent) of a node whose data input `x` has `xType`.
FailureOr<Parameters> parameters(ImportContext &ctx, RankedTensorType xType,
                                 Type quantized) {
  Parameters p;
  // Opset 21: scales per block of `block_size` elements along the axis.
  if (int64_t block = ctx.attrInt("block_size", 0); block != 0)
    return ctx.unsupported("attribute 'block_size' = " + llvm::Twine(block) +
                           " (blocked quantization; tfcc quantizes per "
                           "tensor or per axis)");
  RankedTensorType scaleType = ctx.inputType(1);
  if (!scaleType)
    return ctx.unsupported("scale of unknown type");
  if (!scaleType.getElementType().isF32())
    return ctx.unsupported("scale of type " +
                           typeString(scaleType.getElementType()) +
                           " (tfcc supports float)");
  if (const HostTensor *scale = ctx.constantInput(1))
    for (double s : scale->floats)
      if (!(s > 0.0) || std::isinf(s))
        return ctx.invalid("scale " + numberString(s) +
                           " (ONNX requires a positive scale)");
  int64_t count = scaleType.hasStaticShape() ? scaleType.getNumElements() : -1;
  if (scaleType.getRank() > 1 || (scaleType.getRank() == 1 && count != 1 &&
                                  ctx.opset() < 13))
    return ctx.invalid("scale of shape " + typeString(scaleType) +
                       " (a scalar, or 1-D per axis from opset 13)");
  p.axis = ctx.attrInt("axis", 1);
  bool perAxis = scaleType.getRank() == 1 && count != 1;
  if (perAxis) {
    std::optional<int64_t> axis = normalizeAxis(p.axis, xType.getRank());
    if (!axis)
      return ctx.invalid("attribute 'axis' = " + std::to_string(p.axis) +
                         " for an input of rank " +
                         std::to_string(xType.getRank()));
    int64_t dim = xType.getDimSize(*axis);
    if (count >= 0 && dim != ShapedType::kDynamic && count != dim)
      return ctx.invalid("per-axis scale of " + std::to_string(count) +
                         " entries for dimension " + std::to_string(*axis) +
                         " of size " + std::to_string(dim) + " (axis " +
                         std::to_string(p.axis) + ")");
    p.axis = *axis;
  }
  FailureOr<Value> scale = parameterInput(ctx, 1);
  if (failed(scale))
    return failure();
  p.scale = *scale;
  if (ctx.hasInput(2)) {
    RankedTensorType zeroPointType = ctx.inputType(2);
    if (!zeroPointType || zeroPointType.getElementType() != quantized)
      return ctx.invalid("zero point of type " +
                         (zeroPointType ? typeString(zeroPointType)
                                        : std::string("unknown")) +
                         " (must be " + typeString(quantized) + ")");
    FailureOr<Value> zeroPoint = parameterInput(ctx, 2);
    if (failed(zeroPoint))
      return failure();
    p.zeroPoint = *zeroPoint;
  } else {
    auto shape = cast<RankedTensorType>(p.scale.getType()).getShape();
    p.zeroPoint = ctx.constant(HostTensor::zeros(quantized, shape));
  }
  if (cast<RankedTensorType>(p.scale.getType()).getShape() !=
      cast<RankedTensorType>(p.zeroPoint.getType()).getShape())
    return ctx.invalid("scale " + typeString(p.scale.getType()) +
                       " and zero point " + typeString(p.zeroPoint.getType()) +
                       " of different shapes");
  return p;
}

/// Builds graph op OpTy with result type `resultType` and checks it with the
/// dialect's inference (which reports at the node).
template <typename OpTy>
FailureOr<Value> build(ImportContext &ctx, RankedTensorType resultType,
                       Value x, const Parameters &p) {
  auto op = ctx.builder().create<OpTy>(
      ctx.loc(), resultType, x, p.scale, p.zeroPoint,
      ctx.builder().getI64IntegerAttr(p.axis));
  if (failed(inferResultType(op))) {
    op->erase();
    return failure();
  }
  return op.getResult();
}

LogicalResult convertQuantizeLinear(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type xElement = elementOf(*x);
  if (xElement.isSignlessInteger(32))
    x = ctx.cast(*x, ctx.builder().getF32Type());
  else if (!xElement.isF32())
    return ctx.unsupported("input of type " + typeString(xElement) +
                           " (tfcc supports float and int32)");
  // The zero point's type is the output's; else `output_dtype` (opset 21);
  // else uint8.
  Type quantized = IntegerType::get(ctx.context(), 8, IntegerType::Unsigned);
  if (int64_t dtype = ctx.attrInt("output_dtype", 0); dtype != 0) {
    quantized = elementTypeOf(ctx.context(), static_cast<int32_t>(dtype));
    if (!quantized || !quantized.isInteger(8))
      return ctx.unsupported(
          "attribute 'output_dtype' = " + llvm::Twine(dtype) +
          " (tfcc supports INT8 and UINT8)");
  }
  if (ctx.hasInput(2))
    if (RankedTensorType zeroPointType = ctx.inputType(2)) {
      if (ctx.hasAttr("output_dtype") &&
          zeroPointType.getElementType() != quantized)
        return ctx.invalid("zero point of type " + typeString(zeroPointType) +
                           " with attribute 'output_dtype' = " +
                           llvm::Twine(ctx.attrInt("output_dtype", 0)) +
                           " (they must agree)");
      quantized = zeroPointType.getElementType();
    }
  if (!quantized.isInteger(8))
    return ctx.unsupported("zero point of type " + typeString(quantized) +
                           " (tfcc supports int8 and uint8)");
  auto xType = cast<RankedTensorType>(x->getType());
  FailureOr<Parameters> p = parameters(ctx, xType, quantized);
  if (failed(p))
    return failure();
  FailureOr<Value> y = build<QuantizeOp>(
      ctx, RankedTensorType::get(xType.getShape(), quantized), *x, *p);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertDequantizeLinear(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Type quantized = elementOf(*x);
  if (!quantized.isInteger(8) && !quantized.isSignlessInteger(32))
    return ctx.unsupported("input of type " + typeString(quantized) +
                           " (tfcc supports int8, uint8 and int32)");
  auto xType = cast<RankedTensorType>(x->getType());
  FailureOr<Parameters> p = parameters(ctx, xType, quantized);
  if (failed(p))
    return failure();
  FailureOr<Value> y = build<DequantizeOp>(
      ctx, RankedTensorType::get(xType.getShape(), ctx.builder().getF32Type()),
      *x, *p);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// y_scale = (max(0, max(x)) - min(0, min(x))) / 255, y_zero_point =
/// saturate(round(-min(0, min(x)) / y_scale)), y = saturate(round(x /
/// y_scale) + y_zero_point), all uint8: ONNX's formula, with the zero point
/// computed by graph.quantize itself.
LogicalResult convertDynamicQuantizeLinear(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (!elementOf(*x).isF32())
    return ctx.unsupported("input of type " + typeString(elementOf(*x)) +
                           " (tfcc supports float)");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  auto xType = cast<RankedTensorType>(x->getType());
  Type f32 = b.getF32Type();
  Type u8 = IntegerType::get(ctx.context(), 8, IntegerType::Unsigned);
  auto scalarF32 = RankedTensorType::get({}, f32);
  auto constantF32 = [&](float value) {
    return b.create<ConstantOp>(
        loc, scalarF32, DenseElementsAttr::get(scalarF32, value));
  };
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, xType.getRank()));
  ArrayAttr axes = b.getI64ArrayAttr(all);
  BoolAttr keep = b.getBoolAttr(false);
  Value low = *x, high = *x;
  if (xType.getRank() > 0) {
    FailureOr<Value> min = ctx.create<ReduceMinOp>(*x, axes, keep);
    FailureOr<Value> max = ctx.create<ReduceMaxOp>(*x, axes, keep);
    if (failed(min) || failed(max))
      return failure();
    low = *min;
    high = *max;
  }
  Value zero = constantF32(0.0f);
  FailureOr<Value> lowest = ctx.create<MinimumOp>(low, zero);
  FailureOr<Value> highest = ctx.create<MaximumOp>(high, zero);
  if (failed(lowest) || failed(highest))
    return failure();
  FailureOr<Value> range = ctx.create<SubOp>(*highest, *lowest);
  if (failed(range))
    return failure();
  FailureOr<Value> scale = ctx.create<DivOp>(*range, constantF32(255.0f));
  if (failed(scale))
    return failure();
  Parameters toZeroPoint{*scale,
                         ctx.constant(HostTensor::zeros(u8, {})), 1};
  Value negatedLow = b.create<NegOp>(loc, *lowest);
  FailureOr<Value> zeroPoint = build<QuantizeOp>(
      ctx, RankedTensorType::get({}, u8), negatedLow, toZeroPoint);
  if (failed(zeroPoint))
    return failure();
  FailureOr<Value> y =
      build<QuantizeOp>(ctx, RankedTensorType::get(xType.getShape(), u8), *x,
                        Parameters{*scale, *zeroPoint, 1});
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  if (ctx.hasOutput(1))
    ctx.setOutput(1, *scale);
  if (ctx.hasOutput(2))
    ctx.setOutput(2, *zeroPoint);
  return success();
}

/// Input `data` (int8 or uint8, of a rank `checkRank` accepts) widened to
/// `wideType` minus its zero point `zeroPointInput` (absent: 0): a scalar, or
/// 1-D along dimension `zeroPointAxis` of the data (nullopt: scalars only),
/// reshaped to [C, 1, ..., 1] to broadcast along it.
FailureOr<Value> widenedMinusZeroPoint(
    ImportContext &ctx, int data, int zeroPointInput, Type wideType,
    std::optional<int64_t> zeroPointAxis,
    llvm::function_ref<LogicalResult(int, RankedTensorType)> checkRank) {
  FailureOr<Value> x = ctx.input(data);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (!type.getElementType().isInteger(8))
    return ctx.unsupported("input " + std::to_string(data) + " of type " +
                           typeString(type.getElementType()) +
                           " (tfcc supports int8 and uint8)");
  if (failed(checkRank(data, type)))
    return failure();
  Value wide = ctx.cast(*x, wideType);
  if (!ctx.hasInput(zeroPointInput))
    return wide;
  RankedTensorType zeroPointType = ctx.inputType(zeroPointInput);
  if (!zeroPointType ||
      zeroPointType.getElementType() != type.getElementType())
    return ctx.invalid("zero point of type " +
                       (zeroPointType ? typeString(zeroPointType)
                                      : std::string("unknown")) +
                       " (must be " + typeString(type.getElementType()) + ")");
  FailureOr<Value> zeroPoint = parameterInput(ctx, zeroPointInput);
  if (failed(zeroPoint))
    return failure();
  Value zeroPointWide = ctx.cast(*zeroPoint, wideType);
  auto zpShape = cast<RankedTensorType>(zeroPointWide.getType()).getShape();
  if (zpShape.size() > 1 || (zpShape.size() == 1 && !zeroPointAxis))
    return ctx.unsupported("zero point of shape " +
                           typeString(zeroPoint->getType()));
  if (zpShape.size() == 1) {
    SmallVector<int64_t> shape(type.getRank() - *zeroPointAxis, 1);
    shape[0] = zpShape[0];
    FailureOr<Value> aligned = ctx.reshape(zeroPointWide, shape);
    if (failed(aligned))
      return failure();
    zeroPointWide = *aligned;
  }
  return ctx.create<SubOp>(wide, zeroPointWide);
}

/// (A - a_zero_point) @ (B - b_zero_point) in i32.
FailureOr<Value> integerProduct(ImportContext &ctx, int a, int aZeroPoint,
                                int b, int bZeroPoint) {
  auto atLeast2D = [&](int data, RankedTensorType type) -> LogicalResult {
    if (type.getRank() >= 2)
      return success();
    return ctx.unsupported("input " + std::to_string(data) +
                           " of rank below 2");
  };
  Type i32 = ctx.builder().getI32Type();
  auto aType = ctx.inputType(a), bType = ctx.inputType(b);
  // A 1-D zero point of A is per row, of B per column.
  FailureOr<Value> lhs = widenedMinusZeroPoint(
      ctx, a, aZeroPoint, i32,
      aType ? std::optional<int64_t>(aType.getRank() - 2) : std::nullopt,
      atLeast2D);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = widenedMinusZeroPoint(
      ctx, b, bZeroPoint, i32,
      bType ? std::optional<int64_t>(bType.getRank() - 1) : std::nullopt,
      atLeast2D);
  if (failed(rhs))
    return failure();
  return ctx.create<MatmulOp>(*lhs, *rhs, false, false);
}

/// Output 0 of QLinearMatMul / QLinearConv: the int32 `acc` in f32 times
/// input 1 (the data's scale) times input 4 (the weight's, per tensor or per
/// channel: the last axis of `acc`, or `channelAxis`), quantized with input 6
/// (y_scale, per tensor) and input 7 (y_zero_point).
LogicalResult setRequantizedOutput(ImportContext &ctx, Value acc,
                                   int64_t channelAxis) {
  FailureOr<Value> dataScale = parameterInput(ctx, 1);
  FailureOr<Value> weightScale =
      succeeded(dataScale) ? parameterInput(ctx, 4) : dataScale;
  if (failed(weightScale))
    return failure();
  for (Value scale : {*dataScale, *weightScale})
    if (!elementOf(scale).isF32())
      return ctx.unsupported("scale of type " + typeString(elementOf(scale)));
  FailureOr<Value> scale = ctx.create<MulOp>(*dataScale, *weightScale);
  if (failed(scale))
    return failure();
  int64_t rank = cast<RankedTensorType>(acc.getType()).getRank();
  auto scaleType = cast<RankedTensorType>(scale->getType());
  if (scaleType.getRank() == 1 && channelAxis >= 0) {
    // [C] -> [C, 1, ..., 1] against the axis.
    SmallVector<int64_t> shape(rank - channelAxis, 1);
    shape[0] = scaleType.getDimSize(0);
    scale = ctx.reshape(*scale, shape);
    if (failed(scale))
      return failure();
  }
  Value real = ctx.cast(acc, ctx.builder().getF32Type());
  FailureOr<Value> scaled = ctx.create<MulOp>(real, *scale);
  if (failed(scaled))
    return failure();
  RankedTensorType yZeroPointType = ctx.inputType(7);
  if (!yZeroPointType || !yZeroPointType.getElementType().isInteger(8))
    return ctx.unsupported("output zero point of type " +
                           (yZeroPointType ? typeString(yZeroPointType)
                                           : std::string("unknown")));
  FailureOr<Value> yScale = parameterInput(ctx, 6);
  FailureOr<Value> yZeroPoint =
      succeeded(yScale) ? parameterInput(ctx, 7) : yScale;
  if (failed(yZeroPoint))
    return failure();
  if (cast<RankedTensorType>(yScale->getType()).getRank() != 0)
    return ctx.unsupported("per-axis output scale");
  FailureOr<Value> y = build<QuantizeOp>(
      ctx,
      RankedTensorType::get(cast<RankedTensorType>(scaled->getType()).getShape(),
                            yZeroPointType.getElementType()),
      *scaled, Parameters{*yScale, *yZeroPoint, 1});
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

LogicalResult convertMatMulInteger(ImportContext &ctx) {
  FailureOr<Value> y = integerProduct(ctx, 0, 2, 1, 3);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// quantize(f32(A - a_zp) @ (B - b_zp)) * (a_scale * b_scale), y_scale,
/// y_zp): the exact int32 product, scaled and requantized in f32.
LogicalResult convertQLinearMatMul(ImportContext &ctx) {
  FailureOr<Value> product = integerProduct(ctx, 0, 2, 3, 5);
  if (failed(product))
    return failure();
  return setRequantizedOutput(ctx, *product, /*channelAxis=*/-1);
}

/// The i32 convolution (X - x_zero_point) * (W - w_zero_point) of inputs 0
/// and `weightInput` with zero points `xZeroPoint` and `wZeroPoint` (absent: 0; the
/// weight's per output channel [O]), computed in f64 (every partial sum of
/// 8-bit products is an integer below 2^53, so exactly) and cast to i32.
FailureOr<Value> integerConvolution(ImportContext &ctx, int xZeroPoint,
                                    int weightInput, int wZeroPoint) {
  auto convolutionRank = [&](int data, RankedTensorType type) -> LogicalResult {
    if (type.getRank() == 3 || type.getRank() == 4)
      return success();
    return ctx.unsupported("input " + std::to_string(data) + " of rank " +
                           std::to_string(type.getRank()) +
                           " (1-D and 2-D convolutions are supported)");
  };
  Type f64 = ctx.builder().getF64Type();
  FailureOr<Value> x = widenedMinusZeroPoint(ctx, 0, xZeroPoint, f64,
                                             std::nullopt, convolutionRank);
  if (failed(x))
    return failure();
  // The weight's zero point is per output channel (OIHW's O).
  FailureOr<Value> w = widenedMinusZeroPoint(ctx, weightInput, wZeroPoint,
                                             f64, 0, convolutionRank);
  if (failed(w))
    return failure();
  FailureOr<Value> y = convolveNCHW(ctx, *x, *w, nullptr, Value());
  if (failed(y))
    return failure();
  return ctx.cast(*y, ctx.builder().getI32Type());
}

LogicalResult convertConvInteger(ImportContext &ctx) {
  FailureOr<Value> y = integerConvolution(ctx, 2, 1, 3);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

/// quantize(f32(conv + bias) * x_scale * w_scale[o], y_scale, y_zero_point):
/// inputs x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias (int32, of
/// scale x_scale * w_scale).
LogicalResult convertQLinearConv(ImportContext &ctx) {
  FailureOr<Value> acc = integerConvolution(ctx, 2, 3, 5);
  if (failed(acc))
    return failure();
  if (ctx.hasInput(8)) {
    FailureOr<Value> bias = ctx.input(8);
    if (failed(bias))
      return failure();
    if (!elementOf(*bias).isSignlessInteger(32))
      return ctx.invalid("bias of type " + typeString(elementOf(*bias)) +
                         " (must be int32)");
    auto accRank = cast<RankedTensorType>(acc->getType()).getRank();
    SmallVector<int64_t> shape(accRank - 1, 1);
    shape[0] = cast<RankedTensorType>(bias->getType()).getDimSize(0);
    FailureOr<Value> aligned = ctx.reshape(*bias, shape);
    if (failed(aligned))
      return failure();
    acc = ctx.create<AddOp>(*acc, *aligned);
    if (failed(acc))
      return failure();
  }
  return setRequantizedOutput(ctx, *acc, /*channelAxis=*/1);
}

} // namespace

void tfcc::onnx_import::registerQuantizationConverters(ConverterTable &table) {
  table["ConvInteger"] = convertConvInteger;
  table["QLinearConv"] = convertQLinearConv;
  table["MatMulInteger"] = convertMatMulInteger;
  table["QLinearMatMul"] = convertQLinearMatMul;
  table["QuantizeLinear"] = convertQuantizeLinear;
  table["DequantizeLinear"] = convertDequantizeLinear;
  table["DynamicQuantizeLinear"] = convertDynamicQuantizeLinear;
}
