//===- NN3D.cpp - ONNX 3-D convolution and pooling ------------------------===//
//
// Conv, MaxPool and AveragePool over NCDHW inputs. The graph IR has only 2-D
// convolution and pooling, so a 3-D window is decomposed along depth: output
// depth od reads input depth od * sd - padFront + kd * dd for each kernel tap
// kd in [0, KD). For one tap, the input depths read by all output depths form
// a strided slice of the depth axis; with the input laid out [D, N, H, W, C]
// each tap is
//
//   slice (depth, stride sd) -> reshape [OD' * N, H, W, C] -> 2-D op
//     -> reshape [OD', N, OH, OW, O] -> pad depth to OD
//
// where OD' counts the output depths for which tap kd reads a real (not
// padded) depth; the depth pad fills the others with the combination's
// identity (0 for sums, -inf for max), which is what zero or -inf padding of
// the depth axis would contribute. The taps are combined with graph.add
// (Conv, AveragePool) or graph.maximum (MaxPool), and [OD, N, OH, OW, O] is
// transposed back to NCDHW. A node costs KD 2-D ops, whatever its depth.
//
// Height and width are padded as by the 2-D converters: TF's SAME padding of
// the 2-D op where the pads equal it, else an explicit graph.pad (zeros for
// Conv and AveragePool, -inf for MaxPool) and VALID.
//
// AveragePool: every tap's avg_pool2d runs on the explicitly zero-padded
// slice, so it returns (sum over its H-W window) / (KH * KW). The sum over the
// taps is then scaled per output position (od, oh, ow) by a host-computed
// factor: KH * KW / (count of real elements in the 3-D window) for
// count_include_pad = 0, 1 / KD for count_include_pad = 1.
//
// All dimensions but the batch must be static.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/NN3D.h"

#include "compiler/onnx/HostFolding.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace tfcc::onnx_import;

namespace {

/// NCDHW -> [D, N, H, W, C], and back.
constexpr int64_t kToDNHWC[] = {2, 0, 3, 4, 1};
constexpr int64_t kFromDNHWC[] = {1, 4, 0, 2, 3};
/// OIDHW -> [KD, KH, KW, I, O]: per depth tap an HWIO kernel.
constexpr int64_t kToDHWIO[] = {2, 3, 4, 1, 0};

std::string listString(llvm::ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

/// Total SAME padding of one dimension (ONNX and TF agree on it).
int64_t sameTotal(int64_t in, int64_t k, int64_t s, int64_t d) {
  int64_t out = (in + s - 1) / s;
  return std::max<int64_t>((out - 1) * s + (k - 1) * d + 1 - in, 0);
}

/// A 3-D window over depth, height and width (index 0, 1, 2).
struct Window3D {
  int64_t in[3], kernel[3], stride[3], dilation[3], out[3];
  int64_t begin[3] = {0, 0, 0}, end[3] = {0, 0, 0}; // pads
  /// The height and width pads are TF's SAME: the 2-D op pads itself.
  bool sameHW = false;
  bool padsHW() const { return begin[1] || end[1] || begin[2] || end[2]; }
};

/// The rank-5 f32 input 0, static but for the batch.
FailureOr<RankedTensorType> input3DType(ImportContext &ctx) {
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.unsupported("input of unknown type or rank");
  if (!type.getElementType().isF32())
    return ctx.unsupported(
        llvm::formatv("3-D input of type {0} (expected f32)", type).str());
  for (int64_t d = 1; d < 5; ++d)
    if (type.isDynamicDim(d))
      return ctx.unsupported(
          llvm::formatv("3-D input {0} with a dynamic dimension other than "
                        "the batch",
                        type)
              .str());
  return type;
}

/// Reads strides, dilations, pads, auto_pad (and, for pooling, ceil_mode)
/// for the window `kernel` over the spatial dims of `xType`.
FailureOr<Window3D> readWindow3D(ImportContext &ctx, RankedTensorType xType,
                                 llvm::ArrayRef<int64_t> kernel,
                                 bool pooling) {
  Window3D w;
  std::vector<int64_t> strides = ctx.attrInts("strides", {1, 1, 1});
  std::vector<int64_t> dilations = ctx.attrInts("dilations", {1, 1, 1});
  auto positive3 = [](const std::vector<int64_t> &v) {
    return v.size() == 3 && llvm::all_of(v, [](int64_t x) { return x >= 1; });
  };
  if (!positive3(strides))
    return ctx.unsupported("attribute 'strides' = " + listString(strides));
  if (!positive3(dilations) ||
      (pooling && dilations != std::vector<int64_t>{1, 1, 1}))
    return ctx.unsupported("attribute 'dilations' = " + listString(dilations));
  for (int i = 0; i < 3; ++i) {
    w.in[i] = xType.getDimSize(2 + i);
    w.kernel[i] = kernel[i];
    w.stride[i] = strides[i];
    w.dilation[i] = dilations[i];
  }
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int i = 0; i < 3; ++i) {
      int64_t total = sameTotal(w.in[i], w.kernel[i], w.stride[i], w.dilation[i]);
      bool upper = autoPad == "SAME_UPPER";
      w.begin[i] = upper ? total / 2 : total - total / 2;
      w.end[i] = total - w.begin[i];
    }
  } else if (autoPad == "NOTSET") {
    std::vector<int64_t> pads = ctx.attrInts("pads", {0, 0, 0, 0, 0, 0});
    if (pads.size() != 6 || llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return ctx.unsupported("attribute 'pads' = " + listString(pads));
    for (int i = 0; i < 3; ++i) {
      w.begin[i] = pads[i];
      w.end[i] = pads[3 + i];
    }
  } else if (autoPad != "VALID") {
    return ctx.unsupported("attribute 'auto_pad' = \"" + autoPad + "\"");
  }
  bool ceilMode = pooling && ctx.attrInt("ceil_mode", 0) != 0;
  for (int i = 0; i < 3; ++i) {
    int64_t effective = (w.kernel[i] - 1) * w.dilation[i] + 1;
    int64_t span = w.in[i] + w.begin[i] + w.end[i] - effective;
    if (span < 0)
      return ctx.unsupported(
          llvm::formatv("window {0} larger than the padded input {1}",
                        listString(kernel), xType)
              .str());
    w.out[i] = span / w.stride[i] + 1;
    if (ceilMode && (span + w.stride[i] - 1) / w.stride[i] + 1 != w.out[i])
      return ctx.unsupported("attribute 'ceil_mode' = 1 (it changes the "
                             "output size here)");
  }
  w.sameHW = w.padsHW();
  for (int i = 1; i < 3; ++i) {
    int64_t total = sameTotal(w.in[i], w.kernel[i], w.stride[i], w.dilation[i]);
    w.sameHW &= w.begin[i] == total / 2 && w.end[i] == total - total / 2 &&
                w.out[i] == (w.in[i] + w.stride[i] - 1) / w.stride[i];
  }
  return w;
}

/// Input 0 as [D, N, H, W, C], its height and width padded explicitly with
/// `padValue` unless `padHW` is false.
FailureOr<Value> inputDNHWC(ImportContext &ctx, const Window3D &w,
                            float padValue, bool padHW) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Value t = ctx.transpose(*x, kToDNHWC);
  if (!padHW || !w.padsHW())
    return t;
  OpBuilder &b = ctx.builder();
  return ctx.create<graph::PadOp>(
      t,
      b.getI64ArrayAttr(
          {0, 0, 0, 0, w.begin[1], w.end[1], w.begin[2], w.end[2], 0, 0}),
      b.getF32FloatAttr(padValue));
}

/// A 2-D op applied to one depth tap: [M, H, W, C] -> [M, OH, OW, O].
using Op2D = llvm::function_ref<FailureOr<Value>(Value slice, int64_t kd)>;

/// Tap `kd` of the window over `x` ([D, N, H, W, C]): `op2D` applied to the
/// input depths it reads, as [OD, N, OH, OW, O] with `fill` at the output
/// depths where it reads depth padding. A null value when it reads none.
FailureOr<Value> applyTap(ImportContext &ctx, Value x, const Window3D &w,
                          int64_t kd, float fill, Op2D op2D) {
  int64_t s = w.stride[0], in = w.in[0];
  // Input depth of output depth od: od * s + offset.
  int64_t offset = kd * w.dilation[0] - w.begin[0];
  int64_t lo = offset >= 0 ? 0 : (-offset + s - 1) / s;
  int64_t hi = in - 1 - offset < 0
                   ? -1
                   : std::min<int64_t>((in - 1 - offset) / s, w.out[0] - 1);
  if (lo > hi)
    return Value();
  int64_t count = hi - lo + 1, start = lo * s + offset;
  OpBuilder &b = ctx.builder();
  Value slice = x;
  if (count != in) {
    FailureOr<Value> sliced = ctx.create<graph::SliceOp>(
        x, b.getI64ArrayAttr({start, 0, 0, 0, 0}),
        b.getI64ArrayAttr({start + (count - 1) * s + 1, -1, -1, -1, -1}),
        b.getI64ArrayAttr({s, 1, 1, 1, 1}));
    if (failed(sliced))
      return failure();
    slice = *sliced;
  }
  llvm::ArrayRef<int64_t> shape =
      cast<RankedTensorType>(slice.getType()).getShape();
  int64_t n = shape[1];
  FailureOr<Value> flat = ctx.reshape(
      slice, {ShapedType::isDynamic(n) ? ShapedType::kDynamic : count * n,
              shape[2], shape[3], shape[4]});
  if (failed(flat))
    return failure();
  FailureOr<Value> y = op2D(*flat, kd);
  if (failed(y))
    return failure();
  llvm::ArrayRef<int64_t> yShape =
      cast<RankedTensorType>(y->getType()).getShape();
  FailureOr<Value> tap =
      ctx.reshape(*y, {count, n, yShape[1], yShape[2], yShape[3]});
  if (failed(tap))
    return failure();
  int64_t before = lo, after = w.out[0] - 1 - hi;
  if (!before && !after)
    return tap;
  return ctx.create<graph::PadOp>(
      *tap, b.getI64ArrayAttr({before, after, 0, 0, 0, 0, 0, 0, 0, 0}),
      b.getF32FloatAttr(fill));
}

/// The taps of the window over `x` combined: maximum (`isMax`) or sum.
FailureOr<Value> combineTaps(ImportContext &ctx, Value x, const Window3D &w,
                             bool isMax, Op2D op2D) {
  float fill = isMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  Value result;
  for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
    FailureOr<Value> tap = applyTap(ctx, x, w, kd, fill, op2D);
    if (failed(tap))
      return failure();
    if (!*tap)
      continue;
    if (!result) {
      result = *tap;
      continue;
    }
    FailureOr<Value> combined =
        isMax ? ctx.create<graph::MaximumOp>(result, *tap)
              : ctx.create<graph::AddOp>(result, *tap);
    if (failed(combined))
      return failure();
    result = *combined;
  }
  if (!result)
    return ctx.unsupported("3-D window that reads only depth padding");
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

LogicalResult tfcc::onnx_import::convertConv3D(ImportContext &ctx) {
  FailureOr<RankedTensorType> xType = input3DType(ctx);
  if (failed(xType))
    return failure();
  RankedTensorType wType = ctx.inputType(1);
  if (!wType || wType.getRank() != 5 || !wType.hasStaticShape())
    return ctx.unsupported(
        wType ? llvm::formatv("weight of type {0} (expected a static OIDHW "
                              "weight)",
                              wType)
                    .str()
              : std::string("weight of unknown type or rank"));
  llvm::ArrayRef<int64_t> oidhw = wType.getShape();
  std::vector<int64_t> kernel = {oidhw[2], oidhw[3], oidhw[4]};
  if (ctx.hasAttr("kernel_shape") && ctx.attrInts("kernel_shape") != kernel)
    return ctx.unsupported("attribute 'kernel_shape' = " +
                           listString(ctx.attrInts("kernel_shape")) +
                           " that differs from the weight's " +
                           listString(kernel));
  int64_t group = ctx.attrInt("group", 1);
  if (group < 1)
    return ctx.unsupported("attribute 'group' = " + llvm::Twine(group));
  FailureOr<Window3D> w = readWindow3D(ctx, *xType, kernel, /*pooling=*/false);
  if (failed(w))
    return failure();
  FailureOr<Value> x = inputDNHWC(ctx, *w, 0.0f, /*padHW=*/!w->sameHW);
  if (failed(x))
    return failure();

  // Per depth tap an HWIO kernel [KH, KW, I, O]: host slices of a constant
  // weight, else graph slices of the transposed weight.
  int64_t kh = oidhw[3], kw = oidhw[4], ci = oidhw[1], co = oidhw[0];
  int64_t tapSize = kh * kw * ci * co;
  const HostTensor *hostWeight = ctx.constantInput(1);
  HostTensor hostDHWIO;
  Value dhwio;
  if (hostWeight && hostWeight->elementType.isF32()) {
    HostTensor weight = *hostWeight;
    weight.shape.assign(oidhw.begin(), oidhw.end());
    hostDHWIO = foldTranspose(weight, kToDHWIO);
  } else {
    FailureOr<Value> weight = ctx.input(1);
    if (failed(weight))
      return failure();
    dhwio = ctx.transpose(*weight, kToDHWIO);
  }
  OpBuilder &b = ctx.builder();
  auto tapKernel = [&](int64_t kd) -> FailureOr<Value> {
    if (!dhwio) {
      auto first = hostDHWIO.floats.begin() + kd * tapSize;
      return ctx.constant(
          makeFloatTensor(hostDHWIO.elementType, {kh, kw, ci, co},
                          std::vector<double>(first, first + tapSize)));
    }
    FailureOr<Value> sliced = ctx.create<graph::SliceOp>(
        dhwio, b.getI64ArrayAttr({kd, 0, 0, 0, 0}),
        b.getI64ArrayAttr({kd + 1, -1, -1, -1, -1}), ArrayAttr());
    if (failed(sliced))
      return failure();
    return ctx.reshape(*sliced, {kh, kw, ci, co});
  };
  ArrayAttr strides = b.getI64ArrayAttr({w->stride[1], w->stride[2]});
  ArrayAttr dilations = b.getI64ArrayAttr({w->dilation[1], w->dilation[2]});
  StringAttr padding = b.getStringAttr(w->sameHW ? "same" : "valid");
  IntegerAttr groups = b.getI64IntegerAttr(group);
  FailureOr<Value> y = combineTaps(
      ctx, *x, *w, /*isMax=*/false,
      [&](Value slice, int64_t kd) -> FailureOr<Value> {
        FailureOr<Value> k = tapKernel(kd);
        if (failed(k))
          return failure();
        return ctx.create<graph::Conv2DOp>(slice, *k, Value(), strides,
                                           dilations, padding, groups);
      });
  if (failed(y))
    return failure();
  if (ctx.hasInput(2)) {
    FailureOr<Value> bias = ctx.input(2);
    if (failed(bias))
      return failure();
    y = ctx.create<graph::AddOp>(*y, *bias);
    if (failed(y))
      return failure();
  }
  ctx.setOutput(0, ctx.transpose(*y, kFromDNHWC));
  return success();
}

//===----------------------------------------------------------------------===//
// MaxPool and AveragePool
//===----------------------------------------------------------------------===//

LogicalResult tfcc::onnx_import::convertPool3D(ImportContext &ctx,
                                               bool isMax) {
  FailureOr<RankedTensorType> xType = input3DType(ctx);
  if (failed(xType))
    return failure();
  std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
  if (kernel.size() != 3 ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return ctx.unsupported("attribute 'kernel_shape' = " + listString(kernel));
  FailureOr<Window3D> w = readWindow3D(ctx, *xType, kernel, /*pooling=*/true);
  if (failed(w))
    return failure();
  bool countIncludePad = !isMax && ctx.attrInt("count_include_pad", 0) != 0;
  // AveragePool pads explicitly and rescales (see the file header).
  bool sameHW = isMax && w->sameHW;
  float padValue = isMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  FailureOr<Value> x = inputDNHWC(ctx, *w, padValue, /*padHW=*/!sameHW);
  if (failed(x))
    return failure();
  OpBuilder &b = ctx.builder();
  ArrayAttr window = b.getI64ArrayAttr({kernel[1], kernel[2]});
  ArrayAttr strides = b.getI64ArrayAttr({w->stride[1], w->stride[2]});
  StringAttr padding = b.getStringAttr(sameHW ? "same" : "valid");
  FailureOr<Value> y = combineTaps(
      ctx, *x, *w, isMax, [&](Value slice, int64_t) -> FailureOr<Value> {
        if (isMax)
          return ctx.create<graph::MaxPool2DOp>(slice, window, strides,
                                                padding);
        return ctx.create<graph::AvgPool2DOp>(slice, window, strides, padding);
      });
  if (failed(y))
    return failure();
  if (!isMax) {
    // Per (od, oh, ow): KH * KW / real count, or 1 / KD with the padding
    // counted. The count is a product over the three axes, so the scale is
    // too: one factor per axis whose counts vary ([OD, 1, 1, 1, 1],
    // [1, 1, OH, 1, 1], [1, 1, 1, OW, 1]) and the uniform rest folded into
    // the first, constants of OD + OH + OW values (their product, from a
    // pad of 2^21, took 9 s to build: fuzz/onnx_import).
    Type f32 = b.getF32Type();
    const int64_t position[3] = {0, 2, 3};
    double uniform = countIncludePad
                         ? 1.0 / static_cast<double>(kernel[0])
                         : static_cast<double>(kernel[1] * kernel[2]);
    std::vector<std::pair<int, std::vector<double>>> varying;
    for (int i = 0; i < 3 && !countIncludePad; ++i) {
      std::vector<double> inverse;
      for (int64_t o = 0; o < w->out[i]; ++o) {
        int64_t start = o * w->stride[i] - w->begin[i];
        int64_t lo = std::max<int64_t>(start, 0);
        int64_t hi = std::min<int64_t>(start + w->kernel[i], w->in[i]);
        inverse.push_back(1.0 /
                          static_cast<double>(std::max<int64_t>(hi - lo, 1)));
      }
      if (inverse.empty() || llvm::all_equal(inverse))
        uniform *= inverse.empty() ? 1.0 : inverse[0];
      else
        varying.emplace_back(i, std::move(inverse));
    }
    std::vector<HostTensor> factors;
    if (varying.empty() && uniform != 1.0)
      factors.push_back(makeFloatTensor(f32, {}, {uniform}));
    for (auto &[i, inverse] : varying) {
      if (factors.empty())
        for (double &v : inverse)
          v *= uniform;
      std::vector<int64_t> shape(5, 1);
      shape[position[i]] = w->out[i];
      factors.push_back(makeFloatTensor(f32, shape, std::move(inverse)));
    }
    for (const HostTensor &factor : factors) {
      y = ctx.create<graph::MulOp>(*y, ctx.constant(factor));
      if (failed(y))
        return failure();
    }
  }
  ctx.setOutput(0, ctx.transpose(*y, kFromDNHWC));
  return success();
}
