//===- FuseInt8Ops.cpp - dequantize -> conv / dense -> quantize to int8 ---===//
//
// After tfcc-fuse-ops, a fused convolution or dense layer whose input and
// weights are dequantized int8 data computes in float what the runtime's
// int8 GEMM computes from the integers: this pass hands it the integers
// (docs/quantization.md, "Kernels"), and absorbs a following quantize into
// its epilogue so the next layer reads uint8 directly. Max poolings of
// dequantized data pool the integers, and a quantize that undoes a dequantize
// goes.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/AnchoredRewrite.h"
#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace mlir::tfcc {
#define GEN_PASS_DEF_FUSEINT8OPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

bool isPositiveFinite(float v) { return v > 0.0f && std::isfinite(v); }
/// A weight scale: a folded batch norm may have made it negative.
bool isNonzeroFinite(float v) { return v != 0.0f && std::isfinite(v); }

/// The single constant scale and zero point of a per-tensor (de)quantize.
template <typename OpTy>
std::optional<std::pair<float, int64_t>> getPerTensorParams(OpTy op) {
  std::optional<std::vector<float>> scale =
      tfcc::getConstantFloats(op.getScale());
  std::optional<std::vector<int64_t>> zeroPoint =
      tfcc::getConstantIntegers(op.getZeroPoint());
  if (!scale || !zeroPoint || scale->size() != 1 || zeroPoint->size() != 1 ||
      !isPositiveFinite(scale->front()))
    return std::nullopt;
  return std::make_pair(scale->front(), zeroPoint->front());
}

bool isUnsigned8(Value value) {
  return cast<ShapedType>(value.getType()).getElementType().isUnsignedInteger(8);
}

/// The permutation of a graph.transpose.
SmallVector<int64_t> getPermutation(TransposeOp op) {
  return llvm::map_to_vector(op.getPerm(), [](Attribute a) {
    return cast<IntegerAttr>(a).getInt();
  });
}

/// `value` as graph.dequantize, possibly under a transpose (an NCHW model's
/// input, or OIHW weights, reaching an NHWC convolution): the dequantize and
/// the transpose (null when none), which the integers then take.
std::pair<DequantizeOp, TransposeOp> getDequantize(Value value) {
  auto transpose = value.getDefiningOp<TransposeOp>();
  return {(transpose ? transpose.getX() : value).getDefiningOp<DequantizeOp>(),
          transpose};
}

/// `x` as graph.dequantize of a ui8 tensor by one constant scale and zero
/// point (under a transpose or not): the dequantize's input, the transpose,
/// the scale and the zero point.
struct QuantizedInput {
  Value data;
  TransposeOp transpose;
  float scale;
  int64_t zeroPoint;
};
std::optional<QuantizedInput> matchQuantizedInput(Value x) {
  auto [dequantize, transpose] = getDequantize(x);
  if (!dequantize || !isUnsigned8(dequantize.getX()))
    return std::nullopt;
  auto params = getPerTensorParams(dequantize);
  if (!params)
    return std::nullopt;
  return QuantizedInput{dequantize.getX(), transpose, params->first,
                        params->second};
}

/// `kernel` (output channels on its last axis) as graph.dequantize of
/// constant signed int8 weights (under a transpose or not) with zero points
/// 0 and nonzero scales (a folded batch norm's may be negative), per tensor
/// or along the output channels: the weights, the transpose and one scale
/// per channel.
struct QuantizedKernel {
  Value weights;
  TransposeOp transpose;
  std::vector<float> scales;
};
std::optional<QuantizedKernel> matchQuantizedKernel(Value kernel) {
  auto [dequantize, transpose] = getDequantize(kernel);
  if (!dequantize)
    return std::nullopt;
  Value weights = dequantize.getX();
  auto type = cast<RankedTensorType>(weights.getType());
  auto element = dyn_cast<IntegerType>(type.getElementType());
  if (!element || element.getWidth() != 8 || element.isUnsigned() ||
      !type.hasStaticShape() || !tfcc::getConstantIntegers(weights))
    return std::nullopt;
  std::optional<tfcc::ChannelQuantization> quantization =
      tfcc::getChannelQuantization(
          dequantize.getY(),
          transpose ? getPermutation(transpose) : SmallVector<int64_t>());
  if (!quantization ||
      llvm::any_of(quantization->zeroPoints, [](int64_t z) { return z != 0; }) ||
      !llvm::all_of(quantization->scales, isNonzeroFinite))
    return std::nullopt;
  return QuantizedKernel{weights, transpose, std::move(quantization->scales)};
}

/// `data` transposed as `transpose` transposes its float form (at the
/// rewriter's insertion point), or `data` when there is no transpose.
Value transposeLike(PatternRewriter &rewriter, Value data,
                    TransposeOp transpose) {
  if (!transpose)
    return data;
  return rewriter.create<TransposeOp>(
      transpose.getLoc(),
      RankedTensorType::get(transpose.getType().getShape(),
                            cast<ShapedType>(data.getType()).getElementType()),
      data, transpose.getPermAttr());
}

/// What an int8 op takes from a fused op: the ui8 input, the int8 kernel,
/// the combined scales s_x * s_w[o] (a new constant) and x's zero point.
struct Int8Operands {
  Value x, kernel, scales;
  int64_t zeroPoint;
};

/// The int8 operands of a fused op of input `x` and kernel `kernel` with
/// `channels` output channels, built at the rewriter's insertion point, or
/// failure (nothing built) when they are not int8 data.
FailureOr<Int8Operands> buildInt8Operands(PatternRewriter &rewriter,
                                          Location loc, Value x, Value kernel,
                                          int64_t channels) {
  std::optional<QuantizedInput> input = matchQuantizedInput(x);
  std::optional<QuantizedKernel> weights = matchQuantizedKernel(kernel);
  if (!input || !weights)
    return failure();
  std::vector<float> combined = weights->scales;
  // One scale (per tensor) for a kernel whose last axis is not the output
  // channels (a depthwise kernel [kh, kw, c, 1]).
  if (combined.size() == 1)
    combined.assign(channels, combined.front());
  if (static_cast<int64_t>(combined.size()) != channels)
    return failure();
  for (float &s : combined)
    s *= input->scale;
  auto type = RankedTensorType::get({static_cast<int64_t>(combined.size())},
                                    rewriter.getF32Type());
  Value scales = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(type, ArrayRef<float>(combined)));
  return Int8Operands{transposeLike(rewriter, input->data, input->transpose),
                      transposeLike(rewriter, weights->weights,
                                    weights->transpose),
                      scales, input->zeroPoint};
}

/// Why the runtime's int8 kernels cannot take `op`, or null: they need
/// static image sizes (left float, the convolution's lowering reports the op
/// and what to change), and the uint8 depthwise kernel takes one output
/// channel per input channel, no residual and windows of at most
/// kMaxInt8DepthwiseTaps taps.
const char *getInt8ConvMismatch(FusedConv2DOp op) {
  if (tfcc::hasDynamicInnerDims(op))
    return "dynamic image sizes";
  if (!op.getDepthwise())
    return nullptr;
  ArrayRef<int64_t> kernel = op.getKernel().getType().getShape();
  if (kernel[3] != 1)
    return "depthwise with several output channels per input channel";
  if (op.getResidual())
    return "depthwise with a residual";
  if (kernel[0] * kernel[1] > kMaxInt8DepthwiseTaps)
    return "depthwise window over the int8 kernel's taps";
  return nullptr;
}

struct FusedConv2DToInt8 : OpRewritePattern<FusedConv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedConv2DOp op,
                                PatternRewriter &rewriter) const override {
    Value kernel = op.getKernel();
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    // An ONNX depthwise kernel [c, 1, kh, kw] reaches the convolution
    // transposed to [kh, kw, 1, c] and reshaped to [kh, kw, c, 1]: below
    // the reshape its channels are the last axis, as the int8 weights'
    // matching expects; the integers take the same reshape.
    if (const char *mismatch = getInt8ConvMismatch(op))
      return rewriter.notifyMatchFailure(op, mismatch);
    ReshapeOp reshape;
    if (op.getDepthwise()) {
      reshape = kernel.getDefiningOp<ReshapeOp>();
      ArrayRef<int64_t> k = kernelType.getShape();
      if (reshape && reshape.getX().getType().getShape() ==
                         ArrayRef<int64_t>{k[0], k[1], 1, k[2]})
        kernel = reshape.getX();
      else
        reshape = nullptr;
    }
    int64_t channels = op.getType().getShape().back();
    FailureOr<Int8Operands> int8 =
        buildInt8Operands(rewriter, op.getLoc(), op.getX(), kernel, channels);
    if (failed(int8))
      return rewriter.notifyMatchFailure(op, "operands are not int8 data");
    Value int8Kernel = int8->kernel;
    if (reshape)
      int8Kernel = rewriter.create<ReshapeOp>(
          reshape.getLoc(),
          RankedTensorType::get(
              kernelType.getShape(),
              cast<ShapedType>(int8Kernel.getType()).getElementType()),
          int8Kernel);
    rewriter.replaceOpWithNewOp<FusedConv2DInt8Op>(
        op, op.getType(), int8->x, int8Kernel, int8->scales, op.getBias(),
        op.getResidual(), op.getStrides(), op.getDilations(), op.getPads(),
        rewriter.getI64IntegerAttr(int8->zeroPoint), op.getActivationAttr(),
        op.getAlphaAttr(), op.getBetaAttr(), FloatAttr(),
        rewriter.getI64IntegerAttr(0), op.getDepthwiseAttr(),
        /*max_pool=*/ArrayAttr());
    return success();
  }
};

struct FusedDenseToInt8 : OpRewritePattern<FusedDenseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedDenseOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Int8Operands> int8 =
        buildInt8Operands(rewriter, op.getLoc(), op.getX(), op.getKernel(),
                          op.getType().getShape().back());
    if (failed(int8))
      return rewriter.notifyMatchFailure(op, "operands are not int8 data");
    rewriter.replaceOpWithNewOp<FusedDenseInt8Op>(
        op, op.getType(), int8->x, int8->kernel, int8->scales, op.getBias(),
        op.getResidual(), rewriter.getI64IntegerAttr(int8->zeroPoint),
        op.getActivationAttr(), op.getAlphaAttr(), op.getBetaAttr(),
        FloatAttr(), rewriter.getI64IntegerAttr(0));
    return success();
  }
};

/// graph.quantize (per tensor, to ui8) of an int8 op's float result that
/// nothing else reads: the op writes the uint8 values itself.
struct AbsorbQuantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *producer = op.getX().getDefiningOp();
    if (!producer || !isa<FusedConv2DInt8Op, FusedDenseInt8Op>(producer) ||
        !producer->hasOneUse() || !isUnsigned8(op.getY()) ||
        producer->hasAttr("out_scale"))
      return rewriter.notifyMatchFailure(op, "not an int8 op's result");
    auto params = getPerTensorParams(op);
    if (!params)
      return rewriter.notifyMatchFailure(op, "not per tensor");
    rewriter.setInsertionPoint(producer);
    Operation *requantized = rewriter.clone(*producer);
    requantized->getResult(0).setType(op.getY().getType());
    requantized->setAttr("out_scale", rewriter.getF32FloatAttr(params->first));
    requantized->setAttr("out_zero_point",
                         rewriter.getI64IntegerAttr(params->second));
    rewriter.replaceOp(op, requantized->getResults());
    rewriter.eraseOp(producer);
    return success();
  }
};

/// Whether `pad` (of max_pool2d `op`'s input) is a -inf pad of H and W
/// only, each side smaller than the window: no window then holds padding
/// alone.
bool isIgnoredMaxPoolPad(PadOp pad, MaxPool2DOp op) {
  if (!tfcc::isConstantPadOfHW(pad) ||
      pad.getValue().convertToFloat() > -std::numeric_limits<float>::max())
    return false;
  SmallVector<int64_t> pads = tfcc::getIntegers(pad.getPads());
  SmallVector<int64_t> window = tfcc::getIntegers(op.getWindow());
  for (int64_t i = 0; i < 4; ++i)
    if (pads[2 + i] >= window[i / 2])
      return false;
  return true;
}

/// Whether the 8-bit pooling kernel takes `op`'s geometry: NHWC with a
/// static channel count (and static H and W for "same" padding).
bool isInt8PoolKernelGeometry(MaxPool2DOp op) {
  auto inputType = cast<RankedTensorType>(op.getX().getType());
  return inputType.getRank() == 4 && !inputType.isDynamicDim(3) &&
         !(op.getPadding() == "same" && tfcc::hasDynamicInnerDims(op));
}

/// graph.max_pool2d of 8-bit data dequantized per tensor (a positive
/// scale), possibly through a transpose (NCHW data) and a -inf pad of H and
/// W (an ONNX MaxPool's pads): the integers' pooling, dequantized after it.
/// Exact: dequantizing with a positive scale keeps the order, so the largest
/// dequantized value is the dequantized largest integer; the pad becomes one
/// of the type's lowest value, which never wins a window that holds an
/// element of the input (each does when every pad is smaller than the
/// window). Taken where the 8-bit pooling kernel takes it: static channels
/// (and H and W for "same").
struct MaxPoolBeforeDequantize : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    auto pad = x.getDefiningOp<PadOp>();
    if (pad)
      x = pad.getX();
    auto [dequantize, transpose] = getDequantize(x);
    if (!dequantize || !getPerTensorParams(dequantize))
      return rewriter.notifyMatchFailure(op, "not of per-tensor int8 data");
    Type element =
        cast<ShapedType>(dequantize.getX().getType()).getElementType();
    if (!element.isInteger(8))
      return rewriter.notifyMatchFailure(op, "not of per-tensor int8 data");
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isInt8PoolKernelGeometry(op))
      return rewriter.notifyMatchFailure(op, "not what the kernel takes");
    if (pad && !isIgnoredMaxPoolPad(pad, op))
      return rewriter.notifyMatchFailure(op, "not a -inf pad of H and W");
    Location loc = op.getLoc();
    Value data = transposeLike(rewriter, dequantize.getX(), transpose);
    if (pad) {
      data = rewriter.create<PadOp>(
          pad.getLoc(),
          RankedTensorType::get(pad.getType().getShape(), element), data,
          pad.getPads(), rewriter.getF32FloatAttr(getMaxPoolPadValue(element)));
    }
    Value pooled = rewriter.create<MaxPool2DOp>(
        loc, RankedTensorType::get(resultType.getShape(), element), data,
        op.getWindowAttr(), op.getStridesAttr(), op.getPaddingAttr());
    rewriter.replaceOpWithNewOp<DequantizeOp>(
        op, resultType, pooled, dequantize.getScale(),
        dequantize.getZeroPoint(), dequantize.getAxisAttr());
    return success();
  }
};

/// Whether the epilogue of int8 `op` never decreases as an int32 sum
/// grows: every scale positive (a folded batch norm may have made one
/// negative) and a non-decreasing activation (none, relu, clip, leaky relu
/// with alpha >= 0; requantization keeps the order).
bool hasNonDecreasingEpilogue(FusedConv2DInt8Op op) {
  std::optional<std::vector<float>> scales =
      tfcc::getConstantFloats(op.getScales());
  if (!scales || !llvm::all_of(*scales, isPositiveFinite))
    return false;
  StringRef activation = op.getActivation();
  float alpha = op.getAlpha().convertToFloat();
  return activation == "none" || activation == "relu" || activation == "clip" ||
         (activation == "leaky_relu" && alpha >= 0.0f);
}

/// graph.max_pool2d with windows as strides and no padding of a groups-1
/// graph.fused_conv2d_int8's result that nothing else reads: the
/// convolution pools its int32 sums before its epilogue (`max_pool`), so
/// the epilogue and the stores run once per window and the pooled tensor
/// is never written whole. Exact when the epilogue never decreases as a
/// sum grows (hasNonDecreasingEpilogue): the largest sum gives the largest
/// output. Taken where the runtime's int8 convolution kernel computes the
/// convolution (isInt8ConvKernelConv), no residual, windows its tiles hold
/// (isInt8ConvPoolWindow); a "same" pooling where the windows tile H and W
/// exactly (no padding then).
struct AbsorbMaxPool : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    auto conv = op.getX().getDefiningOp<FusedConv2DInt8Op>();
    if (!conv || !conv->hasOneUse() || conv.getDepthwise() ||
        conv.getResidual() || conv.getMaxPool())
      return rewriter.notifyMatchFailure(op, "not of a plain int8 conv");
    SmallVector<int64_t> window = tfcc::getIntegers(op.getWindow());
    SmallVector<int64_t> strides =
        op.getStrides() ? tfcc::getIntegers(*op.getStrides()) : window;
    auto inputType = cast<RankedTensorType>(op.getX().getType());
    if (window.size() != 2 || window != strides ||
        !isInt8ConvPoolWindow(window[0], window[1]))
      return rewriter.notifyMatchFailure(op, "not windows the kernel holds");
    if (op.getPadding() != "valid" &&
        (tfcc::hasDynamicInnerDims(op) ||
         inputType.getDimSize(1) % window[0] != 0 ||
         inputType.getDimSize(2) % window[1] != 0))
      return rewriter.notifyMatchFailure(op, "padded");
    if (!hasNonDecreasingEpilogue(conv) || !tfcc::isInt8ConvKernelConv(conv))
      return rewriter.notifyMatchFailure(op, "not what the kernel pools");
    rewriter.setInsertionPoint(conv);
    Operation *pooled = rewriter.clone(*conv);
    pooled->getResult(0).setType(op.getType());
    pooled->setAttr("max_pool", op.getWindowAttr());
    // Both nodes' names (profiles, --check-numerics).
    pooled->setLoc(rewriter.getFusedLoc({conv.getLoc(), op.getLoc()}));
    rewriter.replaceOp(op, pooled->getResults());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// The reshapes and transposes (a flatten, an NCHW view) that `value` is
/// the result of, outermost first, and what they move (`*source`); with
/// `singleUse`, only those whose result nothing else reads.
SmallVector<Operation *> getMoves(Value value, bool singleUse, Value *source) {
  SmallVector<Operation *> moves;
  while (isa_and_nonnull<ReshapeOp, TransposeOp>(value.getDefiningOp()) &&
         (!singleUse || value.hasOneUse())) {
    moves.push_back(value.getDefiningOp());
    value = value.getDefiningOp()->getOperand(0);
  }
  *source = value;
  return moves;
}

/// `moves` (from getMoves) applied again to `data`, whose element type the
/// results take.
Value replayMoves(PatternRewriter &rewriter, ArrayRef<Operation *> moves,
                  Value data) {
  Type element = cast<ShapedType>(data.getType()).getElementType();
  for (Operation *move : llvm::reverse(moves)) {
    auto type = RankedTensorType::get(
        cast<ShapedType>(move->getResult(0).getType()).getShape(), element);
    if (auto transpose = dyn_cast<TransposeOp>(move))
      data = rewriter.create<TransposeOp>(move->getLoc(), type, data,
                                          transpose.getPermAttr());
    else
      data = rewriter.create<ReshapeOp>(move->getLoc(), type, data);
  }
  return data;
}

/// graph.quantize (per tensor, a positive scale) of a float
/// graph.max_pool2d, possibly through reshapes and transposes (a flatten),
/// each read by nothing else: the pooling (and the moves) of the quantized
/// input instead (what tfcc-quantize-int8 leaves between a convolution and
/// the next one's quantized input). The quantize then follows the
/// convolution, which writes uint8 (AbsorbQuantize), and the pooling runs on
/// the integers. Exact for inputs without NaN: quantizing (rounding and
/// saturating x / scale, then adding the zero point) never reverses an
/// order, so it commutes with taking the largest of a window, padding
/// included (a window holding a NaN gives its other values' largest instead
/// of the lowest integer, NaN's quantization). Taken where the 8-bit pooling
/// kernel takes it, as MaxPoolBeforeDequantize.
struct QuantizeBeforeMaxPool : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Value x;
    SmallVector<Operation *> moves = getMoves(op.getX(), true, &x);
    auto pool = x.getDefiningOp<MaxPool2DOp>();
    if (!pool || !x.hasOneUse() || !getPerTensorParams(op))
      return rewriter.notifyMatchFailure(op, "not a max pooling's result");
    // Dequantized data (through a pad) pools as integers already
    // (MaxPoolBeforeDequantize).
    Value pooled = pool.getX();
    if (auto pad = pooled.getDefiningOp<PadOp>())
      pooled = pad.getX();
    if (getDequantize(pooled).first)
      return rewriter.notifyMatchFailure(op, "pools dequantized data");
    if (!isInt8PoolKernelGeometry(pool))
      return rewriter.notifyMatchFailure(op, "not what the kernel takes");
    Type element = op.getType().getElementType();
    auto like = [&](Value v) {
      return RankedTensorType::get(cast<ShapedType>(v.getType()).getShape(),
                                   element);
    };
    Value data = rewriter.create<QuantizeOp>(
        op.getLoc(), like(pool.getX()), pool.getX(), op.getScale(),
        op.getZeroPoint(), op.getAxisAttr());
    data = rewriter.create<MaxPool2DOp>(
        pool.getLoc(), like(pool.getResult()), data, pool.getWindowAttr(),
        pool.getStridesAttr(), pool.getPaddingAttr());
    rewriter.replaceOp(op, replayMoves(rewriter, moves, data));
    return success();
  }
};

/// graph.quantize of graph.dequantize (possibly through reshapes and
/// transposes) with the same integer type and the same constant per-tensor
/// scale and zero point: the integers themselves, moved alike (what a QDQ
/// model's pooling and flattening leave once their dequantize moved after
/// them). Exact for a normal scale s: (q - z) * s / s is within far less
/// than 0.5 of q - z.
struct DropRequantization : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Value x;
    SmallVector<Operation *> moves = getMoves(op.getX(), false, &x);
    auto dequantize = x.getDefiningOp<DequantizeOp>();
    if (!dequantize || dequantize.getX().getType().getElementType() !=
                           op.getType().getElementType())
      return rewriter.notifyMatchFailure(op, "not of dequantized data");
    auto in = getPerTensorParams(dequantize), out = getPerTensorParams(op);
    if (!in || !out || *in != *out ||
        in->first < std::numeric_limits<float>::min() ||
        in->first > std::numeric_limits<float>::max() / 256.0f)
      return rewriter.notifyMatchFailure(op, "other parameters");
    rewriter.replaceOp(op, replayMoves(rewriter, moves, dequantize.getX()));
    return success();
  }
};

struct FuseInt8Ops : tfcc::impl::FuseInt8OpsBase<FuseInt8Ops> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tfcc::populateFuseInt8OpsPatterns(patterns);
    if (failed(
            tfcc::applyPatternsAtAnchors(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::tfcc::populateFuseInt8OpsPatterns(RewritePatternSet &patterns) {
  patterns.add<FusedConv2DToInt8, FusedDenseToInt8, AbsorbQuantize,
               MaxPoolBeforeDequantize, DropRequantization,
               QuantizeBeforeMaxPool, AbsorbMaxPool>(patterns.getContext());
}
