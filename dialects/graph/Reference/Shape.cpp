//===- Shape.cpp - evaluators of the data movement graph ops --------------===//
//
// These ops copy values without arithmetic, except resize (bilinear).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Reference/Evaluators.h"
#include "dialects/graph/IR/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::ref::detail {

FailureOr<Tensor> evaluate(ReshapeOp op, Operands operands, Report &report) {
  // Row-major: the values keep their order. The result type gives the new
  // shape; its one dynamic dimension, if any, takes what is left.
  const Tensor &x = *operands[0];
  auto type = llvm::cast<RankedTensorType>(op.getY().getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  // Several dynamic dims (isOrderPreservingReshape): each carries the
  // input's dynamic dims, in order.
  auto inType = llvm::cast<RankedTensorType>(op.getX().getType());
  if (isOrderPreservingReshape(inType.getShape(), type.getShape())) {
    std::vector<int64_t> carried;
    for (int64_t d = 0; d < inType.getRank(); ++d)
      if (inType.isDynamicDim(d))
        carried.push_back(x.shape[d]);
    size_t next = 0;
    for (int64_t &d : shape)
      if (ShapedType::isDynamic(d))
        d = carried[next++];
    Tensor y = x;
    y.shape = shape;
    return y;
  }
  int64_t known = 1, dynamicIndex = -1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    if (!ShapedType::isDynamic(shape[i])) {
      known *= shape[i];
      continue;
    }
    if (dynamicIndex >= 0)
      return report.fail("reshape result " + shapeToString(shape) +
                         " has more than one dynamic dimension");
    dynamicIndex = i;
  }
  if (dynamicIndex >= 0)
    shape[dynamicIndex] = known == 0 ? 0 : x.numElements() / known;
  if (numElementsOf(shape) != x.numElements())
    return report.fail("cannot reshape " + shapeToString(x.shape) + " to " +
                       shapeToString(type.getShape()));
  Tensor y = x;
  y.shape = shape;
  return y;
}

FailureOr<Tensor> evaluate(TransposeOp op, Operands operands, Report &report) {
  // Result dimension i is input dimension perm[i].
  const Tensor &x = *operands[0];
  std::vector<int64_t> perm = toInts(op.getPerm());
  std::vector<bool> seen(x.rank(), false);
  if (static_cast<int64_t>(perm.size()) != x.rank())
    return report.fail("perm has " + llvm::Twine(perm.size()) +
                       " entries for rank " + llvm::Twine(x.rank()));
  std::vector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.rank() || seen[p])
      return report.fail("perm is not a permutation of [0, " +
                         llvm::Twine(x.rank()) + ")");
    seen[p] = true;
    shape.push_back(x.shape[p]);
  }
  Tensor y = Tensor::zeros(x.kind, shape);
  std::vector<int64_t> xStrides = stridesOf(x.shape);
  for (int64_t i = 0; i < y.numElements(); ++i) {
    std::vector<int64_t> index = unravel(i, shape);
    int64_t offset = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      offset += index[d] * xStrides[perm[d]];
    y.data[i] = x.data[offset];
  }
  return y;
}

FailureOr<Tensor> evaluate(ConcatOp op, Operands operands, Report &report) {
  if (operands.empty())
    return report.fail("concat needs at least one operand");
  const Tensor &first = *operands[0];
  FailureOr<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(op.getAxis()), first.rank(), report);
  if (failed(axis))
    return failure();
  std::vector<int64_t> shape = first.shape;
  shape[*axis] = 0;
  for (const Tensor *input : operands) {
    bool compatible =
        input->rank() == first.rank() && input->kind == first.kind;
    for (int64_t d = 0; compatible && d < first.rank(); ++d)
      compatible = d == *axis || input->shape[d] == first.shape[d];
    if (!compatible)
      return report.fail("cannot concatenate " + shapeToString(input->shape) +
                         " with " + shapeToString(first.shape) +
                         " along axis " + llvm::Twine(*axis));
    shape[*axis] += input->shape[*axis];
  }
  // Row-major: for each index of the leading dimensions, copy each input's
  // block of shape[axis:] in operand order.
  int64_t outer = numElementsOf(llvm::ArrayRef(shape).take_front(*axis));
  Tensor y = Tensor::zeros(first.kind, shape);
  auto out = y.data.begin();
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *input : operands) {
      int64_t block =
          numElementsOf(llvm::ArrayRef(input->shape).drop_front(*axis));
      auto begin = input->data.begin() + o * block;
      out = std::copy(begin, begin + block, out);
    }
  return y;
}

FailureOr<Tensor> evaluate(SliceOp op, Operands operands, Report &report) {
  // Element k of dimension d of the result is element starts[d] + k *
  // strides[d] of the input; a limit of -1 means the end of the dimension.
  const Tensor &x = *operands[0];
  std::vector<int64_t> starts = toInts(op.getStarts()),
                       limits = toInts(op.getLimits());
  std::vector<int64_t> strides = op.getStrides()
                                     ? toInts(*op.getStrides())
                                     : std::vector<int64_t>(x.rank(), 1);
  if (static_cast<int64_t>(starts.size()) != x.rank() ||
      static_cast<int64_t>(limits.size()) != x.rank() ||
      static_cast<int64_t>(strides.size()) != x.rank())
    return report.fail("slice starts, limits and strides must have " +
                       llvm::Twine(x.rank()) + " entries");
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t limit = limits[d] == -1 ? x.shape[d] : limits[d];
    if (starts[d] < 0 || starts[d] > limit || limit > x.shape[d] ||
        strides[d] < 1)
      return report.fail(
          "slice [" + llvm::Twine(starts[d]) + ", " + llvm::Twine(limits[d]) +
          ") step " + llvm::Twine(strides[d]) + " out of range for dimension " +
          llvm::Twine(d) + " of " + shapeToString(x.shape));
    shape.push_back((limit - starts[d] + strides[d] - 1) / strides[d]);
  }
  Tensor y = Tensor::zeros(x.kind, shape);
  std::vector<int64_t> xStrides = stridesOf(x.shape);
  for (int64_t i = 0; i < y.numElements(); ++i) {
    std::vector<int64_t> index = unravel(i, shape);
    int64_t offset = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      offset += (starts[d] + index[d] * strides[d]) * xStrides[d];
    y.data[i] = x.data[offset];
  }
  return y;
}

FailureOr<Tensor> evaluate(PadOp op, Operands operands, Report &report) {
  // pads = [low0, high0, low1, high1, ...]; in constant mode new elements
  // hold `value` (truncated toward zero for integer tensors, != 0 for i1).
  const Tensor &x = *operands[0];
  std::vector<int64_t> pads = toInts(op.getPads());
  if (static_cast<int64_t>(pads.size()) != 2 * x.rank())
    return report.fail("pads has " + llvm::Twine(pads.size()) +
                       " entries for rank " + llvm::Twine(x.rank()));
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0)
      return report.fail("pads must not be negative");
    shape.push_back(pads[2 * d] + x.shape[d] + pads[2 * d + 1]);
  }
  llvm::StringRef mode = op.getMode();
  if (mode == "reflect" || mode == "edge") {
    // Each output index reads the input index it mirrors (reflect: about the
    // edge element, not repeating it) or the nearest one (edge).
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (mode == "reflect" &&
          (pads[2 * d] >= x.shape[d] || pads[2 * d + 1] >= x.shape[d]))
        return report.fail(
            "reflect padding needs pads smaller than dimension " +
            llvm::Twine(d) + " of " + shapeToString(x.shape));
      if (x.shape[d] == 0 && shape[d] != 0)
        return report.fail("edge padding of an empty dimension " +
                           llvm::Twine(d));
    }
    Tensor y = Tensor::zeros(x.kind, shape);
    std::vector<int64_t> xStrides = stridesOf(x.shape);
    for (int64_t i = 0; i < y.numElements(); ++i) {
      std::vector<int64_t> index = unravel(i, shape);
      int64_t offset = 0;
      for (int64_t d = 0; d < x.rank(); ++d) {
        int64_t n = x.shape[d];
        int64_t src = index[d] - pads[2 * d];
        if (mode == "edge")
          src = std::clamp<int64_t>(src, 0, n - 1);
        else if (src < 0)
          src = -src;
        else if (src >= n)
          src = 2 * (n - 1) - src;
        offset += src * xStrides[d];
      }
      y.data[i] = x.data[offset];
    }
    return y;
  }
  double value = op.getValue().convertToFloat();
  if (x.kind == ElementKind::I1)
    value = value != 0.0 ? 1.0 : 0.0;
  else if (!isFloatKind(x.kind))
    value = std::trunc(value);
  Tensor y = Tensor::zeros(x.kind, shape);
  std::fill(y.data.begin(), y.data.end(), value);
  std::vector<int64_t> yStrides = stridesOf(shape);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    std::vector<int64_t> index = unravel(i, x.shape);
    int64_t offset = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      offset += (index[d] + pads[2 * d]) * yStrides[d];
    y.data[offset] = x.data[i];
  }
  return y;
}

/// Where output row or column `dst` of a resize reads, computed in float as
/// TF does: with half-pixel centers src = (dst + 0.5) * scale (nearest) or
/// (dst + 0.5) * scale - 0.5 (bilinear), else src = dst * scale, where
/// scale = in / out.
float resizeSource(int64_t dst, float scale, bool halfPixelCenters,
                   bool bilinear) {
  if (!halfPixelCenters)
    return static_cast<float>(dst) * scale;
  float src = (static_cast<float>(dst) + 0.5f) * scale;
  return bilinear ? src - 0.5f : src;
}

/// Nearest source index: floor(src) clamped to [0, in - 1].
int64_t nearestIndex(float src, int64_t in) {
  int64_t index = static_cast<int64_t>(std::floor(src));
  return std::max<int64_t>(std::min<int64_t>(index, in - 1), 0);
}

/// Bilinear taps: lower = max(floor(src), 0), upper = min(ceil(src), in - 1),
/// weight of upper = src - floor(src).
Taps bilinearTaps(float src, int64_t in) {
  float floorSrc = std::floor(src);
  return Taps{std::max<int64_t>(static_cast<int64_t>(floorSrc), 0),
              std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1),
              static_cast<double>(src - floorSrc)};
}

FailureOr<Tensor> evaluate(ResizeOp op, Operands operands, Report &report) {
  const Tensor &x = *operands[0];
  std::vector<int64_t> size = toInts(op.getSize());
  if (x.rank() != 4 || size.size() != 2 || size[0] < 1 || size[1] < 1)
    return report.fail(
        "resize expects an NHWC input and a positive size [h, w]");
  StringRef mode = op.getMode();
  if (mode != "nearest" && mode != "bilinear")
    return report.fail("unknown resize mode '" + mode + "'");
  bool bilinear = mode == "bilinear", halfPixel = op.getHalfPixelCenters();
  int64_t batch = x.shape[0], inH = x.shape[1], inW = x.shape[2],
          channels = x.shape[3];
  int64_t outH = size[0], outW = size[1];
  if (inH == 0 || inW == 0)
    return report.fail("resize of an empty image " + shapeToString(x.shape));
  float scaleH = static_cast<float>(inH) / static_cast<float>(outH);
  float scaleW = static_cast<float>(inW) / static_cast<float>(outW);
  Tensor y = Tensor::zeros(x.kind, {batch, outH, outW, channels});
  auto at = [&](int64_t n, int64_t h, int64_t w, int64_t c) {
    return x.data[((n * inH + h) * inW + w) * channels + c];
  };
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t c = 0; c < channels; ++c) {
          float srcH = resizeSource(oh, scaleH, halfPixel, bilinear);
          float srcW = resizeSource(ow, scaleW, halfPixel, bilinear);
          double value;
          if (!bilinear) {
            value = at(n, nearestIndex(srcH, inH), nearestIndex(srcW, inW), c);
          } else {
            Taps r = bilinearTaps(srcH, inH), s = bilinearTaps(srcW, inW);
            double top =
                at(n, r.lower, s.lower, c) +
                (at(n, r.lower, s.upper, c) - at(n, r.lower, s.lower, c)) *
                    s.lerp;
            double bottom =
                at(n, r.upper, s.lower, c) +
                (at(n, r.upper, s.upper, c) - at(n, r.upper, s.lower, c)) *
                    s.lerp;
            value = top + (bottom - top) * r.lerp;
          }
          y.data[((n * outH + oh) * outW + ow) * channels + c] = value;
        }
  return y;
}

FailureOr<Tensor> evaluate(GatherOp op, Operands operands, Report &report) {
  // result[o..., j..., i...] = table[o..., indices[j...], i...]; an index
  // outside [0, table.shape[axis]) is an error.
  const Tensor &table = *operands[0], &indices = *operands[1];
  FailureOr<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(op.getAxis()), table.rank(), report);
  if (failed(axis))
    return failure();
  llvm::ArrayRef<int64_t> tableShape = table.shape;
  int64_t outer = numElementsOf(tableShape.take_front(*axis));
  int64_t dim = table.shape[*axis];
  int64_t inner = numElementsOf(tableShape.drop_front(*axis + 1));
  std::vector<int64_t> shape(tableShape.begin(), tableShape.begin() + *axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), tableShape.begin() + *axis + 1, tableShape.end());
  Tensor y = Tensor::zeros(table.kind, shape);
  int64_t count = indices.numElements();
  if (failed(checkGatherIndices(indices, dim, report)))
    return failure();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t index = static_cast<int64_t>(indices.data[j]);
      for (int64_t i = 0; i < inner; ++i)
        y.data[(o * count + j) * inner + i] =
            table.data[(o * dim + index) * inner + i];
    }
  return y;
}

FailureOr<Tensor> evaluate(GatherElementsOp op, Operands operands,
                           Report &report) {
  // result[p] = data[p with p[axis] = indices[p]].
  const Tensor &data = *operands[0], &indices = *operands[1];
  FailureOr<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(op.getAxis()), data.rank(), report);
  if (failed(axis))
    return failure();
  if (failed(checkGatherIndices(indices, data.shape[*axis], report)))
    return failure();
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != *axis && indices.shape[d] > data.shape[d])
      return report.fail("gather_elements indices dimension " + llvm::Twine(d) +
                         " exceeds data's");
  Tensor y = Tensor::zeros(data.kind, indices.shape);
  for (int64_t i = 0, n = indices.numElements(); i < n; ++i) {
    std::vector<int64_t> position = unravel(i, indices.shape);
    position[*axis] = static_cast<int64_t>(indices.data[i]);
    int64_t linear = 0;
    for (int64_t d = 0; d < data.rank(); ++d)
      linear = linear * data.shape[d] + position[d];
    y.data[i] = data.data[linear];
  }
  return y;
}

FailureOr<Tensor> evaluate(TopKIndicesOp op, Operands operands, Report &) {
  // A stable sort of each row's indices, best first, NaN last.
  const Tensor &x = *operands[0];
  int64_t cols = x.shape.back(), k = static_cast<int64_t>(op.getK());
  int64_t rows = cols ? x.numElements() / cols : 0;
  std::vector<int64_t> shape = x.shape;
  shape.back() = k;
  Tensor y = Tensor::zeros(ElementKind::I64, shape);
  bool largest = op.getLargest();
  std::vector<int64_t> order(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x.data.data() + r * cols;
    for (int64_t j = 0; j < cols; ++j)
      order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      double va = row[a], vb = row[b];
      if (std::isnan(va) || std::isnan(vb))
        return !std::isnan(va) && std::isnan(vb);
      return largest ? va > vb : va < vb;
    });
    for (int64_t j = 0; j < k; ++j)
      y.data[r * k + j] = static_cast<double>(order[j]);
  }
  return y;
}

namespace {
/// Corners [ymin, xmin, ymax, xmax] of box `i` of `boxes` (flat, 4 per box).
std::array<double, 4> boxCorners(const double *box, bool centerPoint) {
  if (centerPoint) {
    double halfW = box[2] / 2, halfH = box[3] / 2;
    return {box[1] - halfH, box[0] - halfW, box[1] + halfH, box[0] + halfW};
  }
  return {std::min(box[0], box[2]), std::min(box[1], box[3]),
          std::max(box[0], box[2]), std::max(box[1], box[3])};
}

/// Whether IoU(a, b) > threshold; boxes of no area suppress nothing.
bool overlapsAbove(const std::array<double, 4> &a,
                   const std::array<double, 4> &b, double threshold) {
  double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]);
  double iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  if (ih <= 0 || iw <= 0)
    return false;
  double areaA = (a[2] - a[0]) * (a[3] - a[1]);
  double areaB = (b[2] - b[0]) * (b[3] - b[1]);
  if (areaA <= 0 || areaB <= 0)
    return false;
  double inter = ih * iw, uni = areaA + areaB - inter;
  return uni > 0 && inter / uni > threshold;
}
} // namespace

FailureOr<Tensor> evaluate(NonMaxSuppressionOp op, Operands operands,
                           Report &) {
  // The greedy rule in plain form: sort each class's candidates by score
  // (stable, so ties keep box order), keep those no kept box overlaps.
  const Tensor &boxes = *operands[0], &scores = *operands[1];
  int64_t batches = boxes.shape[0], n = boxes.shape[1],
          classes = scores.shape[1];
  int64_t max = static_cast<int64_t>(op.getMaxOutputBoxesPerClass());
  int64_t rows = batches * classes * std::min(max, n);
  Tensor y = Tensor::zeros(ElementKind::I64, {rows, 3});
  std::fill(y.data.begin(), y.data.end(), -1.0);
  bool centerPoint = op.getCenterPointBox() == 1;
  double iou = op.getIouThreshold().convertToDouble();
  std::optional<double> scoreThreshold;
  if (op.getScoreThreshold())
    scoreThreshold = op.getScoreThreshold()->convertToDouble();
  int64_t out = 0;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const double *score = scores.data.data() + (b * classes + c) * n;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i)
        if (!scoreThreshold || score[i] > *scoreThreshold)
          order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
        return score[i] > score[j];
      });
      std::vector<std::array<double, 4>> kept;
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= max)
          break;
        auto corners =
            boxCorners(boxes.data.data() + (b * n + i) * 4, centerPoint);
        if (llvm::any_of(kept, [&](const std::array<double, 4> &k) {
              return overlapsAbove(k, corners, iou);
            }))
          continue;
        kept.push_back(corners);
        y.data[out * 3] = double(b);
        y.data[out * 3 + 1] = double(c);
        y.data[out * 3 + 2] = double(i);
        ++out;
      }
    }
  return y;
}

} // namespace tfcc::ref::detail
