//===- Convolution.cpp - evaluators of products, convolutions, pooling ----===//
//
// Every sum starts at 0.0 in double and adds its terms in the order of the
// loops written here (innermost index fastest); the bias comes last.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Reference/Evaluators.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::ref::detail {

/// TF output size and leading padding of a spatial dimension. VALID:
/// out = (in - span) / stride + 1 (0 if the window does not fit). SAME:
/// out = ceil(in / stride), total padding = max((out - 1) * stride + span -
/// in, 0) with span = (k - 1) * dilation + 1, and the odd row or column goes
/// after (bottom/right): padBefore = total / 2.
FailureOr<WindowGeometry> windowGeometry(int64_t in, int64_t kernel,
                                         int64_t stride, int64_t dilation,
                                         StringRef padding, Report &report) {
  if (stride < 1 || dilation < 1 || kernel < 1)
    return report.fail("window size, strides and dilations must be positive");
  int64_t span = (kernel - 1) * dilation + 1;
  if (padding == "valid")
    return WindowGeometry{in >= span ? (in - span) / stride + 1 : 0, 0};
  if (padding == "same") {
    int64_t out = (in + stride - 1) / stride;
    int64_t total = std::max<int64_t>((out - 1) * stride + span - in, 0);
    return WindowGeometry{out, total / 2};
  }
  return report.fail("unknown padding '" + padding + "'");
}

namespace {

/// Checks an optional bias of `channels` elements.
LogicalResult checkBias(const Tensor *bias, int64_t channels, Report &report) {
  if (!bias || (bias->rank() == 1 && bias->shape[0] == channels))
    return success();
  return report.fail("bias has shape " + shapeToString(bias->shape) +
                     ", expected [" + llvm::Twine(channels) + "]");
}


/// Shared by conv2d (groups >= 1) and depthwise_conv2d (multiplier >= 1).
struct ConvParams {
  std::vector<int64_t> strides, dilations;
  StringRef padding;
};

/// Computes output geometry of a 2-D window op over the H and W of `x`.
FailureOr<std::pair<WindowGeometry, WindowGeometry>>
spatialGeometry(const Tensor &x, int64_t kh, int64_t kw,
                const ConvParams &params, Report &report) {
  if (params.strides.size() != 2 || params.dilations.size() != 2)
    return report.fail("strides and dilations must have 2 elements");
  FailureOr<WindowGeometry> rows =
      windowGeometry(x.shape[1], kh, params.strides[0], params.dilations[0],
                     params.padding, report);
  if (failed(rows))
    return failure();
  FailureOr<WindowGeometry> cols =
      windowGeometry(x.shape[2], kw, params.strides[1], params.dilations[1],
                     params.padding, report);
  if (failed(cols))
    return failure();
  return std::make_pair(*rows, *cols);
}

/// max_pool2d and avg_pool2d: padded positions are never read, so max ignores
/// the padding and avg divides by the count of real elements.
template <typename PoolOp>
FailureOr<Tensor> pool(PoolOp op, const Tensor &x, bool isMax, Report &report) {
  if (failed(expectRank(x, 4, "input", report)))
    return failure();
  std::vector<int64_t> window = toInts(op.getWindow());
  if (window.size() != 2)
    return report.fail("window must have 2 elements");
  ConvParams params{toInts(op.getEffectiveStrides()), {1, 1}, op.getPadding()};
  auto geometry = spatialGeometry(x, window[0], window[1], params, report);
  if (failed(geometry))
    return failure();
  auto [rows, cols] = *geometry;
  int64_t batch = x.shape[0], height = x.shape[1], width = x.shape[2],
          channels = x.shape[3];
  Tensor y = Tensor::zeros(x.kind,
                           {batch, rows.outSize, cols.outSize, channels});
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < rows.outSize; ++oh)
      for (int64_t ow = 0; ow < cols.outSize; ++ow)
        for (int64_t c = 0; c < channels; ++c) {
          double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
          int64_t count = 0;
          for (int64_t i = 0; i < window[0]; ++i)
            for (int64_t j = 0; j < window[1]; ++j) {
              int64_t ih = oh * params.strides[0] - rows.padBefore + i;
              int64_t iw = ow * params.strides[1] - cols.padBefore + j;
              if (ih < 0 || ih >= height || iw < 0 || iw >= width)
                continue;
              double v = x.data[nhwc(x, n, ih, iw, c)];
              if (!isMax)
                acc += v;
              else if (std::isnan(v) || std::isnan(acc))
                acc =
                    std::numeric_limits<double>::quiet_NaN(); // NaN propagates
              else
                acc = std::max(acc, v);
              ++count;
            }
          y.data[nhwc(y, n, oh, ow, c)] =
              isMax ? acc : acc / static_cast<double>(count);
        }
  return y;
}

/// global_avg_pool2d and global_max_pool2d: [n, h, w, c] -> [n, c], rows
/// then columns.
FailureOr<Tensor> globalPool(const Tensor &x, bool isMax, Report &report) {
  if (failed(expectRank(x, 4, "input", report)))
    return failure();
  int64_t batch = x.shape[0], height = x.shape[1], width = x.shape[2],
          channels = x.shape[3];
  Tensor y = Tensor::zeros(x.kind, {batch, channels});
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t h = 0; h < height; ++h)
        for (int64_t w = 0; w < width; ++w) {
          double v = x.data[nhwc(x, n, h, w, c)];
          if (!isMax)
            acc += v;
          else if (std::isnan(v) || std::isnan(acc))
            acc = std::numeric_limits<double>::quiet_NaN();
          else
            acc = std::max(acc, v);
        }
      y.data[n * channels + c] =
          isMax ? acc : acc / static_cast<double>(height * width);
    }
  return y;
}

} // namespace

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(MatmulOp op, Operands operands, Report &report) {
  const Tensor &a = *operands[0], &b = *operands[1];
  if (a.rank() < 2 || b.rank() < 2)
    return report.fail("matmul operands have shapes " + shapeToString(a.shape) +
                       " and " + shapeToString(b.shape) +
                       ", expected rank >= 2");
  bool transposeA = op.getTransposeA(), transposeB = op.getTransposeB();
  // Stored matrix sizes, then the logical [m, k] @ [k, n].
  int64_t aRows = a.shape[a.rank() - 2], aCols = a.shape[a.rank() - 1];
  int64_t bRows = b.shape[b.rank() - 2], bCols = b.shape[b.rank() - 1];
  int64_t m = transposeA ? aCols : aRows, k = transposeA ? aRows : aCols;
  int64_t kb = transposeB ? bCols : bRows, n = transposeB ? bRows : bCols;
  if (k != kb)
    return report.fail("matmul contraction sizes differ: " + llvm::Twine(k) +
                       " vs " + llvm::Twine(kb));
  llvm::ArrayRef<int64_t> aBatch = llvm::ArrayRef(a.shape).drop_back(2);
  llvm::ArrayRef<int64_t> bBatch = llvm::ArrayRef(b.shape).drop_back(2);
  FailureOr<std::vector<int64_t>> batch =
      broadcastShapes(aBatch, bBatch, report);
  if (failed(batch))
    return failure();
  std::vector<int64_t> shape = *batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor c = Tensor::zeros(a.kind, shape);
  int64_t batchCount = numElementsOf(*batch);
  for (int64_t bi = 0; bi < batchCount; ++bi) {
    std::vector<int64_t> index = unravel(bi, *batch);
    const double *aMat =
        &a.data[broadcastOffset(index, aBatch) * aRows * aCols];
    const double *bMat =
        &b.data[broadcastOffset(index, bBatch) * bRows * bCols];
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t p = 0; p < k; ++p) {
          double av = transposeA ? aMat[p * aCols + i] : aMat[i * aCols + p];
          double bv = transposeB ? bMat[j * bCols + p] : bMat[p * bCols + j];
          sum += av * bv;
        }
        c.data[(bi * m + i) * n + j] = sum;
      }
  }
  return c;
}

FailureOr<Tensor> evaluate(DenseOp, Operands operands, Report &report) {
  const Tensor &x = *operands[0], &kernel = *operands[1];
  const Tensor *bias = operands.size() > 2 ? operands[2] : nullptr;
  if (x.rank() < 1 || kernel.rank() != 2 || x.shape.back() != kernel.shape[0])
    return report.fail("dense input " + shapeToString(x.shape) +
                       " does not match kernel " + shapeToString(kernel.shape));
  int64_t in = kernel.shape[0], out = kernel.shape[1];
  if (failed(checkBias(bias, out, report)))
    return failure();
  std::vector<int64_t> shape = x.shape;
  shape.back() = out;
  Tensor y = Tensor::zeros(x.kind, shape);
  int64_t rows = numElementsOf(llvm::ArrayRef(x.shape).drop_back());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < out; ++j) {
      double sum = 0.0;
      for (int64_t p = 0; p < in; ++p)
        sum += x.data[r * in + p] * kernel.data[p * out + j];
      if (bias)
        sum += bias->data[j];
      y.data[r * out + j] = sum;
    }
  return y;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(Conv2DOp op, Operands operands, Report &report) {
  const Tensor &x = *operands[0], &kernel = *operands[1];
  const Tensor *bias = operands.size() > 2 ? operands[2] : nullptr;
  if (failed(expectRank(x, 4, "input", report)) ||
      failed(expectRank(kernel, 4, "kernel", report)))
    return failure();
  int64_t groups = static_cast<int64_t>(op.getGroups());
  int64_t kh = kernel.shape[0], kw = kernel.shape[1];
  int64_t groupIn = kernel.shape[2], out = kernel.shape[3];
  int64_t batch = x.shape[0], height = x.shape[1], width = x.shape[2];
  if (groups < 1 || x.shape[3] != groupIn * groups || out % groups != 0)
    return report.fail("conv2d input " + shapeToString(x.shape) +
                       " does not match kernel " + shapeToString(kernel.shape) +
                       " with " + llvm::Twine(groups) + " groups");
  if (failed(checkBias(bias, out, report)))
    return failure();
  ConvParams params{toInts(op.getStrides()), toInts(op.getDilations()),
                    op.getPadding()};
  auto geometry = spatialGeometry(x, kh, kw, params, report);
  if (failed(geometry))
    return failure();
  auto [rows, cols] = *geometry;
  int64_t groupOut = out / groups;
  Tensor y =
      Tensor::zeros(x.kind, {batch, rows.outSize, cols.outSize, out});
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < rows.outSize; ++oh)
      for (int64_t ow = 0; ow < cols.outSize; ++ow)
        for (int64_t co = 0; co < out; ++co) {
          // Output channel co reads the input channels of its group.
          int64_t firstIn = (co / groupOut) * groupIn;
          double sum = 0.0;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t ih = oh * params.strides[0] - rows.padBefore +
                           i * params.dilations[0];
              int64_t iw = ow * params.strides[1] - cols.padBefore +
                           j * params.dilations[1];
              if (ih < 0 || ih >= height || iw < 0 || iw >= width)
                continue; // zero padding contributes nothing
              for (int64_t ci = 0; ci < groupIn; ++ci)
                sum += x.data[nhwc(x, n, ih, iw, firstIn + ci)] *
                       kernel.data[((i * kw + j) * groupIn + ci) * out + co];
            }
          if (bias)
            sum += bias->data[co];
          y.data[nhwc(y, n, oh, ow, co)] = sum;
        }
  return y;
}

FailureOr<Tensor> evaluate(DepthwiseConv2DOp op, Operands operands,
                           Report &report) {
  const Tensor &x = *operands[0], &kernel = *operands[1];
  const Tensor *bias = operands.size() > 2 ? operands[2] : nullptr;
  if (failed(expectRank(x, 4, "input", report)) ||
      failed(expectRank(kernel, 4, "kernel", report)))
    return failure();
  int64_t kh = kernel.shape[0], kw = kernel.shape[1];
  int64_t channels = kernel.shape[2], multiplier = kernel.shape[3];
  int64_t batch = x.shape[0], height = x.shape[1], width = x.shape[2];
  if (x.shape[3] != channels)
    return report.fail("depthwise_conv2d input " + shapeToString(x.shape) +
                       " does not match kernel " + shapeToString(kernel.shape));
  int64_t out = channels * multiplier;
  if (failed(checkBias(bias, out, report)))
    return failure();
  ConvParams params{toInts(op.getStrides()), toInts(op.getDilations()),
                    op.getPadding()};
  auto geometry = spatialGeometry(x, kh, kw, params, report);
  if (failed(geometry))
    return failure();
  auto [rows, cols] = *geometry;
  Tensor y =
      Tensor::zeros(x.kind, {batch, rows.outSize, cols.outSize, out});
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oh = 0; oh < rows.outSize; ++oh)
      for (int64_t ow = 0; ow < cols.outSize; ++ow)
        for (int64_t ci = 0; ci < channels; ++ci)
          for (int64_t mi = 0; mi < multiplier; ++mi) {
            double sum = 0.0;
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t ih = oh * params.strides[0] - rows.padBefore +
                             i * params.dilations[0];
                int64_t iw = ow * params.strides[1] - cols.padBefore +
                             j * params.dilations[1];
                if (ih < 0 || ih >= height || iw < 0 || iw >= width)
                  continue;
                sum +=
                    x.data[nhwc(x, n, ih, iw, ci)] *
                    kernel
                        .data[((i * kw + j) * channels + ci) * multiplier + mi];
              }
            int64_t co = ci * multiplier + mi;
            if (bias)
              sum += bias->data[co];
            y.data[nhwc(y, n, oh, ow, co)] = sum;
          }
  return y;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evaluate(MaxPool2DOp op, Operands operands, Report &report) {
  return pool(op, *operands[0], /*isMax=*/true, report);
}

FailureOr<Tensor> evaluate(AvgPool2DOp op, Operands operands, Report &report) {
  return pool(op, *operands[0], /*isMax=*/false, report);
}

FailureOr<Tensor> evaluate(GlobalAvgPool2DOp, Operands operands,
                           Report &report) {
  return globalPool(*operands[0], /*isMax=*/false, report);
}

FailureOr<Tensor> evaluate(GlobalMaxPool2DOp, Operands operands,
                           Report &report) {
  return globalPool(*operands[0], /*isMax=*/true, report);
}

} // namespace tfcc::ref::detail
