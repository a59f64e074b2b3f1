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
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

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

} // namespace

void mlir::tfcc::populateGraphConvolutionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Conv2DLowering, DepthwiseConv2DLowering>(patterns.getContext());
}
