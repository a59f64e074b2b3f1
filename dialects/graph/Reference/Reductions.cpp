//===- Reductions.cpp - evaluators of reductions, softmax, norms, losses --===//
//
// Sums run in double, starting at 0.0, adding terms in row-major order of
// the input (along the reduced axis for softmax and norms). max and min
// propagate NaN.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Reference/Evaluators.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::ref::detail {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Reduction { Sum, Mean, Max, Min };

/// Reduces `x` over `axesAttr` (negative axes count from the end). Each
/// result element folds its inputs in row-major order; an empty reduction
/// gives 0 (sum), NaN (f32 mean), -inf / +inf (f32 max / min) or the
/// integer kind's lowest / highest value.
FailureOr<Tensor> reduce(const Tensor &x, ArrayAttr axesAttr, bool keepDims,
                         Reduction kind, Report &report) {
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t axis : toInts(axesAttr)) {
    FailureOr<int64_t> normalized = normalizeAxis(axis, x.rank(), report);
    if (failed(normalized))
      return failure();
    if (reduced[*normalized])
      return report.fail("axis " + llvm::Twine(axis) + " is reduced twice");
    reduced[*normalized] = true;
  }
  // The result with reduced dimensions kept as 1; keep_dims only changes
  // the shape, never the order of the values.
  std::vector<int64_t> keptShape, resultShape;
  int64_t count = 1;
  for (int64_t i = 0; i < x.rank(); ++i) {
    keptShape.push_back(reduced[i] ? 1 : x.shape[i]);
    if (reduced[i])
      count *= x.shape[i];
    if (!reduced[i] || keepDims)
      resultShape.push_back(keptShape.back());
  }

  bool isFloat = isFloatKind(x.kind);
  double lowest = isFloat ? -kInfinity : integerRangeOf(x.kind).lowest;
  double highest = isFloat ? kInfinity : integerRangeOf(x.kind).highest;
  double init = kind == Reduction::Max   ? lowest
                : kind == Reduction::Min ? highest
                                         : 0.0;
  Tensor y = Tensor::zeros(x.kind, resultShape);
  std::fill(y.data.begin(), y.data.end(), init);
  std::vector<int64_t> intSums(isFloat ? 0 : y.data.size(), 0);

  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t out = broadcastOffset(unravel(i, x.shape), keptShape);
    double v = x.data[i];
    double &acc = y.data[out];
    switch (kind) {
    case Reduction::Sum:
    case Reduction::Mean:
      if (isFloat)
        acc += v;
      else // wrapping int64 sum, wrapped to the width afterwards
        intSums[out] = static_cast<int64_t>(
            static_cast<uint64_t>(intSums[out]) +
            static_cast<uint64_t>(static_cast<int64_t>(v)));
      break;
    case Reduction::Max:
      acc = (std::isnan(acc) || std::isnan(v)) ? kNaN : std::max(acc, v);
      break;
    case Reduction::Min:
      acc = (std::isnan(acc) || std::isnan(v)) ? kNaN : std::min(acc, v);
      break;
    }
  }

  if (kind == Reduction::Sum || kind == Reduction::Mean) {
    for (size_t out = 0; out < y.data.size(); ++out) {
      if (isFloat) {
        if (kind == Reduction::Mean)
          y.data[out] /= static_cast<double>(count);
        continue;
      }
      int64_t sum = intSums[out];
      if (kind == Reduction::Mean) {
        if (count == 0)
          return report.fail("integer mean of zero elements");
        sum /= count; // truncates toward zero, like TF's integer mean
      }
      y.data[out] = static_cast<double>(sum);
    }
  }
  return y;
}

/// The tensor seen as [outer, size, inner] around `axis`.
struct AxisView {
  int64_t outer = 1, size = 1, inner = 1;
  /// Offset of element `k` along the axis in row (o, i).
  int64_t at(int64_t o, int64_t k, int64_t i) const {
    return (o * size + k) * inner + i;
  }
};

FailureOr<AxisView> viewAround(const Tensor &x, int64_t axis, Report &report) {
  FailureOr<int64_t> normalized = normalizeAxis(axis, x.rank(), report);
  if (failed(normalized))
    return failure();
  AxisView view;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (i < *normalized)
      view.outer *= x.shape[i];
    else if (i == *normalized)
      view.size = x.shape[i];
    else
      view.inner *= x.shape[i];
  }
  return view;
}

/// softmax (log = false) or log_softmax (log = true) along `axis`: with m
/// the maximum and s = sum exp(x - m), softmax = exp(x - m) / s and
/// log_softmax = (x - m) - log(s).
FailureOr<Tensor> softmax(const Tensor &x, int64_t axis, bool log,
                          Report &report) {
  FailureOr<AxisView> view = viewAround(x, axis, report);
  if (failed(view))
    return failure();
  Tensor y = x;
  for (int64_t o = 0; o < view->outer; ++o)
    for (int64_t i = 0; i < view->inner; ++i) {
      double max = -kInfinity;
      for (int64_t k = 0; k < view->size; ++k) {
        double v = x.data[view->at(o, k, i)];
        max = (std::isnan(max) || std::isnan(v)) ? kNaN : std::max(max, v);
      }
      double sum = 0.0;
      for (int64_t k = 0; k < view->size; ++k)
        sum += std::exp(x.data[view->at(o, k, i)] - max);
      for (int64_t k = 0; k < view->size; ++k) {
        double shifted = x.data[view->at(o, k, i)] - max;
        y.data[view->at(o, k, i)] =
            log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
  return y;
}

/// -log_softmax of row `row` of `logits` [n, c], for each class, in double.
std::vector<double> negLogSoftmaxRow(const Tensor &logits, int64_t row) {
  int64_t classes = logits.shape[1];
  const double *x = &logits.data[row * classes];
  double max = -kInfinity;
  for (int64_t j = 0; j < classes; ++j)
    max = (std::isnan(max) || std::isnan(x[j])) ? kNaN : std::max(max, x[j]);
  double sum = 0.0;
  for (int64_t j = 0; j < classes; ++j)
    sum += std::exp(x[j] - max);
  std::vector<double> result(classes);
  for (int64_t j = 0; j < classes; ++j)
    result[j] = std::log(sum) - (x[j] - max);
  return result;
}

LogicalResult expectLogits(const Tensor &logits, Report &report) {
  if (logits.rank() == 2)
    return success();
  return report.fail("logits have shape " + shapeToString(logits.shape) +
                     ", expected [n, c]");
}

Tensor scalar(double value) {
  Tensor t = Tensor::zeros(ElementKind::F32, {});
  t.data[0] = value;
  return t;
}

} // namespace

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(ReduceSumOp op, Operands operands, Report &report) {
  return reduce(*operands[0], op.getAxes(), op.getKeepDims(), Reduction::Sum,
                report);
}

FailureOr<Tensor> evaluate(ReduceMeanOp op, Operands operands, Report &report) {
  return reduce(*operands[0], op.getAxes(), op.getKeepDims(), Reduction::Mean,
                report);
}

FailureOr<Tensor> evaluate(ReduceMaxOp op, Operands operands, Report &report) {
  return reduce(*operands[0], op.getAxes(), op.getKeepDims(), Reduction::Max,
                report);
}

FailureOr<Tensor> evaluate(ReduceMinOp op, Operands operands, Report &report) {
  return reduce(*operands[0], op.getAxes(), op.getKeepDims(), Reduction::Min,
                report);
}

FailureOr<Tensor> evaluate(ArgmaxOp op, Operands operands, Report &report) {
  const Tensor &x = *operands[0];
  int64_t axis = static_cast<int64_t>(op.getAxis());
  FailureOr<AxisView> view = viewAround(x, axis, report);
  if (failed(view))
    return failure();
  if (view->size == 0)
    return report.fail("argmax over an empty axis");
  std::vector<int64_t> shape = x.shape;
  shape.erase(shape.begin() + (axis < 0 ? axis + x.rank() : axis));
  Tensor y = Tensor::zeros(ElementKind::I32, shape);
  for (int64_t o = 0; o < view->outer; ++o)
    for (int64_t i = 0; i < view->inner; ++i) {
      // The first maximum wins ties; a NaN counts as the maximum (the first
      // NaN wins), like NaN-propagating max.
      int64_t best = 0;
      double bestValue = x.data[view->at(o, 0, i)];
      for (int64_t k = 1; k < view->size && !std::isnan(bestValue); ++k) {
        double v = x.data[view->at(o, k, i)];
        if (std::isnan(v) || v > bestValue) {
          best = k;
          bestValue = v;
        }
      }
      y.data[o * view->inner + i] = static_cast<double>(best);
    }
  return y;
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(SoftmaxOp op, Operands operands, Report &report) {
  return softmax(*operands[0], static_cast<int64_t>(op.getAxis()),
                 /*log=*/false, report);
}

FailureOr<Tensor> evaluate(LogSoftmaxOp op, Operands operands, Report &report) {
  return softmax(*operands[0], static_cast<int64_t>(op.getAxis()), /*log=*/true,
                 report);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(BatchNormOp op, Operands operands, Report &report) {
  // Inference form over the last axis: (x - mean) / sqrt(variance + eps) *
  // gamma + beta, in double.
  const Tensor &x = *operands[0];
  if (x.rank() < 1)
    return report.fail("batch_norm input must have rank >= 1");
  int64_t channels = x.shape.back();
  const char *names[] = {"gamma", "beta", "mean", "variance"};
  for (int i = 0; i < 4; ++i)
    if (operands[i + 1]->shape != std::vector<int64_t>{channels})
      return report.fail(llvm::Twine(names[i]) + " has shape " +
                         shapeToString(operands[i + 1]->shape) +
                         ", expected [" + llvm::Twine(channels) + "]");
  const Tensor &gamma = *operands[1], &beta = *operands[2],
               &mean = *operands[3], &variance = *operands[4];
  double epsilon = op.getEpsilon().convertToFloat();
  Tensor y = x;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t c = i % channels;
    y.data[i] = (x.data[i] - mean.data[c]) /
                    std::sqrt(variance.data[c] + epsilon) * gamma.data[c] +
                beta.data[c];
  }
  return y;
}

FailureOr<Tensor> evaluate(LayerNormOp op, Operands operands, Report &report) {
  // Normalizes each group of the axes [axis, rank): mean, then the biased
  // variance mean((x - mean)^2) in a second pass; gamma and beta have the
  // shape of those axes.
  const Tensor &x = *operands[0], &gamma = *operands[1], &beta = *operands[2];
  FailureOr<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(op.getAxis()), x.rank(), report);
  if (failed(axis))
    return failure();
  std::vector<int64_t> normShape(x.shape.begin() + *axis, x.shape.end());
  if (gamma.shape != normShape || beta.shape != normShape)
    return report.fail(
        "gamma and beta have shapes " + shapeToString(gamma.shape) + " and " +
        shapeToString(beta.shape) + ", expected " + shapeToString(normShape));
  double epsilon = op.getEpsilon().convertToFloat();
  int64_t size = numElementsOf(normShape);
  int64_t groups = size == 0 ? 0 : x.numElements() / size;
  Tensor y = x;
  for (int64_t g = 0; g < groups; ++g) {
    const double *row = &x.data[g * size];
    double mean = 0.0;
    for (int64_t j = 0; j < size; ++j)
      mean += row[j];
    mean /= static_cast<double>(size);
    double variance = 0.0;
    for (int64_t j = 0; j < size; ++j)
      variance += (row[j] - mean) * (row[j] - mean);
    variance /= static_cast<double>(size);
    double scale = 1.0 / std::sqrt(variance + epsilon);
    for (int64_t j = 0; j < size; ++j)
      y.data[g * size + j] =
          (row[j] - mean) * scale * gamma.data[j] + beta.data[j];
  }
  return y;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(SparseSoftmaxCrossEntropyOp, Operands operands,
                           Report &report) {
  // mean over the batch of -log_softmax(logits)[label].
  const Tensor &logits = *operands[0], &labels = *operands[1];
  if (failed(expectLogits(logits, report)))
    return failure();
  int64_t batch = logits.shape[0], classes = logits.shape[1];
  if (labels.shape != std::vector<int64_t>{batch})
    return report.fail("labels have shape " + shapeToString(labels.shape) +
                       ", expected [" + llvm::Twine(batch) + "]");
  double sum = 0.0;
  for (int64_t n = 0; n < batch; ++n) {
    int64_t label = static_cast<int64_t>(labels.data[n]);
    if (label < 0 || label >= classes)
      return report.fail("label " + llvm::Twine(label) + " out of range [0, " +
                         llvm::Twine(classes) + ") in row " + llvm::Twine(n));
    sum += negLogSoftmaxRow(logits, n)[label];
  }
  return scalar(sum / static_cast<double>(batch));
}

FailureOr<Tensor> evaluate(SoftmaxCrossEntropyOp, Operands operands,
                           Report &report) {
  // mean over the batch of -sum_j p_j * log_softmax(logits)_j.
  const Tensor &logits = *operands[0], &targets = *operands[1];
  if (failed(expectLogits(logits, report)))
    return failure();
  if (targets.shape != logits.shape)
    return report.fail("targets have shape " + shapeToString(targets.shape) +
                       ", expected " + shapeToString(logits.shape));
  int64_t batch = logits.shape[0], classes = logits.shape[1];
  double sum = 0.0;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<double> negLogProbs = negLogSoftmaxRow(logits, n);
    double row = 0.0;
    for (int64_t j = 0; j < classes; ++j)
      row += targets.data[n * classes + j] * negLogProbs[j];
    sum += row;
  }
  return scalar(sum / static_cast<double>(batch));
}

FailureOr<Tensor> evaluate(MeanSquaredErrorOp, Operands operands,
                           Report &report) {
  // mean over all elements (of the broadcast shape) of (prediction - target)^2.
  const Tensor &prediction = *operands[0], &target = *operands[1];
  FailureOr<std::vector<int64_t>> shape =
      broadcastShapes(prediction.shape, target.shape, report);
  if (failed(shape))
    return failure();
  int64_t count = numElementsOf(*shape);
  double sum = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    std::vector<int64_t> index = unravel(i, *shape);
    double diff = prediction.data[broadcastOffset(index, prediction.shape)] -
                  target.data[broadcastOffset(index, target.shape)];
    sum += diff * diff;
  }
  return scalar(sum / static_cast<double>(count));
}

} // namespace tfcc::ref::detail
