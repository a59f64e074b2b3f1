//===- Kernels.cpp - fused ops and matmuls to runtime micro-kernel calls --===//
//
// graph.fused_conv2d, graph.fused_dense, float32 graph.matmul and the
// float32 NHWC poolings, layer norms and (log-)softmaxes become calls
// of the runtime's micro-kernels (runtime/include/tfcc/tfcc_kernels.h):
// tiled, vectorized, multi-threaded loops that beat what linalg's scalar
// loops compile to by two orders of magnitude. Tensors cross into the call as
// pointers: bufferization.to_memref of each operand (read-only), a fresh
// memref.alloc for the result (placed in the arena later) handed back with
// bufferization.to_tensor. Constant weights are packed into the kernel's
// layout at compile time by the runtime's own packing function; variable
// ones (training) by a call of that function into a fresh buffer.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

#include <limits>
#include <type_traits>

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

constexpr const char *kGemm = "tfcc_rt_sgemm";
constexpr const char *kMaxPoolGrad = "tfcc_rt_max_pool2d_grad_f32";
constexpr const char *kPackB = "tfcc_rt_sgemm_pack_b";
constexpr const char *kConv = "tfcc_rt_conv2d_f32";
constexpr const char *kConvWinograd = "tfcc_rt_conv2d_winograd_f32";
constexpr const char *kWinogradPack = "tfcc_rt_winograd_pack";
constexpr const char *kDepthwise = "tfcc_rt_depthwise_conv2d_f32";
constexpr const char *kPool = "tfcc_rt_pool2d_f32";
constexpr const char *kLayerNorm = "tfcc_rt_layer_norm_f32";
constexpr const char *kSoftmax = "tfcc_rt_softmax_f32";
constexpr const char *kMoments = "tfcc_rt_channel_moments_f32";
constexpr const char *kPoolIndices = "tfcc_rt_max_pool2d_indices_f32";
constexpr const char *kPoolGradIndices = "tfcc_rt_max_pool2d_grad_indices_f32";
constexpr const char *kFilterGrad = "tfcc_rt_conv2d_filter_grad_f32";
constexpr const char *kGradSums = "tfcc_rt_batch_norm_grad_sums_f32";

int32_t getActivationCode(StringRef name);

/// Builds the argument list of one kernel call.
class CallBuilder {
public:
  CallBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// A 64-bit integer argument.
  CallBuilder &i64(int64_t value) {
    args.push_back(b.create<arith::ConstantIntOp>(loc, value, 64));
    return *this;
  }
  /// An index value (a dynamic size) as a 64-bit integer.
  CallBuilder &i64(Value index) {
    // Folded when static, so the call reads like the static-shape case.
    args.push_back(
        b.createOrFold<arith::IndexCastOp>(loc, b.getI64Type(), index));
    return *this;
  }
  CallBuilder &i32(int32_t value) {
    args.push_back(b.create<arith::ConstantIntOp>(loc, value, 32));
    return *this;
  }
  CallBuilder &f32(float value) {
    args.push_back(b.create<arith::ConstantFloatOp>(loc, APFloat(value),
                                                    b.getF32Type()));
    return *this;
  }
  /// The address of a memref's first element (identity layout), or 0 for a
  /// null memref.
  CallBuilder &pointer(Value memref) {
    if (!memref)
      return i64(0);
    Value address =
        b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
    return i64(address);
  }
  /// The address of a tensor's buffer, or 0 for a null tensor.
  CallBuilder &tensorPointer(Value tensor) {
    return pointer(tensor ? toMemref(b, loc, tensor) : Value());
  }
  /// The NHWC pooling geometry the pooling kernels share: x, batch, H, W,
  /// C, window, strides, top/left pads, then `outType`'s H and W.
  CallBuilder &poolGeometry(Value x, ArrayRef<int64_t> window,
                            ArrayRef<int64_t> strides,
                            const WindowPadding &padding,
                            RankedTensorType outType) {
    return nhwcInput(x)
        .i64(window[0])
        .i64(window[1])
        .i64(strides[0])
        .i64(strides[1])
        .i64(padding.before[0])
        .i64(padding.before[1])
        .i64(outType.getDimSize(1))
        .i64(outType.getDimSize(2));
  }

  /// An NHWC input as the convolution and pooling kernels take it: x,
  /// batch, H, W, C.
  CallBuilder &nhwcInput(Value x) {
    auto xType = cast<RankedTensorType>(x.getType());
    return tensorPointer(x)
        .i64(getDimValue(b, loc, x, 0))
        .i64(xType.getDimSize(1))
        .i64(xType.getDimSize(2))
        .i64(xType.getDimSize(3));
  }
  /// The operands every convolution kernel starts with: the NHWC input,
  /// the packed `weights` and the output channels.
  CallBuilder &convOperands(Value x, Value weights, int64_t outChannels) {
    return nhwcInput(x).pointer(weights).i64(outChannels);
  }
  /// The fused epilogue the GEMM and convolution kernels share: bias,
  /// residual (each 0 when absent), activation code, alpha, beta.
  template <typename FusedOp>
  CallBuilder &epilogue(FusedOp op) {
    return tensorPointer(op.getBias())
        .tensorPointer(op.getResidual())
        .i32(getActivationCode(op.getActivation()))
        .f32(op.getAlpha().convertToFloat())
        .f32(op.getBeta().convertToFloat());
  }

  void call(StringRef callee) {
    b.create<func::CallOp>(loc, callee, TypeRange{}, args);
  }

  /// The read-only buffer of `tensor`, with the identity layout the kernels
  /// need (bufferization copies when the tensor lives in a strided view).
  static Value toMemref(OpBuilder &b, Location loc, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    return b.create<bufferization::ToMemrefOp>(
        loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
        /*read_only=*/true);
  }

private:
  OpBuilder &b;
  Location loc;
  SmallVector<Value> args;
};

/// A fresh buffer for a result of `type` whose dynamic dims come from
/// `sizes` (in order).
Value allocResult(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicSizes) {
  return b.create<memref::AllocOp>(
      loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes, b.getI64IntegerAttr(64));
}

/// The result tensor of a kernel that wrote `buffer`.
Value toResultTensor(OpBuilder &b, Location loc, RankedTensorType type,
                     Value buffer) {
  return b.create<bufferization::ToTensorOp>(loc, type, buffer,
                                             /*restrict=*/true,
                                             /*writable=*/true);
}

/// A fresh buffer for a result of `type` whose dynamic dims equal those of
/// `source` at the same positions (the batch of the kernel's input).
Value allocResultLike(OpBuilder &b, Location loc, RankedTensorType type,
                      Value source) {
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(b.create<tensor::DimOp>(loc, source, dim));
  return allocResult(b, loc, type, sizes);
}

/// The GEMM "B" operand of a [k, n] weight matrix in the micro-kernel's
/// packed layout: packed at compile time when constant, else by a kernel
/// call into a fresh buffer. Returns the packed buffer (a memref).
Value packWeights(OpBuilder &b, Location loc, Value weights, int64_t k,
                  int64_t n) {
  int64_t size = tfcc_rt_sgemm_packed_b_size(k, n);
  auto packedType = RankedTensorType::get({size}, b.getF32Type());
  if (std::optional<std::vector<float>> values = getConstantFloats(weights)) {
    std::vector<float> packed(size);
    tfcc_rt_sgemm_pack_b(k, n, values->data(), n, /*trans_b=*/0,
                         packed.data());
    Value constant = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(packedType, ArrayRef<float>(packed)));
    return CallBuilder::toMemref(b, loc, constant);
  }
  Value buffer = allocResult(b, loc, packedType, {});
  CallBuilder(b, loc)
      .i64(k)
      .i64(n)
      .tensorPointer(weights)
      .i64(n)
      .i32(0)
      .pointer(buffer)
      .call(kPackB);
  return buffer;
}

int32_t getActivationCode(StringRef name) {
  return llvm::StringSwitch<int32_t>(name)
      .Case("relu", TFCC_ACT_RELU)
      .Case("clip", TFCC_ACT_CLIP)
      .Case("leaky_relu", TFCC_ACT_LEAKY_RELU)
      .Case("hard_swish", TFCC_ACT_HARD_SWISH)
      .Case("sigmoid", TFCC_ACT_SIGMOID)
      .Default(TFCC_ACT_NONE);
}

/// Whether a regular (groups 1) float32 3x3 convolution of stride 1 and
/// dilation 1 with static spatial and channel sizes (input h x w x c, output
/// oh x ow x oc per image) lowers to the Winograd F(2x2, 3x3) kernel
/// (tfcc_rt_conv2d_winograd_f32, 4/9 of the direct kernel's multiply-adds)
/// instead of the direct implicit-GEMM one (tfcc_rt_conv2d_f32): the
/// runtime's measured per-layer rule tfcc_rt_conv2d_winograd_preferred
/// decides (enough input and output channels that the transforms are cheap
/// next to the GEMMs, and enough output pixels per image that the 16/9 larger
/// transformed weights are streamed for enough work: all of ResNet-18's
/// stride-1 3x3 layers, 7x7 included; not a 3x3 output).
/// `runtimeTransform`: the weights are transformed at run time, once per
/// call (variables). tfcc_rt_winograd_pack takes ~6 ns per (input, output)
/// channel pair (13 us for 3x3x32x64, 1 thread), the time of ~300 of the
/// GEMMs' multiply-adds; then one image must save at least that many per pair
/// (9 oh ow - 16 tiles, 320 and up from 8x8 outputs on: 11x11 saves 513,
/// 13x13 737), so that a call pays for its transform whatever the batch.
bool isWinogradConv(int64_t h, int64_t w, int64_t c, int64_t oc, int64_t oh,
                    int64_t ow, ArrayRef<int64_t> kernelHw,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
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

/// Whether graph.fused_conv2d `op` lowers to the Winograd kernel (see
/// isWinogradConv): a constant kernel is transformed here at compile time, a
/// kernel of variables (a train step's forward convolution) at run time into
/// an arena buffer, as the input gradient's is (Conv2DBackpropInputToKernel).
/// In the mnist_cnn train step (batch 64, 1 thread) that is ~0.7 ms of
/// 11.4. Its rounding differs from the direct kernel's by a few ulp; the
/// 10-step comparison with the interpreter (test/tools/training.test, rtol
/// 1e-4) then passes at batches 4, 8, 15, 16, 17 and 64 (largest variable
/// difference 2.8e-5 at batch 4, 7.1e-5 on the direct kernel) and fails at
/// 2, 3 and 32 as it does on the direct kernel (2, 3, 16 and 32 there): a
/// ReLU or max-pool decision flipped by float32 rounding, docs/training.md.
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

/// The Winograd kernel's weights from a [3, 3, c, oc] HWIO tensor: transformed
/// and packed at compile time by the runtime's tfcc_rt_winograd_pack when
/// constant, else by a call of it into a fresh buffer (placed in the arena
/// like the direct kernel's run-time packed weights). Returns the buffer.
Value packWinogradWeights(OpBuilder &b, Location loc, Value hwio, int64_t c,
                          int64_t oc) {
  int64_t size = tfcc_rt_winograd_packed_size(c, oc);
  auto packedType = RankedTensorType::get({size}, b.getF32Type());
  if (std::optional<std::vector<float>> values = getConstantFloats(hwio)) {
    std::vector<float> packed(size);
    tfcc_rt_winograd_pack(c, oc, values->data(), packed.data());
    Value constant = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(packedType, ArrayRef<float>(packed)));
    return CallBuilder::toMemref(b, loc, constant);
  }
  Value buffer = allocResult(b, loc, packedType, {});
  CallBuilder(b, loc)
      .i64(c)
      .i64(oc)
      .tensorPointer(hwio)
      .pointer(buffer)
      .call(kWinogradPack);
  return buffer;
}

/// The Winograd lowering of `op` (see useWinogradConv): the HWIO kernel
/// transformed and packed (packWinogradWeights), one call of
/// tfcc_rt_conv2d_winograd_f32.
Value lowerWinogradConv(FusedConv2DOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t channels = xType.getDimSize(3);
  int64_t outChannels = kernelType.getDimSize(3);
  Value weights = packWinogradWeights(rewriter, loc, op.getKernel(), channels,
                                      outChannels);
  SmallVector<int64_t> pads = getIntegers(op.getPads());
  Value output = allocResultLike(rewriter, loc, resultType, op.getX());
  CallBuilder(rewriter, loc)
      .convOperands(op.getX(), weights, outChannels)
      .i64(pads[0])
      .i64(pads[2])
      .i64(resultType.getDimSize(1))
      .i64(resultType.getDimSize(2))
      .epilogue(op)
      .pointer(output)
      .call(kConvWinograd);
  return toResultTensor(rewriter, loc, resultType, output);
}

struct FusedConv2DLowering : OpRewritePattern<FusedConv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedConv2DOp op,
                                PatternRewriter &rewriter) const override {
    if (useWinogradConv(op)) {
      rewriter.replaceOp(op, lowerWinogradConv(op, rewriter));
      return success();
    }
    Location loc = op.getLoc();
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    SmallVector<int64_t> pads = getIntegers(op.getPads());
    ArrayRef<int64_t> kernelShape = kernelType.getShape();
    int64_t channels = xType.getDimSize(3);

    Value weights;
    if (op.getDepthwise())
      weights = CallBuilder::toMemref(rewriter, loc, op.getKernel());
    else
      weights = packWeights(rewriter, loc, op.getKernel(),
                            kernelShape[0] * kernelShape[1] * channels,
                            kernelShape[3]);
    Value output = allocResultLike(rewriter, loc, resultType, op.getX());
    CallBuilder call(rewriter, loc);
    call.convOperands(op.getX(), weights, kernelShape[3])
        .i64(kernelShape[0])
        .i64(kernelShape[1])
        .i64(strides[0])
        .i64(strides[1])
        .i64(dilations[0])
        .i64(dilations[1])
        .i64(pads[0])
        .i64(pads[2])
        .i64(resultType.getDimSize(1))
        .i64(resultType.getDimSize(2))
        .epilogue(op)
        .pointer(output)
        .call(op.getDepthwise() ? kDepthwise : kConv);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// x [..., k] @ kernel [k, n] as one [m, k] @ [k, n] GEMM, m the product of
/// the leading dims.
struct FusedDenseLowering : OpRewritePattern<FusedDenseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedDenseOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t k = kernelType.getDimSize(0), n = kernelType.getDimSize(1);
    SmallVector<int64_t> leading = llvm::to_vector(
        llvm::seq<int64_t>(0, xType.getRank() - 1));
    Value m = getDimsProduct(rewriter, loc, op.getX(), leading);
    Value packed = packWeights(rewriter, loc, op.getKernel(), k, n);
    Value output = allocResultLike(rewriter, loc, resultType, op.getX());
    CallBuilder(rewriter, loc)
        .i64(1)
        .i64(m)
        .i64(n)
        .i64(k)
        .tensorPointer(op.getX())
        .i64(k)
        .i64(0)
        .i32(0)
        .pointer(packed)
        .i64(n)
        .i64(0)
        .i32(0)
        .i32(1)
        .pointer(output)
        .i64(n)
        .i64(0)
        .epilogue(op)
        .call(kGemm);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// A float32 graph.matmul whose operands share their batch dims (or whose
/// rhs is one matrix): one batched GEMM call, transposes done by the kernel.
/// Matrix dims may be dynamic (the gradients of a dense layer contract or
/// produce the batch dim: dW = x^T dy, dx = dy W^T). Broadcast batch dims are
/// left to the linalg lowering.
struct MatmulToKernel : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    if (!lhsType.getElementType().isF32() || rank < 2 ||
        lhsType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "not a float32 product");
    bool sharedRhs = rhsType.getRank() == 2;
    if (!sharedRhs &&
        (rhsType.getRank() != rank ||
         lhsType.getShape().drop_back(2) != rhsType.getShape().drop_back(2)))
      return rewriter.notifyMatchFailure(op, "broadcast batch dims");
    if (!sharedRhs && ShapedType::isDynamicShape(rhsType.getShape()))
      return rewriter.notifyMatchFailure(op, "dynamic rhs batch");

    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    int64_t rhsRank = rhsType.getRank();
    auto dim = [&](Value tensor, int64_t d) {
      return getDimsProduct(rewriter, loc, tensor, {d});
    };
    auto mul = [&](Value x, Value y) -> Value {
      return rewriter.createOrFold<arith::MulIOp>(loc, x, y);
    };
    Value lhsRows = dim(lhs, rank - 2), lhsCols = dim(lhs, rank - 1);
    Value rhsRows = dim(rhs, rhsRank - 2), rhsCols = dim(rhs, rhsRank - 1);
    Value m = transA ? lhsCols : lhsRows, k = transA ? lhsRows : lhsCols;
    Value n = transB ? rhsRows : rhsCols;
    SmallVector<int64_t> batchDims =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 2));
    Value batch = getDimsProduct(rewriter, loc, lhs, batchDims);
    // The result's dynamic dims: batch dims as lhs's, then m and n.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (resultType.isDynamicDim(d))
        dynamicSizes.push_back(d < rank - 2    ? dim(lhs, d)
                               : d == rank - 2 ? m
                                               : n);
    Value output = allocResult(rewriter, loc, resultType, dynamicSizes);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    CallBuilder(rewriter, loc)
        .i64(batch)
        .i64(m)
        .i64(n)
        .i64(k)
        .tensorPointer(lhs)
        .i64(lhsCols)
        .i64(mul(m, k))
        .i32(transA)
        .tensorPointer(rhs)
        .i64(rhsCols)
        .i64(sharedRhs ? zero : mul(k, n))
        .i32(transB)
        .i32(0)
        .pointer(output)
        .i64(n)
        .i64(mul(m, n))
        .i64(0)
        .i64(0)
        .i32(TFCC_ACT_NONE)
        .f32(0)
        .f32(0)
        .call(kGemm);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// A float32 NHWC tensor type with static H, W and C (what the NHWC
/// kernels take).
bool isStaticF32Nhwc(Type type) {
  return isNhwcWithStaticHwc(type) &&
         cast<RankedTensorType>(type).getElementType().isF32();
}

/// Pooling through the runtime's NHWC kernel, which pads implicitly: a
/// max_pool2d reading a -inf pad of H and W (what ONNX MaxPool's pads
/// become) and a VALID avg_pool2d reading a zero pad (count_include_pad)
/// absorb the pad.
template <typename PoolOp>
struct PoolToKernel : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  static constexpr bool isMax = std::is_same_v<PoolOp, MaxPool2DOp>;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isStaticF32Nhwc(xType) || !isStaticF32Nhwc(resultType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getEffectiveStrides());
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    int32_t mode = isMax ? TFCC_POOL_MAX : TFCC_POOL_AVG;
    Value x = op.getX();
    if (auto pad = x.template getDefiningOp<PadOp>()) {
      SmallVector<int64_t> pads = getIntegers(pad.getPads());
      float value = pad.getValue().convertToFloat();
      bool absorbs = isMax ? value <= -std::numeric_limits<float>::max()
                           : value == 0.0f && padding.isZero();
      if (absorbs && pad.getMode() == "constant" && pads.size() == 8 &&
          !pads[0] && !pads[1] && !pads[6] && !pads[7] &&
          llvm::all_of(pads, [](int64_t v) { return v >= 0; })) {
        x = pad.getX();
        xType = cast<RankedTensorType>(x.getType());
        padding.before[0] += pads[2];
        padding.before[1] += pads[4];
        if (!isMax)
          mode = TFCC_POOL_AVG_WINDOW;
      }
    }
    Location loc = op.getLoc();
    Value output = allocResultLike(rewriter, loc, resultType, x);
    CallBuilder(rewriter, loc)
        .poolGeometry(x, window, strides, padding, resultType)
        .i32(mode)
        .pointer(output)
        .call(kPool);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// graph.max_pool2d_grad through the runtime's kernel (one pass over x and
/// dy per image instead of the linalg lowering's window argmax and gather).
struct MaxPool2DGradToKernel : OpRewritePattern<MaxPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX(), dy = op.getDy();
    auto xType = cast<RankedTensorType>(x.getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isStaticF32Nhwc(xType) || !isStaticF32Nhwc(dyType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    Location loc = op.getLoc();
    Value output = allocResultLike(rewriter, loc, resultType, x);
    CallBuilder(rewriter, loc)
        .poolGeometry(x, window, strides, padding, dyType)
        .i32(op.getPositiveOnly() ? 1 : 0)
        .tensorPointer(dy)
        .pointer(output)
        .call(kMaxPoolGrad);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// graph.max_pool2d_with_indices: one kernel call writing both results.
struct MaxPoolWithIndicesToKernel : OpRewritePattern<MaxPool2DWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    auto yType = cast<RankedTensorType>(op.getY().getType());
    auto tapsType = cast<RankedTensorType>(op.getTaps().getType());
    if (!isStaticF32Nhwc(xType) || !isStaticF32Nhwc(yType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    Location loc = op.getLoc();
    Value y = allocResultLike(rewriter, loc, yType, x);
    Value taps = allocResultLike(rewriter, loc, tapsType, x);
    CallBuilder(rewriter, loc)
        .poolGeometry(x, window, strides, padding, yType)
        .i32(op.getPositiveOnly() ? 1 : 0)
        .pointer(y)
        .pointer(taps)
        .call(kPoolIndices);
    rewriter.replaceOp(op, {toResultTensor(rewriter, loc, yType, y),
                            toResultTensor(rewriter, loc, tapsType, taps)});
    return success();
  }
};

/// graph.max_pool2d_grad_indices: the scatter through the recorded taps.
struct MaxPoolGradIndicesToKernel
    : OpRewritePattern<MaxPool2DGradIndicesOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DGradIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Value taps = op.getTaps(), dy = op.getDy();
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isStaticF32Nhwc(dyType) || !isStaticF32Nhwc(resultType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(resultType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    Location loc = op.getLoc();
    Value output = allocResultLike(rewriter, loc, resultType, dy);
    CallBuilder(rewriter, loc)
        .tensorPointer(taps)
        .tensorPointer(dy)
        .i64(getDimValue(rewriter, loc, dy, 0))
        .i64(resultType.getDimSize(1))
        .i64(resultType.getDimSize(2))
        .i64(resultType.getDimSize(3))
        .i64(window[0])
        .i64(window[1])
        .i64(strides[0])
        .i64(strides[1])
        .i64(padding.before[0])
        .i64(padding.before[1])
        .i64(dyType.getDimSize(1))
        .i64(dyType.getDimSize(2))
        .pointer(output)
        .call(kPoolGradIndices);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// The rows x cols view of a tensor normalized over its trailing dims from
/// `axis` on (static), or failure.
FailureOr<std::pair<Value, int64_t>> getRowsAndCols(OpBuilder &b, Location loc,
                                                    Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> trailing = type.getShape().drop_front(axis);
  if (!type.getElementType().isF32() || trailing.empty() ||
      ShapedType::isDynamicShape(trailing))
    return failure();
  int64_t cols = 1;
  for (int64_t d : trailing)
    cols *= d;
  SmallVector<int64_t> leading = llvm::to_vector(llvm::seq<int64_t>(0, axis));
  return std::make_pair(getDimsProduct(b, loc, x, leading), cols);
}

/// layer_norm whose gamma and beta have the normalized dims' shape.
struct LayerNormToKernel : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getX().getType());
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), type.getRank());
    if (!axis)
      return failure();
    ArrayRef<int64_t> trailing = type.getShape().drop_front(*axis);
    for (Value param : {op.getGamma(), op.getBeta()})
      if (cast<RankedTensorType>(param.getType()).getShape() != trailing)
        return rewriter.notifyMatchFailure(op, "broadcast gamma or beta");
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, op.getX(), *axis);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "not float32 static rows");
    Value output = allocResultLike(rewriter, loc, type, op.getX());
    CallBuilder(rewriter, loc)
        .tensorPointer(op.getX())
        .i64(shape->first)
        .i64(shape->second)
        .tensorPointer(op.getGamma())
        .tensorPointer(op.getBeta())
        .f32(op.getEpsilon().convertToFloat())
        .pointer(output)
        .call(kLayerNorm);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, type, output));
    return success();
  }
};

/// graph.moments / graph.batch_norm_grad_sums of float32 with a static
/// channel count: one call of the runtime's parallel per-channel reduction
/// (the linalg lowering's reductions run serially with their accumulators
/// in memory).
template <typename StatsOp>
struct ChannelStatsToKernel : OpRewritePattern<StatsOp> {
  using OpRewritePattern<StatsOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(StatsOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, x, rank - 1);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "not float32 static channels");
    auto type = cast<RankedTensorType>(op.getType());
    Value output = allocResult(rewriter, loc, type, {});
    CallBuilder call(rewriter, loc);
    call.tensorPointer(x);
    if constexpr (std::is_same_v<StatsOp, BatchNormGradSumsOp>)
      call.tensorPointer(op.getDy()).tensorPointer(op.getMoments());
    call.i64(shape->first).i64(shape->second).pointer(output);
    call.call(std::is_same_v<StatsOp, MomentsOp> ? kMoments : kGradSums);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, type, output));
    return success();
  }
};

/// softmax / log_softmax over the last axis.
template <typename SoftmaxOp>
struct SoftmaxToKernel : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern<SoftmaxOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getX().getType());
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), type.getRank());
    if (!axis || *axis != type.getRank() - 1)
      return rewriter.notifyMatchFailure(op, "not the last axis");
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, op.getX(), *axis);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "not float32 static rows");
    Value output = allocResultLike(rewriter, loc, type, op.getX());
    CallBuilder(rewriter, loc)
        .tensorPointer(op.getX())
        .i64(shape->first)
        .i64(shape->second)
        .i32(std::is_same_v<SoftmaxOp, LogSoftmaxOp>)
        .pointer(output)
        .call(kSoftmax);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, type, output));
    return success();
  }
};

/// Checks the operands of a float32, groups = 1 convolution gradient: NHWC
/// tensors with static H, W, C and a static kernel (or kernel size).
bool isKernelConvGradient(ArrayRef<Type> nhwc, Type kernel, int64_t groups) {
  if (groups != 1)
    return false;
  if (!llvm::all_of(nhwc, isStaticF32Nhwc))
    return false;
  auto kernelType = cast<RankedTensorType>(kernel);
  return kernelType.getRank() == 4 && kernelType.hasStaticShape() &&
         kernelType.getElementType().isF32();
}

/// conv2d_backprop_input as a stride-1 forward convolution of dy:
///   dx[n, ih, iw, ci] = sum over (i', j', co) of
///     dy[n, ih - P_h + i' * d_h, iw - P_w + j' * d_w, co] * W'[i', j', co, ci]
/// with W'[i', j', co, ci] = kernel[kh-1-i', kw-1-j', ci, co] (flipped, in and
/// out channels swapped; a small linalg.generic per step, packed at run
/// time) and P = (k - 1) * d - pad_before. A stride s > 1 is stride 1 over
/// dy spread out with s - 1 zeros between its elements (s^2 times the
/// multiply-adds, at the convolution kernel's speed). Groups > 1 stay on the
/// linalg lowering. A 3x3 kernel of dilation 1 whose stride-1 convolution
/// isWinogradConv takes (the mnist_cnn_train conv2's gradient: 11x11x64 ->
/// 13x13x32, pad 2) goes to the Winograd kernel instead, W' transformed at
/// run time (or compile time) by packWinogradWeights.
struct Conv2DBackpropInputToKernel : OpRewritePattern<Conv2DBackpropInputOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackpropInputOp op,
                                PatternRewriter &rewriter) const override {
    Value dy = op.getDy(), kernel = op.getKernel();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    if (!isKernelConvGradient({dy.getType(), resultType}, kernel.getType(),
                              op.getGroups()))
      return rewriter.notifyMatchFailure(
          op, "not a float32 static groups-1 NHWC gradient");
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    int64_t kh = kernelType.getDimSize(0), kw = kernelType.getDimSize(1);
    int64_t in = kernelType.getDimSize(2), out = kernelType.getDimSize(3);
    SmallVector<int64_t> inputSize = getIntegers(op.getInputSize());
    WindowPadding padding = getWindowPadding(
        inputSize, {kh, kw}, strides, dilations, op.getPadding() == "same");
    int64_t padTop = (kh - 1) * dilations[0] - padding.before[0];
    int64_t padLeft = (kw - 1) * dilations[1] - padding.before[1];
    if (padTop < 0 || padLeft < 0 || dyType.getDimSize(3) != out ||
        resultType.getDimSize(3) != in)
      return rewriter.notifyMatchFailure(op, "unsupported padding");

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    if (strides[0] != 1 || strides[1] != 1) {
      // dy' holds dy[n, r, s, c] at [n, r * sh, s * sw, c] and zeros between:
      // the stride-1 gradient over dy' is the strided gradient over dy.
      auto dilatedType = RankedTensorType::get(
          {dyType.getDimSize(0), (dyType.getDimSize(1) - 1) * strides[0] + 1,
           (dyType.getDimSize(2) - 1) * strides[1] + 1, out},
          rewriter.getF32Type());
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, dy);
      SmallVector<OpFoldResult> dilatedSizes = {
          sizes[0], rewriter.getIndexAttr(dilatedType.getDimSize(1)),
          rewriter.getIndexAttr(dilatedType.getDimSize(2)), sizes[3]};
      Value zeros = createFilled(
          rewriter, loc, dilatedType, dilatedSizes,
          createScalarConstant(rewriter, loc, rewriter.getF32Type(), 0.0));
      SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> steps = {
          rewriter.getIndexAttr(1), rewriter.getIndexAttr(strides[0]),
          rewriter.getIndexAttr(strides[1]), rewriter.getIndexAttr(1)};
      dy = rewriter.create<tensor::InsertSliceOp>(loc, dy, zeros, offsets,
                                                  sizes, steps);
      dyType = dilatedType;
    }
    auto transformedType =
        RankedTensorType::get({kh, kw, out, in}, rewriter.getF32Type());
    Value transformed;
    if (std::optional<std::vector<float>> values = getConstantFloats(kernel)) {
      std::vector<float> flipped(values->size());
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t co = 0; co < out; ++co)
            for (int64_t ci = 0; ci < in; ++ci)
              flipped[((i * kw + j) * out + co) * in + ci] =
                  (*values)[(((kh - 1 - i) * kw + (kw - 1 - j)) * in + ci) *
                                out +
                            co];
      transformed = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(transformedType, ArrayRef<float>(flipped)));
    } else {
      AffineExpr d0, d1, d2, d3;
      bindDims(ctx, d0, d1, d2, d3);
      Value init = rewriter.create<tensor::EmptyOp>(
          loc, transformedType.getShape(), rewriter.getF32Type());
      transformed = buildGeneric(
          rewriter, loc, kernel,
          AffineMap::get(4, 0, {(kh - 1) - d0, (kw - 1) - d1, d3, d2}, ctx),
          init, rewriter.getMultiDimIdentityMap(4), getIterators(4),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    }
    if (isWinogradConv(dyType.getDimSize(1), dyType.getDimSize(2), out, in,
                       resultType.getDimSize(1), resultType.getDimSize(2),
                       {kh, kw}, {1, 1}, dilations,
                       /*runtimeTransform=*/!getConstantFloats(kernel))) {
      Value weights = packWinogradWeights(rewriter, loc, transformed, out, in);
      Value output = allocResultLike(rewriter, loc, resultType, dy);
      CallBuilder(rewriter, loc)
          .convOperands(dy, weights, in)
          .i64(padTop)
          .i64(padLeft)
          .i64(resultType.getDimSize(1))
          .i64(resultType.getDimSize(2))
          .i64(0)
          .i64(0)
          .i32(TFCC_ACT_NONE)
          .f32(0)
          .f32(0)
          .pointer(output)
          .call(kConvWinograd);
      rewriter.replaceOp(op,
                         toResultTensor(rewriter, loc, resultType, output));
      return success();
    }
    Value weights = packWeights(rewriter, loc, transformed, kh * kw * out, in);
    Value output = allocResultLike(rewriter, loc, resultType, dy);
    CallBuilder(rewriter, loc)
        .convOperands(dy, weights, in)
        .i64(kh)
        .i64(kw)
        .i64(1)
        .i64(1)
        .i64(dilations[0])
        .i64(dilations[1])
        .i64(padTop)
        .i64(padLeft)
        .i64(resultType.getDimSize(1))
        .i64(resultType.getDimSize(2))
        .i64(0)
        .i64(0)
        .i32(TFCC_ACT_NONE)
        .f32(0)
        .f32(0)
        .pointer(output)
        .call(kConv);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// conv2d_backprop_filter as one GEMM: dk viewed as [kh*kw*ci, co] =
/// im2col(x)^T [kh*kw*ci, n*oh*ow] @ dy [n*oh*ow, co], the im2col matrix
/// (rows (n, oh, ow), columns (i, j, ci)) materialized by a linalg.generic
/// over the zero-padded input, or x itself for a 1x1 stride-1 unpadded
/// kernel. Groups > 1 stay on the linalg lowering.
struct Conv2DBackpropFilterToKernel
    : OpRewritePattern<Conv2DBackpropFilterOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackpropFilterOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX(), dy = op.getDy();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isKernelConvGradient({x.getType(), dy.getType()}, resultType,
                              op.getGroups()))
      return rewriter.notifyMatchFailure(
          op, "not a float32 static groups-1 NHWC gradient");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto xType = cast<RankedTensorType>(x.getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    SmallVector<int64_t> kernelSize = getIntegers(op.getKernelSize());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    int64_t kh = kernelSize[0], kw = kernelSize[1];
    int64_t in = xType.getDimSize(3), out = dyType.getDimSize(3);
    int64_t oh = dyType.getDimSize(1), ow = dyType.getDimSize(2);
    if (resultType.getShape() != ArrayRef<int64_t>{kh, kw, in, out})
      return rewriter.notifyMatchFailure(op, "unexpected kernel shape");
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), kernelSize, strides,
                         dilations, op.getPadding() == "same");

    bool unitSteps = strides[0] == 1 && strides[1] == 1 && dilations[0] == 1 &&
                     dilations[1] == 1;
    // Stride 1, a window: the runtime reads the (padded) input in place
    // through per-row tap offsets instead of an im2col matrix kh * kw times
    // the input's size.
    if (unitSteps && kh * kw > 1 && ow <= 1024) {
      Value zero =
          createScalarConstant(rewriter, loc, rewriter.getF32Type(), 0.0);
      Value padded = padSpatial(rewriter, loc, x, padding, zero);
      Value output = allocResult(rewriter, loc, resultType, {});
      CallBuilder(rewriter, loc)
          .nhwcInput(padded)
          .i64(kh)
          .i64(kw)
          .tensorPointer(dy)
          .i64(oh)
          .i64(ow)
          .i64(out)
          .pointer(output)
          .call(kFilterGrad);
      rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
      return success();
    }
    Value columns = x;
    bool direct = kh == 1 && kw == 1 && unitSteps && padding.isZero() &&
                  xType.getDimSize(1) == oh && xType.getDimSize(2) == ow;
    if (!direct) {
      Value zero = createScalarConstant(rewriter, loc, rewriter.getF32Type(), 0.0);
      Value padded = padSpatial(rewriter, loc, x, padding, zero);
      auto columnsType = RankedTensorType::get(
          {xType.getDimSize(0), oh, ow, kh, kw, in}, rewriter.getF32Type());
      SmallVector<OpFoldResult> sizes = {
          tensor::getMixedSize(rewriter, loc, x, 0), rewriter.getIndexAttr(oh),
          rewriter.getIndexAttr(ow), rewriter.getIndexAttr(kh),
          rewriter.getIndexAttr(kw), rewriter.getIndexAttr(in)};
      Value init = createEmpty(rewriter, loc, columnsType, sizes);
      AffineExpr n, r, s, i, j, c;
      bindDims(ctx, n, r, s, i, j, c);
      columns = buildGeneric(
          rewriter, loc, padded,
          AffineMap::get(6, 0,
                         {n, r * strides[0] + i * dilations[0],
                          s * strides[1] + j * dilations[1], c},
                         ctx),
          init, rewriter.getMultiDimIdentityMap(6), getIterators(6),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    }
    int64_t m = kh * kw * in;
    Value rows = getDimsProduct(rewriter, loc, dy, {0, 1, 2});
    Value output = allocResult(rewriter, loc, resultType, {});
    CallBuilder(rewriter, loc)
        .i64(1)
        .i64(m)
        .i64(out)
        .i64(rows)
        .tensorPointer(columns)
        .i64(m)
        .i64(0)
        .i32(1)
        .tensorPointer(dy)
        .i64(out)
        .i64(0)
        .i32(0)
        .i32(0)
        .pointer(output)
        .i64(out)
        .i64(0)
        .i64(0)
        .i64(0)
        .i32(TFCC_ACT_NONE)
        .f32(0)
        .f32(0)
        .call(kGemm);
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

} // namespace

void mlir::tfcc::declareKernelFunctions(ModuleOp module) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  Type i64 = b.getI64Type(), i32 = b.getI32Type(), f32 = b.getF32Type();
  auto declare = [&](StringRef name, ArrayRef<Type> inputs) {
    if (module.lookupSymbol(name))
      return;
    auto func = b.create<func::FuncOp>(module.getLoc(), name,
                                       b.getFunctionType(inputs, {}));
    func.setPrivate();
  };
  declare(kGemm, {i64, i64, i64, i64, i64, i64, i64, i32, i64, i64, i64, i32,
                  i32, i64, i64, i64, i64, i64, i32, f32, f32});
  declare(kPackB, {i64, i64, i64, i64, i32, i64});
  SmallVector<Type> conv = {i64, i64, i64, i64, i64, i64, i64, i64,
                            i64, i64, i64, i64, i64, i64, i64, i64,
                            i64, i64, i64, i32, f32, f32, i64};
  declare(kConv, conv);
  declare(kDepthwise, conv);
  declare(kConvWinograd, {i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                          i64, i64, i64, i32, f32, f32, i64});
  declare(kWinogradPack, {i64, i64, i64, i64});
  declare(kPool, {i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                  i64, i32, i64});
  declare(kMaxPoolGrad, {i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                         i64, i64, i64, i32, i64, i64});
  declare(kLayerNorm, {i64, i64, i64, i64, i64, f32, i64});
  declare(kSoftmax, {i64, i64, i64, i32, i64});
  declare(kMoments, {i64, i64, i64, i64});
  declare(kPoolIndices, {i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                         i64, i64, i32, i64, i64});
  declare(kPoolGradIndices, {i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                             i64, i64, i64, i64, i64});
  declare(kFilterGrad, {i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64,
                        i64});
  declare(kGradSums, {i64, i64, i64, i64, i64, i64});
}

void mlir::tfcc::eraseUnusedKernelFunctions(ModuleOp module) {
  for (StringRef name :
       {kGemm, kPackB, kConv, kConvWinograd, kWinogradPack, kDepthwise, kPool,
        kMaxPoolGrad, kLayerNorm, kSoftmax, kMoments, kGradSums,
        kFilterGrad, kPoolIndices, kPoolGradIndices}) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (func && SymbolTable::symbolKnownUseEmpty(func, module))
      func.erase();
  }
}

void mlir::tfcc::populateGraphKernelsToCallsPatterns(
    RewritePatternSet &patterns) {
  // Above the linalg lowering of graph.matmul, which stays for the cases
  // the kernel does not take.
  patterns.add<FusedConv2DLowering, FusedDenseLowering>(patterns.getContext());
  patterns.add<MatmulToKernel, PoolToKernel<MaxPool2DOp>,
               PoolToKernel<AvgPool2DOp>, LayerNormToKernel,
               SoftmaxToKernel<SoftmaxOp>, SoftmaxToKernel<LogSoftmaxOp>,
               Conv2DBackpropInputToKernel, Conv2DBackpropFilterToKernel,
               MaxPool2DGradToKernel, MaxPoolWithIndicesToKernel,
               MaxPoolGradIndicesToKernel, ChannelStatsToKernel<MomentsOp>,
               ChannelStatsToKernel<BatchNormGradSumsOp>>(
      patterns.getContext(), /*benefit=*/2);
}
