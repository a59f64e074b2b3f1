//===- Int8Kernels.cpp - int8 convolutions and dense layers to kernels ----===//
//
// graph.fused_conv2d_int8 and graph.fused_dense_int8 (tfcc-fuse-int8-ops)
// become calls of the runtime's int8 GEMM (tfcc_rt_qgemm_u8s8_f32, or _u8
// when the op requantizes its result), or for a depthwise convolution its
// uint8 depthwise kernel (tfcc_rt_depthwise_conv2d_u8s8_f32 / _u8), with the
// weights packed at compile time. A convolution that is not a plain 1x1
// (stride 1, no padding) is tfcc_rt_qconv2d_u8s8_f32 / _u8, which gathers
// each task's GEMM rows itself (padding with the input's zero point), or,
// with rows or weights too large for that, first gathers all its rows with
// tfcc_rt_im2col_u8 into an arena buffer; a 1x1 one reads the NHWC input in
// place as its [pixels, channels] matrix.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::tfcc;

namespace {

/// The call of the int8 GEMM for `op` (either int8 op): rows `m` of `a`
/// (lda bytes apart), its weights packed as [k, n].
template <typename OpTy>
Value emitInt8Gemm(PatternRewriter &rewriter, OpTy op, kernel_args::I64 m,
                   Value a, int64_t lda, int64_t k, int64_t n, Value packed,
                   Value batchSource) {
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  Value output = allocResultLike(rewriter, loc, resultType, batchSource);
  int32_t zeroPoint = static_cast<int32_t>(op.getXZeroPoint());
  int32_t activation = getActivationCode(op.getActivation());
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  if (std::optional<APFloat> outScale = op.getOutScale())
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_qgemm_u8s8_u8{
            .M = m,
            .N = n,
            .K = k,
            .A = a,
            .lda = lda,
            .a_zero_point = zeroPoint,
            .packed_b = packed,
            .scales = op.getScales(),
            .bias = op.getBias(),
            .residual = op.getResidual(),
            .activation = activation,
            .alpha = alpha,
            .beta = beta,
            .out_scale = outScale->convertToFloat(),
            .out_zero_point = static_cast<int32_t>(op.getOutZeroPoint()),
            .y = output});
  else
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_qgemm_u8s8_f32{
                       .M = m,
                       .N = n,
                       .K = k,
                       .A = a,
                       .lda = lda,
                       .a_zero_point = zeroPoint,
                       .packed_b = packed,
                       .scales = op.getScales(),
                       .bias = op.getBias(),
                       .residual = op.getResidual(),
                       .activation = activation,
                       .alpha = alpha,
                       .beta = beta,
                       .y = output});
  return toResultTensor(rewriter, loc, resultType, output);
}

struct FusedDenseInt8ToKernel : OpRewritePattern<FusedDenseInt8Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedDenseInt8Op op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
    int64_t k = kernelType.getDimSize(0), n = kernelType.getDimSize(1);
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    Value m = getDimsProduct(rewriter, loc, x,
                             llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)));
    Value packed = packInt8GemmWeights(rewriter, loc, op.getKernel(), k, n);
    rewriter.replaceOp(op, emitInt8Gemm(rewriter, op, m, x, k, k, n, packed, x));
    return success();
  }
};

static_assert(graph::kMaxInt8DepthwiseTaps == TFCC_RT_DWQ_MAX_TAPS,
              "the dialect's depthwise int8 window limit is the kernel's");

/// Whether the dialect's rule for `max_pool` windows is the kernel's, for
/// every window up to twice the tile.
constexpr bool poolWindowRulesAgree() {
  for (int64_t ph = 0; ph <= 2 * TFCC_RT_QCONV_POOL_TILE_ROWS; ++ph)
    for (int64_t pw = 0; pw <= 2 * TFCC_RT_QCONV_POOL_TILE_ROWS; ++pw)
      if (graph::isInt8ConvPoolWindow(ph, pw) !=
          static_cast<bool>(TFCC_RT_QCONV_POOL_SUPPORTED(ph, pw)))
        return false;
  return true;
}
static_assert(graph::kInt8ConvPoolTileRows == TFCC_RT_QCONV_POOL_TILE_ROWS &&
                  poolWindowRulesAgree(),
              "the dialect's max_pool windows are the int8 kernel's");

/// The GEMM's K of groups-1 `op`, and its rows' length (padded to a
/// multiple of 4 bytes unless a plain 1x1 convolution reads x in place).
static std::pair<int64_t, int64_t> getInt8ConvRows(FusedConv2DInt8Op op,
                                                   bool *pointwise) {
  ArrayRef<int64_t> kernelShape = op.getKernel().getType().getShape();
  int64_t c = op.getX().getType().getDimSize(3);
  int64_t k = kernelShape[0] * kernelShape[1] * c;
  SmallVector<int64_t> pads = getIntegers(op.getPads());
  *pointwise = kernelShape[0] == 1 && kernelShape[1] == 1 &&
               getIntegers(op.getStrides()) == SmallVector<int64_t>{1, 1} &&
               llvm::all_of(pads, [](int64_t p) { return p == 0; });
  // Rows padded to a multiple of 4 bytes (zeros, times the packed weights'
  // zero padding): the GEMM then has no K tail.
  return {k, *pointwise ? k : (k + 3) / 4 * 4};
}

} // namespace

bool mlir::tfcc::isInt8ConvKernelConv(FusedConv2DInt8Op op) {
  if (op.getDepthwise() || hasDynamicInnerDims(op))
    return false;
  bool pointwise;
  auto [k, lda] = getInt8ConvRows(op, &pointwise);
  int64_t oc = op.getKernel().getType().getDimSize(3);
  // The rows gathered per task by the kernel itself where they and the
  // weights are small enough (tfcc_kernels.h), else stored whole first.
  return !pointwise && lda <= TFCC_RT_QCONV_MAX_LDC &&
         tfcc_rt_qgemm_packed_b_size(k, oc) <= TFCC_RT_QCONV_FUSED_MAX_B_BYTES;
}

namespace {

/// The uint8 depthwise kernel's call for a depthwise `op`.
Value emitInt8Depthwise(PatternRewriter &rewriter, FusedConv2DInt8Op op) {
  Location loc = op.getLoc();
  Value x = op.getX();
  auto xType = cast<RankedTensorType>(x.getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> kernelShape =
      cast<RankedTensorType>(op.getKernel().getType()).getShape();
  SmallVector<int64_t> strides = getIntegers(op.getStrides());
  SmallVector<int64_t> dilations = getIntegers(op.getDilations());
  SmallVector<int64_t> pads = getIntegers(op.getPads());
  int64_t c = xType.getDimSize(3);
  Value packed = packInt8DepthwiseWeights(rewriter, loc, op.getKernel(),
                                          kernelShape[0] * kernelShape[1], c);
  Value output = allocResultLike(rewriter, loc, resultType, x);
  Value batch = getDimValue(rewriter, loc, x, 0);
  int32_t zeroPoint = static_cast<int32_t>(op.getXZeroPoint());
  int32_t activation = getActivationCode(op.getActivation());
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  int64_t h = xType.getDimSize(1), w = xType.getDimSize(2);
  int64_t oh = resultType.getDimSize(1), ow = resultType.getDimSize(2);
  if (std::optional<APFloat> outScale = op.getOutScale())
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_depthwise_conv2d_u8s8_u8{
            .x = x,
            .n = batch,
            .h = h,
            .w = w,
            .c = c,
            .x_zero_point = zeroPoint,
            .packed_weights = packed,
            .kh = kernelShape[0],
            .kw = kernelShape[1],
            .stride_h = strides[0],
            .stride_w = strides[1],
            .dil_h = dilations[0],
            .dil_w = dilations[1],
            .pad_top = pads[0],
            .pad_left = pads[2],
            .oh = oh,
            .ow = ow,
            .scales = op.getScales(),
            .bias = op.getBias(),
            .activation = activation,
            .alpha = alpha,
            .beta = beta,
            .out_scale = outScale->convertToFloat(),
            .out_zero_point = static_cast<int32_t>(op.getOutZeroPoint()),
            .y = output});
  else
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_depthwise_conv2d_u8s8_f32{.x = x,
                                                   .n = batch,
                                                   .h = h,
                                                   .w = w,
                                                   .c = c,
                                                   .x_zero_point = zeroPoint,
                                                   .packed_weights = packed,
                                                   .kh = kernelShape[0],
                                                   .kw = kernelShape[1],
                                                   .stride_h = strides[0],
                                                   .stride_w = strides[1],
                                                   .dil_h = dilations[0],
                                                   .dil_w = dilations[1],
                                                   .pad_top = pads[0],
                                                   .pad_left = pads[2],
                                                   .oh = oh,
                                                   .ow = ow,
                                                   .scales = op.getScales(),
                                                   .bias = op.getBias(),
                                                   .activation = activation,
                                                   .alpha = alpha,
                                                   .beta = beta,
                                                   .y = output});
  return toResultTensor(rewriter, loc, resultType, output);
}

/// The call of the int8 convolution that gathers its GEMM rows (ldc bytes
/// each) per task, for a groups-1 `op` with weights packed as [k, oc].
Value emitInt8FusedConv(PatternRewriter &rewriter, FusedConv2DInt8Op op,
                        int64_t ldc, int64_t oc, Value packed,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ArrayRef<int64_t> pads) {
  Location loc = op.getLoc();
  Value x = op.getX();
  auto xType = cast<RankedTensorType>(x.getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> kernelShape =
      cast<RankedTensorType>(op.getKernel().getType()).getShape();
  Value output = allocResultLike(rewriter, loc, resultType, x);
  Value batch = getDimValue(rewriter, loc, x, 0);
  int32_t zeroPoint = static_cast<int32_t>(op.getXZeroPoint());
  int32_t activation = getActivationCode(op.getActivation());
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  int64_t h = xType.getDimSize(1), w = xType.getDimSize(2);
  int64_t c = xType.getDimSize(3);
  // The convolution's output size: the result's, or what its pooling
  // (windows as strides, no padding) reads.
  int64_t poolH = 1, poolW = 1;
  if (std::optional<ArrayAttr> maxPool = op.getMaxPool()) {
    SmallVector<int64_t> window = getIntegers(*maxPool);
    poolH = window[0], poolW = window[1];
  }
  auto convSize = [&](int64_t i) {
    return windowedOutputSize(xType.getDimSize(1 + i) + pads[2 * i] +
                                  pads[2 * i + 1],
                              kernelShape[i], strides[i], dilations[i],
                              /*samePadding=*/false);
  };
  int64_t oh = convSize(0), ow = convSize(1);
  if (std::optional<APFloat> outScale = op.getOutScale())
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_qconv2d_u8s8_u8{
            .x = x,
            .n = batch,
            .h = h,
            .w = w,
            .c = c,
            .kh = kernelShape[0],
            .kw = kernelShape[1],
            .stride_h = strides[0],
            .stride_w = strides[1],
            .dil_h = dilations[0],
            .dil_w = dilations[1],
            .pad_top = pads[0],
            .pad_left = pads[2],
            .oh = oh,
            .ow = ow,
            .pool_h = poolH,
            .pool_w = poolW,
            .ldc = ldc,
            .x_zero_point = zeroPoint,
            .packed_b = packed,
            .N = oc,
            .scales = op.getScales(),
            .bias = op.getBias(),
            .residual = op.getResidual(),
            .activation = activation,
            .alpha = alpha,
            .beta = beta,
            .out_scale = outScale->convertToFloat(),
            .out_zero_point = static_cast<int32_t>(op.getOutZeroPoint()),
            .y = output});
  else
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_qconv2d_u8s8_f32{.x = x,
                                          .n = batch,
                                          .h = h,
                                          .w = w,
                                          .c = c,
                                          .kh = kernelShape[0],
                                          .kw = kernelShape[1],
                                          .stride_h = strides[0],
                                          .stride_w = strides[1],
                                          .dil_h = dilations[0],
                                          .dil_w = dilations[1],
                                          .pad_top = pads[0],
                                          .pad_left = pads[2],
                                          .oh = oh,
                                          .ow = ow,
                                          .pool_h = poolH,
                                          .pool_w = poolW,
                                          .ldc = ldc,
                                          .x_zero_point = zeroPoint,
                                          .packed_b = packed,
                                          .N = oc,
                                          .scales = op.getScales(),
                                          .bias = op.getBias(),
                                          .residual = op.getResidual(),
                                          .activation = activation,
                                          .alpha = alpha,
                                          .beta = beta,
                                          .y = output});
  return toResultTensor(rewriter, loc, resultType, output);
}

struct FusedConv2DInt8ToKernel : OpRewritePattern<FusedConv2DInt8Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedConv2DInt8Op op,
                                PatternRewriter &rewriter) const override {
    // The kernels take static image sizes: refused otherwise, the
    // conversion reports the op and says so.
    if (hasDynamicInnerDims(op))
      return rewriter.notifyMatchFailure(op, "dynamic image sizes");
    if (op.getDepthwise()) {
      rewriter.replaceOp(op, emitInt8Depthwise(rewriter, op));
      return success();
    }
    Location loc = op.getLoc();
    Value x = op.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> kernelShape =
        cast<RankedTensorType>(op.getKernel().getType()).getShape();
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    SmallVector<int64_t> pads = getIntegers(op.getPads());
    int64_t c = xType.getDimSize(3), oc = kernelShape[3];
    int64_t oh = resultType.getDimSize(1), ow = resultType.getDimSize(2);
    bool pointwise;
    auto [k, lda] = getInt8ConvRows(op, &pointwise);
    // Only the kernel below pools (tfcc-fuse-int8-ops checks the same).
    const bool kernelConv = isInt8ConvKernelConv(op);
    if (op.getMaxPool() && !kernelConv)
      return rewriter.notifyMatchFailure(op,
                                         "a pooling the kernel cannot take");
    Value packed = packInt8GemmWeights(rewriter, loc, op.getKernel(), k, oc);
    if (kernelConv) {
      rewriter.replaceOp(op, emitInt8FusedConv(rewriter, op, lda, oc, packed,
                                               strides, dilations, pads));
      return success();
    }
    Value batch = getDimValue(rewriter, loc, x, 0);
    Value pixels = rewriter.create<arith::MulIOp>(
        loc, batch, rewriter.create<arith::ConstantIndexOp>(loc, oh * ow));
    Value rows = x;
    if (!pointwise) {
      auto colsType = RankedTensorType::get({ShapedType::kDynamic, lda},
                                            xType.getElementType());
      rows = allocResult(rewriter, loc, colsType, {pixels});
      emitKernelCall(rewriter, loc,
                     kernels::tfcc_rt_im2col_u8{
                         .x = x,
                         .n = batch,
                         .h = xType.getDimSize(1),
                         .w = xType.getDimSize(2),
                         .c = c,
                         .kh = kernelShape[0],
                         .kw = kernelShape[1],
                         .stride_h = strides[0],
                         .stride_w = strides[1],
                         .dil_h = dilations[0],
                         .dil_w = dilations[1],
                         .pad_top = pads[0],
                         .pad_left = pads[2],
                         .oh = oh,
                         .ow = ow,
                         .pad_value = static_cast<int32_t>(op.getXZeroPoint()),
                         .ldc = lda,
                         .cols = rows});
    }
    rewriter.replaceOp(
        op, emitInt8Gemm(rewriter, op, pixels, rows, lda, lda, oc, packed, x));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphInt8KernelsToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  if (kernelCalls)
    patterns.add<FusedDenseInt8ToKernel, FusedConv2DInt8ToKernel>(
        patterns.getContext());
}
