//===- ShapeInference.cpp - result types of graph ops ---------------------===//
//
// One inference function per op family. Each emits an op error that names the
// offending attribute or types, so verifier messages stay specific.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/ShapeInference.h"

#include <cmath>

#include "dialects/graph/IR/GraphOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::graph;

static constexpr int64_t kDyn = ShapedType::kDynamic;

namespace {

SmallVector<int64_t> toI64s(ArrayAttr attr) {
  SmallVector<int64_t> values;
  for (Attribute a : attr)
    values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

/// Operands that must share an element type (elementwise ops, dense, ...).
LogicalResult checkSameElementType(Operation *op, ValueRange values) {
  Type first = typeOf(values.front()).getElementType();
  for (Value v : values.drop_front()) {
    Type other = typeOf(v).getElementType();
    if (other != first)
      return op->emitOpError("operand element types differ: ")
             << first << " vs " << other
             << "; insert a graph.cast to convert one of them";
  }
  return success();
}

LogicalResult checkRank(Operation *op, Value v, int64_t rank, StringRef what) {
  if (typeOf(v).getRank() != rank)
    return op->emitOpError() << what << " must have rank " << rank << ", got "
                             << v.getType();
  return success();
}

/// Two dims that must agree; a dynamic dim agrees with anything.
bool dimsAgree(int64_t a, int64_t b) { return a == kDyn || b == kDyn || a == b; }

LogicalResult checkPair(Operation *op, ArrayAttr attr, StringRef name,
                        bool positive = true) {
  if (attr.size() != 2)
    return op->emitOpError() << "attribute '" << name
                             << "' must have 2 elements, got " << attr.size();
  for (int64_t v : toI64s(attr))
    if (positive && v < 1)
      return op->emitOpError() << "attribute '" << name
                               << "' must be positive, got "
                               << formatList(toI64s(attr));
  return success();
}

LogicalResult checkPadding(Operation *op, StringRef padding) {
  if (padding != "valid" && padding != "same")
    return op->emitOpError() << "attribute 'padding' must be \"valid\" or "
                                "\"same\", got \""
                             << padding << "\"";
  return success();
}

FailureOr<int64_t> windowed(Operation *op, int64_t in, int64_t window,
                            int64_t stride, int64_t dilation, bool same,
                            StringRef dimName) {
  if (in == kDyn)
    return kDyn;
  int64_t out = windowedOutputSize(in, window, stride, dilation, same);
  if (out < 1)
    return op->emitOpError() << "window of size " << window << " (dilation "
                             << dilation << ") does not fit the input " << dimName
                             << " of size " << in << " with \""
                             << (same ? "same" : "valid") << "\" padding";
  return out;
}

FailureOr<RankedTensorType> inferBroadcast(Operation *op, ValueRange operands,
                                           Type elementType) {
  SmallVector<int64_t> shape(typeOf(operands.front()).getShape());
  for (Value v : operands.drop_front()) {
    auto result = broadcastShapes(shape, typeOf(v).getShape());
    if (failed(result)) {
      auto diag = op->emitOpError("operand shapes are not broadcastable: ");
      llvm::interleaveComma(operands.getTypes(), diag);
      return diag;
    }
    shape = *result;
  }
  return RankedTensorType::get(shape, elementType);
}

FailureOr<RankedTensorType> inferConv(Operation *op, Value x, Value kernel,
                                      Value bias, ArrayAttr strides,
                                      ArrayAttr dilations, StringRef padding,
                                      int64_t groups, bool depthwise) {
  if (failed(checkSameElementType(op, op->getOperands())) ||
      failed(checkRank(op, x, 4, "input")) ||
      failed(checkRank(op, kernel, 4, "kernel")) ||
      failed(checkPair(op, strides, "strides")) ||
      failed(checkPair(op, dilations, "dilations")) ||
      failed(checkPadding(op, padding)))
    return failure();
  ArrayRef<int64_t> xs = typeOf(x).getShape();
  ArrayRef<int64_t> ks = typeOf(kernel).getShape();
  if (ks[0] == kDyn || ks[1] == kDyn || ks[2] == kDyn || ks[3] == kDyn)
    return op->emitOpError() << "kernel must have a static shape, got "
                             << kernel.getType();
  int64_t outChannels;
  if (depthwise) {
    if (!dimsAgree(xs[3], ks[2]))
      return op->emitOpError() << "input has " << xs[3]
                               << " channels but the depthwise kernel "
                               << kernel.getType() << " expects " << ks[2];
    outChannels = ks[2] * ks[3];
  } else {
    if (groups < 1)
      return op->emitOpError() << "attribute 'groups' must be positive, got "
                               << static_cast<int64_t>(groups);
    if (ks[3] % groups != 0)
      return op->emitOpError() << "kernel output channels " << ks[3]
                               << " are not divisible by 'groups' = " << static_cast<int64_t>(groups);
    if (!dimsAgree(xs[3], ks[2] * groups))
      return op->emitOpError()
             << "input has " << xs[3] << " channels but kernel "
             << kernel.getType() << " with groups = " << static_cast<int64_t>(groups) << " expects "
             << ks[2] * groups;
    outChannels = ks[3];
  }
  if (bias) {
    if (failed(checkRank(op, bias, 1, "bias")))
      return failure();
    if (!dimsAgree(typeOf(bias).getDimSize(0), outChannels))
      return op->emitOpError() << "bias " << bias.getType() << " does not match "
                               << outChannels << " output channels";
  }
  SmallVector<int64_t> s = toI64s(strides), d = toI64s(dilations);
  bool same = padding == "same";
  auto h = windowed(op, xs[1], ks[0], s[0], d[0], same, "height");
  auto w = windowed(op, xs[2], ks[1], s[1], d[1], same, "width");
  if (failed(h) || failed(w))
    return failure();
  return RankedTensorType::get({xs[0], *h, *w, outChannels},
                               typeOf(x).getElementType());
}

template <typename PoolOp>
FailureOr<RankedTensorType> inferPool(PoolOp op) {
  if (failed(checkRank(op, op.getX(), 4, "input")) ||
      failed(checkPair(op, op.getWindow(), "window")) ||
      failed(checkPair(op, op.getEffectiveStrides(), "strides")) ||
      failed(checkPadding(op, op.getPadding())))
    return failure();
  ArrayRef<int64_t> xs = typeOf(op.getX()).getShape();
  SmallVector<int64_t> win = toI64s(op.getWindow()),
                       s = toI64s(op.getEffectiveStrides());
  bool same = op.getPadding() == "same";
  auto h = windowed(op, xs[1], win[0], s[0], 1, same, "height");
  auto w = windowed(op, xs[2], win[1], s[1], 1, same, "width");
  if (failed(h) || failed(w))
    return failure();
  return RankedTensorType::get({xs[0], *h, *w, xs[3]},
                               typeOf(op.getX()).getElementType());
}

FailureOr<RankedTensorType> inferMatmul(MatmulOp op) {
  if (failed(checkSameElementType(op, op->getOperands())))
    return failure();
  SmallVector<int64_t> a(typeOf(op.getLhs()).getShape());
  SmallVector<int64_t> b(typeOf(op.getRhs()).getShape());
  if (a.size() < 2 || b.size() < 2)
    return op.emitOpError() << "operands must have rank >= 2, got "
                            << op.getLhs().getType() << " and "
                            << op.getRhs().getType();
  if (op.getTransposeA())
    std::swap(a[a.size() - 2], a[a.size() - 1]);
  if (op.getTransposeB())
    std::swap(b[b.size() - 2], b[b.size() - 1]);
  int64_t m = a[a.size() - 2], k = a.back(), k2 = b[b.size() - 2], n = b.back();
  if (!dimsAgree(k, k2))
    return op.emitOpError() << "contracting dimensions differ: " << k << " vs "
                            << k2 << " (" << op.getLhs().getType() << " and "
                            << op.getRhs().getType() << ")";
  auto batch = broadcastShapes(ArrayRef<int64_t>(a).drop_back(2),
                               ArrayRef<int64_t>(b).drop_back(2));
  if (failed(batch))
    return op.emitOpError() << "batch dimensions are not broadcastable: "
                            << op.getLhs().getType() << " and "
                            << op.getRhs().getType();
  SmallVector<int64_t> shape = *batch;
  shape.append({m, n});
  return RankedTensorType::get(shape, typeOf(op.getLhs()).getElementType());
}

FailureOr<RankedTensorType> inferDense(DenseOp op) {
  if (failed(checkSameElementType(op, op->getOperands())) ||
      failed(checkRank(op, op.getKernel(), 2, "kernel")))
    return failure();
  ArrayRef<int64_t> xs = typeOf(op.getX()).getShape();
  ArrayRef<int64_t> ks = typeOf(op.getKernel()).getShape();
  if (xs.empty())
    return op.emitOpError() << "input must have rank >= 1, got "
                            << op.getX().getType();
  if (!dimsAgree(xs.back(), ks[0]))
    return op.emitOpError() << "input " << op.getX().getType()
                            << " has " << xs.back() << " features but kernel "
                            << op.getKernel().getType() << " expects " << ks[0];
  if (Value bias = op.getBias()) {
    if (failed(checkRank(op, bias, 1, "bias")))
      return failure();
    if (!dimsAgree(typeOf(bias).getDimSize(0), ks[1]))
      return op.emitOpError() << "bias " << bias.getType()
                              << " does not match " << ks[1] << " units";
  }
  SmallVector<int64_t> shape(xs);
  shape.back() = ks[1];
  return RankedTensorType::get(shape, typeOf(op.getX()).getElementType());
}

FailureOr<RankedTensorType> inferBatchNorm(BatchNormOp op) {
  if (failed(checkSameElementType(op, op->getOperands())))
    return failure();
  RankedTensorType x = typeOf(op.getX());
  if (x.getRank() < 1)
    return op.emitOpError() << "input must have rank >= 1, got " << x;
  float epsilon = op.getEpsilon().convertToFloat(),
        momentum = op.getMomentum().convertToFloat();
  // 0 is allowed (ONNX allows it; the variance alone is the divisor).
  if (!(epsilon >= 0 && std::isfinite(epsilon)))
    return op.emitOpError() << "attribute 'epsilon' must be non-negative "
                               "and finite, got "
                            << epsilon;
  if (!(momentum >= 0 && momentum < 1))
    return op.emitOpError() << "attribute 'momentum' must be in [0, 1), got "
                            << momentum;
  int64_t channels = x.getShape().back();
  StringRef names[] = {"gamma", "beta", "mean", "variance"};
  Value params[] = {op.getGamma(), op.getBeta(), op.getMean(),
                    op.getVariance()};
  for (auto [name, v] : llvm::zip(names, params)) {
    if (typeOf(v).getRank() != 1 ||
        !dimsAgree(typeOf(v).getDimSize(0), channels))
      return op.emitOpError() << name << " must be a vector of " << channels
                              << " elements (the last axis of " << x
                              << "), got " << v.getType();
  }
  return x;
}

FailureOr<RankedTensorType> inferLayerNorm(LayerNormOp op) {
  if (failed(checkSameElementType(op, op->getOperands())))
    return failure();
  RankedTensorType x = typeOf(op.getX());
  auto axis = normalizeAxis(op.getAxis(), x.getRank());
  if (!axis)
    return op.emitOpError() << "attribute 'axis' = " << static_cast<int64_t>(op.getAxis())
                            << " is out of range for " << x;
  float epsilon = op.getEpsilon().convertToFloat();
  // 0 is allowed (ONNX allows it; the variance alone is the divisor).
  if (!(epsilon >= 0 && std::isfinite(epsilon)))
    return op.emitOpError() << "attribute 'epsilon' must be non-negative "
                               "and finite, got "
                            << epsilon;
  ArrayRef<int64_t> normShape = x.getShape().drop_front(*axis);
  StringRef names[] = {"gamma", "beta"};
  Value params[] = {op.getGamma(), op.getBeta()};
  for (auto [name, v] : llvm::zip(names, params)) {
    ArrayRef<int64_t> s = typeOf(v).getShape();
    bool ok = s.size() == normShape.size();
    for (size_t i = 0; ok && i < s.size(); ++i)
      ok = dimsAgree(s[i], normShape[i]);
    if (!ok)
      return op.emitOpError() << name << " " << v.getType()
                              << " must have the shape of the normalized axes "
                              << formatList(normShape) << " of " << x;
  }
  return x;
}

/// The products of the static dims of `shape` between its dynamic ones
/// (before the first, between each pair, after the last).
SmallVector<int64_t> staticSegments(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> segments = {1};
  for (int64_t d : shape) {
    if (d == kDyn)
      segments.push_back(1);
    // A negative size or a product past int64 (an importer's shape from
    // file data, not yet checked) makes a segment -1, which no type has.
    else if (segments.back() < 0 || d < 0 ||
             llvm::MulOverflow(segments.back(), d, segments.back()))
      segments.back() = -1;
  }
  return segments;
}

FailureOr<RankedTensorType> inferReshape(ReshapeOp op) {
  RankedTensorType in = typeOf(op.getX());
  RankedTensorType out = typeOf(op.getY());
  if (in.getElementType() != out.getElementType())
    return op.emitOpError() << "cannot change the element type from "
                            << in.getElementType() << " to "
                            << out.getElementType() << "; use graph.cast";
  int64_t numDynamic = out.getNumDynamicDims();
  if (numDynamic > 1) {
    if (!isOrderPreservingReshape(in.getShape(), out.getShape()))
      return op.emitOpError()
             << "result type " << out
             << " may have more than one dynamic dimension only when " << in
             << " has as many and the static dimensions before, between and "
                "after them agree in product (each then carries the input's, "
                "in order)";
    return out;
  }
  int64_t outKnown = 1;
  for (int64_t d : out.getShape())
    if (d != kDyn)
      outKnown *= d;
  if (!in.hasStaticShape()) {
    if (numDynamic != 1)
      return op.emitOpError() << "reshape of the dynamic " << in
                              << " needs one dynamic dimension in the result, got "
                              << out;
    // The element count is only known at run time; the reference
    // interpreter rejects a count the result's static dims do not divide.
    return out;
  }
  int64_t total = in.getNumElements();
  SmallVector<int64_t> shape(out.getShape());
  if (numDynamic == 1) {
    if (outKnown == 0 || total % outKnown != 0)
      return op.emitOpError() << "cannot reshape " << in << " (" << total
                              << " elements) to " << out;
    for (int64_t &d : shape)
      if (d == kDyn)
        d = total / outKnown;
  } else if (outKnown != total) {
    return op.emitOpError() << "cannot reshape " << in << " (" << total
                            << " elements) to " << out << " (" << outKnown
                            << " elements)";
  }
  return RankedTensorType::get(shape, in.getElementType());
}

FailureOr<RankedTensorType> inferTranspose(TransposeOp op) {
  RankedTensorType x = typeOf(op.getX());
  SmallVector<int64_t> perm = toI64s(op.getPerm());
  SmallVector<bool> seen(x.getRank(), false);
  bool valid = (int64_t)perm.size() == x.getRank();
  for (int64_t p : perm) {
    valid = valid && p >= 0 && p < x.getRank() && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid)
    return op.emitOpError() << "attribute 'perm' = " << formatList(perm)
                            << " is not a permutation of the " << x.getRank()
                            << " dimensions of " << x;
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x.getDimSize(p));
  return RankedTensorType::get(shape, x.getElementType());
}

FailureOr<RankedTensorType> inferConcat(ConcatOp op) {
  if (op.getInputs().empty())
    return op.emitOpError("needs at least one operand");
  if (failed(checkSameElementType(op, op.getInputs())))
    return failure();
  RankedTensorType first = typeOf(op.getInputs().front());
  auto axis = normalizeAxis(op.getAxis(), first.getRank());
  if (!axis)
    return op.emitOpError() << "attribute 'axis' = " << static_cast<int64_t>(op.getAxis())
                            << " is out of range for " << first;
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : op.getInputs().drop_front()) {
    RankedTensorType t = typeOf(v);
    if (t.getRank() != first.getRank())
      return op.emitOpError() << "operands have different ranks: " << first
                              << " vs " << t;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (i == *axis) {
        shape[i] = (shape[i] == kDyn || t.getDimSize(i) == kDyn)
                       ? kDyn
                       : shape[i] + t.getDimSize(i);
      } else if (!dimsAgree(shape[i], t.getDimSize(i))) {
        return op.emitOpError() << "operands " << first << " and " << t
                                << " differ in dimension " << i
                                << " outside the concatenation axis";
      }
    }
  }
  return RankedTensorType::get(shape, first.getElementType());
}

FailureOr<RankedTensorType> inferSlice(SliceOp op) {
  RankedTensorType x = typeOf(op.getX());
  SmallVector<int64_t> starts = toI64s(op.getStarts());
  SmallVector<int64_t> limits = toI64s(op.getLimits());
  SmallVector<int64_t> strides =
      op.getStrides() ? toI64s(*op.getStrides())
                      : SmallVector<int64_t>(x.getRank(), 1);
  auto checkLength = [&](StringRef name, size_t length) -> LogicalResult {
    if ((int64_t)length == x.getRank())
      return success();
    return op.emitOpError() << "attribute '" << name << "' has " << length
                            << " elements but the input " << x
                            << " has rank " << x.getRank();
  };
  if (failed(checkLength("starts", starts.size())) ||
      failed(checkLength("limits", limits.size())) ||
      failed(checkLength("strides", strides.size())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    int64_t dim = x.getDimSize(i), start = starts[i], limit = limits[i];
    if (strides[i] < 1)
      return op.emitOpError() << "attribute 'strides' must be positive, got "
                              << formatList(strides);
    if (start < 0 || (dim != kDyn && start > dim) ||
        (limit != -1 && (limit < start || (dim != kDyn && limit > dim))))
      return op.emitOpError() << "slice [" << start << ", " << limit
                              << ") is out of range for dimension " << i
                              << " of " << x;
    if (limit == -1) {
      if (dim == kDyn) {
        shape.push_back(kDyn);
        continue;
      }
      limit = dim;
    }
    // ceil((limit - start) / stride) without overflow for any stride.
    shape.push_back(limit == start ? 0 : (limit - start - 1) / strides[i] + 1);
  }
  return RankedTensorType::get(shape, x.getElementType());
}

FailureOr<RankedTensorType> inferPad(PadOp op) {
  RankedTensorType x = typeOf(op.getX());
  SmallVector<int64_t> pads = toI64s(op.getPads());
  if ((int64_t)pads.size() != 2 * x.getRank())
    return op.emitOpError() << "attribute 'pads' needs " << 2 * x.getRank()
                            << " elements (low and high per dimension), got "
                            << pads.size();
  StringRef mode = op.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return op.emitOpError() << "attribute 'mode' must be \"constant\", "
                               "\"reflect\" or \"edge\", got \""
                            << mode << "\"";
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (pads[2 * i] < 0 || pads[2 * i + 1] < 0)
      return op.emitOpError() << "attribute 'pads' must be non-negative, got "
                              << formatList(pads);
    int64_t d = x.getDimSize(i);
    if (mode == "reflect" && d != kDyn &&
        (pads[2 * i] >= d || pads[2 * i + 1] >= d))
      return op.emitOpError()
             << "reflect padding needs pads smaller than the dimension, got "
             << formatList(pads) << " for " << x;
    if (mode == "edge" && d == 0 && (pads[2 * i] > 0 || pads[2 * i + 1] > 0))
      return op.emitOpError() << "edge padding of an empty dimension in " << x;
    int64_t padded = kDyn;
    if (d != kDyn && (__builtin_add_overflow(d, pads[2 * i], &padded) ||
                      __builtin_add_overflow(padded, pads[2 * i + 1], &padded)))
      return op.emitOpError() << "attribute 'pads' = " << formatList(pads)
                              << " overflows the size of dimension " << i
                              << " of " << x;
    shape.push_back(padded);
  }
  return RankedTensorType::get(shape, x.getElementType());
}

FailureOr<RankedTensorType> inferResize(ResizeOp op) {
  if (failed(checkRank(op, op.getX(), 4, "input")) ||
      failed(checkPair(op, op.getSize(), "size")))
    return failure();
  if (op.getMode() != "nearest" && op.getMode() != "bilinear")
    return op.emitOpError() << "attribute 'mode' must be \"nearest\" or "
                               "\"bilinear\", got \""
                            << op.getMode() << "\"";
  RankedTensorType x = typeOf(op.getX());
  SmallVector<int64_t> size = toI64s(op.getSize());
  return RankedTensorType::get(
      {x.getDimSize(0), size[0], size[1], x.getDimSize(3)}, x.getElementType());
}

FailureOr<RankedTensorType> inferGather(GatherOp op) {
  RankedTensorType table = typeOf(op.getTable());
  RankedTensorType indices = typeOf(op.getIndices());
  auto axis = normalizeAxis(op.getAxis(), table.getRank());
  if (!axis)
    return op.emitOpError() << "attribute 'axis' = " << static_cast<int64_t>(op.getAxis())
                            << " is out of range for " << table;
  SmallVector<int64_t> shape(table.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, table.getShape().drop_front(*axis + 1));
  return RankedTensorType::get(shape, table.getElementType());
}

FailureOr<RankedTensorType> inferGatherElements(GatherElementsOp op) {
  RankedTensorType data = typeOf(op.getData());
  RankedTensorType indices = typeOf(op.getIndices());
  if (indices.getRank() != data.getRank())
    return op.emitOpError()
           << "indices " << indices << " must have the rank of data " << data;
  auto axis = normalizeAxis(op.getAxis(), data.getRank());
  if (!axis)
    return op.emitOpError()
           << "attribute 'axis' = " << static_cast<int64_t>(op.getAxis())
           << " is out of range for " << data;
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != *axis && !data.isDynamicDim(d) && !indices.isDynamicDim(d) &&
        indices.getDimSize(d) > data.getDimSize(d))
      return op.emitOpError() << "dimension " << d << " of indices " << indices
                              << " exceeds that of data " << data;
  return RankedTensorType::get(indices.getShape(), data.getElementType());
}

FailureOr<RankedTensorType> inferTopKIndices(TopKIndicesOp op) {
  RankedTensorType x = typeOf(op.getX());
  if (x.getRank() < 1)
    return op.emitOpError() << "input " << x << " must have rank >= 1";
  int64_t k = static_cast<int64_t>(op.getK());
  int64_t size = x.getDimSize(x.getRank() - 1);
  if (k < 0 || (!ShapedType::isDynamic(size) && k > size))
    return op.emitOpError() << "attribute 'k' = " << k << " is outside [0, "
                            << size << "] for " << x;
  SmallVector<int64_t> shape(x.getShape());
  shape.back() = k;
  return RankedTensorType::get(shape, IntegerType::get(op.getContext(), 64));
}

FailureOr<RankedTensorType> inferNonMaxSuppression(NonMaxSuppressionOp op) {
  RankedTensorType boxes = typeOf(op.getBoxes()),
                   scores = typeOf(op.getScores());
  if (!boxes.hasStaticShape() || !scores.hasStaticShape() ||
      boxes.getRank() != 3 || boxes.getDimSize(2) != 4 ||
      scores.getRank() != 3 || scores.getDimSize(0) != boxes.getDimSize(0) ||
      scores.getDimSize(2) != boxes.getDimSize(1))
    return op.emitOpError() << "expects static boxes [b, n, 4] and scores "
                               "[b, c, n], got "
                            << boxes << " and " << scores;
  int64_t max = static_cast<int64_t>(op.getMaxOutputBoxesPerClass());
  if (max < 0)
    return op.emitOpError()
           << "attribute 'max_output_boxes_per_class' = " << max
           << " is negative";
  int64_t center = static_cast<int64_t>(op.getCenterPointBox());
  if (center != 0 && center != 1)
    return op.emitOpError() << "attribute 'center_point_box' = " << center
                            << " is neither 0 nor 1";
  int64_t rows = boxes.getDimSize(0) * scores.getDimSize(1) *
                 std::min(max, boxes.getDimSize(1));
  return RankedTensorType::get({rows, 3},
                               IntegerType::get(op.getContext(), 64));
}

template <typename ReduceOp>
FailureOr<RankedTensorType> inferReduce(ReduceOp op) {
  RankedTensorType x = typeOf(op.getX());
  SmallVector<bool> reduced(x.getRank(), false);
  for (int64_t a : toI64s(op.getAxes())) {
    auto axis = normalizeAxis(a, x.getRank());
    if (!axis || reduced[*axis])
      return op.emitOpError() << "attribute 'axes' = "
                              << formatList(toI64s(op.getAxes()))
                              << " has an out-of-range or repeated axis for "
                              << x;
    reduced[*axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!reduced[i])
      shape.push_back(x.getDimSize(i));
    else if (op.getKeepDims())
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, x.getElementType());
}

FailureOr<RankedTensorType> inferArgmax(ArgmaxOp op) {
  RankedTensorType x = typeOf(op.getX());
  auto axis = normalizeAxis(op.getAxis(), x.getRank());
  if (!axis)
    return op.emitOpError() << "attribute 'axis' = " << static_cast<int64_t>(op.getAxis())
                            << " is out of range for " << x;
  SmallVector<int64_t> shape(x.getShape());
  shape.erase(shape.begin() + *axis);
  return RankedTensorType::get(shape,
                               IntegerType::get(op.getContext(), 32));
}

RankedTensorType scalarF32(Operation *op) {
  return RankedTensorType::get({}, Float32Type::get(op->getContext()));
}

FailureOr<RankedTensorType> inferLoss(Operation *op, Value logits, Value other,
                                      bool sparse) {
  if (failed(checkRank(op, logits, 2, "logits")))
    return failure();
  RankedTensorType l = typeOf(logits), o = typeOf(other);
  if (sparse) {
    if (o.getRank() != 1 || !dimsAgree(o.getDimSize(0), l.getDimSize(0)))
      return op->emitOpError() << "labels " << o
                               << " must be a vector with one label per row of "
                               << l;
  } else {
    if (failed(checkSameElementType(op, op->getOperands())))
      return failure();
    if (o.getRank() != 2 || !dimsAgree(o.getDimSize(0), l.getDimSize(0)) ||
        !dimsAgree(o.getDimSize(1), l.getDimSize(1)))
      return op->emitOpError() << "targets " << o << " must have the shape of "
                               << l;
  }
  return scalarF32(op);
}

} // namespace

bool mlir::graph::isOrderPreservingReshape(ArrayRef<int64_t> in,
                                          ArrayRef<int64_t> out) {
  return llvm::count(out, kDyn) > 1 && staticSegments(in) == staticSegments(out);
}

std::optional<int64_t> mlir::graph::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

int64_t mlir::graph::windowedOutputSize(int64_t in, int64_t window,
                                        int64_t stride, int64_t dilation,
                                        bool samePadding) {
  if (samePadding)
    return (in + stride - 1) / stride;
  int64_t effective = (window - 1) * dilation + 1;
  if (in < effective)
    return 0;
  return (in - effective) / stride + 1;
}

int64_t mlir::graph::samePaddingBefore(int64_t in, int64_t window,
                                       int64_t stride, int64_t dilation) {
  int64_t out = (in + stride - 1) / stride;
  int64_t effective = (window - 1) * dilation + 1;
  int64_t total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  return total / 2;
}

FailureOr<SmallVector<int64_t>>
mlir::graph::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      result[i] = db;
    else if (db == 1)
      result[i] = da;
    else if (da == kDyn)
      result[i] = db;
    else if (db == kDyn || da == db)
      result[i] = da;
    else
      return failure();
  }
  return result;
}

namespace {

/// graph.quantize and graph.dequantize: scale and zero point of one shape, a
/// scalar or one entry per index of x's dimension `axis`; the zero point of
/// the quantized element type.
FailureOr<RankedTensorType> inferQuantization(Operation *op, Value x,
                                              Value scale, Value zeroPoint,
                                              int64_t axis, Type quantized,
                                              Type resultElement) {
  RankedTensorType xType = typeOf(x), scaleType = typeOf(scale),
                   zeroPointType = typeOf(zeroPoint);
  if (zeroPointType.getElementType() != quantized)
    return op->emitOpError() << "zero point element type "
                             << zeroPointType.getElementType()
                             << " differs from the quantized type "
                             << quantized;
  if (scaleType.getShape() != zeroPointType.getShape())
    return op->emitOpError() << "scale " << scale.getType()
                             << " and zero point " << zeroPoint.getType()
                             << " differ in shape";
  if (scaleType.getRank() > 1)
    return op->emitOpError() << "scale must be a scalar (per tensor) or 1-D "
                                "(per axis), got "
                             << scale.getType();
  if (scaleType.getRank() == 1) {
    std::optional<int64_t> a = normalizeAxis(axis, xType.getRank());
    if (!a)
      return op->emitOpError() << "axis " << axis << " is out of range for "
                               << x.getType();
    if (!dimsAgree(scaleType.getDimSize(0), xType.getDimSize(*a)))
      return op->emitOpError()
             << "per-axis scale " << scale.getType() << " does not match "
             << "dimension " << *a << " of " << x.getType();
  }
  return RankedTensorType::get(xType.getShape(), resultElement);
}

} // namespace

FailureOr<RankedTensorType> mlir::graph::inferResultType(Operation *op) {
  auto elementwise = [&](ValueRange operands,
                         Type resultElement) -> FailureOr<RankedTensorType> {
    if (failed(checkSameElementType(op, operands)))
      return failure();
    return inferBroadcast(op, operands, resultElement);
  };
  return llvm::TypeSwitch<Operation *, FailureOr<RankedTensorType>>(op)
      .Case<AddOp, SubOp, MulOp, DivOp, ModOp, MaximumOp, MinimumOp, PowOp>(
          [&](auto op) {
            return elementwise(op->getOperands(),
                               typeOf(op.getLhs()).getElementType());
          })
      .Case([&](CompareOp op) -> FailureOr<RankedTensorType> {
        StringRef p = op.getPredicate();
        if (!llvm::is_contained(ArrayRef<StringRef>{"eq", "ne", "lt", "le",
                                                    "gt", "ge"},
                                p))
          return op.emitOpError() << "attribute 'predicate' must be one of "
                                     "eq, ne, lt, le, gt, ge, got \""
                                  << p << "\"";
        return elementwise(op->getOperands(),
                           IntegerType::get(op.getContext(), 1));
      })
      .Case([&](SelectOp op) -> FailureOr<RankedTensorType> {
        if (failed(checkSameElementType(op, {op.getLhs(), op.getRhs()})))
          return failure();
        return inferBroadcast(op, op->getOperands(),
                              typeOf(op.getLhs()).getElementType());
      })
      .Case([&](CastOp op) -> FailureOr<RankedTensorType> {
        return RankedTensorType::get(typeOf(op.getX()).getShape(),
                                     typeOf(op.getY()).getElementType());
      })
      .Case([&](QuantizeOp op) {
        Type quantized = typeOf(op.getY()).getElementType();
        return inferQuantization(op, op.getX(), op.getScale(),
                                 op.getZeroPoint(), op.getAxis(), quantized,
                                 quantized);
      })
      .Case([&](DequantizeOp op) {
        return inferQuantization(op, op.getX(), op.getScale(),
                                 op.getZeroPoint(), op.getAxis(),
                                 typeOf(op.getX()).getElementType(),
                                 Float32Type::get(op.getContext()));
      })
      .Case([&](MatmulOp op) { return inferMatmul(op); })
      .Case([&](DenseOp op) { return inferDense(op); })
      .Case([&](Conv2DOp op) {
        return inferConv(op, op.getX(), op.getKernel(), op.getBias(),
                         op.getStrides(), op.getDilations(), op.getPadding(),
                         op.getGroups(), /*depthwise=*/false);
      })
      .Case([&](DepthwiseConv2DOp op) {
        return inferConv(op, op.getX(), op.getKernel(), op.getBias(),
                         op.getStrides(), op.getDilations(), op.getPadding(),
                         1, /*depthwise=*/true);
      })
      .Case([&](MaxPool2DOp op) { return inferPool(op); })
      .Case([&](AvgPool2DOp op) { return inferPool(op); })
      .Case<GlobalAvgPool2DOp, GlobalMaxPool2DOp>(
          [&](auto op) -> FailureOr<RankedTensorType> {
            if (failed(checkRank(op, op.getX(), 4, "input")))
              return failure();
            RankedTensorType x = typeOf(op.getX());
            return RankedTensorType::get({x.getDimSize(0), x.getDimSize(3)},
                                         x.getElementType());
          })
      .Case([&](BatchNormOp op) { return inferBatchNorm(op); })
      .Case([&](LayerNormOp op) { return inferLayerNorm(op); })
      .Case([&](ReshapeOp op) { return inferReshape(op); })
      .Case([&](TransposeOp op) { return inferTranspose(op); })
      .Case([&](ConcatOp op) { return inferConcat(op); })
      .Case([&](SliceOp op) { return inferSlice(op); })
      .Case([&](PadOp op) { return inferPad(op); })
      .Case([&](ResizeOp op) { return inferResize(op); })
      .Case([&](GatherOp op) { return inferGather(op); })
      .Case([&](GatherElementsOp op) { return inferGatherElements(op); })
      .Case([&](TopKIndicesOp op) { return inferTopKIndices(op); })
      .Case([&](NonMaxSuppressionOp op) { return inferNonMaxSuppression(op); })
      .Case([&](ReduceSumOp op) { return inferReduce(op); })
      .Case([&](ReduceMeanOp op) { return inferReduce(op); })
      .Case([&](ReduceMaxOp op) { return inferReduce(op); })
      .Case([&](ReduceMinOp op) { return inferReduce(op); })
      .Case([&](ArgmaxOp op) { return inferArgmax(op); })
      .Case([&](SparseSoftmaxCrossEntropyOp op) {
        return inferLoss(op, op.getLogits(), op.getLabels(), true);
      })
      .Case([&](SoftmaxCrossEntropyOp op) {
        return inferLoss(op, op.getLogits(), op.getTargets(), false);
      })
      .Case([&](MeanSquaredErrorOp op) -> FailureOr<RankedTensorType> {
        if (failed(checkSameElementType(op, op->getOperands())))
          return failure();
        RankedTensorType p = typeOf(op.getPrediction()),
                         t = typeOf(op.getTarget());
        bool ok = p.getRank() == t.getRank();
        for (int64_t i = 0; ok && i < p.getRank(); ++i)
          ok = dimsAgree(p.getDimSize(i), t.getDimSize(i));
        if (!ok)
          return op.emitOpError() << "prediction " << p << " and target " << t
                                  << " must have the same shape";
        return scalarF32(op);
      })
      .Default([&](Operation *op) -> FailureOr<RankedTensorType> {
        return op->emitOpError("has no result type inference");
      });
}
