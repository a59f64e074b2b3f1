//===- TfliteOps.cpp - TFLite operators to graph ops ----------------------===//
//
// One converter per TFLite operator. TFLite's layouts are the graph IR's
// (NHWC activations); filters change layout at import time: CONV_2D's
// [out, kh, kw, in] becomes HWIO, DEPTHWISE_CONV_2D's [1, kh, kw, c * m]
// becomes [kh, kw, c, m], FULLY_CONNECTED's [out, in] becomes [in, out] and
// TRANSPOSE_CONV's [out, kh, kw, in] the [kh, kw, out, in] kernel of
// graph.conv2d_backprop_input. Constant filters are rearranged in the
// compiler; filters computed at run time through graph.transpose.
//
//===----------------------------------------------------------------------===//

#include "compiler/tflite/OpContext.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace mlir;
namespace tflite = tfcc::tflite;
using namespace tfcc::tflite_import;
using tflite::ActivationFunctionType;
using tflite::BuiltinOperator;
using tflite::BuiltinOptions;

namespace {

/// The operator's options of union type `expected`; null when the operator
/// has none and they are optional. A different union type is an error.
template <typename T>
FailureOr<const T *> options(OpContext &c, BuiltinOptions expected,
                             bool required = true) {
  BuiltinOptions type = c.op().builtin_options_type();
  if (type == expected && c.op().builtin_options())
    return static_cast<const T *>(c.op().builtin_options());
  if (type == BuiltinOptions::NONE && !required)
    return static_cast<const T *>(nullptr);
  const char *name = tflite::EnumNameBuiltinOptions(expected);
  (void)c.invalid(
      llvm::Twine("options: ") +
      (type == BuiltinOptions::NONE
           ? llvm::Twine("none")
           : llvm::Twine("union type ") + llvm::Twine(static_cast<int>(type))) +
      " where " + name + " is expected");
  return failure();
}

FailureOr<Value> activate(OpContext &c, FailureOr<Value> value,
                          ActivationFunctionType act) {
  if (failed(value))
    return failure();
  OpBuilder &b = c.builder();
  switch (act) {
  case ActivationFunctionType::NONE:
    return value;
  case ActivationFunctionType::RELU:
    return c.sameType<graph::ReluOp>(*value);
  case ActivationFunctionType::RELU6:
    return c.sameType<graph::Relu6Op>(*value);
  case ActivationFunctionType::RELU_N1_TO_1:
    return c.sameType<graph::ClipOp>(*value, b.getF32FloatAttr(-1.0f),
                                     b.getF32FloatAttr(1.0f));
  case ActivationFunctionType::TANH:
    return c.sameType<graph::TanhOp>(*value);
  default:
    (void)c.unsupported(llvm::Twine("fused activation ") +
                        tflite::EnumNameActivationFunctionType(act));
    return failure();
  }
}

LogicalResult finish(OpContext &c, FailureOr<Value> value, int output = 0) {
  if (failed(value))
    return failure();
  return c.setOutput(output, *value);
}

/// The file's type of output 0, or a diagnostic when it has none.
FailureOr<RankedTensorType> declaredOutput(OpContext &c, int i = 0) {
  RankedTensorType type = c.outputType(i);
  if (!type) {
    (void)c.unsupported("type of output " + llvm::Twine(i));
    return failure();
  }
  return type;
}

/// Float input i of rank `rank` (any rank when negative).
FailureOr<Value> floatInput(OpContext &c, int i, int64_t rank = -1) {
  FailureOr<Value> v = c.input(i);
  if (failed(v))
    return failure();
  auto type = cast<RankedTensorType>(v->getType());
  if (!type.getElementType().isF32()) {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << type.getElementType();
    (void)c.unsupported("input " + llvm::Twine(i) + " of element type " +
                        os.str() + " (tfcc reads float32 TFLite operators)");
    return failure();
  }
  if (rank >= 0 && type.getRank() != rank) {
    (void)c.invalid("input " + llvm::Twine(i) + ": rank " +
                    llvm::Twine(type.getRank()) + " where " +
                    llvm::Twine(rank) + " is expected");
    return failure();
  }
  return v;
}

/// The type of input i, of rank `rank`, which names `what` in messages; an
/// input of a type the graph IR lacks gets input()'s diagnostic.
FailureOr<RankedTensorType> typedInput(OpContext &c, int i, int64_t rank,
                                       llvm::StringRef what) {
  RankedTensorType type = c.inputType(i);
  if (!type) {
    if (succeeded(c.input(i)))
      (void)c.invalid(llvm::Twine(what) + ": input " + llvm::Twine(i) +
                      " is missing");
    return failure();
  }
  if (type.getRank() != rank) {
    (void)c.invalid(llvm::Twine(what) + " of rank " +
                    llvm::Twine(type.getRank()) + " where " +
                    llvm::Twine(rank) + " is expected");
    return failure();
  }
  return type;
}

/// Normalizes `axis` for `rank` dimensions; a diagnostic when out of range.
FailureOr<int64_t> normalizeAxis(OpContext &c, int64_t axis, int64_t rank,
                                 llvm::StringRef what = "axis") {
  if (axis < -rank || axis >= rank) {
    (void)c.invalid(llvm::Twine(what) + " " + llvm::Twine(axis) + " for rank " +
                    llvm::Twine(rank));
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

/// `source` (row-major, `shape`) rearranged by `perm`: result dim i is
/// source dim perm[i].
template <typename T>
std::vector<T> permuted(const std::vector<T> &source, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> perm) {
  int64_t rank = shape.size();
  std::vector<int64_t> outShape(rank), srcStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    srcStrides[d] = srcStrides[d + 1] * shape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    outShape[d] = shape[perm[d]];
  std::vector<T> out(source.size());
  std::vector<int64_t> index(rank, 0);
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * srcStrides[perm[d]];
    out[k] = source[offset];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < outShape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// A symmetric int8 filter (zero points 0, one scale or one per index of a
/// dimension) as graph.dequantize of its int8 values rearranged by `perm`:
/// the form tfcc-fuse-int8-ops turns into the int8 kernels. nullopt for
/// other filters (read as float); a null value after a diagnostic.
std::optional<Value> int8Filter(OpContext &c, const ConstTensor &constant,
                                ArrayRef<int64_t> perm,
                                ArrayRef<int64_t> outShape,
                                llvm::StringRef nameHint) {
  if (constant.type != tflite::TensorType::INT8 || !constant.isQuantized())
    return std::nullopt;
  const tflite::QuantizationParameters &q = *constant.quantization;
  for (int64_t z : zeroPoints(q))
    if (z != 0)
      return std::nullopt;
  int64_t scales = q.scale()->size();
  int64_t axis = 0;
  if (scales > 1)
    axis = std::find(perm.begin(), perm.end(), q.quantized_dimension()) -
           perm.begin();
  std::vector<int64_t> ints = constant.ints();
  std::vector<int8_t> values(ints.begin(), ints.end());
  Value weights =
      c.constantI8(outShape, permuted(values, constant.shape, perm), nameHint);
  std::vector<float> scaleValues(q.scale()->begin(), q.scale()->end());
  SmallVector<int64_t> paramShape;
  if (scales > 1)
    paramShape.push_back(scales);
  Value scale = c.constantF32(paramShape, scaleValues, "scale");
  Value zero = c.constantI8(paramShape, std::vector<int8_t>(scales, 0), "zero");
  FailureOr<Value> real = c.create<graph::DequantizeOp>(
      weights, scale, zero, c.builder().getI64IntegerAttr(axis));
  return succeeded(real) ? *real : Value();
}

/// A constant f32 filter rearranged by `perm` (result dim i = source dim
/// perm[i]) into a graph value; a filter computed at run time goes through
/// graph.transpose.
FailureOr<Value> permutedFilter(OpContext &c, int i, ArrayRef<int64_t> perm,
                                llvm::StringRef nameHint) {
  const ConstTensor *constant = c.constantInput(i);
  if (!constant || !constant->isReal()) {
    FailureOr<Value> v = floatInput(c, i, perm.size());
    if (failed(v))
      return failure();
    return c.create<graph::TransposeOp>(*v, c.builder().getI64ArrayAttr(perm));
  }
  if (constant->type == tflite::TensorType::FLOAT16) {
    (void)c.unsupported("filter of type FLOAT16 without DEQUANTIZE");
    return failure();
  }
  const std::vector<int64_t> &shape = constant->shape;
  if (shape.size() != perm.size()) {
    (void)c.invalid("filter of rank " + llvm::Twine(shape.size()) + " where " +
                    llvm::Twine(perm.size()) + " is expected");
    return failure();
  }
  std::vector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  if (std::optional<Value> weights =
          int8Filter(c, *constant, perm, outShape, nameHint)) {
    if (!*weights)
      return failure();
    return *weights;
  }
  return c.constantF32(outShape, permuted(constant->floats(), shape, perm),
                       nameHint);
}

/// Optional bias (input i): null when absent.
FailureOr<Value> optionalBias(OpContext &c, int i) {
  if (!c.hasInput(i))
    return Value();
  return floatInput(c, i, 1);
}

std::string paddingName(tflite::Padding padding) {
  return padding == tflite::Padding::SAME ? "same" : "valid";
}

LogicalResult checkPadding(OpContext &c, tflite::Padding padding) {
  if (padding != tflite::Padding::SAME && padding != tflite::Padding::VALID)
    return c.invalid("padding " + llvm::Twine(static_cast<int>(padding)));
  return success();
}

LogicalResult checkPositive(OpContext &c, std::initializer_list<int32_t> values,
                            llvm::StringRef what) {
  for (int32_t v : values)
    if (v < 1)
      return c.invalid(llvm::Twine(what) + " " + llvm::Twine(v));
  return success();
}

//===--- convolutions and dense -------------------------------------------===//

/// The padding, strides and dilations of CONV_2D's and DEPTHWISE_CONV_2D's
/// options (the same fields in both tables).
template <typename Options>
LogicalResult checkWindow(OpContext &c, const Options &o) {
  if (failed(checkPadding(c, o.padding())) ||
      failed(checkPositive(c, {o.stride_h(), o.stride_w()}, "stride")) ||
      failed(checkPositive(c, {o.dilation_h_factor(), o.dilation_w_factor()},
                           "dilation")))
    return failure();
  return success();
}

LogicalResult convertConv2D(OpContext &c) {
  auto opts = options<tflite::Conv2DOptions>(c, BuiltinOptions::Conv2DOptions);
  if (failed(opts))
    return failure();
  const tflite::Conv2DOptions &o = **opts;
  if (failed(checkWindow(c, o)))
    return failure();
  FailureOr<Value> x = floatInput(c, 0, 4);
  if (failed(x))
    return failure();
  FailureOr<RankedTensorType> filter =
      typedInput(c, 1, 4, "filter [out, kh, kw, in]");
  if (failed(filter))
    return failure();
  RankedTensorType filterType = *filter;
  int64_t inChannels = cast<RankedTensorType>(x->getType()).getDimSize(3);
  int64_t filterIn = filterType.getDimSize(3);
  if (filterIn < 1 || inChannels % filterIn != 0)
    return c.invalid("filter: its " + llvm::Twine(filterIn) +
                     " input channels do not divide the input's " +
                     llvm::Twine(inChannels));
  FailureOr<Value> kernel = permutedFilter(c, 1, {1, 2, 3, 0}, "conv_filter");
  FailureOr<Value> bias = optionalBias(c, 2);
  if (failed(kernel) || failed(bias))
    return failure();
  OpBuilder &b = c.builder();
  FailureOr<Value> y = c.create<graph::Conv2DOp>(
      *x, *kernel, *bias, b.getI64ArrayAttr({o.stride_h(), o.stride_w()}),
      b.getI64ArrayAttr({o.dilation_h_factor(), o.dilation_w_factor()}),
      b.getStringAttr(paddingName(o.padding())),
      b.getI64IntegerAttr(inChannels / filterIn));
  return finish(c, activate(c, y, o.fused_activation_function()));
}

LogicalResult convertDepthwiseConv2D(OpContext &c) {
  auto opts = options<tflite::DepthwiseConv2DOptions>(
      c, BuiltinOptions::DepthwiseConv2DOptions);
  if (failed(opts))
    return failure();
  const tflite::DepthwiseConv2DOptions &o = **opts;
  if (failed(checkWindow(c, o)))
    return failure();
  FailureOr<Value> x = floatInput(c, 0, 4);
  if (failed(x))
    return failure();
  FailureOr<RankedTensorType> filter =
      typedInput(c, 1, 4, "filter [1, kh, kw, channels]");
  if (failed(filter))
    return failure();
  RankedTensorType filterType = *filter;
  if (filterType.getDimSize(0) != 1)
    return c.invalid("filter: [1, kh, kw, channels] expected");
  int64_t channels = cast<RankedTensorType>(x->getType()).getDimSize(3);
  int64_t outChannels = filterType.getDimSize(3);
  if (channels < 1 || outChannels % channels != 0)
    return c.invalid("filter: its " + llvm::Twine(outChannels) +
                     " channels are not a multiple of the input's " +
                     llvm::Twine(channels));
  FailureOr<Value> filterValue = floatInput(c, 1, 4);
  FailureOr<Value> bias = optionalBias(c, 2);
  if (failed(filterValue) || failed(bias))
    return failure();
  // [1, kh, kw, c * m] and [kh, kw, c, m] hold the same row-major data.
  FailureOr<Value> kernel = c.reshape(
      *filterValue, {filterType.getDimSize(1), filterType.getDimSize(2),
                     channels, outChannels / channels});
  if (failed(kernel))
    return failure();
  OpBuilder &b = c.builder();
  FailureOr<Value> y = c.create<graph::DepthwiseConv2DOp>(
      *x, *kernel, *bias, b.getI64ArrayAttr({o.stride_h(), o.stride_w()}),
      b.getI64ArrayAttr({o.dilation_h_factor(), o.dilation_w_factor()}),
      b.getStringAttr(paddingName(o.padding())));
  return finish(c, activate(c, y, o.fused_activation_function()));
}

/// TF's conv2d_transpose of input `xIndex` by the [out, kh, kw, in] filter
/// `filterIndex`, plus the optional bias `biasIndex`, to the file's output
/// shape: graph.conv2d_backprop_input of the convolution that output would
/// go through.
LogicalResult transposedConvolution(OpContext &c, int xIndex, int filterIndex,
                                    int biasIndex, tflite::Padding padding,
                                    int32_t strideH, int32_t strideW,
                                    ActivationFunctionType act) {
  if (failed(checkPadding(c, padding)) ||
      failed(checkPositive(c, {strideH, strideW}, "stride")))
    return failure();
  FailureOr<Value> x = floatInput(c, xIndex, 4);
  if (failed(x))
    return failure();
  if (failed(typedInput(c, filterIndex, 4, "filter [out, kh, kw, in]")))
    return failure();
  FailureOr<Value> kernel =
      permutedFilter(c, filterIndex, {1, 2, 0, 3}, "transpose_conv_filter");
  FailureOr<Value> bias = optionalBias(c, biasIndex);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(kernel) || failed(bias) || failed(outType))
    return failure();
  if (outType->getRank() != 4)
    return c.invalid("output: rank 4 NHWC expected");
  OpBuilder &b = c.builder();
  auto op = b.create<graph::Conv2DBackpropInputOp>(
      c.loc(), *outType, *x, *kernel,
      b.getI64ArrayAttr({outType->getDimSize(1), outType->getDimSize(2)}),
      b.getI64ArrayAttr({strideH, strideW}), b.getI64ArrayAttr({1, 1}),
      b.getStringAttr(paddingName(padding)), b.getI64IntegerAttr(1));
  if (failed(op.verify())) {
    op->erase();
    return failure();
  }
  FailureOr<Value> y = op.getResult();
  if (*bias)
    y = c.create<graph::AddOp>(*y, *bias);
  return finish(c, activate(c, y, act));
}

LogicalResult convertTransposeConv(OpContext &c) {
  auto opts = options<tflite::TransposeConvOptions>(
      c, BuiltinOptions::TransposeConvOptions);
  if (failed(opts))
    return failure();
  const tflite::TransposeConvOptions &o = **opts;
  FailureOr<std::vector<int64_t>> outputShape =
      c.constantInts(0, "output shape");
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(outputShape) || failed(outType))
    return failure();
  if (ArrayRef<int64_t>(*outputShape) != outType->getShape())
    return c.invalid("output shape: it differs from the output tensor's");
  return transposedConvolution(c, 2, 1, 3, o.padding(), o.stride_h(),
                               o.stride_w(), o.fused_activation_function());
}

/// MediaPipe's custom Convolution2DTransposeBias (input, [out, kh, kw, in]
/// filter, bias): TRANSPOSE_CONV with a bias, its options 12 bytes of
/// custom_options, three little-endian int32: padding (1 SAME, 2 VALID),
/// stride_w, stride_h.
LogicalResult convertConvolution2DTransposeBias(OpContext &c) {
  const auto *raw = c.op().custom_options();
  if (!raw || raw->size() < 12)
    return c.invalid("custom options: 12 bytes (padding, stride_w, stride_h) "
                     "expected");
  int32_t fields[3];
  std::memcpy(fields, raw->data(), sizeof fields);
  if (fields[0] != 1 && fields[0] != 2)
    return c.invalid("padding " + llvm::Twine(fields[0]) +
                     " (1 SAME or 2 VALID expected)");
  if (c.numInputs() != 3)
    return c.invalid("operator: 3 inputs (input, filter, bias) expected");
  tflite::Padding padding =
      fields[0] == 1 ? tflite::Padding::SAME : tflite::Padding::VALID;
  return transposedConvolution(c, 0, 1, 2, padding, fields[2], fields[1],
                               ActivationFunctionType::NONE);
}

LogicalResult convertFullyConnected(OpContext &c) {
  auto opts = options<tflite::FullyConnectedOptions>(
      c, BuiltinOptions::FullyConnectedOptions, /*required=*/false);
  if (failed(opts))
    return failure();
  const tflite::FullyConnectedOptions *o = *opts;
  if (o && o->weights_format() != 0)
    return c.unsupported("weights format " +
                         llvm::Twine(static_cast<int>(o->weights_format())));
  FailureOr<Value> x = floatInput(c, 0);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(x) || failed(outType))
    return failure();
  FailureOr<RankedTensorType> weights =
      typedInput(c, 1, 2, "weights [out, in]");
  if (failed(weights))
    return failure();
  RankedTensorType weightType = *weights;
  int64_t in = weightType.getDimSize(1);
  auto xType = cast<RankedTensorType>(x->getType());
  int64_t elements = xType.getNumElements();
  if (in < 1 || elements % in != 0)
    return c.invalid("input: its " + llvm::Twine(elements) +
                     " elements are not rows of " + llvm::Twine(in));
  FailureOr<Value> rows = c.reshape(*x, {elements / in, in});
  FailureOr<Value> kernel = permutedFilter(c, 1, {1, 0}, "dense_weights");
  FailureOr<Value> bias = optionalBias(c, 2);
  if (failed(rows) || failed(kernel) || failed(bias))
    return failure();
  FailureOr<Value> y = c.create<graph::DenseOp>(*rows, *kernel, *bias);
  y = activate(
      c, y, o ? o->fused_activation_function() : ActivationFunctionType::NONE);
  if (failed(y))
    return failure();
  return finish(c, c.reshape(*y, outType->getShape()));
}

LogicalResult convertBatchMatMul(OpContext &c) {
  auto opts = options<tflite::BatchMatMulOptions>(
      c, BuiltinOptions::BatchMatMulOptions, /*required=*/false);
  FailureOr<Value> lhs = floatInput(c, 0), rhs = floatInput(c, 1);
  if (failed(opts) || failed(lhs) || failed(rhs))
    return failure();
  OpBuilder &b = c.builder();
  return finish(c, c.create<graph::MatmulOp>(
                       *lhs, *rhs, b.getBoolAttr(*opts && (*opts)->adj_x()),
                       b.getBoolAttr(*opts && (*opts)->adj_y())));
}

//===--- pooling ----------------------------------------------------------===//

template <typename PoolOp> LogicalResult convertPool(OpContext &c) {
  auto opts = options<tflite::Pool2DOptions>(c, BuiltinOptions::Pool2DOptions);
  if (failed(opts))
    return failure();
  const tflite::Pool2DOptions &o = **opts;
  if (failed(checkPadding(c, o.padding())) ||
      failed(checkPositive(c, {o.stride_h(), o.stride_w()}, "stride")) ||
      failed(checkPositive(c, {o.filter_height(), o.filter_width()},
                           "filter size")))
    return failure();
  FailureOr<Value> x = floatInput(c, 0, 4);
  if (failed(x))
    return failure();
  OpBuilder &b = c.builder();
  FailureOr<Value> y = c.create<PoolOp>(
      *x, b.getI64ArrayAttr({o.filter_height(), o.filter_width()}),
      b.getI64ArrayAttr({o.stride_h(), o.stride_w()}),
      b.getStringAttr(paddingName(o.padding())));
  return finish(c, activate(c, y, o.fused_activation_function()));
}

//===--- elementwise ------------------------------------------------------===//

template <typename OpTy, BuiltinOptions kOptions>
LogicalResult convertBinary(OpContext &c) {
  ActivationFunctionType act = ActivationFunctionType::NONE;
  if constexpr (kOptions != BuiltinOptions::NONE) {
    auto opts = options<tflite::ActivationOptions>(c, kOptions,
                                                   /*required=*/false);
    if (failed(opts))
      return failure();
    if (*opts)
      act = (*opts)->fused_activation_function();
  }
  FailureOr<Value> lhs = floatInput(c, 0), rhs = floatInput(c, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return finish(c, activate(c, c.create<OpTy>(*lhs, *rhs), act));
}

LogicalResult convertSquaredDifference(OpContext &c) {
  FailureOr<Value> lhs = floatInput(c, 0), rhs = floatInput(c, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  FailureOr<Value> diff = c.create<graph::SubOp>(*lhs, *rhs);
  if (failed(diff))
    return failure();
  return finish(c, c.sameType<graph::SquareOp>(*diff));
}

template <typename OpTy> LogicalResult convertUnary(OpContext &c) {
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(x))
    return failure();
  return finish(c, c.sameType<OpTy>(*x));
}

template <const char *kFunction> LogicalResult convertMath(OpContext &c) {
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(x))
    return failure();
  return finish(
      c, c.sameType<graph::MathOp>(*x, c.builder().getStringAttr(kFunction)));
}
constexpr char kSin[] = "sin", kCos[] = "cos", kRound[] = "round",
               kSign[] = "sign";

LogicalResult convertReluN1To1(OpContext &c) {
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(x))
    return failure();
  return finish(c, activate(c, x, ActivationFunctionType::RELU_N1_TO_1));
}

LogicalResult convertLeakyRelu(OpContext &c) {
  auto opts = options<tflite::LeakyReluOptions>(
      c, BuiltinOptions::LeakyReluOptions, /*required=*/false);
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(opts) || failed(x))
    return failure();
  float alpha = *opts ? (*opts)->alpha() : 0.0f;
  return finish(c, c.sameType<graph::LeakyReluOp>(
                       *x, c.builder().getF32FloatAttr(alpha)));
}

LogicalResult convertGelu(OpContext &c) {
  auto opts = options<tflite::GeluOptions>(c, BuiltinOptions::GeluOptions,
                                           /*required=*/false);
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(opts) || failed(x))
    return failure();
  bool approximate = *opts && (*opts)->approximate();
  return finish(
      c, c.sameType<graph::GeluOp>(
             *x, c.builder().getStringAttr(approximate ? "tanh" : "none")));
}

/// PRELU: max(x, 0) + alpha * min(x, 0), alpha broadcast against x.
LogicalResult convertPrelu(OpContext &c) {
  FailureOr<Value> x = floatInput(c, 0), alpha = floatInput(c, 1);
  if (failed(x) || failed(alpha))
    return failure();
  Value zero = c.constantF32({}, {0.0f}, "zero");
  FailureOr<Value> positive = c.create<graph::MaximumOp>(*x, zero);
  FailureOr<Value> negative = c.create<graph::MinimumOp>(*x, zero);
  if (failed(positive) || failed(negative))
    return failure();
  FailureOr<Value> scaled = c.create<graph::MulOp>(*alpha, *negative);
  if (failed(scaled))
    return failure();
  return finish(c, c.create<graph::AddOp>(*positive, *scaled));
}

LogicalResult convertSoftmax(OpContext &c) {
  auto opts = options<tflite::SoftmaxOptions>(c, BuiltinOptions::SoftmaxOptions,
                                              /*required=*/false);
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(opts) || failed(x))
    return failure();
  float beta = *opts ? (*opts)->beta() : 1.0f;
  if (beta != 1.0f) {
    x = c.create<graph::MulOp>(*x, c.constantF32({}, {beta}, "beta"));
    if (failed(x))
      return failure();
  }
  return finish(
      c, c.sameType<graph::SoftmaxOp>(*x, c.builder().getI64IntegerAttr(-1)));
}

LogicalResult convertLogSoftmax(OpContext &c) {
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(x))
    return failure();
  return finish(c, c.sameType<graph::LogSoftmaxOp>(
                       *x, c.builder().getI64IntegerAttr(-1)));
}

LogicalResult convertCast(OpContext &c) {
  FailureOr<Value> x = c.input(0);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(x) || failed(outType))
    return failure();
  auto op = c.builder().create<graph::CastOp>(c.loc(), *outType, *x);
  if (failed(graph::inferResultType(op))) {
    op->erase();
    return failure();
  }
  return finish(c, op.getResult());
}

//===--- DEQUANTIZE -------------------------------------------------------===//

/// DEQUANTIZE of constant weights (float16, or int8/uint8 with scales and
/// zero points, per tensor or per axis) is computed here; of an activation
/// it is the real value the importer reads quantized tensors as.
LogicalResult convertDequantize(OpContext &c) {
  const ConstTensor *constant = c.constantInput(0);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(outType))
    return failure();
  if (!constant) {
    FailureOr<Value> x = c.input(0);
    if (failed(x))
      return failure();
    if (!cast<RankedTensorType>(x->getType()).getElementType().isF32())
      return c.unsupported("DEQUANTIZE of a tensor computed at run time "
                           "without a scale and zero point");
    return finish(c, x);
  }
  if (!constant->isReal() || constant->type == tflite::TensorType::FLOAT32)
    return c.unsupported("DEQUANTIZE of " + tensorTypeName(constant->type) +
                         (constant->isInteger() ? " without scales" : ""));
  if (!outType->getElementType().isF32() ||
      outType->getShape() != ArrayRef<int64_t>(constant->shape))
    return c.invalid("output: float32 of the input's shape expected");
  return finish(
      c, c.constantF32(outType->getShape(), constant->floats(), "dequantized"));
}

/// QUANTIZE (float to int8 / uint8, or requantization): the importer rounds
/// an output to its tensor's grid (setOutput), so the op passes the real
/// value on.
LogicalResult convertQuantize(OpContext &c) {
  FailureOr<Value> x = floatInput(c, 0);
  if (failed(x))
    return failure();
  return finish(c, x);
}

//===--- shapes -----------------------------------------------------------===//

/// RESHAPE, SQUEEZE, EXPAND_DIMS: the file's output shape is the result.
LogicalResult convertReshapeLike(OpContext &c) {
  FailureOr<Value> x = c.input(0);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(x) || failed(outType))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getNumElements() != outType->getNumElements())
    return c.invalid("output: " + llvm::Twine(outType->getNumElements()) +
                     " elements from " + llvm::Twine(type.getNumElements()));
  return finish(c, c.reshape(*x, outType->getShape()));
}

LogicalResult convertConcatenation(OpContext &c) {
  auto opts = options<tflite::ConcatenationOptions>(
      c, BuiltinOptions::ConcatenationOptions);
  if (failed(opts))
    return failure();
  SmallVector<Value> inputs;
  for (int i = 0; i < c.numInputs(); ++i) {
    FailureOr<Value> v = c.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  if (inputs.empty())
    return c.invalid("operator: no inputs");
  int64_t rank = cast<RankedTensorType>(inputs[0].getType()).getRank();
  FailureOr<int64_t> axis = normalizeAxis(c, (*opts)->axis(), rank);
  if (failed(axis))
    return failure();
  FailureOr<Value> y =
      c.create<graph::ConcatOp>(inputs, c.builder().getI64IntegerAttr(*axis));
  return finish(c, activate(c, y, (*opts)->fused_activation_function()));
}

LogicalResult convertPad(OpContext &c) {
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> paddings = c.constantInts(1, "paddings");
  if (failed(x) || failed(paddings))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  if (int64_t(paddings->size()) != 2 * rank)
    return c.invalid("paddings: " + llvm::Twine(paddings->size()) +
                     " values for rank " + llvm::Twine(rank));
  for (int64_t p : *paddings)
    if (p < 0)
      return c.unsupported("negative padding " + llvm::Twine(p));
  float value = 0.0f;
  if (c.hasInput(2)) {
    const ConstTensor *v = c.constantInput(2);
    if (!v || !v->isFloat() || v->numElements() != 1)
      return c.unsupported("padding value other than a constant float scalar");
    value = v->floats()[0];
  }
  OpBuilder &b = c.builder();
  return finish(c, c.create<graph::PadOp>(*x, b.getI64ArrayAttr(*paddings),
                                          b.getF32FloatAttr(value),
                                          b.getStringAttr("constant")));
}

LogicalResult convertMirrorPad(OpContext &c) {
  auto opts =
      options<tflite::MirrorPadOptions>(c, BuiltinOptions::MirrorPadOptions);
  if (failed(opts))
    return failure();
  if ((*opts)->mode() != tflite::MirrorPadMode::REFLECT)
    return c.unsupported("mode SYMMETRIC (tfcc mirrors without the edge: "
                         "REFLECT)");
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> paddings = c.constantInts(1, "paddings");
  if (failed(x) || failed(paddings))
    return failure();
  OpBuilder &b = c.builder();
  return finish(c, c.create<graph::PadOp>(*x, b.getI64ArrayAttr(*paddings),
                                          b.getF32FloatAttr(0.0f),
                                          b.getStringAttr("reflect")));
}

LogicalResult convertTranspose(OpContext &c) {
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> perm = c.constantInts(1, "permutation");
  if (failed(x) || failed(perm))
    return failure();
  return finish(
      c, c.create<graph::TransposeOp>(*x, c.builder().getI64ArrayAttr(*perm)));
}

/// The TF begin/end of one dimension of STRIDED_SLICE with a positive stride.
LogicalResult convertStridedSlice(OpContext &c) {
  auto opts = options<tflite::StridedSliceOptions>(
      c, BuiltinOptions::StridedSliceOptions, /*required=*/false);
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> begin = c.constantInts(1, "begin");
  FailureOr<std::vector<int64_t>> end = c.constantInts(2, "end");
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(opts) || failed(x) || failed(begin) || failed(end) ||
      failed(outType))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  std::vector<int64_t> strides(rank, 1);
  if (c.hasInput(3)) {
    FailureOr<std::vector<int64_t>> s = c.constantInts(3, "strides");
    if (failed(s))
      return failure();
    strides = *s;
  }
  const tflite::StridedSliceOptions *o = *opts;
  int32_t beginMask = o ? o->begin_mask() : 0, endMask = o ? o->end_mask() : 0;
  int32_t shrinkMask = o ? o->shrink_axis_mask() : 0;
  if (o && (o->ellipsis_mask() || o->new_axis_mask()))
    return c.unsupported("ellipsis or new-axis mask");
  if (o && o->offset())
    return c.unsupported("offset = true");
  if (int64_t(begin->size()) != rank || int64_t(end->size()) != rank ||
      int64_t(strides.size()) != rank)
    return c.invalid("begin, end and strides: one entry per dimension (" +
                     llvm::Twine(rank) + ") expected");
  SmallVector<int64_t> starts, limits;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d), stride = strides[d];
    if (stride < 1)
      return c.unsupported("stride " + llvm::Twine(stride) +
                           " (tfcc slices with positive strides)");
    auto clampIndex = [&](int64_t i) {
      if (i < 0)
        i += size;
      return std::clamp<int64_t>(i, 0, size);
    };
    int64_t start = (beginMask >> d) & 1 ? 0 : clampIndex((*begin)[d]);
    int64_t limit = (endMask >> d) & 1 ? size : clampIndex((*end)[d]);
    if ((shrinkMask >> d) & 1) {
      int64_t index = (*begin)[d] < 0 ? (*begin)[d] + size : (*begin)[d];
      if (index < 0 || index >= size)
        return c.invalid("shrunk index " + llvm::Twine((*begin)[d]) +
                         " of dimension " + llvm::Twine(d) + " (size " +
                         llvm::Twine(size) + ")");
      start = index;
      limit = index + 1;
    }
    starts.push_back(start);
    limits.push_back(std::max(start, limit));
  }
  OpBuilder &b = c.builder();
  FailureOr<Value> y = c.create<graph::SliceOp>(*x, b.getI64ArrayAttr(starts),
                                                b.getI64ArrayAttr(limits),
                                                b.getI64ArrayAttr(strides));
  if (failed(y))
    return failure();
  return finish(c, c.reshape(*y, outType->getShape()));
}

LogicalResult convertSlice(OpContext &c) {
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> begin = c.constantInts(1, "begin");
  FailureOr<std::vector<int64_t>> size = c.constantInts(2, "size");
  if (failed(x) || failed(begin) || failed(size))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (int64_t(begin->size()) != rank || int64_t(size->size()) != rank)
    return c.invalid("begin and size: one entry per dimension expected");
  SmallVector<int64_t> starts, limits;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = type.getDimSize(d), start = (*begin)[d];
    int64_t limit = (*size)[d] == -1 ? dim : start + (*size)[d];
    if (start < 0 || start > dim || limit < start || limit > dim)
      return c.invalid("slice [" + llvm::Twine(start) + ", " +
                       llvm::Twine(limit) + ") of dimension " + llvm::Twine(d) +
                       " (size " + llvm::Twine(dim) + ")");
    starts.push_back(start);
    limits.push_back(limit);
  }
  OpBuilder &b = c.builder();
  return finish(c, c.create<graph::SliceOp>(*x, b.getI64ArrayAttr(starts),
                                            b.getI64ArrayAttr(limits),
                                            ArrayAttr()));
}

/// Slices `x` along `axis` into pieces of `sizes`, one per output.
LogicalResult splitInto(OpContext &c, Value x, int64_t axis,
                        ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(x.getType());
  if (int64_t(sizes.size()) != c.numOutputs())
    return c.invalid("operator: " + llvm::Twine(sizes.size()) + " pieces for " +
                     llvm::Twine(c.numOutputs()) + " outputs");
  int64_t offset = 0;
  OpBuilder &b = c.builder();
  for (auto [i, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> starts(type.getRank(), 0), limits(type.getRank(), -1);
    starts[axis] = offset;
    limits[axis] = offset + size;
    offset += size;
    if (failed(finish(c,
                      c.create<graph::SliceOp>(x, b.getI64ArrayAttr(starts),
                                               b.getI64ArrayAttr(limits),
                                               ArrayAttr()),
                      i)))
      return failure();
  }
  return success();
}

LogicalResult convertSplit(OpContext &c) {
  FailureOr<std::vector<int64_t>> axisValue = c.constantInts(0, "axis");
  FailureOr<Value> x = c.input(1);
  if (failed(axisValue) || failed(x))
    return failure();
  if (axisValue->size() != 1)
    return c.invalid("axis: a scalar expected");
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<int64_t> axis = normalizeAxis(c, (*axisValue)[0], type.getRank());
  if (failed(axis))
    return failure();
  int64_t n = c.numOutputs(), dim = type.getDimSize(*axis);
  if (n < 1 || dim % n != 0)
    return c.invalid("split of " + llvm::Twine(dim) + " into " +
                     llvm::Twine(n) + " equal pieces");
  return splitInto(c, *x, *axis, SmallVector<int64_t>(n, dim / n));
}

LogicalResult convertSplitV(OpContext &c) {
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> sizes = c.constantInts(1, "size_splits");
  FailureOr<std::vector<int64_t>> axisValue = c.constantInts(2, "axis");
  if (failed(x) || failed(sizes) || failed(axisValue))
    return failure();
  if (axisValue->size() != 1)
    return c.invalid("axis: a scalar expected");
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<int64_t> axis = normalizeAxis(c, (*axisValue)[0], type.getRank());
  if (failed(axis))
    return failure();
  int64_t dim = type.getDimSize(*axis), known = 0, unknownAt = -1;
  for (auto [i, s] : llvm::enumerate(*sizes)) {
    if (s == -1 && unknownAt < 0)
      unknownAt = i;
    else if (s < 0)
      return c.invalid("size_splits entry " + llvm::Twine(s));
    else
      known += s;
  }
  if (unknownAt >= 0)
    (*sizes)[unknownAt] = dim - known;
  if ((unknownAt >= 0 && known > dim) || (unknownAt < 0 && known != dim))
    return c.invalid("size_splits do not add up to " + llvm::Twine(dim));
  return splitInto(c, *x, *axis, *sizes);
}

LogicalResult convertPack(OpContext &c) {
  auto opts = options<tflite::PackOptions>(c, BuiltinOptions::PackOptions);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(opts) || failed(outType))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(c, (*opts)->axis(), outType->getRank());
  if (failed(axis))
    return failure();
  SmallVector<Value> pieces;
  for (int i = 0; i < c.numInputs(); ++i) {
    FailureOr<Value> v = c.input(i);
    if (failed(v))
      return failure();
    SmallVector<int64_t> shape(cast<RankedTensorType>(v->getType()).getShape());
    shape.insert(shape.begin() + *axis, 1);
    FailureOr<Value> piece = c.reshape(*v, shape);
    if (failed(piece))
      return failure();
    pieces.push_back(*piece);
  }
  return finish(c, c.create<graph::ConcatOp>(
                       pieces, c.builder().getI64IntegerAttr(*axis)));
}

LogicalResult convertUnpack(OpContext &c) {
  auto opts = options<tflite::UnpackOptions>(c, BuiltinOptions::UnpackOptions);
  FailureOr<Value> x = c.input(0);
  if (failed(opts) || failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<int64_t> axis = normalizeAxis(c, (*opts)->axis(), type.getRank());
  if (failed(axis))
    return failure();
  int64_t n = type.getDimSize(*axis);
  if (n != c.numOutputs())
    return c.invalid("operator: " + llvm::Twine(c.numOutputs()) +
                     " outputs for a dimension of " + llvm::Twine(n));
  OpBuilder &b = c.builder();
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + *axis);
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<int64_t> starts(type.getRank(), 0), limits(type.getRank(), -1);
    starts[*axis] = i;
    limits[*axis] = i + 1;
    FailureOr<Value> piece = c.create<graph::SliceOp>(
        *x, b.getI64ArrayAttr(starts), b.getI64ArrayAttr(limits), ArrayAttr());
    if (failed(piece) || failed(finish(c, c.reshape(*piece, shape), i)))
      return failure();
  }
  return success();
}

LogicalResult convertGather(OpContext &c) {
  auto opts = options<tflite::GatherOptions>(c, BuiltinOptions::GatherOptions,
                                             /*required=*/false);
  FailureOr<Value> table = c.input(0), indices = c.input(1);
  if (failed(opts) || failed(table) || failed(indices))
    return failure();
  if (*opts && (*opts)->batch_dims() != 0)
    return c.unsupported("batch_dims " + llvm::Twine((*opts)->batch_dims()));
  int64_t rank = cast<RankedTensorType>(table->getType()).getRank();
  FailureOr<int64_t> axis = normalizeAxis(c, *opts ? (*opts)->axis() : 0, rank);
  if (failed(axis))
    return failure();
  return finish(c, c.create<graph::GatherOp>(
                       *table, *indices, c.builder().getI64IntegerAttr(*axis)));
}

/// SPACE_TO_DEPTH / DEPTH_TO_SPACE (TF's DCR order) as reshape + transpose.
template <bool kToDepth> LogicalResult convertDepthSpace(OpContext &c) {
  auto opts = options<tflite::SpaceToDepthOptions>(
      c, kToDepth ? BuiltinOptions::SpaceToDepthOptions
                  : BuiltinOptions::DepthToSpaceOptions);
  FailureOr<Value> x = c.input(0);
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(opts) || failed(x) || failed(outType))
    return failure();
  int64_t bs = (*opts)->block_size();
  auto type = cast<RankedTensorType>(x->getType());
  if (bs < 1 || type.getRank() != 4)
    return c.invalid("block size " + llvm::Twine(bs) + " of a rank-" +
                     llvm::Twine(type.getRank()) + " input");
  int64_t n = type.getDimSize(0), h = type.getDimSize(1),
          w = type.getDimSize(2), ch = type.getDimSize(3);
  FailureOr<Value> r;
  if (kToDepth) {
    if (h % bs || w % bs)
      return c.invalid("height and width not multiples of the block size");
    r = c.reshape(*x, {n, h / bs, bs, w / bs, bs, ch});
    if (succeeded(r))
      r = c.create<graph::TransposeOp>(
          *r, c.builder().getI64ArrayAttr({0, 1, 3, 2, 4, 5}));
  } else {
    if (ch % (bs * bs))
      return c.invalid("channels not a multiple of the block size squared");
    r = c.reshape(*x, {n, h, w, bs, bs, ch / (bs * bs)});
    if (succeeded(r))
      r = c.create<graph::TransposeOp>(
          *r, c.builder().getI64ArrayAttr({0, 1, 3, 2, 4, 5}));
  }
  if (failed(r))
    return failure();
  return finish(c, c.reshape(*r, outType->getShape()));
}

//===--- resizing ---------------------------------------------------------===//

template <bool kBilinear> LogicalResult convertResize(OpContext &c) {
  bool alignCorners = false, halfPixel = false;
  if (kBilinear) {
    auto opts = options<tflite::ResizeOptions>(
        c, BuiltinOptions::ResizeBilinearOptions, /*required=*/false);
    if (failed(opts))
      return failure();
    if (*opts) {
      alignCorners = (*opts)->align_corners();
      halfPixel = (*opts)->half_pixel_centers();
    }
  } else {
    auto opts = options<tflite::ResizeNearestNeighborOptions>(
        c, BuiltinOptions::ResizeNearestNeighborOptions, /*required=*/false);
    if (failed(opts))
      return failure();
    if (*opts) {
      alignCorners = (*opts)->align_corners();
      halfPixel = (*opts)->half_pixel_centers();
    }
  }
  if (alignCorners)
    return c.unsupported("align_corners = true");
  FailureOr<Value> x = floatInput(c, 0, 4);
  FailureOr<std::vector<int64_t>> size = c.constantInts(1, "size");
  if (failed(x) || failed(size))
    return failure();
  if (size->size() != 2 || (*size)[0] < 1 || (*size)[1] < 1)
    return c.invalid("size: two positive entries [h, w] expected");
  OpBuilder &b = c.builder();
  return finish(c, c.create<graph::ResizeOp>(
                       *x, b.getI64ArrayAttr(*size),
                       b.getStringAttr(kBilinear ? "bilinear" : "nearest"),
                       b.getBoolAttr(halfPixel)));
}

//===--- reductions -------------------------------------------------------===//

template <typename ReduceOp> LogicalResult convertReduce(OpContext &c) {
  auto opts = options<tflite::ReducerOptions>(c, BuiltinOptions::ReducerOptions,
                                              /*required=*/false);
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> axesValue = c.constantInts(1, "axes");
  if (failed(opts) || failed(x) || failed(axesValue))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : *axesValue) {
    FailureOr<int64_t> axis = normalizeAxis(c, a, rank);
    if (failed(axis))
      return failure();
    if (!llvm::is_contained(axes, *axis))
      axes.push_back(*axis);
  }
  llvm::sort(axes);
  OpBuilder &b = c.builder();
  return finish(
      c, c.create<ReduceOp>(*x, b.getI64ArrayAttr(axes),
                            b.getBoolAttr(*opts && (*opts)->keep_dims())));
}

LogicalResult convertArgMax(OpContext &c) {
  auto opts = options<tflite::ArgMaxOptions>(c, BuiltinOptions::ArgMaxOptions,
                                             /*required=*/false);
  FailureOr<Value> x = c.input(0);
  FailureOr<std::vector<int64_t>> axisValue = c.constantInts(1, "axis");
  FailureOr<RankedTensorType> outType = declaredOutput(c);
  if (failed(opts) || failed(x) || failed(axisValue) || failed(outType))
    return failure();
  if (axisValue->size() != 1)
    return c.invalid("axis: a scalar expected");
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  FailureOr<int64_t> axis = normalizeAxis(c, (*axisValue)[0], rank);
  if (failed(axis))
    return failure();
  FailureOr<Value> y =
      c.create<graph::ArgmaxOp>(*x, c.builder().getI64IntegerAttr(*axis));
  if (failed(y))
    return failure();
  if (outType->getElementType() !=
      cast<RankedTensorType>(y->getType()).getElementType()) {
    auto op = c.builder().create<graph::CastOp>(c.loc(), *outType, *y);
    return finish(c, op.getResult());
  }
  return finish(c, y);
}

//===--- the tables -------------------------------------------------------===//

const llvm::DenseMap<int32_t, ConverterFn> &builtinTable() {
  static const llvm::DenseMap<int32_t, ConverterFn> table = [] {
    llvm::DenseMap<int32_t, ConverterFn> t;
    auto add = [&](BuiltinOperator code, ConverterFn fn) {
      t[static_cast<int32_t>(code)] = fn;
    };
    using B = BuiltinOperator;
    using O = BuiltinOptions;
    add(B::CONV_2D, convertConv2D);
    add(B::DEPTHWISE_CONV_2D, convertDepthwiseConv2D);
    add(B::TRANSPOSE_CONV, convertTransposeConv);
    add(B::FULLY_CONNECTED, convertFullyConnected);
    add(B::BATCH_MATMUL, convertBatchMatMul);
    add(B::AVERAGE_POOL_2D, convertPool<graph::AvgPool2DOp>);
    add(B::MAX_POOL_2D, convertPool<graph::MaxPool2DOp>);
    add(B::ADD, convertBinary<graph::AddOp, O::AddOptions>);
    add(B::SUB, convertBinary<graph::SubOp, O::SubOptions>);
    add(B::MUL, convertBinary<graph::MulOp, O::MulOptions>);
    add(B::DIV, convertBinary<graph::DivOp, O::DivOptions>);
    add(B::MAXIMUM, convertBinary<graph::MaximumOp, O::NONE>);
    add(B::MINIMUM, convertBinary<graph::MinimumOp, O::NONE>);
    add(B::POW, convertBinary<graph::PowOp, O::NONE>);
    add(B::SQUARED_DIFFERENCE, convertSquaredDifference);
    add(B::RELU, convertUnary<graph::ReluOp>);
    add(B::RELU6, convertUnary<graph::Relu6Op>);
    add(B::RELU_N1_TO_1, convertReluN1To1);
    add(B::LOGISTIC, convertUnary<graph::SigmoidOp>);
    add(B::TANH, convertUnary<graph::TanhOp>);
    add(B::HARD_SWISH, convertUnary<graph::HardSwishOp>);
    add(B::EXP, convertUnary<graph::ExpOp>);
    add(B::LOG, convertUnary<graph::LogOp>);
    add(B::SQRT, convertUnary<graph::SqrtOp>);
    add(B::RSQRT, convertUnary<graph::RsqrtOp>);
    add(B::NEG, convertUnary<graph::NegOp>);
    add(B::ABS, convertUnary<graph::AbsOp>);
    add(B::SQUARE, convertUnary<graph::SquareOp>);
    add(B::FLOOR, convertUnary<graph::FloorOp>);
    add(B::CEIL, convertUnary<graph::CeilOp>);
    add(B::SIN, convertMath<kSin>);
    add(B::COS, convertMath<kCos>);
    add(B::ROUND, convertMath<kRound>);
    add(B::SIGN, convertMath<kSign>);
    add(B::LEAKY_RELU, convertLeakyRelu);
    add(B::GELU, convertGelu);
    add(B::PRELU, convertPrelu);
    add(B::SOFTMAX, convertSoftmax);
    add(B::LOG_SOFTMAX, convertLogSoftmax);
    add(B::CAST, convertCast);
    add(B::DEQUANTIZE, convertDequantize);
    add(B::QUANTIZE, convertQuantize);
    add(B::RESHAPE, convertReshapeLike);
    add(B::SQUEEZE, convertReshapeLike);
    add(B::EXPAND_DIMS, convertReshapeLike);
    add(B::CONCATENATION, convertConcatenation);
    add(B::PAD, convertPad);
    add(B::PADV2, convertPad);
    add(B::MIRROR_PAD, convertMirrorPad);
    add(B::TRANSPOSE, convertTranspose);
    add(B::STRIDED_SLICE, convertStridedSlice);
    add(B::SLICE, convertSlice);
    add(B::SPLIT, convertSplit);
    add(B::SPLIT_V, convertSplitV);
    add(B::PACK, convertPack);
    add(B::UNPACK, convertUnpack);
    add(B::GATHER, convertGather);
    add(B::SPACE_TO_DEPTH, convertDepthSpace<true>);
    add(B::DEPTH_TO_SPACE, convertDepthSpace<false>);
    add(B::RESIZE_BILINEAR, convertResize<true>);
    add(B::RESIZE_NEAREST_NEIGHBOR, convertResize<false>);
    add(B::MEAN, convertReduce<graph::ReduceMeanOp>);
    add(B::SUM, convertReduce<graph::ReduceSumOp>);
    add(B::REDUCE_MAX, convertReduce<graph::ReduceMaxOp>);
    add(B::REDUCE_MIN, convertReduce<graph::ReduceMinOp>);
    add(B::ARG_MAX, convertArgMax);
    return t;
  }();
  return table;
}

} // namespace

ConverterFn tfcc::tflite_import::builtinConverter(BuiltinOperator code) {
  const auto &table = builtinTable();
  auto it = table.find(static_cast<int32_t>(code));
  return it == table.end() ? nullptr : it->second;
}

ConverterFn tfcc::tflite_import::customConverter(llvm::StringRef name) {
  if (name == "Convolution2DTransposeBias")
    return convertConvolution2DTransposeBias;
  return nullptr;
}
