//===- Training.cpp - evaluators of the compiler-internal training ops ----===//
//
// The ops tfcc-autodiff generates (docs/autodiff.md): the dropout mask, shape
// helpers and the gradients of convolution, pooling, resize and gather. Each
// gradient is the transpose of the forward evaluator in Convolution.cpp or
// Shape.cpp (same window geometry and source coordinates); sums add their
// terms in the order of the loops written here.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/Initializers.h"
#include "dialects/graph/Reference/Evaluators.h"

#include <cmath>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::ref::detail {
namespace {

/// The output geometry of a window op over input rows/columns `inputSize`,
/// checked against the spatial size of `dy`.
FailureOr<std::pair<WindowGeometry, WindowGeometry>>
gradientGeometry(llvm::ArrayRef<int64_t> inputSize,
                 llvm::ArrayRef<int64_t> window, llvm::ArrayRef<int64_t> strides,
                 llvm::ArrayRef<int64_t> dilations, StringRef padding,
                 const Tensor &dy, Report &report) {
  FailureOr<WindowGeometry> rows = windowGeometry(
      inputSize[0], window[0], strides[0], dilations[0], padding, report);
  if (failed(rows))
    return failure();
  FailureOr<WindowGeometry> cols = windowGeometry(
      inputSize[1], window[1], strides[1], dilations[1], padding, report);
  if (failed(cols))
    return failure();
  if (dy.shape[1] != rows->outSize || dy.shape[2] != cols->outSize)
    return report.fail("output gradient " + shapeToString(dy.shape) +
                       " does not match the forward output size [" +
                       llvm::Twine(rows->outSize) + ", " +
                       llvm::Twine(cols->outSize) + "]");
  return std::make_pair(*rows, *cols);
}

} // namespace

/// Element i keeps when u_i >= rate with key = splitmix64(seed * golden +
/// step) and u_i = (splitmix64(key + i) >> 40) * 2^-24.
FailureOr<Tensor> evaluate(DropoutMaskOp op, Operands operands, Report &) {
  const Tensor &x = *operands[0], &step = *operands[1];
  double rate = op.getRate().convertToFloat();
  uint64_t key = splitmix64(uint64_t(op.getSeed()) * 0x9E3779B97F4A7C15ull +
                            uint64_t(int64_t(step.data[0])));
  double scale = normalizeElement(1.0 / (1.0 - rate), x.kind);
  Tensor mask = Tensor::zeros(x.kind, x.shape);
  for (int64_t i = 0, e = mask.numElements(); i < e; ++i) {
    double u = double(splitmix64(key + uint64_t(i)) >> 40) * 0x1.0p-24;
    mask.data[i] = u >= rate ? scale : 0.0;
  }
  return mask;
}

FailureOr<Tensor> evaluate(BroadcastLikeOp, Operands operands,
                           Report &report) {
  const Tensor &value = *operands[0], &like = *operands[1];
  FailureOr<std::vector<int64_t>> shape =
      broadcastShapes(value.shape, like.shape, report);
  if (failed(shape))
    return failure();
  if (*shape != like.shape)
    return report.fail("value " + shapeToString(value.shape) +
                       " does not broadcast to " + shapeToString(like.shape));
  Tensor result = Tensor::zeros(value.kind, like.shape);
  for (int64_t i = 0, e = result.numElements(); i < e; ++i)
    result.data[i] =
        value.data[broadcastOffset(unravel(i, like.shape), value.shape)];
  return result;
}

FailureOr<Tensor> evaluate(ElementCountOp op, Operands operands, Report &) {
  const Tensor &x = *operands[0];
  double count = 1.0;
  for (int64_t axis : toInts(op.getAxes()))
    count *= double(x.shape[axis]);
  Tensor result = Tensor::zeros(resultKindOf(op), {});
  result.data[0] = count;
  return result;
}

namespace {

/// The [rows, C] view of a training batch norm's input and its per-channel
/// operands: `stats` tensors are [2, C], `vectors` [C].
FailureOr<std::pair<int64_t, int64_t>>
channelView(const Tensor &x, std::initializer_list<const Tensor *> stats,
            std::initializer_list<const Tensor *> vectors,
            std::initializer_list<const Tensor *> likeX, Report &report) {
  if (x.rank() < 1)
    return report.fail("batch norm input must have rank >= 1");
  int64_t channels = x.shape.back();
  for (const Tensor *t : stats)
    if (t->shape != std::vector<int64_t>{2, channels})
      return report.fail("statistics " + shapeToString(t->shape) +
                         " must be [2, " + llvm::Twine(channels) + "]");
  for (const Tensor *t : vectors)
    if (t->shape != std::vector<int64_t>{channels})
      return report.fail("per-channel operand " + shapeToString(t->shape) +
                         " must be [" + llvm::Twine(channels) + "]");
  for (const Tensor *t : likeX)
    if (t->shape != x.shape)
      return report.fail("gradient " + shapeToString(t->shape) +
                         " differs from the input " + shapeToString(x.shape));
  return std::make_pair(channels ? x.numElements() / channels : 0, channels);
}

} // namespace

/// Two passes per channel, as the statistics are defined: the mean, then the
/// mean of the squared deviations.
FailureOr<Tensor> evaluate(MomentsOp, Operands operands, Report &report) {
  const Tensor &x = *operands[0];
  auto view = channelView(x, {}, {}, {}, report);
  if (failed(view))
    return failure();
  auto [rows, channels] = *view;
  Tensor m = Tensor::zeros(x.kind, {2, channels});
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0.0;
    for (int64_t r = 0; r < rows; ++r)
      sum += x.data[r * channels + c];
    double mean = rows ? sum / double(rows) : 0.0;
    double squares = 0.0;
    for (int64_t r = 0; r < rows; ++r) {
      double d = x.data[r * channels + c] - mean;
      squares += d * d;
    }
    m.data[c] = mean;
    m.data[channels + c] = rows ? squares / double(rows) : 0.0;
  }
  return m;
}

FailureOr<Tensor> evaluate(BatchNormTrainOp op, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0], &m = *operands[1], &gamma = *operands[2],
               &beta = *operands[3];
  auto view = channelView(x, {&m}, {&gamma, &beta}, {}, report);
  if (failed(view))
    return failure();
  auto [rows, channels] = *view;
  double epsilon = op.getEpsilon().convertToFloat();
  Tensor y = Tensor::zeros(x.kind, x.shape);
  for (int64_t c = 0; c < channels; ++c) {
    double scale = gamma.data[c] / std::sqrt(m.data[channels + c] + epsilon);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t i = r * channels + c;
      y.data[i] = (x.data[i] - m.data[c]) * scale + beta.data[c];
    }
  }
  return y;
}

FailureOr<Tensor> evaluate(BatchNormGradSumsOp, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0], &dy = *operands[1], &m = *operands[2];
  auto view = channelView(x, {&m}, {}, {&dy}, report);
  if (failed(view))
    return failure();
  auto [rows, channels] = *view;
  Tensor s = Tensor::zeros(x.kind, {2, channels});
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t i = r * channels + c;
      s.data[c] += dy.data[i];
      s.data[channels + c] += dy.data[i] * (x.data[i] - m.data[c]);
    }
  return s;
}

FailureOr<Tensor> evaluate(BatchNormTrainGradOp op, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0], &dy = *operands[1], &m = *operands[2],
               &gamma = *operands[3], &s = *operands[4];
  auto view = channelView(x, {&m, &s}, {&gamma}, {&dy}, report);
  if (failed(view))
    return failure();
  auto [rows, channels] = *view;
  double epsilon = op.getEpsilon().convertToFloat();
  Tensor dx = Tensor::zeros(x.kind, x.shape);
  for (int64_t c = 0; c < channels; ++c) {
    double r = 1.0 / std::sqrt(m.data[channels + c] + epsilon);
    double n = double(rows);
    double meanDy = s.data[c] / n, meanDyXc = s.data[channels + c] / n;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t i = row * channels + c;
      double xc = x.data[i] - m.data[c];
      dx.data[i] = gamma.data[c] * r * (dy.data[i] - meanDy - xc * r * r * meanDyXc);
    }
  }
  return dx;
}

FailureOr<Tensor> evaluate(Conv2DBackpropInputOp op, Operands operands,
                           Report &report) {
  const Tensor &dy = *operands[0], &kernel = *operands[1];
  if (failed(expectRank(dy, 4, "output gradient", report)) ||
      failed(expectRank(kernel, 4, "kernel", report)))
    return failure();
  std::vector<int64_t> inputSize = toInts(op.getInputSize());
  std::vector<int64_t> strides = toInts(op.getStrides()),
                       dilations = toInts(op.getDilations());
  int64_t groups = op.getGroups();
  int64_t kh = kernel.shape[0], kw = kernel.shape[1];
  int64_t groupIn = kernel.shape[2], out = kernel.shape[3];
  if (dy.shape[3] != out)
    return report.fail("output gradient " + shapeToString(dy.shape) +
                       " does not match kernel " + shapeToString(kernel.shape));
  auto geometry = gradientGeometry(inputSize, {kh, kw}, strides, dilations,
                                   op.getPadding(), dy, report);
  if (failed(geometry))
    return failure();
  auto [rows, cols] = *geometry;
  int64_t batch = dy.shape[0], groupOut = out / groups;
  Tensor dx = Tensor::zeros(dy.kind, {batch, inputSize[0], inputSize[1],
                                      groupIn * groups});
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < rows.outSize; ++oh)
      for (int64_t ow = 0; ow < cols.outSize; ++ow)
        for (int64_t co = 0; co < out; ++co) {
          int64_t firstIn = (co / groupOut) * groupIn;
          double g = dy.data[nhwc(dy, n, oh, ow, co)];
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t ih = oh * strides[0] - rows.padBefore + i * dilations[0];
              int64_t iw = ow * strides[1] - cols.padBefore + j * dilations[1];
              if (ih < 0 || ih >= inputSize[0] || iw < 0 || iw >= inputSize[1])
                continue;
              for (int64_t ci = 0; ci < groupIn; ++ci)
                dx.data[nhwc(dx, n, ih, iw, firstIn + ci)] +=
                    g * kernel.data[((i * kw + j) * groupIn + ci) * out + co];
            }
        }
  return dx;
}

FailureOr<Tensor> evaluate(Conv2DBackpropFilterOp op, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0], &dy = *operands[1];
  if (failed(expectRank(x, 4, "input", report)) ||
      failed(expectRank(dy, 4, "output gradient", report)))
    return failure();
  std::vector<int64_t> kernelSize = toInts(op.getKernelSize());
  std::vector<int64_t> strides = toInts(op.getStrides()),
                       dilations = toInts(op.getDilations());
  int64_t groups = op.getGroups();
  int64_t kh = kernelSize[0], kw = kernelSize[1];
  int64_t out = dy.shape[3], groupIn = x.shape[3] / groups,
          groupOut = out / groups;
  if (dy.shape[0] != x.shape[0])
    return report.fail("output gradient " + shapeToString(dy.shape) +
                       " and input " + shapeToString(x.shape) +
                       " differ in batch");
  auto geometry = gradientGeometry({x.shape[1], x.shape[2]}, kernelSize,
                                   strides, dilations, op.getPadding(), dy,
                                   report);
  if (failed(geometry))
    return failure();
  auto [rows, cols] = *geometry;
  Tensor dk = Tensor::zeros(x.kind, {kh, kw, groupIn, out});
  for (int64_t n = 0; n < x.shape[0]; ++n)
    for (int64_t oh = 0; oh < rows.outSize; ++oh)
      for (int64_t ow = 0; ow < cols.outSize; ++ow)
        for (int64_t co = 0; co < out; ++co) {
          int64_t firstIn = (co / groupOut) * groupIn;
          double g = dy.data[nhwc(dy, n, oh, ow, co)];
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t ih = oh * strides[0] - rows.padBefore + i * dilations[0];
              int64_t iw = ow * strides[1] - cols.padBefore + j * dilations[1];
              if (ih < 0 || ih >= x.shape[1] || iw < 0 || iw >= x.shape[2])
                continue;
              for (int64_t ci = 0; ci < groupIn; ++ci)
                dk.data[((i * kw + j) * groupIn + ci) * out + co] +=
                    g * x.data[nhwc(x, n, ih, iw, firstIn + ci)];
            }
        }
  return dk;
}

namespace {
/// max_pool2d_grad and avg_pool2d_grad: walks each window of each output
/// element like the forward pool does.
FailureOr<Tensor> poolGradient(const Tensor *x, const Tensor &dy,
                               llvm::ArrayRef<int64_t> inputSize,
                               ArrayAttr windowAttr, ArrayAttr stridesAttr,
                               StringRef padding, Report &report) {
  if (failed(expectRank(dy, 4, "output gradient", report)))
    return failure();
  std::vector<int64_t> window = toInts(windowAttr),
                       strides = toInts(stridesAttr);
  auto geometry = gradientGeometry(inputSize, window, strides, {1, 1}, padding,
                                   dy, report);
  if (failed(geometry))
    return failure();
  auto [rows, cols] = *geometry;
  int64_t batch = dy.shape[0], channels = dy.shape[3];
  Tensor dx =
      Tensor::zeros(dy.kind, {batch, inputSize[0], inputSize[1], channels});
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < rows.outSize; ++oh)
      for (int64_t ow = 0; ow < cols.outSize; ++ow)
        for (int64_t c = 0; c < channels; ++c) {
          std::vector<int64_t> taps; // input offsets of the real elements
          int64_t best = -1;
          double bestValue = 0.0;
          for (int64_t i = 0; i < window[0]; ++i)
            for (int64_t j = 0; j < window[1]; ++j) {
              int64_t ih = oh * strides[0] - rows.padBefore + i;
              int64_t iw = ow * strides[1] - cols.padBefore + j;
              if (ih < 0 || ih >= inputSize[0] || iw < 0 || iw >= inputSize[1])
                continue;
              int64_t offset = nhwc(dx, n, ih, iw, c);
              taps.push_back(offset);
              if (!x)
                continue;
              double v = x->data[offset];
              // The first maximum wins; a NaN counts as the maximum.
              if (best < 0 || (!std::isnan(bestValue) &&
                               (std::isnan(v) || v > bestValue))) {
                best = offset;
                bestValue = v;
              }
            }
          double g = dy.data[nhwc(dy, n, oh, ow, c)];
          if (x) {
            if (best >= 0)
              dx.data[best] += g;
            continue;
          }
          for (int64_t offset : taps)
            dx.data[offset] += g / double(taps.size());
        }
  return dx;
}
} // namespace

FailureOr<Tensor> evaluate(MaxPool2DGradOp op, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0];
  if (failed(expectRank(x, 4, "input", report)))
    return failure();
  if (operands[1]->rank() == 4 && operands[1]->shape[0] != x.shape[0])
    return report.fail("output gradient and input differ in batch");
  FailureOr<Tensor> dx =
      poolGradient(&x, *operands[1], {x.shape[1], x.shape[2]}, op.getWindow(),
                   op.getStrides(), op.getPadding(), report);
  // positive_only: the fused ReLU gradient keeps positive inputs only.
  if (succeeded(dx) && op.getPositiveOnly())
    for (size_t i = 0; i < dx->data.size(); ++i)
      if (!(x.data[i] > 0.0))
        dx->data[i] = 0.0;
  return dx;
}

FailureOr<Tensor> evaluate(AvgPool2DGradOp op, Operands operands,
                           Report &report) {
  return poolGradient(nullptr, *operands[0], toInts(op.getInputSize()),
                      op.getWindow(), op.getStrides(), op.getPadding(), report);
}

FailureOr<Tensor> evaluate(ResizeGradOp op, Operands operands, Report &report) {
  const Tensor &dy = *operands[0];
  if (failed(expectRank(dy, 4, "output gradient", report)))
    return failure();
  std::vector<int64_t> inputSize = toInts(op.getInputSize());
  bool bilinear = op.getMode() == "bilinear",
       halfPixel = op.getHalfPixelCenters();
  int64_t batch = dy.shape[0], outH = dy.shape[1], outW = dy.shape[2],
          channels = dy.shape[3], inH = inputSize[0], inW = inputSize[1];
  float scaleH = static_cast<float>(inH) / static_cast<float>(outH);
  float scaleW = static_cast<float>(inW) / static_cast<float>(outW);
  Tensor dx = Tensor::zeros(dy.kind, {batch, inH, inW, channels});
  auto at = [&](int64_t n, int64_t h, int64_t w, int64_t c) -> double & {
    return dx.data[((n * inH + h) * inW + w) * channels + c];
  };
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t c = 0; c < channels; ++c) {
          double g = dy.data[((n * outH + oh) * outW + ow) * channels + c];
          float srcH = resizeSource(oh, scaleH, halfPixel, bilinear);
          float srcW = resizeSource(ow, scaleW, halfPixel, bilinear);
          if (!bilinear) {
            at(n, nearestIndex(srcH, inH), nearestIndex(srcW, inW), c) += g;
            continue;
          }
          // value = top + (bottom - top) * r, top/bottom = a + (b - a) * s.
          Taps r = bilinearTaps(srcH, inH), s = bilinearTaps(srcW, inW);
          at(n, r.lower, s.lower, c) += g * (1 - r.lerp) * (1 - s.lerp);
          at(n, r.lower, s.upper, c) += g * (1 - r.lerp) * s.lerp;
          at(n, r.upper, s.lower, c) += g * r.lerp * (1 - s.lerp);
          at(n, r.upper, s.upper, c) += g * r.lerp * s.lerp;
        }
  return dx;
}

FailureOr<Tensor> evaluate(GatherGradOp op, Operands operands, Report &report) {
  // dtable[o..., indices[j...], i...] += dy[o..., j..., i...].
  const Tensor &dy = *operands[0], &indices = *operands[1];
  int64_t axis = op.getAxis(), dim = op.getSize();
  llvm::ArrayRef<int64_t> dyShape = dy.shape;
  int64_t count = indices.numElements();
  if (dy.rank() < axis + indices.rank())
    return report.fail("output gradient " + shapeToString(dy.shape) +
                       " does not match indices " +
                       shapeToString(indices.shape));
  std::vector<int64_t> shape(dyShape.begin(), dyShape.begin() + axis);
  shape.push_back(dim);
  shape.insert(shape.end(), dyShape.begin() + axis + indices.rank(),
               dyShape.end());
  int64_t outer = numElementsOf(dyShape.take_front(axis));
  int64_t inner = numElementsOf(dyShape.drop_front(axis + indices.rank()));
  Tensor dt = Tensor::zeros(dy.kind, shape);
  if (failed(checkGatherIndices(indices, dim, report)))
    return failure();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t index = static_cast<int64_t>(indices.data[j]);
      for (int64_t i = 0; i < inner; ++i)
        dt.data[(o * dim + index) * inner + i] +=
            dy.data[(o * count + j) * inner + i];
    }
  return dt;
}

} // namespace tfcc::ref::detail
