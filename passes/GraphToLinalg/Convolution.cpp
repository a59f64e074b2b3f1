//===- Convolution.cpp - graph.conv2d and graph.depthwise_conv2d ----------===//
//
// SAME padding is an explicit tensor.pad (TF puts the odd row/column at the
// bottom/right, which linalg convolutions cannot express). The bias, if any,
// is the accumulator's initial value. conv2d with groups = 1 is
// linalg.conv_2d_nhwc_hwcf; grouped conv2d splits the channel dims into
// [groups, channels per group] and runs one linalg.generic; depthwise is
// linalg.depthwise_conv_2d_nhwc_hwcm, whose [c, m] output channels collapse
// to c * m + mi.
//
// graph.fused_conv2d (a convolution with its bias, residual and activation
// fused by tfcc-fuse-ops) is a call of the runtime's convolution kernels:
// the direct implicit-GEMM one, the depthwise one, or Winograd F(2x2, 3x3)
// for the 3x3 layers where that measures faster.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

/// What both convolutions share: the padded input and the NHWC accumulator
/// (bias broadcast, or zeros).
struct ConvSetup {
  Value input, init;
  SmallVector<int64_t> strides, dilations;
};

/// Checks the static sizes the lowering needs and builds the padded input
/// and the accumulator of an op with operands (x, kernel, bias?).
template <typename OpTy>
FailureOr<ConvSetup> setUpConvolution(OpTy op, PatternRewriter &rewriter) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (xType.getRank() != 4 || kernelType.getRank() != 4 ||
      !kernelType.hasStaticShape())
    return rewriter.notifyMatchFailure(
        op, "expected NHWC input and a static 4-D kernel");
  for (int64_t dim = 1; dim < 4; ++dim)
    if (xType.isDynamicDim(dim) || resultType.isDynamicDim(dim))
      return rewriter.notifyMatchFailure(op,
                                         "expected static H, W and channels");

  Location loc = op.getLoc();
  ConvSetup setup;
  setup.strides = getIntegers(op.getStrides());
  setup.dilations = getIntegers(op.getDilations());
  WindowPadding padding = getWindowPadding(
      xType.getShape().slice(1, 2), kernelType.getShape().take_front(2),
      setup.strides, setup.dilations, op.getPadding() == "same");
  Value zero = createScalarConstant(rewriter, loc, xType.getElementType(), 0.0);
  setup.input = padSpatial(rewriter, loc, op.getX(), padding, zero);

  SmallVector<OpFoldResult> sizes =
      getBroadcastSizes(rewriter, loc, resultType, op.getX());
  if (Value bias = op.getBias())
    setup.init = buildElementwise(
        rewriter, loc, resultType, sizes, bias,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  else
    setup.init = createFilled(rewriter, loc, resultType, sizes, zero);
  return setup;
}

/// Grouped convolution over loops (n, oh, ow, g, ocg, kh, kw, icg), on the
/// input as [n, h, w, g, icg], the kernel as [kh, kw, icg, g, ocg] and the
/// output as [n, oh, ow, g, ocg].
Value buildGroupedConv(OpBuilder &b, Location loc, const ConvSetup &setup,
                       Value kernel, int64_t groups) {
  MLIRContext *ctx = b.getContext();
  auto kernelType = cast<RankedTensorType>(kernel.getType());
  int64_t outPerGroup = kernelType.getDimSize(3) / groups;
  auto inputType = cast<RankedTensorType>(setup.input.getType());
  int64_t inPerGroup = inputType.getDimSize(3) / groups;
  Value input = splitLastDim(b, loc, setup.input, inPerGroup);
  Value groupedKernel = splitLastDim(b, loc, kernel, outPerGroup);
  Value init = splitLastDim(b, loc, setup.init, outPerGroup);

  AffineExpr n, oh, ow, g, ocg, kh, kw, icg;
  bindDims(ctx, n, oh, ow, g, ocg, kh, kw, icg);
  AffineExpr h = oh * setup.strides[0] + kh * setup.dilations[0];
  AffineExpr w = ow * setup.strides[1] + kw * setup.dilations[1];
  SmallVector<AffineMap> maps = {
      AffineMap::get(8, 0, {n, h, w, g, icg}, ctx),
      AffineMap::get(8, 0, {kh, kw, icg, g, ocg}, ctx),
      AffineMap::get(8, 0, {n, oh, ow, g, ocg}, ctx)};
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto generic = b.create<linalg::GenericOp>(
      loc, init.getType(), ValueRange{input, groupedKernel}, init, maps,
      iterators, [](OpBuilder &nb, Location nl, ValueRange args) {
        Value product = nb.create<arith::MulFOp>(nl, args[0], args[1]);
        nb.create<linalg::YieldOp>(
            nl, ValueRange{nb.create<arith::AddFOp>(nl, args[2], product)});
      });
  return mergeLastDims(b, loc, generic.getResult(0));
}

struct Conv2DLowering : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvSetup> setup = setUpConvolution(op, rewriter);
    if (failed(setup))
      return failure();
    Location loc = op.getLoc();
    int64_t groups = op.getGroups();
    if (groups != 1) {
      rewriter.replaceOp(
          op, buildGroupedConv(rewriter, loc, *setup, op.getKernel(), groups));
      return success();
    }
    auto conv = rewriter.create<linalg::Conv2DNhwcHwcfOp>(
        loc, setup->init.getType(), ValueRange{setup->input, op.getKernel()},
        setup->init, rewriter.getI64TensorAttr(setup->strides),
        rewriter.getI64TensorAttr(setup->dilations));
    rewriter.replaceOp(op, conv.getResult(0));
    return success();
  }
};

struct DepthwiseConv2DLowering : OpRewritePattern<DepthwiseConv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DepthwiseConv2DOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvSetup> setup = setUpConvolution(op, rewriter);
    if (failed(setup))
      return failure();
    Location loc = op.getLoc();
    int64_t multiplier =
        cast<RankedTensorType>(op.getKernel().getType()).getDimSize(3);
    // The accumulator as [n, oh, ow, c, m]: channel c * m + mi.
    Value init = splitLastDim(rewriter, loc, setup->init, multiplier);
    auto conv = rewriter.create<linalg::DepthwiseConv2DNhwcHwcmOp>(
        loc, init.getType(), ValueRange{setup->input, op.getKernel()}, init,
        rewriter.getI64TensorAttr(setup->strides),
        rewriter.getI64TensorAttr(setup->dilations));
    rewriter.replaceOp(op, mergeLastDims(rewriter, loc, conv.getResult(0)));
    return success();
  }
};


//===----------------------------------------------------------------------===//
// graph.fused_conv2d: runtime kernel calls
//===----------------------------------------------------------------------===//

/// Whether graph.fused_conv2d `op` lowers to the Winograd kernel (see
/// isWinogradConv): a constant kernel is transformed here at compile time, a
/// kernel of variables (a train step's forward convolution) at run time into
/// an arena buffer, as the input gradient's is (Conv2DBackpropInputToKernel).
/// Its rounding differs from the direct kernel's by a few ulp, within the
/// training tests' tolerance (measurements: docs/performance.md, "Measurements
/// behind kernel choices").
bool useWinogradConv(FusedConv2DOp op) {
  if (op.getDepthwise())
    return false;
  auto xType = cast<RankedTensorType>(op.getX().getType());
  auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!kernelType.hasStaticShape() ||
      kernelType.getDimSize(2) != xType.getDimSize(3))
    return false;
  return isWinogradConv(xType.getDimSize(1), xType.getDimSize(2),
                        xType.getDimSize(3), kernelType.getDimSize(3),
                        resultType.getDimSize(1), resultType.getDimSize(2),
                        kernelType.getShape().take_front(2),
                        getIntegers(op.getStrides()),
                        getIntegers(op.getDilations()),
                        /*runtimeTransform=*/!getConstantFloats(op.getKernel()));
}

/// The Winograd lowering of `op` (see useWinogradConv): the HWIO kernel
/// transformed and packed (packWinogradWeights), one call of
/// tfcc_rt_conv2d_winograd_f32.
Value lowerWinogradConv(FusedConv2DOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value x = op.getX();
  auto xType = cast<RankedTensorType>(x.getType());
  auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t channels = xType.getDimSize(3);
  int64_t outChannels = kernelType.getDimSize(3);
  Value weights = packWinogradWeights(rewriter, loc, op.getKernel(), channels,
                                      outChannels);
  SmallVector<int64_t> pads = getIntegers(op.getPads());
  Value output = allocResultLike(rewriter, loc, resultType, x);
  emitKernelCall(
      rewriter, loc,
      kernels::tfcc_rt_conv2d_winograd_f32{
          .x = x,
          .n = getDimValue(rewriter, loc, x, 0),
          .h = xType.getDimSize(1),
          .w = xType.getDimSize(2),
          .c = channels,
          .packed_weights = weights,
          .oc = outChannels,
          .pad_top = pads[0],
          .pad_left = pads[2],
          .oh = resultType.getDimSize(1),
          .ow = resultType.getDimSize(2),
          .bias = op.getBias(),
          .residual = op.getResidual(),
          .activation = getEpilogueCode(op.getActivation(), op.getRoundTo()),
          .alpha = op.getAlpha().convertToFloat(),
          .beta = op.getBeta().convertToFloat(),
          .y = output});
  return toResultTensor(rewriter, loc, resultType, output);
}

/// The direct (implicit GEMM, weights packed for the GEMM) or depthwise
/// (weights as they are) kernel call of `op`.
Value lowerDirectConv(FusedConv2DOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value x = op.getX();
  auto xType = cast<RankedTensorType>(x.getType());
  auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> strides = getIntegers(op.getStrides());
  SmallVector<int64_t> dilations = getIntegers(op.getDilations());
  SmallVector<int64_t> pads = getIntegers(op.getPads());
  ArrayRef<int64_t> kernelShape = kernelType.getShape();
  int64_t channels = xType.getDimSize(3);
  Value weights = op.getKernel();
  if (!op.getDepthwise())
    weights = packGemmWeights(rewriter, loc, weights,
                              kernelShape[0] * kernelShape[1] * channels,
                              kernelShape[3]);
  int64_t padTotals[2] = {pads[0] + pads[1], pads[2] + pads[3]};
  WindowExtents extents = buildWindowExtents(
      rewriter, loc, op, x, resultType, padTotals, kernelShape.take_front(2),
      strides, dilations);
  Value output = extents.output;
  Value batch = getDimValue(rewriter, loc, x, 0);
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  int32_t activation = getEpilogueCode(op.getActivation(), op.getRoundTo());
  if (op.getDepthwise()) {
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_depthwise_conv2d_f32{
                       .x = x,
                       .n = batch,
                       .h = extents.h,
                       .w = extents.w,
                       .c = channels,
                       .weights = weights,
                       .m = kernelShape[3],
                       .kh = kernelShape[0],
                       .kw = kernelShape[1],
                       .stride_h = strides[0],
                       .stride_w = strides[1],
                       .dil_h = dilations[0],
                       .dil_w = dilations[1],
                       .pad_top = pads[0],
                       .pad_left = pads[2],
                       .oh = extents.oh,
                       .ow = extents.ow,
                       .bias = op.getBias(),
                       .residual = op.getResidual(),
                       .activation = activation,
                       .alpha = alpha,
                       .beta = beta,
                       .y = output});
    return toResultTensor(rewriter, loc, resultType, output);
  }
  emitKernelCall(rewriter, loc,
                 kernels::tfcc_rt_conv2d_f32{
                     .x = x,
                     .n = batch,
                     .h = extents.h,
                     .w = extents.w,
                     .c = channels,
                     .packed_weights = weights,
                     .oc = kernelShape[3],
                     .kh = kernelShape[0],
                     .kw = kernelShape[1],
                     .stride_h = strides[0],
                     .stride_w = strides[1],
                     .dil_h = dilations[0],
                     .dil_w = dilations[1],
                     .pad_top = pads[0],
                     .pad_left = pads[2],
                     .oh = extents.oh,
                     .ow = extents.ow,
                     .bias = op.getBias(),
                     .residual = op.getResidual(),
                     .activation = activation,
                     .alpha = alpha,
                     .beta = beta,
                     .y = output});
  return toResultTensor(rewriter, loc, resultType, output);
}

struct FusedConv2DToKernel : OpRewritePattern<FusedConv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedConv2DOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, useWinogradConv(op)
                               ? lowerWinogradConv(op, rewriter)
                               : lowerDirectConv(op, rewriter));
    return success();
  }
};

} // namespace

/// The rule (see KernelCalls.h): the runtime's measured per-layer rule
/// tfcc_rt_conv2d_winograd_preferred decides (enough input and output
/// channels that the transforms are cheap next to the GEMMs, and enough
/// output pixels per image that the 16/9 larger transformed weights are
/// streamed for enough work: all of ResNet-18's stride-1 3x3 layers, 7x7
/// included; not a 3x3 output). With `runtimeTransform`, the per-call
/// weight transform costs about as much as ~300 of the GEMMs' multiply-adds
/// per (input, output) channel pair, so one image must save at least that
/// many per pair (9 oh ow - 16 tiles: 8x8 outputs and larger) for a call to
/// pay for its transform whatever the batch (docs/performance.md).
bool mlir::tfcc::isWinogradConv(int64_t h, int64_t w, int64_t c, int64_t oc,
                                int64_t oh, int64_t ow,
                                ArrayRef<int64_t> kernelHw,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> dilations,
                                bool runtimeTransform) {
  for (int64_t v : {h, w, c, oc, oh, ow})
    if (ShapedType::isDynamic(v))
      return false;
  if (kernelHw != ArrayRef<int64_t>{3, 3} ||
      llvm::any_of(strides, [](int64_t v) { return v != 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v != 1; }))
    return false;
  if (runtimeTransform &&
      9 * oh * ow - 16 * ((oh + 1) / 2) * ((ow + 1) / 2) < 320)
    return false;
  return tfcc_rt_conv2d_winograd_preferred(h, w, c, oc, oh, ow) != 0;
}

void mlir::tfcc::populateGraphConvolutionToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  patterns.add<Conv2DLowering, DepthwiseConv2DLowering>(patterns.getContext());
  if (kernelCalls)
    patterns.add<FusedConv2DToKernel>(patterns.getContext(), /*benefit=*/2);
}
