//===- NN.cpp - ONNX convolution, dense, normalization, pooling ops -------===//
//
// Conv Gemm MatMul BatchNormalization MaxPool AveragePool GlobalAveragePool
// GlobalMaxPool Softmax LogSoftmax LayerNormalization Resize Upsample.
//
// ONNX images are NCHW and weights OIHW; the graph IR is NHWC with HWIO
// kernels. Each converter transposes at its boundary ([0, 2, 3, 1] in,
// [0, 3, 1, 2] out) and the layout pass cancels the pairs between ops.
// Constant weights are transposed on the host. Anything a converter cannot
// express exactly is reported through unsupported().
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"
#include "compiler/onnx/NN3D.h"
#include "dialects/graph/IR/TensorSize.h"

#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace tfcc::onnx_import;

namespace {

constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

std::string listString(llvm::ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

HostTensor scalarF32(MLIRContext *context, double value) {
  return makeFilledFloat(Float32Type::get(context), {}, value);
}

/// The input when its type is a ranked tensor of rank `rank` (any when -1).
FailureOr<RankedTensorType> typeOfRank(ImportContext &ctx, int i, int64_t rank,
                                       llvm::StringRef what) {
  RankedTensorType type = ctx.inputType(i);
  if (!type)
    return ctx.unsupported(llvm::Twine(what) + " of unknown type or rank");
  if (rank >= 0 && type.getRank() != rank)
    return ctx.unsupported(llvm::Twine(what) + " of type " +
                           llvm::formatv("{0}", type).str() +
                           " (expected rank " + llvm::Twine(rank) + ")");
  return type;
}

//===----------------------------------------------------------------------===//
// Windows: convolution and pooling geometry
//===----------------------------------------------------------------------===//

struct Window {
  int64_t kernel[2], stride[2], dilation[2];
  std::string padding = "valid"; // TF padding of the graph op
  int64_t pads[4] = {0, 0, 0, 0}; // explicit graph.pad: top, bottom, left, right
  bool explicitPad() const { return pads[0] || pads[1] || pads[2] || pads[3]; }
};

/// A window attribute (kernel_shape, strides, dilations, pads) of a 2-D
/// window, `defaultValue` when absent. For a 1-D window (over [N, C, L],
/// converted as a 2-D one over [N, C, 1, L]) the attribute is lifted: [s]
/// becomes [1, s] and pads [b, e] become [0, b, 0, e]; other sizes are
/// returned as they are (and rejected by the caller).
std::vector<int64_t> windowAttr(ImportContext &ctx, llvm::StringRef name,
                                std::vector<int64_t> defaultValue, bool is1D) {
  if (!ctx.hasAttr(name))
    return defaultValue;
  std::vector<int64_t> v = ctx.attrInts(name);
  if (!is1D)
    return v;
  if (name == "pads")
    return v.size() == 2 ? std::vector<int64_t>{0, v[0], 0, v[1]} : v;
  return v.size() == 1 ? std::vector<int64_t>{1, v[0]} : v;
}

/// The 2-D view [N, C, 1, L] of the 1-D NCL type `type`.
RankedTensorType liftTo2D(RankedTensorType type) {
  llvm::ArrayRef<int64_t> s = type.getShape();
  return RankedTensorType::get({s[0], s[1], 1, s[2]}, type.getElementType());
}

/// Total SAME padding of one dimension (ONNX and TF agree on it).
int64_t sameTotal(int64_t in, int64_t k, int64_t s, int64_t d) {
  int64_t out = (in + s - 1) / s;
  return std::max<int64_t>((out - 1) * s + (k - 1) * d + 1 - in, 0);
}

/// Reads the 2-D window's `strides` and `dilations` (each default 1, at
/// least 1; lifted for a 1-D window), or reports the one that is not.
LogicalResult readStridesAndDilations(ImportContext &ctx, bool is1D,
                                      int64_t (&stride)[2],
                                      int64_t (&dilation)[2]) {
  std::vector<int64_t> strides = windowAttr(ctx, "strides", {1, 1}, is1D);
  std::vector<int64_t> dilations = windowAttr(ctx, "dilations", {1, 1}, is1D);
  if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1)
    return ctx.unsupported("attribute 'strides' = " + listString(strides));
  if (dilations.size() != 2 || dilations[0] < 1 || dilations[1] < 1)
    return ctx.unsupported("attribute 'dilations' = " + listString(dilations));
  for (int i = 0; i < 2; ++i) {
    stride[i] = strides[i];
    dilation[i] = dilations[i];
  }
  return success();
}

/// Reads strides, dilations, pads and auto_pad for a 2-D window over the
/// NCHW input `xType` (a 1-D window's attributes lifted: `is1D`, xType
/// [N, C, 1, L]). Explicit pads equal to TF's SAME become "same".
FailureOr<Window> readWindow(ImportContext &ctx, RankedTensorType xType,
                             llvm::ArrayRef<int64_t> kernel,
                             bool is1D = false) {
  Window w;
  if (failed(readStridesAndDilations(ctx, is1D, w.stride, w.dilation)))
    return failure();
  for (int i = 0; i < 2; ++i)
    w.kernel[i] = kernel[i];
  int64_t in[2] = {xType.getDimSize(2), xType.getDimSize(3)};
  bool staticHW = !ShapedType::isDynamic(in[0]) && !ShapedType::isDynamic(in[1]);
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  if (autoPad == "VALID")
    return w;
  if (autoPad == "SAME_UPPER") {
    w.padding = "same";
    return w;
  }
  int64_t begin[2], end[2];
  if (autoPad == "SAME_LOWER") {
    if (!staticHW)
      return ctx.unsupported(
          "attribute 'auto_pad' = \"SAME_LOWER\" with a dynamic height or "
          "width");
    for (int i = 0; i < 2; ++i) {
      int64_t total = sameTotal(in[i], w.kernel[i], w.stride[i], w.dilation[i]);
      begin[i] = total - total / 2;
      end[i] = total / 2;
    }
  } else if (autoPad == "NOTSET") {
    std::vector<int64_t> pads = windowAttr(ctx, "pads", {0, 0, 0, 0}, is1D);
    if (pads.size() != 4 || llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return ctx.unsupported("attribute 'pads' = " + listString(pads));
    begin[0] = pads[0];
    begin[1] = pads[1];
    end[0] = pads[2];
    end[1] = pads[3];
  } else {
    return ctx.unsupported("attribute 'auto_pad' = \"" + autoPad + "\"");
  }
  if (!begin[0] && !begin[1] && !end[0] && !end[1])
    return w;
  if (staticHW) {
    bool same = true;
    for (int i = 0; i < 2; ++i) {
      int64_t total = sameTotal(in[i], w.kernel[i], w.stride[i], w.dilation[i]);
      int64_t effective = (w.kernel[i] - 1) * w.dilation[i] + 1;
      int64_t sameOut = (in[i] + w.stride[i] - 1) / w.stride[i];
      int64_t padOut =
          (in[i] + begin[i] + end[i] - effective) / w.stride[i] + 1;
      same &= begin[i] == total / 2 && end[i] == total - total / 2 &&
              padOut == sameOut;
    }
    if (same) {
      w.padding = "same";
      return w;
    }
  }
  w.pads[0] = begin[0];
  w.pads[1] = end[0];
  w.pads[2] = begin[1];
  w.pads[3] = end[1];
  return w;
}

/// Defines output 0 as the NCHW `y`, or for a 1-D window as y [N, C, 1, L]
/// reshaped to [N, C, L].
LogicalResult setNCHWOutput(ImportContext &ctx, Value y, bool is1D) {
  if (is1D) {
    llvm::ArrayRef<int64_t> s = cast<RankedTensorType>(y.getType()).getShape();
    FailureOr<Value> ncl = ctx.reshape(y, {s[0], s[1], s[3]});
    if (failed(ncl))
      return failure();
    y = *ncl;
  }
  ctx.setOutput(0, y);
  return success();
}

/// graph.pad of an NHWC value by the window's explicit pads.
FailureOr<Value> padNHWC(ImportContext &ctx, Value x, const Window &w,
                         float value) {
  if (!w.explicitPad())
    return x;
  OpBuilder &b = ctx.builder();
  return ctx.create<graph::PadOp>(
      x, b.getI64ArrayAttr({0, 0, w.pads[0], w.pads[1], w.pads[2], w.pads[3], 0, 0}),
      b.getF32FloatAttr(value));
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

} // namespace

/// 1-D convolutions ([N, C, L]) are converted as 2-D ones over [N, C, 1, L].
FailureOr<Value> tfcc::onnx_import::convolveNCHW(ImportContext &ctx, Value x,
                                                 Value weight,
                                                 const HostTensor *hostWeight,
                                                 Value bias) {
  auto xType = cast<RankedTensorType>(x.getType());
  RankedTensorType wType =
      weight ? cast<RankedTensorType>(weight.getType()) : hostWeight->type();
  bool is1D = xType.getRank() == 3;
  if (!wType.hasStaticShape())
    return ctx.unsupported(
        llvm::formatv("weight of dynamic type {0}", wType).str());
  RankedTensorType x4Type = is1D ? liftTo2D(xType) : xType;
  RankedTensorType w4Type = is1D ? liftTo2D(wType) : wType;
  llvm::ArrayRef<int64_t> oihw = w4Type.getShape();
  std::vector<int64_t> kernelShape =
      windowAttr(ctx, "kernel_shape", {oihw[2], oihw[3]}, is1D);
  if (kernelShape != std::vector<int64_t>{oihw[2], oihw[3]})
    return ctx.unsupported("attribute 'kernel_shape' = " +
                           listString(kernelShape) + " that differs from the "
                           "weight's " + listString({oihw[2], oihw[3]}));
  int64_t group = ctx.attrInt("group", 1);
  if (group < 1)
    return ctx.unsupported("attribute 'group' = " + llvm::Twine(group));
  FailureOr<Window> w = readWindow(ctx, x4Type, {oihw[2], oihw[3]}, is1D);
  if (failed(w))
    return failure();

  if (is1D) {
    FailureOr<Value> x4 = ctx.reshape(x, x4Type.getShape());
    if (failed(x4))
      return failure();
    x = *x4;
  }
  Value nhwc = ctx.transpose(x, kToNHWC);
  FailureOr<Value> padded = padNHWC(ctx, nhwc, *w, 0.0f);
  if (failed(padded))
    return failure();

  // OIHW -> HWIO ([kh, kw, in / group, out]).
  constexpr int64_t kToHWIO[] = {2, 3, 1, 0};
  Value kernel;
  if (!weight) {
    HostTensor weight4 = *hostWeight;
    weight4.shape.assign(oihw.begin(), oihw.end());
    kernel = ctx.constant(foldTranspose(weight4, kToHWIO));
  } else {
    if (is1D) {
      FailureOr<Value> weight4 = ctx.reshape(weight, oihw);
      if (failed(weight4))
        return failure();
      weight = *weight4;
    }
    kernel = ctx.transpose(weight, kToHWIO);
  }
  OpBuilder &b = ctx.builder();
  FailureOr<Value> y = ctx.create<graph::Conv2DOp>(
      *padded, kernel, bias, b.getI64ArrayAttr({w->stride[0], w->stride[1]}),
      b.getI64ArrayAttr({w->dilation[0], w->dilation[1]}),
      b.getStringAttr(w->padding), b.getI64IntegerAttr(group));
  if (failed(y))
    return failure();
  Value nchw = ctx.transpose(*y, kToNCHW);
  if (!is1D)
    return nchw;
  llvm::ArrayRef<int64_t> shape = cast<RankedTensorType>(nchw.getType()).getShape();
  return ctx.reshape(nchw, {shape[0], shape[1], shape[3]});
}

namespace {

LogicalResult convertConv(ImportContext &ctx) {
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  if (xType->getRank() == 5)
    return convertConv3D(ctx);
  bool is1D = xType->getRank() == 3;
  if (xType->getRank() != 4 && !is1D)
    return ctx.unsupported(llvm::formatv("{0}-D convolution (input {1}); only "
                                         "1-D to 3-D convolutions are",
                                         xType->getRank() - 2, *xType)
                               .str());
  FailureOr<RankedTensorType> wType =
      typeOfRank(ctx, 1, xType->getRank(), "weight");
  if (failed(wType))
    return failure();
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  const HostTensor *hostWeight = ctx.constantInput(1);
  if (hostWeight && !hostWeight->elementType.isF32())
    hostWeight = nullptr;
  Value weight;
  if (!hostWeight) {
    FailureOr<Value> input = ctx.input(1);
    if (failed(input))
      return failure();
    weight = *input;
  }
  Value bias;
  if (ctx.hasInput(2)) {
    FailureOr<Value> b = ctx.input(2);
    if (failed(b))
      return failure();
    bias = *b;
  }
  FailureOr<Value> y = convolveNCHW(ctx, *x, weight, hostWeight, bias);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

/// The spatial padding of a ConvTranspose: `begin` rows/columns of the full
/// output are dropped before the result starts and the result has `out`
/// of them (output_padding included); ONNX's auto_pad and output_shape rules.
struct TransposedWindow {
  int64_t kernel[2], stride[2], dilation[2], full[2], begin[2], out[2];
};

FailureOr<TransposedWindow> readTransposedWindow(ImportContext &ctx,
                                                 RankedTensorType x4Type,
                                                 ArrayRef<int64_t> kernel,
                                                 bool is1D) {
  TransposedWindow w;
  if (failed(readStridesAndDilations(ctx, is1D, w.stride, w.dilation)))
    return failure();
  std::vector<int64_t> outputPadding = ctx.attrInts("output_padding");
  if (outputPadding.empty())
    outputPadding = {0, 0};
  else if (is1D && outputPadding.size() == 1)
    outputPadding.insert(outputPadding.begin(), 0);
  if (outputPadding.size() != 2 ||
      llvm::any_of(outputPadding, [](int64_t p) { return p < 0; }))
    return ctx.unsupported("attribute 'output_padding' = " +
                           listString(outputPadding));
  int64_t in[2] = {x4Type.getDimSize(2), x4Type.getDimSize(3)};
  if (ShapedType::isDynamic(in[0]) || ShapedType::isDynamic(in[1]))
    return ctx.unsupported("ConvTranspose over the dynamic height or width "
                           "of " +
                           typeName(x4Type));
  for (int i = 0; i < 2; ++i) {
    w.kernel[i] = kernel[i];
    w.full[i] = (in[i] - 1) * w.stride[i] + (kernel[i] - 1) * w.dilation[i] + 1;
  }
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> outputShape = ctx.attrInts("output_shape");
  size_t spatialRank = is1D ? 1 : 2;
  if (outputShape.size() == spatialRank + 2) // [N, C, spatial...]
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  if (is1D && outputShape.size() == 1)
    outputShape.insert(outputShape.begin(), 1);
  if (!outputShape.empty() && outputShape.size() != 2)
    return ctx.unsupported("attribute 'output_shape' = " +
                           listString(outputShape));
  if (outputShape.empty() &&
      (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    outputShape = {in[0] * w.stride[0], in[1] * w.stride[1]};
  if (!outputShape.empty()) {
    // ONNX: total = full + output_padding - output_shape, halved rounding
    // down (a negative total, an output larger than the full one, adds
    // zeros); SAME_UPPER puts the smaller half first.
    for (int i = 0; i < 2; ++i) {
      int64_t total = w.full[i] + outputPadding[i] - outputShape[i];
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      w.begin[i] = autoPad == "SAME_UPPER" ? half : total - half;
      w.out[i] = outputShape[i];
    }
    return w;
  }
  if (autoPad != "NOTSET" && autoPad != "VALID")
    return ctx.unsupported("attribute 'auto_pad' = \"" + autoPad + "\"");
  std::vector<int64_t> pads = autoPad == "VALID"
                                  ? std::vector<int64_t>{0, 0, 0, 0}
                                  : windowAttr(ctx, "pads", {0, 0, 0, 0}, is1D);
  if (pads.size() != 4 || llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return ctx.unsupported("attribute 'pads' = " + listString(pads));
  for (int i = 0; i < 2; ++i) {
    w.begin[i] = pads[i];
    w.out[i] = w.full[i] - pads[i] - pads[i + 2] + outputPadding[i];
  }
  return w;
}

/// ConvTranspose (1-D and 2-D): the input gradient of the forward
/// convolution whose HWIO kernel is W [C_in, C_out / group, kh, kw]
/// transposed to [kh, kw, C_out / group, C_in], i.e.
/// graph.conv2d_backprop_input over the full output
/// (in - 1) * stride + (k - 1) * dilation + 1 (the convolution kernels do the
/// work), cropped by the pads and extended with zeros (output_padding) where
/// no input reaches, then the bias.
LogicalResult convertConvTranspose(ImportContext &ctx) {
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  bool is1D = xType->getRank() == 3;
  if (xType->getRank() < 3)
    return ctx.invalid("input " + typeName(*xType) +
                       " (ConvTranspose takes "
                       "[N, C, spatial...])");
  if (xType->getRank() != 4 && !is1D)
    return ctx.unsupported(
        llvm::formatv("{0}-D ConvTranspose (input {1}); only "
                      "1-D and 2-D ones are",
                      xType->getRank() - 2, *xType)
            .str());
  if (!xType->getElementType().isF32())
    return ctx.unsupported("input element type " +
                           typeName(xType->getElementType()));
  FailureOr<RankedTensorType> wType =
      typeOfRank(ctx, 1, xType->getRank(), "weight");
  if (failed(wType))
    return failure();
  if (!wType->hasStaticShape() || !wType->getElementType().isF32())
    return ctx.unsupported("weight of type " + typeName(*wType) +
                           " (it is a static f32 [C_in, C_out / group, ...])");
  RankedTensorType x4Type = is1D ? liftTo2D(*xType) : *xType;
  RankedTensorType w4Type = is1D ? liftTo2D(*wType) : *wType;
  ArrayRef<int64_t> iohw = w4Type.getShape(); // [C_in, C_out / g, kh, kw]
  std::vector<int64_t> kernelShape =
      windowAttr(ctx, "kernel_shape", {iohw[2], iohw[3]}, is1D);
  if (kernelShape != std::vector<int64_t>{iohw[2], iohw[3]})
    return ctx.unsupported("attribute 'kernel_shape' = " +
                           listString(kernelShape) +
                           " that differs from the weight's " +
                           listString({iohw[2], iohw[3]}));
  int64_t group = ctx.attrInt("group", 1);
  int64_t channels = x4Type.getDimSize(1);
  if (group < 1 || iohw[0] % group != 0 ||
      (!ShapedType::isDynamic(channels) && channels != iohw[0]))
    return ctx.invalid("attribute 'group' = " + llvm::Twine(group) +
                       " with input " + typeName(*xType) + " and weight " +
                       typeName(*wType));
  FailureOr<TransposedWindow> w =
      readTransposedWindow(ctx, x4Type, {iohw[2], iohw[3]}, is1D);
  if (failed(w))
    return failure();
  int64_t lo[2], hi[2];
  for (int i = 0; i < 2; ++i) {
    lo[i] = std::clamp<int64_t>(w->begin[i], 0, w->full[i]);
    hi[i] = std::clamp<int64_t>(w->begin[i] + w->out[i], 0, w->full[i]);
    if (w->out[i] < 1 || hi[i] <= lo[i])
      return ctx.unsupported(llvm::formatv("output of size {0} in spatial "
                                           "dimension {1} that no input "
                                           "reaches (pads and output_shape)",
                                           w->out[i], i)
                                 .str());
  }

  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  OpChain chain{ctx};
  Value x4 = is1D ? chain.reshape(*x, x4Type.getShape()) : *x;
  if (chain.failed)
    return failure();
  Value nhwc = ctx.transpose(x4, kToNHWC);
  constexpr int64_t kToKernel[] = {2, 3, 1, 0}; // -> [kh, kw, C_out / g, C_in]
  Value kernel;
  if (const HostTensor *host = ctx.constantInput(1);
      host && host->elementType.isF32()) {
    HostTensor weight4 = *host;
    weight4.shape.assign(iohw.begin(), iohw.end());
    kernel = ctx.constant(foldTranspose(weight4, kToKernel));
  } else {
    FailureOr<Value> weight = ctx.input(1);
    if (failed(weight))
      return failure();
    Value weight4 = is1D ? chain.reshape(*weight, iohw) : *weight;
    if (chain.failed)
      return failure();
    kernel = ctx.transpose(weight4, kToKernel);
  }
  int64_t outChannels = iohw[1] * group;
  OpBuilder &b = ctx.builder();
  auto fullType = RankedTensorType::get(
      {x4Type.getDimSize(0), w->full[0], w->full[1], outChannels},
      b.getF32Type());
  Value y = b.create<graph::Conv2DBackpropInputOp>(
      ctx.loc(), fullType, nhwc, kernel,
      b.getI64ArrayAttr({w->full[0], w->full[1]}),
      b.getI64ArrayAttr({w->stride[0], w->stride[1]}),
      b.getI64ArrayAttr({w->dilation[0], w->dilation[1]}),
      b.getStringAttr("valid"), b.getI64IntegerAttr(group));
  if (lo[0] != 0 || lo[1] != 0 || hi[0] != w->full[0] || hi[1] != w->full[1])
    y = chain.check(ctx.create<graph::SliceOp>(
        y, b.getI64ArrayAttr({0, lo[0], lo[1], 0}),
        b.getI64ArrayAttr({-1, hi[0], hi[1], -1}), ArrayAttr()));
  int64_t before[2] = {lo[0] - w->begin[0], lo[1] - w->begin[1]};
  int64_t after[2] = {w->begin[0] + w->out[0] - hi[0],
                      w->begin[1] + w->out[1] - hi[1]};
  if (!chain.failed && (before[0] || before[1] || after[0] || after[1]))
    y = chain.check(
        ctx.create<graph::PadOp>(y,
                                 b.getI64ArrayAttr({0, 0, before[0], after[0],
                                                    before[1], after[1], 0, 0}),
                                 b.getF32FloatAttr(0.0f)));
  if (ctx.hasInput(2)) {
    FailureOr<Value> bias = ctx.input(2);
    if (failed(bias))
      return failure();
    auto biasType = cast<RankedTensorType>(bias->getType());
    if (biasType.getRank() != 1 ||
        biasType.getElementType() != b.getF32Type() ||
        (!biasType.isDynamicDim(0) && biasType.getDimSize(0) != outChannels))
      return ctx.invalid("bias " + typeName(biasType) + " for " +
                         llvm::Twine(outChannels) + " output channels");
    y = chain.binary<graph::AddOp>(y, *bias);
  }
  if (chain.failed)
    return failure();
  return setNCHWOutput(ctx, ctx.transpose(y, kToNCHW), is1D);
}

//===----------------------------------------------------------------------===//
// Gemm and MatMul
//===----------------------------------------------------------------------===//

FailureOr<Value> scaled(ImportContext &ctx, Value x, double factor) {
  if (factor == 1.0)
    return x;
  return ctx.create<graph::MulOp>(x,
                                  ctx.constant(scalarF32(ctx.context(), factor)));
}

LogicalResult convertGemm(ImportContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
  bool transA = ctx.attrInt("transA", 0) != 0;
  bool transB = ctx.attrInt("transB", 0) != 0;
  FailureOr<RankedTensorType> aType = typeOfRank(ctx, 0, 2, "input A");
  FailureOr<RankedTensorType> bType =
      succeeded(aType) ? typeOfRank(ctx, 1, 2, "input B") : aType;
  if (failed(bType))
    return failure();
  // Before opset 7 C is [M, N] unless `broadcast` = 1, which broadcasts it
  // to [M, N] as opset 7's unidirectional broadcasting does.
  if (ctx.opset() < 7 && ctx.hasInput(2)) {
    int64_t broadcast = ctx.attrInt("broadcast", 0);
    if (broadcast != 0 && broadcast != 1)
      return ctx.unsupported("attribute 'broadcast' = " +
                             llvm::Twine(broadcast));
    RankedTensorType cType = ctx.inputType(2);
    int64_t m = aType->getDimSize(transA ? 1 : 0);
    int64_t nDim = bType->getDimSize(transB ? 0 : 1);
    if (broadcast == 0 && cType &&
        (cType.getRank() != 2 ||
         (!cType.isDynamicDim(0) && !ShapedType::isDynamic(m) &&
          cType.getDimSize(0) != m) ||
         (!cType.isDynamicDim(1) && !ShapedType::isDynamic(nDim) &&
          cType.getDimSize(1) != nDim)))
      return ctx.unsupported(
          llvm::formatv("input C {0} that is not [M, N] without 'broadcast' "
                        "= 1",
                        cType)
              .str());
  }
  FailureOr<Value> a = ctx.input(0);
  if (failed(a))
    return failure();
  const HostTensor *hostB = ctx.constantInput(1);
  const HostTensor *hostC = ctx.hasInput(2) ? ctx.constantInput(2) : nullptr;
  int64_t n = bType->getDimSize(transB ? 0 : 1);

  Value y;
  bool cDone = !ctx.hasInput(2);
  if (hostB && hostB->elementType.isF32() && !transA && alpha == 1.0) {
    // Keras Dense: x @ kernel + bias, the kernel [in, out].
    Value kernel;
    if (transB) {
      kernel = ctx.constant(foldTranspose(*hostB, {1, 0}));
    } else {
      FailureOr<Value> kb = ctx.input(1);
      if (failed(kb))
        return failure();
      kernel = *kb;
    }
    Value bias;
    if (hostC && hostC->elementType.isF32() && hostC->numElements() == n &&
        (hostC->shape.size() == 1 ||
         (hostC->shape.size() == 2 && hostC->shape[0] == 1))) {
      HostTensor biasValue = foldReshape(*hostC, {n});
      for (double &v : biasValue.floats)
        v = static_cast<float>(v * beta);
      bias = ctx.constant(biasValue);
      cDone = true;
    }
    FailureOr<Value> dense = ctx.create<graph::DenseOp>(*a, kernel, bias);
    if (failed(dense))
      return failure();
    y = *dense;
  } else {
    FailureOr<Value> bv = ctx.input(1);
    if (failed(bv))
      return failure();
    OpBuilder &b = ctx.builder();
    FailureOr<Value> product = ctx.create<graph::MatmulOp>(
        *a, *bv, b.getBoolAttr(transA), b.getBoolAttr(transB));
    if (failed(product))
      return failure();
    FailureOr<Value> s = scaled(ctx, *product, alpha);
    if (failed(s))
      return failure();
    y = *s;
  }
  if (!cDone) {
    FailureOr<Value> c = ctx.input(2);
    if (failed(c))
      return failure();
    FailureOr<Value> bc = scaled(ctx, *c, beta);
    if (failed(bc))
      return failure();
    FailureOr<Value> sum = ctx.create<graph::AddOp>(y, *bc);
    if (failed(sum))
      return failure();
    y = *sum;
  }
  ctx.setOutput(0, y);
  return success();
}

LogicalResult convertMatMul(ImportContext &ctx) {
  FailureOr<RankedTensorType> aType = typeOfRank(ctx, 0, -1, "input A");
  FailureOr<RankedTensorType> bType =
      succeeded(aType) ? typeOfRank(ctx, 1, -1, "input B") : aType;
  if (failed(bType))
    return failure();
  if (aType->getRank() == 0 || bType->getRank() == 0)
    return ctx.unsupported("scalar operand");
  FailureOr<Value> a = ctx.input(0);
  FailureOr<Value> b = succeeded(a) ? ctx.input(1) : a;
  if (failed(b))
    return failure();
  const HostTensor *hostB = ctx.constantInput(1);
  if (hostB && bType->getRank() == 2 && aType->getRank() >= 2) {
    FailureOr<Value> dense = ctx.create<graph::DenseOp>(*a, *b, Value());
    if (failed(dense))
      return failure();
    ctx.setOutput(0, *dense);
    return success();
  }
  // NumPy rules for 1-D operands: [k] is [1, k] on the left and [k, 1] on
  // the right, and the added dimension is removed from the result.
  bool aVector = aType->getRank() == 1, bVector = bType->getRank() == 1;
  Value lhs = *a, rhs = *b;
  if (aVector) {
    FailureOr<Value> r = ctx.reshape(lhs, {1, aType->getDimSize(0)});
    if (failed(r))
      return failure();
    lhs = *r;
  }
  if (bVector) {
    FailureOr<Value> r = ctx.reshape(rhs, {bType->getDimSize(0), 1});
    if (failed(r))
      return failure();
    rhs = *r;
  }
  FailureOr<Value> y = ctx.create<graph::MatmulOp>(lhs, rhs, false, false);
  if (failed(y))
    return failure();
  if (aVector || bVector) {
    auto yType = cast<RankedTensorType>(y->getType());
    SmallVector<int64_t> shape(yType.getShape());
    if (bVector)
      shape.pop_back();
    if (aVector)
      shape.erase(shape.end() - 1);
    y = ctx.reshape(*y, shape);
    if (failed(y))
      return failure();
  }
  ctx.setOutput(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Permutations moving dimension 1 (channels) last and back.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
channelsLastPerms(int64_t rank) {
  SmallVector<int64_t> toLast = {0}, back = {0, rank - 1};
  for (int64_t d = 2; d < rank; ++d)
    toLast.push_back(d);
  toLast.push_back(1);
  for (int64_t d = 1; d < rank - 1; ++d)
    back.push_back(d);
  return {toLast, back};
}

LogicalResult convertBatchNormalization(ImportContext &ctx) {
  if (ctx.attrInt("training_mode", 0) != 0)
    return ctx.unsupported("attribute 'training_mode' = 1");
  if (ctx.opset() < 9 && ctx.attrInt("spatial", 1) != 1)
    return ctx.unsupported("attribute 'spatial' = 0");
  // Opset 6: `is_test` = 0 (the default) is training mode, which normalizes
  // with the batch's statistics.
  if (ctx.opset() < 7 && ctx.attrInt("is_test", 0) == 0)
    return ctx.unsupported("attribute 'is_test' = 0 (training mode)");
  for (int i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      return ctx.unsupported("output " + llvm::Twine(i) +
                             " (training statistics)");
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  if (xType->getRank() < 2)
    return ctx.unsupported(llvm::formatv("input {0}", *xType).str());
  SmallVector<Value> operands;
  for (int i = 0; i < 5; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  auto [toLast, back] = channelsLastPerms(xType->getRank());
  OpBuilder &b = ctx.builder();
  FailureOr<Value> y = ctx.create<graph::BatchNormOp>(
      ctx.transpose(operands[0], toLast), operands[1], operands[2],
      operands[3], operands[4], b.getF32FloatAttr(ctx.attrFloat("epsilon", 1e-5f)),
      b.getF32FloatAttr(0.99f));
  if (failed(y))
    return failure();
  ctx.setOutput(0, ctx.transpose(*y, back));
  return success();
}

LogicalResult convertLayerNormalization(ImportContext &ctx) {
  if (ctx.opset() < 17)
    return ctx.unsupported("LayerNormalization before opset 17 (it is an ONNX "
                           "function from opset 17 on)");
  int64_t stashType = ctx.attrInt("stash_type", onnx::TensorProto::FLOAT);
  if ((ctx.hasOutput(1) || ctx.hasOutput(2)) &&
      stashType != onnx::TensorProto::FLOAT)
    return ctx.unsupported(
        "attribute 'stash_type' = " + llvm::Twine(stashType) +
        " with the Mean or InvStdDev output");
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  int64_t rank = xType->getRank();
  int64_t axis = ctx.attrInt("axis", -1);
  if (axis < -rank || axis >= rank)
    return ctx.unsupported("attribute 'axis' = " + llvm::Twine(axis));
  if (axis < 0)
    axis += rank;
  llvm::ArrayRef<int64_t> normShape = xType->getShape().drop_front(axis);
  // gamma and beta must have the normalized shape; constants that merely
  // broadcast to it are expanded on the host.
  auto param = [&](int i, int64_t fill) -> FailureOr<Value> {
    auto shapeType = RankedTensorType::get(normShape, xType->getElementType());
    if (!ctx.hasInput(i)) {
      if (!shapeType.hasStaticShape())
        return ctx.unsupported("missing input B with dynamic normalized "
                               "dimensions");
      return ctx.constant(
          makeFilled(xType->getElementType(), normShape, fill));
    }
    RankedTensorType type = ctx.inputType(i);
    if (type && type.getShape() == normShape)
      return ctx.input(i);
    const HostTensor *host = ctx.constantInput(i);
    if (!host || !shapeType.hasStaticShape() ||
        (host->numElements() != 1 && host->shape.size() > normShape.size()))
      return ctx.unsupported(
          llvm::formatv("input {0} of type {1} (expected {2})", i, type,
                        shapeType)
              .str());
    // Broadcast the constant to the normalized shape.
    HostTensor t = HostTensor::zeros(host->elementType, normShape);
    int64_t n = shapeType.getNumElements(), r = normShape.size();
    std::vector<int64_t> hs(r, 1);
    for (size_t d = 0; d < host->shape.size(); ++d)
      hs[r - host->shape.size() + d] = host->shape[d];
    for (int64_t d = 0; d < r; ++d)
      if (hs[d] != 1 && hs[d] != normShape[d])
        return ctx.unsupported(
            llvm::formatv("input {0} of type {1} (expected {2})", i, type,
                          shapeType)
                .str());
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, offset = 0, stride = 1;
      for (int64_t d = r - 1; d >= 0; --d) {
        int64_t idx = rest % normShape[d];
        rest /= normShape[d];
        if (hs[d] != 1)
          offset += idx * stride;
        stride *= hs[d];
      }
      t.copyElement(e, *host, offset);
    }
    return ctx.constant(t);
  };
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<Value> gamma = param(1, 1);
  if (failed(gamma))
    return failure();
  FailureOr<Value> beta = param(2, 0);
  if (failed(beta))
    return failure();
  OpBuilder &b = ctx.builder();
  float epsilon = ctx.attrFloat("epsilon", 1e-5f);
  FailureOr<Value> y = ctx.create<graph::LayerNormOp>(
      *x, *gamma, *beta, b.getI64IntegerAttr(axis), b.getF32FloatAttr(epsilon));
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y);
  if (!ctx.hasOutput(1) && !ctx.hasOutput(2))
    return success();
  // Mean and InvStdDev (f32, the stash type), as ONNX's function body
  // computes them; the normalized output keeps the fused kernel.
  OpChain chain{ctx};
  Type f32 = b.getF32Type();
  Value stashed = xType->getElementType() == f32 ? *x : ctx.cast(*x, f32);
  auto normAxes = llvm::to_vector(llvm::seq<int64_t>(axis, rank));
  auto reduceMean = [&](Value v) {
    return chain.failed
               ? Value()
               : chain.check(ctx.create<graph::ReduceMeanOp>(
                     v, b.getI64ArrayAttr(normAxes), b.getBoolAttr(true)));
  };
  Value mean = reduceMean(stashed);
  Value centered = chain.binary<graph::SubOp>(stashed, mean);
  Value variance = reduceMean(chain.binary<graph::MulOp>(centered, centered));
  Value inverse = chain.unary<graph::RsqrtOp>(
      chain.binary<graph::AddOp>(variance, chain.scalar(epsilon, f32)));
  if (chain.failed)
    return failure();
  if (ctx.hasOutput(1))
    ctx.setOutput(1, mean);
  if (ctx.hasOutput(2))
    ctx.setOutput(2, inverse);
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Output size of one padded dimension (floor or ceil rounding).
int64_t pooledSize(int64_t in, int64_t padTotal, int64_t k, int64_t s,
                   bool ceil) {
  int64_t span = in + padTotal - k;
  return (ceil ? (span + s - 1) / s : span / s) + 1;
}

/// MaxPool and AveragePool with dilations > 1 over the NCHW `xType` (a 1-D
/// pool lifted to [N, C, 1, L]), on the input padded with -inf (max) or 0
/// (average). Output o reads x[o * s + t * d] for taps t < k. When d divides
/// s in both dims, that is x'[o * (s / d) + t] of x' = x[::d], so a strided
/// graph.slice feeds an undilated pool with strides s / d. Otherwise each of
/// the kh * kw taps (at most 256) is a strided graph.slice, combined with
/// graph.maximum or graph.add. Average pooling is then scaled to divide by the
/// count of taps on real elements at each output position (all kh * kw with
/// count_include_pad = 1). Needs an f32 input with a static height and width.
LogicalResult convertDilatedPool(ImportContext &ctx, RankedTensorType xType,
                                 llvm::ArrayRef<int64_t> kernel, bool is1D,
                                 bool isMax) {
  FailureOr<Window> w = readWindow(ctx, xType, kernel, is1D);
  if (failed(w))
    return failure();
  int64_t in[2] = {xType.getDimSize(2), xType.getDimSize(3)};
  if (ShapedType::isDynamic(in[0]) || ShapedType::isDynamic(in[1]))
    return ctx.unsupported(
        "attribute 'dilations' with a dynamic height or width");
  if (!xType.getElementType().isF32())
    return ctx.unsupported("attribute 'dilations' with a " +
                           llvm::formatv("{0}", xType.getElementType()).str() +
                           " input");
  bool phased = w->stride[0] % w->dilation[0] == 0 &&
                w->stride[1] % w->dilation[1] == 0;
  if (!phased && kernel[0] * kernel[1] > 256)
    return ctx.unsupported("attribute 'dilations' with a window of " +
                           llvm::Twine(kernel[0] * kernel[1]) +
                           " elements (at most 256 when the dilation does "
                           "not divide the stride)");
  bool explicitPads = ctx.attrString("auto_pad", "NOTSET") == "NOTSET";
  int64_t begin[2], end[2], out[2];
  for (int i = 0; i < 2; ++i) {
    if (w->padding == "same") {
      int64_t total = sameTotal(in[i], kernel[i], w->stride[i], w->dilation[i]);
      begin[i] = total / 2;
      end[i] = total - total / 2;
    } else {
      begin[i] = w->pads[2 * i];
      end[i] = w->pads[2 * i + 1];
    }
    int64_t effective = (kernel[i] - 1) * w->dilation[i] + 1;
    if (in[i] + begin[i] + end[i] < effective)
      return ctx.unsupported("dilated window larger than the padded input");
    out[i] = pooledSize(in[i], begin[i] + end[i], effective, w->stride[i],
                        false);
    if (explicitPads && ctx.attrInt("ceil_mode", 0) != 0 &&
        pooledSize(in[i], begin[i] + end[i], effective, w->stride[i], true) !=
            out[i])
      return ctx.unsupported("attribute 'ceil_mode' = 1 (it changes the "
                             "output size here)");
  }

  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (is1D) {
    x = ctx.reshape(*x, xType.getShape());
    if (failed(x))
      return failure();
  }
  OpBuilder &b = ctx.builder();
  if (begin[0] || end[0] || begin[1] || end[1]) {
    float padValue = isMax ? -std::numeric_limits<float>::infinity() : 0.0f;
    x = ctx.create<graph::PadOp>(
        *x, b.getI64ArrayAttr({0, 0, 0, 0, begin[0], end[0], begin[1], end[1]}),
        b.getF32FloatAttr(padValue));
    if (failed(x))
      return failure();
  }
  FailureOr<Value> y = failure();
  if (phased) {
    int64_t extent[2];
    for (int i = 0; i < 2; ++i)
      extent[i] =
          (out[i] - 1) * w->stride[i] + (kernel[i] - 1) * w->dilation[i] + 1;
    FailureOr<Value> every = ctx.create<graph::SliceOp>(
        *x, b.getI64ArrayAttr({0, 0, 0, 0}),
        b.getI64ArrayAttr({-1, -1, extent[0], extent[1]}),
        b.getI64ArrayAttr({1, 1, w->dilation[0], w->dilation[1]}));
    if (failed(every))
      return failure();
    Value nhwc = ctx.transpose(*every, kToNHWC);
    ArrayAttr window = b.getI64ArrayAttr(kernel);
    ArrayAttr strides = b.getI64ArrayAttr(
        {w->stride[0] / w->dilation[0], w->stride[1] / w->dilation[1]});
    StringAttr valid = b.getStringAttr("valid");
    y = isMax ? ctx.create<graph::MaxPool2DOp>(nhwc, window, strides, valid)
              : ctx.create<graph::AvgPool2DOp>(nhwc, window, strides, valid);
    if (failed(y))
      return failure();
    y = ctx.transpose(*y, kToNCHW);
  }
  for (int64_t r = 0; !phased && r < kernel[0]; ++r) {
    for (int64_t c = 0; c < kernel[1]; ++c) {
      int64_t h0 = r * w->dilation[0], w0 = c * w->dilation[1];
      FailureOr<Value> tap = ctx.create<graph::SliceOp>(
          *x, b.getI64ArrayAttr({0, 0, h0, w0}),
          b.getI64ArrayAttr({-1, -1, h0 + (out[0] - 1) * w->stride[0] + 1,
                             w0 + (out[1] - 1) * w->stride[1] + 1}),
          b.getI64ArrayAttr({1, 1, w->stride[0], w->stride[1]}));
      if (failed(tap))
        return failure();
      if (failed(y))
        y = tap;
      else if (isMax)
        y = ctx.create<graph::MaximumOp>(*y, *tap);
      else
        y = ctx.create<graph::AddOp>(*y, *tap);
      if (failed(y))
        return failure();
    }
  }
  if (!isMax) {
    bool countIncludePad = ctx.attrInt("count_include_pad", 0) != 0;
    HostTensor factor{b.getF32Type(), {1, 1, out[0], out[1]}, {}, {}, {}};
    // The undilated avg_pool2d of the phased form divides by kh * kw.
    double windowSize = static_cast<double>(kernel[0] * kernel[1]);
    auto taps = [&](int i, int64_t o) {
      if (countIncludePad)
        return kernel[i];
      int64_t n = 0;
      for (int64_t t = 0; t < kernel[i]; ++t) {
        int64_t at = o * w->stride[i] - begin[i] + t * w->dilation[i];
        n += at >= 0 && at < in[i];
      }
      return std::max<int64_t>(n, 1);
    };
    for (int64_t h = 0; h < out[0]; ++h)
      for (int64_t c = 0; c < out[1]; ++c)
        factor.floats.push_back(static_cast<float>(
            (phased ? windowSize : 1.0) /
            static_cast<double>(taps(0, h) * taps(1, c))));
    y = ctx.create<graph::MulOp>(*y, ctx.constant(factor));
    if (failed(y))
      return failure();
  }
  return setNCHWOutput(ctx, *y, is1D);
}

LogicalResult convertPool(ImportContext &ctx, bool isMax) {
  if (isMax && ctx.hasOutput(1))
    return ctx.unsupported("output 1 (Indices)");
  FailureOr<RankedTensorType> x3or4Type = typeOfRank(ctx, 0, -1, "input");
  if (failed(x3or4Type))
    return failure();
  if (x3or4Type->getRank() == 5) {
    if (x3or4Type->getElementType().isInteger(8))
      return ctx.unsupported("8-bit input to 3-D pooling");
    return convertPool3D(ctx, isMax);
  }
  bool is1D = x3or4Type->getRank() == 3;
  if (x3or4Type->getRank() != 4 && !is1D)
    return ctx.unsupported(
        llvm::formatv("{0}-D pooling (input {1}); only 1-D to 3-D pooling is",
                      x3or4Type->getRank() - 2, *x3or4Type)
            .str());
  // 1-D pooling ([N, C, L]) is converted as 2-D pooling over [N, C, 1, L].
  FailureOr<RankedTensorType> xType =
      is1D ? liftTo2D(*x3or4Type) : *x3or4Type;
  std::vector<int64_t> kernel = windowAttr(ctx, "kernel_shape", {}, is1D);
  if (kernel.size() != 2 || kernel[0] < 1 || kernel[1] < 1)
    return ctx.unsupported("attribute 'kernel_shape' = " +
                           listString(ctx.attrInts("kernel_shape")));
  std::vector<int64_t> dilations = windowAttr(ctx, "dilations", {1, 1}, is1D);
  if (dilations != std::vector<int64_t>{1, 1})
    return convertDilatedPool(ctx, *xType, kernel, is1D, isMax);
  FailureOr<Window> w = readWindow(ctx, *xType, kernel, is1D);
  if (failed(w))
    return failure();
  bool countIncludePad = !isMax && ctx.attrInt("count_include_pad", 0) != 0;
  int64_t in[2] = {xType->getDimSize(2), xType->getDimSize(3)};
  bool staticHW = !ShapedType::isDynamic(in[0]) && !ShapedType::isDynamic(in[1]);

  // ceil_mode: the output size rounds up, but the last window must start
  // inside the input or its begin padding (ONNX's and PyTorch's rule). The
  // windows past the end read extra end padding that never counts: -inf for
  // max, and an average's divisor counts the input and declared pads only.
  int64_t declaredEnd[2] = {w->pads[1], w->pads[3]};
  bool ceilExtends = false;
  if (ctx.attrInt("ceil_mode", 0) != 0 && w->padding != "same") {
    for (int i = 0; i < 2; ++i) {
      if (ShapedType::isDynamic(in[i])) {
        if (w->stride[i] == 1)
          continue; // ceil and floor agree
        return ctx.unsupported(
            "attribute 'ceil_mode' = 1 with a dynamic height or width");
      }
      int64_t total = w->pads[2 * i] + w->pads[2 * i + 1];
      int64_t out = pooledSize(in[i], total, kernel[i], w->stride[i], true);
      if (out > pooledSize(in[i], total, kernel[i], w->stride[i], false) &&
          (out - 1) * w->stride[i] >= in[i] + w->pads[2 * i])
        --out;
      int64_t extra = (out - 1) * w->stride[i] + kernel[i] - (in[i] + total);
      if (extra > 0) {
        w->pads[2 * i + 1] += extra;
        ceilExtends = true;
      }
    }
  }
  // AveragePool with count_include_pad = 1 averages over padded zeros too:
  // pad explicitly (SAME included).
  if (countIncludePad && w->padding == "same") {
    if (!staticHW)
      return ctx.unsupported("attribute 'count_include_pad' = 1 with SAME "
                             "padding and a dynamic height or width");
    for (int i = 0; i < 2; ++i) {
      int64_t total = sameTotal(in[i], kernel[i], w->stride[i], 1);
      w->pads[2 * i] = total / 2;
      w->pads[2 * i + 1] = total - total / 2;
    }
    w->padding = "valid";
  }
  // AveragePool without count_include_pad and explicit pads (or with
  // ceil_mode's extra padding): the mean of the counted elements =
  // avg(pad(x)) * window / count, with the count per output position
  // computed on the host.
  bool rescale =
      !isMax && ((!countIncludePad && w->explicitPad()) || ceilExtends);
  if (rescale && !staticHW)
    return ctx.unsupported("attribute 'pads' with count_include_pad = 0 and "
                           "a dynamic height or width");

  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (is1D) {
    x = ctx.reshape(*x, xType->getShape());
    if (failed(x))
      return failure();
  }
  Value nhwc = ctx.transpose(*x, kToNHWC);
  FailureOr<Value> padded = padNHWC(
      ctx, nhwc, *w,
      isMax ? graph::getMaxPoolPadValue(xType->getElementType()) : 0.0f);
  if (failed(padded))
    return failure();
  OpBuilder &b = ctx.builder();
  ArrayAttr window = b.getI64ArrayAttr(kernel);
  ArrayAttr strides = b.getI64ArrayAttr({w->stride[0], w->stride[1]});
  StringAttr padding = b.getStringAttr(w->padding);
  FailureOr<Value> y =
      isMax ? ctx.create<graph::MaxPool2DOp>(*padded, window, strides, padding)
            : ctx.create<graph::AvgPool2DOp>(*padded, window, strides, padding);
  if (failed(y))
    return failure();
  if (rescale) {
    int64_t out[2], count[2][4096];
    for (int i = 0; i < 2; ++i) {
      out[i] = pooledSize(in[i], w->pads[2 * i] + w->pads[2 * i + 1],
                          kernel[i], w->stride[i], false);
      if (out[i] > 4096)
        return ctx.unsupported("pooling output larger than 4096");
      for (int64_t o = 0; o < out[i]; ++o) {
        int64_t start = o * w->stride[i] - w->pads[2 * i];
        int64_t lo = countIncludePad ? start : std::max<int64_t>(start, 0);
        int64_t hi =
            std::min<int64_t>(start + kernel[i],
                              countIncludePad ? in[i] + declaredEnd[i] : in[i]);
        count[i][o] = std::max<int64_t>(hi - lo, 1);
      }
    }
    HostTensor factor{b.getF32Type(), {1, out[0], out[1], 1}, {}, {}, {}};
    double windowSize = static_cast<double>(kernel[0] * kernel[1]);
    for (int64_t h = 0; h < out[0]; ++h)
      for (int64_t c = 0; c < out[1]; ++c)
        factor.floats.push_back(static_cast<float>(
            windowSize / static_cast<double>(count[0][h] * count[1][c])));
    y = ctx.create<graph::MulOp>(*y, ctx.constant(factor));
    if (failed(y))
      return failure();
  }
  return setNCHWOutput(ctx, ctx.transpose(*y, kToNCHW), is1D);
}

LogicalResult convertMaxPool(ImportContext &ctx) {
  if (ctx.attrInt("storage_order", 0) != 0 && ctx.hasOutput(1))
    return ctx.unsupported("attribute 'storage_order' = 1");
  return convertPool(ctx, /*isMax=*/true);
}
LogicalResult convertAveragePool(ImportContext &ctx) {
  return convertPool(ctx, /*isMax=*/false);
}

LogicalResult convertGlobalPool(ImportContext &ctx, bool isMax) {
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  if (xType->getRank() != 4)
    return ctx.unsupported(
        llvm::formatv("input {0}; only 2-D global pooling is", *xType).str());
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  Value nhwc = ctx.transpose(*x, kToNHWC);
  FailureOr<Value> y = isMax ? ctx.create<graph::GlobalMaxPool2DOp>(nhwc)
                             : ctx.create<graph::GlobalAvgPool2DOp>(nhwc);
  if (failed(y))
    return failure();
  FailureOr<Value> r =
      ctx.reshape(*y, {xType->getDimSize(0), xType->getDimSize(1), 1, 1});
  if (failed(r))
    return ctx.unsupported(
        llvm::formatv("input {0} with dynamic batch and channels", *xType)
            .str());
  ctx.setOutput(0, *r);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

LogicalResult convertSoftmax(ImportContext &ctx, bool isLog) {
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  int64_t rank = xType->getRank();
  bool flatten = ctx.opset() < 13;
  int64_t axis = ctx.attrInt("axis", flatten ? 1 : -1);
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return ctx.unsupported("attribute 'axis' = " + llvm::Twine(axis));
  if (axis < 0)
    axis += rank;
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto apply = [&](Value v, int64_t a) -> FailureOr<Value> {
    OpBuilder &b = ctx.builder();
    Type type = v.getType();
    if (isLog)
      return b.create<graph::LogSoftmaxOp>(ctx.loc(), type, v, b.getI64IntegerAttr(a))
          .getResult();
    return b.create<graph::SoftmaxOp>(ctx.loc(), type, v, b.getI64IntegerAttr(a))
        .getResult();
  };
  if (!flatten || axis == rank - 1) {
    FailureOr<Value> y = apply(*x, axis);
    if (failed(y))
      return failure();
    ctx.setOutput(0, *y);
    return success();
  }
  // Opsets before 13: softmax over the flattened [prod(:axis), prod(axis:)].
  llvm::ArrayRef<int64_t> shape = xType->getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t &part = d < axis ? outer : inner;
    if (ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(part))
      part = ShapedType::kDynamic;
    else
      part *= shape[d];
  }
  if (ShapedType::isDynamic(inner))
    return ctx.unsupported(
        llvm::formatv("attribute 'axis' = {0} over dynamic dimensions of {1}",
                      axis, *xType)
            .str());
  FailureOr<Value> flat = ctx.reshape(*x, {outer, inner});
  if (failed(flat))
    return failure();
  FailureOr<Value> y = apply(*flat, -1);
  if (failed(y))
    return failure();
  FailureOr<Value> restored = ctx.reshape(*y, shape);
  if (failed(restored))
    return failure();
  ctx.setOutput(0, *restored);
  return success();
}

//===----------------------------------------------------------------------===//
// Resize and Upsample
//===----------------------------------------------------------------------===//

/// Where output coordinate `dst` reads in ONNX (before rounding/clamping).
double onnxSource(llvm::StringRef mode, int64_t dst, double scale, int64_t in,
                  int64_t out) {
  double x = static_cast<double>(dst);
  if (mode == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    // Opset 19: centres the output on the input when out != scale * in.
    double adjustment =
        static_cast<double>(out) / (scale * static_cast<double>(in));
    double offset = static_cast<double>(in) / 2.0 * (1.0 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  if (mode == "pytorch_half_pixel")
    return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners") {
    // The output length as ONNX's reference takes it: scale * in, not
    // rounded (it differs from `out` when a scale gives a fractional size).
    double length = scale * static_cast<double>(in);
    return length <= 1.0 ? 0.0
                         : x * static_cast<double>(in - 1) / (length - 1.0);
  }
  if (mode == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  return x / scale; // asymmetric
}

/// A whole-numbered source position as an index; far-out positions (they
/// are clamped to the axis afterwards) saturate rather than overflow.
int64_t positionIndex(double whole) {
  return static_cast<int64_t>(std::clamp(whole, -1e15, 1e15));
}

int64_t onnxNearest(llvm::StringRef nearestMode, double x) {
  if (nearestMode == "round_prefer_ceil")
    return positionIndex(std::floor(x + 0.5));
  if (nearestMode == "floor")
    return positionIndex(std::floor(x));
  if (nearestMode == "ceil")
    return positionIndex(std::ceil(x));
  return positionIndex(std::ceil(x - 0.5)); // round_prefer_floor
}

/// True when TF's resize (graph.resize with `halfPixel`) reads the same
/// source positions as ONNX along one axis.
bool sameSampling(llvm::StringRef coordMode, llvm::StringRef nearestMode,
                  bool linear, double scale, int64_t in, int64_t out,
                  bool halfPixel) {
  float tfScale = static_cast<float>(in) / static_cast<float>(out);
  for (int64_t dst = 0; dst < out; ++dst) {
    double onnx = onnxSource(coordMode, dst, scale, in, out);
    float tf = halfPixel ? (static_cast<float>(dst) + 0.5f) * tfScale
                         : static_cast<float>(dst) * tfScale;
    if (!linear) {
      int64_t a = std::clamp<int64_t>(onnxNearest(nearestMode, onnx), 0, in - 1);
      int64_t b = std::clamp<int64_t>(
          static_cast<int64_t>(std::floor(tf)), 0, in - 1);
      if (a != b)
        return false;
      continue;
    }
    if (halfPixel)
      tf -= 0.5f;
    double a = std::clamp<double>(onnx, 0.0, static_cast<double>(in - 1));
    double b = std::clamp<double>(tf, 0.0, static_cast<double>(in - 1));
    if (std::abs(a - b) > 1e-5 * std::max<double>(1.0, std::abs(a)))
      return false;
  }
  return true;
}

/// How ONNX samples one axis of a Resize: per output index, the input
/// indices it reads (clamped to the axis, as ONNX pads with the edge) and
/// their weights.
struct AxisSampling {
  std::vector<std::vector<int64_t>> taps;   // [tap][dst]
  std::vector<std::vector<double>> weights; // [tap][dst]
};

/// Keys' cubic convolution weights of the taps at base - 1 .. base + 2 for
/// a source position base + ratio, ratio in (0, 1] (ONNX's, with `a` =
/// cubic_coeff_a).
std::array<double, 4> cubicWeights(double ratio, double a) {
  auto far = [&](double t) {
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  };
  auto near = [&](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };
  return {far(ratio + 1), near(ratio), near(1 - ratio), far(2 - ratio)};
}

/// ONNX's sampling of one axis of `in` entries into `out` (mode nearest,
/// linear or cubic), computed in double as the reference does.
AxisSampling sampleAxis(llvm::StringRef mode, llvm::StringRef coordMode,
                        llvm::StringRef nearestMode, double cubicA,
                        bool excludeOutside, double scale, int64_t in,
                        int64_t out) {
  AxisSampling s;
  int64_t n = mode == "nearest" ? 1 : mode == "cubic" ? 4 : 2;
  s.taps.assign(n, std::vector<int64_t>(out));
  s.weights.assign(n, std::vector<double>(out));
  for (int64_t dst = 0; dst < out; ++dst) {
    double x = onnxSource(coordMode, dst, scale, in, out);
    if (n == 1) {
      s.taps[0][dst] =
          std::clamp<int64_t>(onnxNearest(nearestMode, x), 0, in - 1);
      s.weights[0][dst] = 1.0;
      continue;
    }
    // The taps left of x include x itself when it is a whole number (the
    // reference prefers the left pixel): base = ceil(x) - 1, ratio in (0, 1].
    double base = std::ceil(x) - 1;
    double ratio = x - base;
    std::array<double, 4> cubic = cubicWeights(ratio, cubicA);
    double total = 0;
    for (int64_t k = 0; k < n; ++k) {
      int64_t index = positionIndex(base) + k - (n == 4 ? 1 : 0);
      double w = n == 4 ? cubic[k] : (k == 0 ? 1 - ratio : ratio);
      if (excludeOutside && (index < 0 || index >= in))
        w = 0;
      s.taps[k][dst] = std::clamp<int64_t>(index, 0, in - 1);
      s.weights[k][dst] = w;
      total += w;
    }
    if (excludeOutside && total != 0)
      for (int64_t k = 0; k < n; ++k)
        s.weights[k][dst] /= total;
  }
  return s;
}

/// Resizes `x` along `axis` by gathering the taps of `s` and summing them
/// with their weights (graph.gather, graph.mul, graph.add): any mode and
/// coordinate mapping, on any axis of static size.
FailureOr<Value> resampleAxis(ImportContext &ctx, Value x, int64_t axis,
                              const AxisSampling &s) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t out = s.taps[0].size();
  OpBuilder &b = ctx.builder();
  Value sum;
  for (size_t k = 0; k < s.taps.size(); ++k) {
    if (llvm::all_of(s.weights[k], [](double w) { return w == 0; }))
      continue;
    Value indices = ctx.constant(makeI64Tensor(ctx.context(), s.taps[k]));
    FailureOr<Value> tap =
        ctx.create<graph::GatherOp>(x, indices, b.getI64IntegerAttr(axis));
    if (failed(tap))
      return failure();
    Value term = *tap;
    if (s.taps.size() > 1) {
      std::vector<int64_t> shape(xType.getRank(), 1);
      shape[axis] = out;
      std::vector<double> weights = s.weights[k];
      Value w = ctx.constant(
          makeFloatTensor(xType.getElementType(), shape, std::move(weights)));
      FailureOr<Value> weighted = ctx.create<graph::MulOp>(term, w);
      if (failed(weighted))
        return failure();
      term = *weighted;
    }
    if (!sum) {
      sum = term;
      continue;
    }
    FailureOr<Value> added = ctx.create<graph::AddOp>(sum, term);
    if (failed(added))
      return failure();
    sum = *added;
  }
  return sum;
}

LogicalResult convertResizeLike(ImportContext &ctx, bool isUpsample) {
  FailureOr<RankedTensorType> xType = typeOfRank(ctx, 0, -1, "input");
  if (failed(xType))
    return failure();
  int64_t rank = xType->getRank();
  if (rank < 1)
    return ctx.unsupported(llvm::formatv("input {0}", *xType).str());
  if (!isa<FloatType>(xType->getElementType()))
    return ctx.unsupported("input element type " +
                           typeName(xType->getElementType()));
  ArrayRef<int64_t> inShape = xType->getShape();
  std::string mode = ctx.attrString("mode", "nearest");
  if (mode == "bilinear") // Upsample-7's name
    mode = "linear";
  bool linear = mode == "linear";
  if (mode != "nearest" && !linear && mode != "cubic")
    return ctx.unsupported("attribute 'mode' = \"" + mode + "\"");
  bool modern = !isUpsample && ctx.opset() >= 11;
  std::string coordMode =
      modern ? ctx.attrString("coordinate_transformation_mode", "half_pixel")
             : "asymmetric";
  std::string nearestMode =
      modern ? ctx.attrString("nearest_mode", "round_prefer_floor") : "floor";
  if (coordMode == "tf_crop_and_resize")
    return ctx.unsupported(
        "attribute 'coordinate_transformation_mode' = \"tf_crop_and_resize\"");
  if (coordMode != "half_pixel" && coordMode != "half_pixel_symmetric" &&
      coordMode != "pytorch_half_pixel" && coordMode != "align_corners" &&
      coordMode != "asymmetric" && coordMode != "tf_half_pixel_for_nn")
    return ctx.unsupported("attribute 'coordinate_transformation_mode' = \"" +
                           coordMode + "\"");
  if (nearestMode != "round_prefer_floor" && nearestMode != "round_prefer_ceil" &&
      nearestMode != "floor" && nearestMode != "ceil")
    return ctx.unsupported("attribute 'nearest_mode' = \"" + nearestMode + "\"");

  // Scales or sizes, one per dimension.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (isUpsample && ctx.opset() < 7) {
    // Upsample-1: `height_scale` and `width_scale` (required).
    if (!ctx.hasAttr("height_scale") || !ctx.hasAttr("width_scale"))
      return ctx.unsupported("Upsample without 'height_scale' and "
                             "'width_scale'");
    if (rank != 4)
      return ctx.unsupported(
          llvm::formatv("input {0}; Upsample-1 scales 4-D NCHW images", *xType)
              .str());
    scales = {1.0, 1.0, ctx.attrFloat("height_scale", 1.0f),
              ctx.attrFloat("width_scale", 1.0f)};
  } else if (isUpsample && ctx.opset() < 9) {
    for (float s : ctx.attrFloats("scales"))
      scales.push_back(s);
  } else {
    int scalesInput = modern ? 2 : 1;
    if (ctx.hasInput(scalesInput)) {
      const HostTensor *s = ctx.constantInput(scalesInput);
      if (!s)
        return ctx.unsupported("scales that are not constant");
      if (!s->isFloat())
        return ctx.unsupported("scales of element type " +
                               typeName(s->elementType));
      scales = s->floats;
    }
    if (modern && scales.empty() && ctx.hasInput(3)) {
      // Partially known sizes: only N may be unknown (Concat(Shape(x)[0:2],
      // [h, w]) with a dynamic batch), and the batch is not resized.
      const HostTensor *s = ctx.partialConstantInput(3);
      if (!s)
        return ctx.unsupported("sizes that are not constant");
      if (s->isFloat())
        return ctx.unsupported("sizes of element type " +
                               typeName(s->elementType));
      for (int64_t i = 0; i < s->numElements(); ++i)
        if (s->isUnknown(i) && (i != 0 || !xType->isDynamicDim(0)))
          return unsupportedUnknownInput(ctx, 3, "sizes");
      sizes = s->asInts();
      if (!sizes.empty() && xType->isDynamicDim(0))
        sizes[0] = ShapedType::kDynamic;
    }
  }
  // Opset 18: scales and sizes may name a subset of the axes; the others
  // keep their size.
  std::vector<int64_t> axes;
  if (modern && ctx.hasAttr("axes")) {
    for (int64_t a : ctx.attrInts("axes")) {
      std::optional<int64_t> axis = graph::normalizeAxis(a, rank);
      if (!axis || llvm::is_contained(axes, *axis))
        return ctx.invalid(
            "attribute 'axes' = " + listString(ctx.attrInts("axes")) +
            " (out of range or repeated for rank " + llvm::Twine(rank) + ")");
      axes.push_back(*axis);
    }
    size_t given = !scales.empty() ? scales.size() : sizes.size();
    if (given != axes.size())
      return ctx.invalid(llvm::formatv("{0} {1} for attribute 'axes' = {2}",
                                       !scales.empty() ? "scales" : "sizes",
                                       given, listString(axes))
                             .str());
    if (!scales.empty()) {
      std::vector<double> full(rank, 1.0);
      for (auto [i, a] : llvm::enumerate(axes))
        full[a] = scales[i];
      scales = std::move(full);
    } else if (!sizes.empty()) {
      std::vector<int64_t> full(inShape.begin(), inShape.end());
      for (auto [i, a] : llvm::enumerate(axes))
        full[a] = sizes[i];
      sizes = std::move(full);
    }
  } else {
    for (int64_t a = 0; a < rank; ++a)
      axes.push_back(a);
  }
  std::string policy =
      modern ? ctx.attrString("keep_aspect_ratio_policy", "stretch")
             : "stretch";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ctx.invalid("attribute 'keep_aspect_ratio_policy' = \"" + policy +
                       "\"");
  if (scales.empty() && sizes.empty())
    return ctx.unsupported("Resize without scales or sizes");
  if ((!scales.empty() && int64_t(scales.size()) != rank) ||
      (!sizes.empty() && int64_t(sizes.size()) != rank))
    return ctx.invalid(
        llvm::formatv("{0} {1} for an input of rank {2}",
                      !scales.empty() ? "scales" : "sizes",
                      !scales.empty() ? scales.size() : sizes.size(), rank)
            .str());

  // Per dimension: output size and the scale ONNX's coordinates use.
  std::vector<int64_t> out(inShape.begin(), inShape.end());
  std::vector<double> scale(rank, 1.0);
  std::optional<double> uniform; // keep_aspect_ratio_policy's one scale
  if (!sizes.empty() && policy != "stretch") {
    for (int64_t a : axes) {
      if (xType->isDynamicDim(a))
        return ctx.unsupported("attribute 'keep_aspect_ratio_policy' = \"" +
                               policy + "\" with the dynamic dimension " +
                               llvm::Twine(a) + " of " + typeName(*xType));
      double r =
          static_cast<double>(sizes[a]) / static_cast<double>(inShape[a]);
      if (!uniform || (policy == "not_larger" ? r < *uniform : r > *uniform))
        uniform = r;
    }
  }
  // A size computed in double, converted only when it is one (a scale from
  // the file may be anything).
  auto sizeOf = [](double v) -> std::optional<int64_t> {
    if (!(v >= 0 && v <= static_cast<double>(int64_t(1) << 62)))
      return std::nullopt;
    return static_cast<int64_t>(v);
  };
  for (int64_t d = 0; d < rank; ++d) {
    bool named = llvm::is_contained(axes, d);
    if (!scales.empty()) {
      scale[d] = static_cast<float>(scales[d]);
      if (scale[d] == 1.0)
        continue;
      std::optional<int64_t> n =
          sizeOf(std::floor(static_cast<double>(inShape[d]) * scale[d]));
      if (xType->isDynamicDim(d) || !(scale[d] > 0) || !n)
        return ctx.unsupported(
            llvm::formatv("scale {0} of dimension {1} of {2}", scales[d], d,
                          *xType)
                .str());
      out[d] = *n;
    } else if (uniform && named) {
      scale[d] = *uniform;
      std::optional<int64_t> n =
          sizeOf(*uniform * static_cast<double>(inShape[d]) + 0.5);
      if (!n)
        return ctx.unsupported(
            llvm::formatv("sizes {0} with attribute "
                          "'keep_aspect_ratio_policy' = \"{1}\"",
                          listString(sizes), policy)
                .str());
      out[d] = *n;
    } else {
      if (sizes[d] == inShape[d])
        continue;
      if (xType->isDynamicDim(d) || ShapedType::isDynamic(sizes[d]))
        return ctx.unsupported("sizes " + listString(sizes) + " for " +
                               typeName(*xType) +
                               " (a resized dimension must be static)");
      out[d] = sizes[d];
      scale[d] = static_cast<double>(out[d]) / static_cast<double>(inShape[d]);
    }
    if (out[d] < 1)
      return ctx.unsupported("empty output size " + listString(out));
    if (inShape[d] < 1)
      return ctx.unsupported(llvm::formatv("resize of the empty dimension {0} "
                                           "of {1} to {2}",
                                           d, *xType, out[d])
                                 .str());
  }
  // Before anything loops over the output (a small file may ask for any
  // size).
  if (!graph::checkedStaticBytes(
          RankedTensorType::get(out, xType->getElementType())))
    return ctx.unsupported("output size " + listString(out) +
                           " (more than the largest tensor tfcc accepts)");
  std::vector<int64_t> resized;
  for (int64_t d = 0; d < rank; ++d)
    if (out[d] != inShape[d] || scale[d] != 1.0)
      resized.push_back(d);
  // The sampling of each resized axis is checked or tabulated on the host,
  // one entry per output index.
  constexpr int64_t kMaxResizedSize = int64_t(1) << 20;
  for (int64_t d : resized)
    if (out[d] > kMaxResizedSize)
      return ctx.unsupported(
          llvm::formatv("output size {0} of dimension {1} (at most {2})",
                        out[d], d, kMaxResizedSize)
              .str());
  // Opset 18: antialiasing widens the filter when a resize shrinks.
  if (modern && !(mode == "nearest") && ctx.attrInt("antialias", 0) != 0 &&
      llvm::any_of(resized, [&](int64_t d) { return scale[d] < 1.0; }))
    return ctx.unsupported("attribute 'antialias' = 1 when downscaling");

  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (resized.empty()) {
    ctx.setOutput(0, *x);
    return success();
  }

  // Images resized in H and W whose sampling TF's resize reproduces: one
  // graph.resize (a fused kernel).
  if (rank == 4 && mode != "cubic" && xType->getElementType().isF32() &&
      llvm::all_of(resized, [](int64_t d) { return d >= 2; }) &&
      !xType->isDynamicDim(2) && !xType->isDynamicDim(3)) {
    for (bool halfPixel : {true, false}) {
      if (!sameSampling(coordMode, nearestMode, linear, scale[2], inShape[2],
                        out[2], halfPixel) ||
          !sameSampling(coordMode, nearestMode, linear, scale[3], inShape[3],
                        out[3], halfPixel))
        continue;
      OpBuilder &b = ctx.builder();
      FailureOr<Value> y = ctx.create<graph::ResizeOp>(
          ctx.transpose(*x, kToNHWC), b.getI64ArrayAttr({out[2], out[3]}),
          b.getStringAttr(linear ? "bilinear" : "nearest"),
          b.getBoolAttr(halfPixel));
      if (failed(y))
        return failure();
      ctx.setOutput(0, ctx.transpose(*y, kToNCHW));
      return success();
    }
  }

  // Otherwise each resized axis in turn, with ONNX's taps and weights
  // computed here (ONNX's linear and cubic resizes are separable).
  double cubicA = ctx.attrFloat("cubic_coeff_a", -0.75f);
  bool excludeOutside = modern && ctx.attrInt("exclude_outside", 0) != 0;
  Value y = *x;
  for (int64_t d : resized) {
    FailureOr<Value> next =
        resampleAxis(ctx, y, d,
                     sampleAxis(mode, coordMode, nearestMode, cubicA,
                                excludeOutside, scale[d], inShape[d], out[d]));
    if (failed(next))
      return failure();
    y = *next;
  }
  ctx.setOutput(0, y);
  return success();
}

LogicalResult convertResize(ImportContext &ctx) {
  return convertResizeLike(ctx, /*isUpsample=*/false);
}
LogicalResult convertUpsample(ImportContext &ctx) {
  return convertResizeLike(ctx, /*isUpsample=*/true);
}

} // namespace

void tfcc::onnx_import::registerNNConverters(ConverterTable &table) {
  table["Conv"] = convertConv;
  table["Gemm"] = convertGemm;
  table["MatMul"] = convertMatMul;
  table["BatchNormalization"] = convertBatchNormalization;
  table["LayerNormalization"] = convertLayerNormalization;
  table["ConvTranspose"] = convertConvTranspose;
  table["MaxPool"] = convertMaxPool;
  table["AveragePool"] = convertAveragePool;
  table["GlobalAveragePool"] = [](ImportContext &ctx) {
    return convertGlobalPool(ctx, /*isMax=*/false);
  };
  table["GlobalMaxPool"] = [](ImportContext &ctx) {
    return convertGlobalPool(ctx, /*isMax=*/true);
  };
  table["Softmax"] = [](ImportContext &ctx) {
    return convertSoftmax(ctx, /*isLog=*/false);
  };
  table["LogSoftmax"] = [](ImportContext &ctx) {
    return convertSoftmax(ctx, /*isLog=*/true);
  };
  table["Resize"] = convertResize;
  table["Upsample"] = convertUpsample;
}
