//===- FuseOps.cpp - the tfcc-fuse-ops pass -------------------------------===//
//
// Rewrites float32 convolutions and dense layers into graph.fused_conv2d /
// graph.fused_dense and grows them over what follows: a zero pad of the
// input, a constant bias add, an inference batch_norm (folded into the
// weights at compile time), a residual add and an activation. Each fused op
// then lowers to one micro-kernel call whose epilogue does that work while
// the output tile is still in registers.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/AnchoredRewrite.h"
#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::tfcc {
#define GEN_PASS_DEF_FUSEOPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

bool isF32(Value value) {
  return cast<ShapedType>(value.getType()).getElementType().isF32();
}

/// A graph.constant holding `values` with `type`.
Value createConstant(PatternRewriter &rewriter, Location loc,
                     RankedTensorType type, ArrayRef<float> values) {
  return rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(type, values));
}

/// The output channel count of a fused op (the last dim of its result).
int64_t getChannels(Operation *fused) {
  return cast<RankedTensorType>(fused->getResult(0).getType()).getShape().back();
}

/// A fused op with no other user of its result and no activation or
/// rounding yet, so its epilogue can still grow; with `allowResidual` false
/// it must also have no residual (a bias or batch norm after the residual
/// add is not a bias of the convolution alone).
bool hasOpenEpilogue(Operation *op, bool allowResidual = false) {
  if (!op || !op->hasOneUse() || op->getAttr("round_to"))
    return false;
  if (auto conv = dyn_cast<FusedConv2DOp>(op))
    return (allowResidual || !conv.getResidual()) &&
           conv.getActivation() == "none";
  if (auto dense = dyn_cast<FusedDenseOp>(op))
    return (allowResidual || !dense.getResidual()) &&
           dense.getActivation() == "none";
  return false;
}

/// Operand indices of the fused ops (x, kernel, bias, residual).
enum { kX = 0, kKernel = 1 };

Value getBias(Operation *fused) {
  if (auto conv = dyn_cast<FusedConv2DOp>(fused))
    return conv.getBias();
  return cast<FusedDenseOp>(fused).getBias();
}

Value getResidual(Operation *fused) {
  if (auto conv = dyn_cast<FusedConv2DOp>(fused))
    return conv.getResidual();
  return cast<FusedDenseOp>(fused).getResidual();
}

/// An epilogue activation: its name and parameters.
struct Activation {
  StringRef name;
  float alpha = 0.0f, beta = 0.0f;
};

/// Clones `fused` at the rewriter's insertion point with a new kernel, bias
/// or residual (null keeps the old one) and, when given, an activation.
Operation *cloneFused(PatternRewriter &rewriter, Operation *fused,
                      Value kernel, Value bias, Value residual,
                      std::optional<Activation> activation = std::nullopt) {
  Value x = fused->getOperand(kX);
  kernel = kernel ? kernel : fused->getOperand(kKernel);
  bias = bias ? bias : getBias(fused);
  residual = residual ? residual : getResidual(fused);
  Type type = fused->getResult(0).getType();
  Location loc = fused->getLoc();
  StringAttr name = cast<StringAttr>(fused->getAttr("activation"));
  FloatAttr alpha = cast<FloatAttr>(fused->getAttr("alpha"));
  FloatAttr beta = cast<FloatAttr>(fused->getAttr("beta"));
  if (activation) {
    name = rewriter.getStringAttr(activation->name);
    alpha = rewriter.getF32FloatAttr(activation->alpha);
    beta = rewriter.getF32FloatAttr(activation->beta);
  }
  if (auto conv = dyn_cast<FusedConv2DOp>(fused))
    return rewriter.create<FusedConv2DOp>(
        loc, type, x, kernel, bias, residual, conv.getStridesAttr(),
        conv.getDilationsAttr(), conv.getPadsAttr(),
        rewriter.getBoolAttr(conv.getDepthwise()), name, alpha, beta,
        conv.getRoundToAttr());
  return rewriter.create<FusedDenseOp>(
      loc, type, x, kernel, bias, residual, name, alpha, beta,
      cast<FusedDenseOp>(fused).getRoundToAttr());
}

//===----------------------------------------------------------------------===//
// Entry: spec ops to fused ops
//===----------------------------------------------------------------------===//

template <typename ConvOp>
LogicalResult rewriteConvolution(ConvOp op, bool depthwise,
                                 PatternRewriter &rewriter) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!isF32(op.getX()) || xType.getRank() != 4 ||
      !kernelType.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "not a float32 NHWC convolution");
  if (xType.isDynamicDim(3) || resultType.isDynamicDim(3))
    return rewriter.notifyMatchFailure(op, "dynamic channels");
  // The kernels take H and W at run time; SAME padding would need its pads
  // at run time too (fused_conv2d's are attributes).
  bool same = op.getPadding() == "same";
  for (int64_t dim = 1; dim < 3; ++dim)
    if (same && (xType.isDynamicDim(dim) || resultType.isDynamicDim(dim)))
      return rewriter.notifyMatchFailure(op, "same padding of a dynamic dim");
  SmallVector<int64_t> strides = tfcc::getIntegers(op.getStrides());
  SmallVector<int64_t> dilations = tfcc::getIntegers(op.getDilations());
  tfcc::WindowPadding padding = tfcc::getWindowPadding(
      xType.getShape().slice(1, 2), kernelType.getShape().take_front(2),
      strides, dilations, same);
  ArrayAttr pads = rewriter.getI64ArrayAttr(
      {padding.before[0], padding.after[0], padding.before[1],
       padding.after[1]});
  auto fused = rewriter.create<FusedConv2DOp>(
      op.getLoc(), resultType, op.getX(), op.getKernel(), op.getBias(), Value(),
      op.getStrides(), op.getDilations(), pads, rewriter.getBoolAttr(depthwise),
      rewriter.getStringAttr("none"), rewriter.getF32FloatAttr(0),
      rewriter.getF32FloatAttr(0),
      /*round_to=*/TypeAttr());
  rewriter.replaceOp(op, fused.getResult());
  return success();
}

struct Conv2DToFused : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getGroups() == 1)
      return rewriteConvolution(op, /*depthwise=*/false, rewriter);
    // One group per input channel (ONNX's depthwise form): the kernel
    // [kh, kw, 1, c * m] is the depthwise kernel [kh, kw, c, m], same
    // row-major order (output channel ci * m + mi reads channel ci).
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
    int64_t channels = xType.getRank() == 4 ? xType.getDimSize(3) : -1;
    if (channels <= 1 || static_cast<int64_t>(op.getGroups()) != channels ||
        kernelType.getRank() != 4 || !kernelType.hasStaticShape() ||
        kernelType.getDimSize(2) != 1 ||
        kernelType.getDimSize(3) % channels != 0)
      return rewriter.notifyMatchFailure(op, "grouped convolution");
    ArrayRef<int64_t> k = kernelType.getShape();
    auto depthwiseType = RankedTensorType::get(
        {k[0], k[1], channels, k[3] / channels}, kernelType.getElementType());
    Value kernel =
        rewriter.create<ReshapeOp>(op.getLoc(), depthwiseType, op.getKernel());
    auto depthwise = rewriter.create<DepthwiseConv2DOp>(
        op.getLoc(), op.getType(), op.getX(), kernel, op.getBias(),
        op.getStrides(), op.getDilations(), op.getPaddingAttr());
    rewriter.replaceOp(op, depthwise.getResult());
    return success();
  }
};

struct DepthwiseToFused : OpRewritePattern<DepthwiseConv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DepthwiseConv2DOp op,
                                PatternRewriter &rewriter) const override {
    return rewriteConvolution(op, /*depthwise=*/true, rewriter);
  }
};

FusedDenseOp createFusedDense(PatternRewriter &rewriter, Location loc,
                              Type type, Value x, Value kernel, Value bias) {
  return rewriter.create<FusedDenseOp>(
      loc, type, x, kernel, bias, Value(), rewriter.getStringAttr("none"),
      rewriter.getF32FloatAttr(0), rewriter.getF32FloatAttr(0),
      /*round_to=*/TypeAttr());
}

struct DenseToFused : OpRewritePattern<DenseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DenseOp op,
                                PatternRewriter &rewriter) const override {
    auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
    if (!isF32(op.getX()) || !kernelType.hasStaticShape() ||
        kernelType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "not a float32 static dense");
    rewriter.replaceOp(op, createFusedDense(rewriter, op.getLoc(), op.getType(),
                                            op.getX(), op.getKernel(),
                                            op.getBias())
                               .getResult());
    return success();
  }
};

/// Whether `value` is graph.dequantize of compile-time constant integers
/// (int8 weights).
bool isDequantizedConstant(Value value) {
  auto dequantize = value.getDefiningOp<DequantizeOp>();
  return dequantize && tfcc::getConstantIntegers(dequantize.getX());
}

/// x @ W with a constant matrix W is a dense layer (W transposed at compile
/// time for transpose_b), and so is x @ W with W dequantized constant
/// integers (W transposed by an op).
struct ConstantMatmulToFused : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    if (!isF32(op.getLhs()) || op.getTransposeA() || rhsType.getRank() != 2 ||
        lhsType.getRank() < 2 || !rhsType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not x @ matrix");
    Value kernel = op.getRhs();
    if (isDequantizedConstant(kernel)) {
      // int8 weights (tfcc-fuse-int8-ops takes them): transposed as an op,
      // which the int8 kernel's packing folds at compile time.
      if (op.getTransposeB())
        kernel = rewriter.create<TransposeOp>(
            op.getLoc(),
            RankedTensorType::get(
                {rhsType.getDimSize(1), rhsType.getDimSize(0)},
                rhsType.getElementType()),
            kernel, rewriter.getI64ArrayAttr({1, 0}));
    } else if (op.getTransposeB()) {
      std::optional<std::vector<float>> values =
          tfcc::getConstantFloats(kernel);
      if (!values)
        return rewriter.notifyMatchFailure(op, "transposed non-constant rhs");
      int64_t n = rhsType.getDimSize(0), k = rhsType.getDimSize(1);
      std::vector<float> transposed(values->size());
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < k; ++j)
          transposed[j * n + i] = (*values)[i * k + j];
      kernel = createConstant(
          rewriter, op.getLoc(),
          RankedTensorType::get({k, n}, rhsType.getElementType()), transposed);
    } else if (!tfcc::getConstantFloats(kernel)) {
      return rewriter.notifyMatchFailure(op, "rhs is not constant");
    }
    rewriter.replaceOp(op, createFusedDense(rewriter, op.getLoc(), op.getType(),
                                            op.getLhs(), kernel, Value())
                               .getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Growing the fused ops
//===----------------------------------------------------------------------===//

/// fused_conv2d(pad(x)) with zero padding of H and W only: the kernel pads.
struct FoldPadIntoConv : OpRewritePattern<FusedConv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedConv2DOp op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getX().getDefiningOp<PadOp>();
    if (!pad || pad.getMode() != "constant" ||
        pad.getValue().convertToFloat() != 0.0f)
      return rewriter.notifyMatchFailure(op, "input is not zero-padded");
    SmallVector<int64_t> padPairs = tfcc::getIntegers(pad.getPads());
    if (padPairs.size() != 8 || padPairs[0] || padPairs[1] || padPairs[6] ||
        padPairs[7] || llvm::any_of(padPairs, [](int64_t v) { return v < 0; }))
      return rewriter.notifyMatchFailure(op, "pads batch or channels");
    SmallVector<int64_t> pads = tfcc::getIntegers(op.getPads());
    for (int64_t i = 0; i < 4; ++i)
      pads[i] += padPairs[2 + i];
    rewriter.modifyOpInPlace(op, [&] {
      op.getXMutable().assign(pad.getX());
      op.setPadsAttr(rewriter.getI64ArrayAttr(pads));
    });
    return success();
  }
};

/// The per-channel values of a constant `value` that broadcasts against a
/// [..., channels] result along the last dim only ([c], [1, c], [1,1,1,c]),
/// or of a scalar-shaped constant.
std::optional<std::vector<float>> getChannelConstant(Value value,
                                                     int64_t channels) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  for (int64_t i = 0; i + 1 < type.getRank(); ++i)
    if (shape[i] != 1)
      return std::nullopt;
  int64_t last = shape.empty() ? 1 : shape.back();
  if (last != channels && last != 1)
    return std::nullopt;
  std::optional<std::vector<float>> values =
      tfcc::getConstantOrDequantizedFloats(value);
  if (!values)
    return std::nullopt;
  if (last == 1)
    values->assign(channels, values->front());
  return values;
}

/// The bias of `fused` as floats: its constant values, zeros when absent,
/// nullopt when it is not constant.
std::optional<std::vector<float>> getBiasValues(Operation *fused) {
  Value bias = getBias(fused);
  if (!bias)
    return std::vector<float>(getChannels(fused), 0.0f);
  return tfcc::getConstantOrDequantizedFloats(bias);
}

/// add(fused, c) with a per-channel constant c: c joins the bias.
struct FoldBiasAdd : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Operation *fused = op->getOperand(side).getDefiningOp();
      if (!hasOpenEpilogue(fused) ||
          fused->getResult(0).getType() != op.getType())
        continue;
      int64_t channels = getChannels(fused);
      std::optional<std::vector<float>> addend =
          getChannelConstant(op->getOperand(1 - side), channels);
      std::optional<std::vector<float>> bias = getBiasValues(fused);
      if (!addend || !bias)
        continue;
      for (int64_t c = 0; c < channels; ++c)
        (*bias)[c] += (*addend)[c];
      Value newBias = createConstant(
          rewriter, op.getLoc(),
          RankedTensorType::get({channels}, rewriter.getF32Type()), *bias);
      rewriter.replaceOp(
          op, cloneFused(rewriter, fused, Value(), newBias, Value())
                  ->getResult(0));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no fused op with a constant bias");
  }
};

/// `kernel` (output channel innermost, `channels` of them) with each
/// channel's weights multiplied by scale[c], at compile time: new constant
/// floats, or, for graph.dequantize of constant integers (per tensor or
/// along the last axis), the same integers dequantized with scales
/// multiplied by scale[c]; null when neither.
Value createScaledKernel(PatternRewriter &rewriter, Location loc, Value kernel,
                         ArrayRef<float> scale) {
  auto kernelType = cast<RankedTensorType>(kernel.getType());
  int64_t channels = static_cast<int64_t>(scale.size());
  if (std::optional<std::vector<float>> weights =
          tfcc::getConstantFloats(kernel)) {
    for (size_t i = 0; i < weights->size(); ++i)
      (*weights)[i] *= scale[i % channels];
    return createConstant(rewriter, loc, kernelType, *weights);
  }
  std::optional<tfcc::ChannelQuantization> quantization =
      tfcc::getChannelQuantization(kernel);
  if (!quantization || kernelType.getShape().back() != channels)
    return Value();
  auto dequantize = kernel.getDefiningOp<DequantizeOp>();
  auto zeroPointType =
      cast<RankedTensorType>(dequantize.getZeroPoint().getType());
  std::vector<float> &scales = quantization->scales;
  for (int64_t c = 0; c < channels; ++c)
    scales[c] *= scale[c];
  auto channelType = [&](Type element) {
    return RankedTensorType::get({channels}, element);
  };
  Value newScale =
      createConstant(rewriter, loc, channelType(rewriter.getF32Type()), scales);
  Type zeroPointElement = zeroPointType.getElementType();
  unsigned width = zeroPointElement.getIntOrFloatBitWidth();
  SmallVector<APInt> zeroPointValues = llvm::map_to_vector(
      quantization->zeroPoints,
      [&](int64_t z) { return APInt(width, z, /*isSigned=*/true); });
  Value newZeroPoint = rewriter.create<ConstantOp>(
      loc,
      DenseElementsAttr::get(channelType(zeroPointElement), zeroPointValues));
  return rewriter.create<DequantizeOp>(
      loc, kernelType, dequantize.getX(), newScale, newZeroPoint,
      rewriter.getI64IntegerAttr(kernelType.getRank() - 1));
}

/// batch_norm(fused) with constant parameters: scale the weights of each
/// output channel (createScaledKernel) and fold the shift into the bias, at
/// compile time.
struct FoldBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Operation *fused = op.getX().getDefiningOp();
    if (!hasOpenEpilogue(fused) ||
        fused->getResult(0).getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "input is not a fused op");
    int64_t channels = getChannels(fused);
    std::optional<std::vector<float>> gamma =
        getChannelConstant(op.getGamma(), channels);
    std::optional<std::vector<float>> beta =
        getChannelConstant(op.getBeta(), channels);
    std::optional<std::vector<float>> mean =
        getChannelConstant(op.getMean(), channels);
    std::optional<std::vector<float>> variance =
        getChannelConstant(op.getVariance(), channels);
    std::optional<std::vector<float>> bias = getBiasValues(fused);
    if (!gamma || !beta || !mean || !variance || !bias)
      return rewriter.notifyMatchFailure(op, "parameters are not constant");
    float epsilon = op.getEpsilon().convertToFloat();
    // Every kernel layout puts the output channel innermost: HWIO [.., oc],
    // depthwise [.., c, m] (channel c * m + mi), dense [k, n].
    std::vector<float> scale(channels);
    for (int64_t c = 0; c < channels; ++c) {
      scale[c] = (*gamma)[c] / std::sqrt((*variance)[c] + epsilon);
      (*bias)[c] = ((*bias)[c] - (*mean)[c]) * scale[c] + (*beta)[c];
    }
    Location loc = op.getLoc();
    Value newKernel =
        createScaledKernel(rewriter, loc, fused->getOperand(kKernel), scale);
    if (!newKernel)
      return rewriter.notifyMatchFailure(op, "kernel is not constant");
    Value newBias = createConstant(
        rewriter, loc, RankedTensorType::get({channels}, rewriter.getF32Type()),
        *bias);
    rewriter.replaceOp(
        op, cloneFused(rewriter, fused, newKernel, newBias, Value())
                ->getResult(0));
    return success();
  }
};

/// add(fused, r) with r of the result's shape: the kernel adds r.
struct FuseResidualAdd : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    // Prefer the operand defined last: the other is then certainly
    // computed before the fused op runs.
    Operation *lhs = op.getLhs().getDefiningOp();
    Operation *rhs = op.getRhs().getDefiningOp();
    int first = (lhs && rhs && lhs->isBeforeInBlock(rhs)) ? 1 : 0;
    for (int i = 0; i < 2; ++i) {
      int side = (first + i) % 2;
      Operation *fused = op->getOperand(side).getDefiningOp();
      Value residual = op->getOperand(1 - side);
      if (!hasOpenEpilogue(fused) || residual.getType() != op.getType() ||
          fused->getResult(0).getType() != op.getType())
        continue;
      rewriter.replaceOp(
          op, cloneFused(rewriter, fused, Value(), Value(), residual)
                  ->getResult(0));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no fused operand");
  }
};

/// activation(fused): the kernel's epilogue applies it.
template <typename ActivationOp>
struct FuseActivation : OpRewritePattern<ActivationOp> {
  using OpRewritePattern<ActivationOp>::OpRewritePattern;

  static Activation describe(ActivationOp op);

  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    Operation *fused = op.getX().getDefiningOp();
    if (!hasOpenEpilogue(fused, /*allowResidual=*/true) ||
        fused->getResult(0).getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "input is not a fused op");
    rewriter.replaceOp(op, cloneFused(rewriter, fused, Value(), Value(),
                                      Value(), describe(op))
                               ->getResult(0));
    return success();
  }
};

template <>
Activation FuseActivation<ReluOp>::describe(ReluOp) {
  return {"relu", 0.0f, 0.0f};
}
template <>
Activation FuseActivation<Relu6Op>::describe(Relu6Op) {
  return {"clip", 0.0f, 6.0f};
}
template <>
Activation FuseActivation<ClipOp>::describe(ClipOp op) {
  return {"clip", op.getMin().convertToFloat(), op.getMax().convertToFloat()};
}
template <>
Activation FuseActivation<LeakyReluOp>::describe(LeakyReluOp op) {
  return {"leaky_relu", op.getAlpha().convertToFloat(), 0.0f};
}
template <>
Activation FuseActivation<HardSwishOp>::describe(HardSwishOp) {
  return {"hard_swish", 0.0f, 0.0f};
}
template <>
Activation FuseActivation<SigmoidOp>::describe(SigmoidOp) {
  return {"sigmoid", 0.0f, 0.0f};
}

struct FuseOps : tfcc::impl::FuseOpsBase<FuseOps> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tfcc::populateFuseOpsPatterns(patterns);
    if (failed(
            tfcc::applyPatternsAtAnchors(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::tfcc::populateFuseOpsPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<Conv2DToFused, DepthwiseToFused, DenseToFused,
               ConstantMatmulToFused, FoldPadIntoConv, FoldBatchNorm>(ctx);
  // A constant addend is a bias before it could be a residual.
  patterns.add<FoldBiasAdd>(ctx, /*benefit=*/2);
  patterns.add<FuseResidualAdd>(ctx, /*benefit=*/1);
  patterns.add<FuseActivation<ReluOp>, FuseActivation<Relu6Op>,
               FuseActivation<ClipOp>, FuseActivation<LeakyReluOp>,
               FuseActivation<HardSwishOp>, FuseActivation<SigmoidOp>>(ctx);
}
