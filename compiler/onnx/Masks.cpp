//===- Masks.cpp - ONNX ops that select by position: Trilu, Hardmax, ... --===//
//
// Ops whose result is decided by an element's position, composed from a
// comparison with an index ramp (an "iota" constant along one axis) or a
// constant mask, and graph.select: Trilu (a triangular mask over the last two
// dims), Hardmax (argmax compared with the ramp), OneHot (indices compared
// with the ramp) and EyeLike (a constant); TopK (graph.top_k_indices, then
// the values picked with graph.gather_elements); and CumSum (a product with a
// constant triangular mask).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// 0, 1, ..., size - 1 of integer type `type` along `axis` of a rank-`rank`
/// tensor whose other dimensions are 1 (it broadcasts against the others).
Value rampAlong(ImportContext &ctx, Type type, int64_t size, int64_t axis,
                int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = size;
  HostTensor ramp = HostTensor::zeros(type, shape);
  for (int64_t i = 0; i < size; ++i)
    ramp.ints[i] = i;
  return ctx.constant(ramp);
}

/// The permutation that moves `axis` of a rank-`rank` tensor last (the rest
/// in order), and its inverse, which moves it back: TopK and CumSum work
/// along the last axis.
struct AxisLast {
  SmallVector<int64_t> toLast, back;
  bool moved;
  AxisLast(int64_t axis, int64_t rank) : back(rank), moved(axis != rank - 1) {
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        toLast.push_back(d);
    toLast.push_back(axis);
    for (int64_t d = 0; d < rank; ++d)
      back[toLast[d]] = d;
  }
};

/// A scalar 0 of `type` (false for i1).
Value zeroOf(ImportContext &ctx, Type type) {
  return ctx.constant(makeFilled(type, {}, 0));
}

/// Trilu: x where the position (i, j) of the last two dims has j - i >= k
/// (upper) or j - i <= k (lower), 0 elsewhere.
LogicalResult convertTrilu(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  int64_t rank = type.getRank();
  if (rank < 2)
    return ctx.invalid("input of rank " + llvm::Twine(rank) +
                       " (Trilu takes rank 2 or more)");
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols))
    return ctx.unsupported("dynamic matrix dimensions in " + typeName(type));
  if (rows * cols > kMaxMaterializedElements)
    return ctx.unsupported("mask of " + llvm::Twine(rows) + "x" +
                           llvm::Twine(cols) + " elements");
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    FailureOr<std::vector<int64_t>> kValues = constantIntsInput(ctx, 1, "k");
    if (failed(kValues))
      return failure();
    if (kValues->size() != 1)
      return ctx.invalid("'k' input of " + llvm::Twine(kValues->size()) +
                         " elements (it is a scalar)");
    k = kValues->front();
  }
  bool upper = ctx.attrInt("upper", 1) != 0;
  HostTensor mask = HostTensor::zeros(ctx.builder().getI1Type(), {rows, cols});
  // j - i lies in [-rows, cols]: clamping k there changes no outcome and
  // keeps the comparison free of overflow.
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.ints[i * cols + j] = upper ? j - i >= k : j - i <= k;
  OpChain b{ctx};
  return b.finish(
      b.select(ctx.constant(mask), *x, zeroOf(ctx, type.getElementType())));
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere. Before opset
/// 13 the input is seen as the 2-D [prod(dims before axis), prod(the rest)]
/// (static shapes only).
LogicalResult convertHardmax(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  Type floatType = type.getElementType();
  if (!floatType.isF32() && !floatType.isF64())
    return ctx.unsupported("input element type " + typeName(floatType));
  bool coerced = ctx.opset() < 13;
  int64_t attrAxis = ctx.attrInt("axis", coerced ? 1 : -1);
  std::optional<int64_t> axis = normalizeAxis(attrAxis, type.getRank());
  if (!axis)
    return ctx.invalid("attribute 'axis' = " + llvm::Twine(attrAxis) +
                       " out of range for rank " + llvm::Twine(type.getRank()));
  OpChain b{ctx};
  Value input = *x;
  if (coerced && *axis != type.getRank() - 1) {
    if (!type.hasStaticShape())
      return ctx.unsupported("Hardmax before opset 13 over the dynamic " +
                             typeName(type));
    int64_t outer = productOf(type.getShape().take_front(*axis));
    input = b.reshape(input, {outer, productOf(type.getShape()) /
                                         std::max<int64_t>(outer, 1)});
    axis = 1;
  }
  if (b.failed)
    return failure();
  RankedTensorType inputType = typeOf(input);
  int64_t size = inputType.getDimSize(*axis);
  if (ShapedType::isDynamic(size))
    return ctx.unsupported("dynamic 'axis' dimension in " +
                           typeName(inputType));
  SmallVector<int64_t> kept(inputType.getShape());
  kept[*axis] = 1;
  Value argmax = b.reshape(
      b.op<ArgmaxOp>(input, ctx.builder().getI64IntegerAttr(*axis)), kept);
  Type i32 = ctx.builder().getI32Type();
  Value isMax = b.compare(
      argmax, rampAlong(ctx, i32, size, *axis, inputType.getRank()), "eq");
  if (b.failed)
    return failure();
  Value result = ctx.cast(isMax, floatType);
  if (inputType != type)
    result = b.reshape(result, type.getShape());
  return b.finish(result);
}

/// OneHot: along the new dimension `axis` of size `depth`, values[1] where
/// the (wrapped) index equals the position, values[0] elsewhere; an index
/// outside [-depth, depth) is off everywhere.
LogicalResult convertOneHot(ImportContext &ctx) {
  FailureOr<Value> indices = ctx.input(0);
  if (failed(indices))
    return failure();
  const HostTensor *depthValue = ctx.constantInput(1);
  if (!depthValue)
    return ctx.unsupported("non-constant 'depth' input");
  if (depthValue->numElements() != 1)
    return ctx.invalid("'depth' input of " +
                       llvm::Twine(depthValue->numElements()) +
                       " elements (it is a scalar)");
  double depthNumber = depthValue->isFloat() ? depthValue->floats[0]
                                             : double(depthValue->ints[0]);
  if (!(depthNumber >= 1 && depthNumber <= double(kMaxMaterializedElements)))
    return ctx.unsupported(
        llvm::formatv("'depth' = {0} (it must be in [1, {1}])", depthNumber,
                      kMaxMaterializedElements)
            .str());
  int64_t depth = static_cast<int64_t>(depthNumber);
  FailureOr<Value> values = ctx.input(2);
  if (failed(values))
    return failure();
  RankedTensorType valuesType = typeOf(*values);
  if (valuesType.getRank() != 1 || valuesType.getDimSize(0) != 2)
    return ctx.invalid("'values' input " + typeName(valuesType) +
                       " (it is [off, on])");
  RankedTensorType indicesType = typeOf(*indices);
  int64_t rank = indicesType.getRank() + 1;
  int64_t attrAxis = ctx.attrInt("axis", -1);
  std::optional<int64_t> axis = normalizeAxis(attrAxis, rank);
  if (!axis)
    return ctx.invalid("attribute 'axis' = " + llvm::Twine(attrAxis) +
                       " out of range for rank " + llvm::Twine(rank));

  OpChain b{ctx};
  Type i64 = ctx.builder().getI64Type();
  Type indexType = indicesType.getElementType();
  if (indexType.isSignlessInteger(1))
    return ctx.unsupported("indices of element type i1");
  // Float indices truncate toward zero, as ONNX's reference casts them.
  Value index = indexType == i64 ? *indices : ctx.cast(*indices, i64);
  Value negative = b.compare(index, zeroOf(ctx, i64), "lt");
  Value wrapped =
      b.binary<AddOp>(index, ctx.constant(makeFilled(i64, {}, depth)));
  index = b.select(negative, wrapped, index);
  SmallVector<int64_t> expanded(indicesType.getShape());
  expanded.insert(expanded.begin() + *axis, 1);
  Value on = rampAlong(ctx, i64, depth, *axis, rank);
  Value isOn = b.compare(b.reshape(index, expanded), on, "eq");
  auto pick = [&](int64_t which) {
    return b.op<GatherOp>(
        *values, ctx.constant(makeI64Tensor(ctx.context(), {which}, true)),
        ctx.builder().getI64IntegerAttr(0));
  };
  Value off = pick(0), onValue = pick(1);
  return b.finish(b.select(isOn, onValue, off));
}

/// EyeLike: a constant of the input's (static 2-D) shape with ones where
/// j - i == k, of the input's element type or `dtype`.
LogicalResult convertEyeLike(ImportContext &ctx) {
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.unsupported("input of unknown type");
  if (type.getRank() != 2)
    return ctx.invalid("input of rank " + llvm::Twine(type.getRank()) +
                       " (EyeLike takes rank 2)");
  if (!type.hasStaticShape())
    return ctx.unsupported("dynamic input " + typeName(type));
  Type elementType = type.getElementType();
  if (ctx.hasAttr("dtype")) {
    elementType = elementTypeOf(ctx.context(),
                                static_cast<int32_t>(ctx.attrInt("dtype", 0)));
    if (!elementType)
      return ctx.unsupported("attribute 'dtype' = " +
                             llvm::Twine(ctx.attrInt("dtype", 0)));
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if (rows * cols > kMaxMaterializedElements)
    return ctx.unsupported("identity of " + llvm::Twine(rows) + "x" +
                           llvm::Twine(cols) + " elements");
  int64_t k = ctx.attrInt("k", 0);
  HostTensor eye = makeFilled(elementType, {rows, cols}, 0);
  for (int64_t i = 0; i < rows; ++i)
    if (k > -cols && k < cols && i + k >= 0 && i + k < cols) {
      int64_t at = i * cols + i + k;
      if (eye.isFloat())
        eye.floats[at] = 1.0;
      else
        eye.ints[at] = 1;
    }
  ctx.setConstantOutput(0, std::move(eye));
  return success();
}

/// TopK: graph.top_k_indices along the last axis (`axis` transposed there
/// and back), the values gathered with graph.gather_elements. K is a
/// constant (input 1 from opset 10, attribute `k` before); `sorted` = 0
/// leaves the order to the implementation, and tfcc's is sorted.
LogicalResult convertTopK(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  if (!type.getElementType().isF32())
    return ctx.unsupported("input element type " +
                           typeName(type.getElementType()));
  int64_t rank = type.getRank();
  int64_t attrAxis = ctx.attrInt("axis", -1);
  std::optional<int64_t> axis = normalizeAxis(attrAxis, rank);
  if (!axis)
    return ctx.invalid("attribute 'axis' = " + llvm::Twine(attrAxis) +
                       " out of range for rank " + llvm::Twine(rank));
  int64_t k;
  if (ctx.opset() < 10) {
    k = ctx.attrInt("k", -1);
  } else {
    FailureOr<std::vector<int64_t>> kValues = constantIntsInput(ctx, 1, "K");
    if (failed(kValues))
      return failure();
    if (kValues->size() != 1)
      return ctx.invalid("'K' input of " + llvm::Twine(kValues->size()) +
                         " elements (it is [1])");
    k = kValues->front();
  }
  int64_t size = type.getDimSize(*axis);
  if (ShapedType::isDynamic(size))
    return ctx.unsupported("TopK along the dynamic dimension " +
                           llvm::Twine(*axis) + " of " + typeName(type));
  if (k < 0 || k > size)
    return ctx.invalid("K = " + llvm::Twine(k) + " for dimension " +
                       llvm::Twine(*axis) + " of size " + llvm::Twine(size));
  OpChain b{ctx};
  AxisLast order(*axis, rank);
  Value last = order.moved ? ctx.transpose(*x, order.toLast) : *x;
  OpBuilder &ob = ctx.builder();
  Value indices =
      b.op<TopKIndicesOp>(last, ob.getI64IntegerAttr(k),
                          ob.getBoolAttr(ctx.attrInt("largest", 1) != 0));
  Value values =
      b.op<GatherElementsOp>(last, indices, ob.getI64IntegerAttr(rank - 1));
  if (b.failed)
    return failure();
  if (order.moved) {
    values = ctx.transpose(values, order.back);
    indices = ctx.transpose(indices, order.back);
  }
  ctx.setOutput(0, values);
  if (ctx.hasOutput(1))
    ctx.setOutput(1, indices);
  return success();
}

/// The longest CumSum axis: its [n, n] mask is a constant of n^2 elements.
constexpr int64_t kMaxCumSumLength = 1024;

/// CumSum: x (its `axis` moved last) times a constant triangular [n, n]
/// mask of ones, T[i][j] = 1 when element i adds into output j (i <= j; i < j
/// when `exclusive`; reversed with `reverse`). The products are exact; only
/// the order of the float sums differs from a running sum. f32, f64 and i32
/// (graph.matmul's types; i32 wraps as a running sum would).
LogicalResult convertCumSum(ImportContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = typeOf(*x);
  Type element = type.getElementType();
  if (!element.isF32() && !element.isF64() && !element.isSignlessInteger(32))
    return ctx.unsupported("input element type " + typeName(element));
  FailureOr<std::vector<int64_t>> axisValues =
      constantIntsInput(ctx, 1, "axis");
  if (failed(axisValues))
    return failure();
  if (axisValues->size() != 1)
    return ctx.invalid("'axis' input of " + llvm::Twine(axisValues->size()) +
                       " elements (it is a scalar)");
  int64_t rank = type.getRank();
  std::optional<int64_t> axis = normalizeAxis(axisValues->front(), rank);
  if (!axis)
    return ctx.invalid("'axis' = " + llvm::Twine(axisValues->front()) +
                       " out of range for rank " + llvm::Twine(rank));
  int64_t n = type.getDimSize(*axis);
  if (ShapedType::isDynamic(n) || n > kMaxCumSumLength)
    return ctx.unsupported("CumSum along dimension " + llvm::Twine(*axis) +
                           " of " + typeName(type) +
                           " (a static size of at most " +
                           llvm::Twine(kMaxCumSumLength) + ")");
  bool exclusive = ctx.attrInt("exclusive", 0) != 0;
  bool reverse = ctx.attrInt("reverse", 0) != 0;
  HostTensor mask = makeFilled(element, {n, n}, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bool adds =
          reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      if (!adds)
        continue;
      if (mask.isFloat())
        mask.floats[i * n + j] = 1.0;
      else
        mask.ints[i * n + j] = 1;
    }
  AxisLast order(*axis, rank);
  Value last = order.moved ? ctx.transpose(*x, order.toLast) : *x;
  OpChain b{ctx};
  // A rank-1 x is a [1, n] row for graph.matmul.
  Value rows = rank == 1 ? b.reshape(last, {1, n}) : last;
  Value sums = b.op<MatmulOp>(rows, ctx.constant(mask), false, false);
  if (rank == 1)
    sums = b.reshape(sums, {n});
  if (b.failed)
    return failure();
  if (order.moved)
    sums = ctx.transpose(sums, order.back);
  return b.finish(sums);
}

} // namespace

void registerMaskConverters(ConverterTable &table) {
  table["Trilu"] = convertTrilu;
  table["Hardmax"] = convertHardmax;
  table["OneHot"] = convertOneHot;
  table["EyeLike"] = convertEyeLike;
  table["TopK"] = convertTopK;
  table["CumSum"] = convertCumSum;
}

} // namespace tfcc::onnx_import
