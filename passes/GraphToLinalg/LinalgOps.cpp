//===- LinalgOps.cpp - graph.matmul and graph.dense to linalg -------------===//
//
// A plain 2-D product becomes linalg.matmul. A batched lhs against a rank-2
// rhs (Dense on [..., in], or matmul with a shared weight) is collapsed to
// 2-D first, so it still uses linalg.matmul. Everything else (transposes,
// broadcast batch dims) is one linalg.generic over [batch..., m, n, k].
//
// Above those, a float32 matmul whose operands share their batch dims and
// graph.fused_dense (a dense layer with its epilogue fused by
// tfcc-fuse-ops) are calls of the runtime's GEMM kernel.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

/// A logical product lhs [..., m, k] @ rhs [..., k, n], each operand stored
/// transposed in its last two dims when asked.
struct MatmulOperands {
  Value lhs, rhs;
  bool transposeLhs = false, transposeRhs = false;
};

/// Result sizes of the product: batch dims broadcast, m from lhs, n from rhs.
SmallVector<OpFoldResult> getMatmulSizes(OpBuilder &b, Location loc,
                                         RankedTensorType resultType,
                                         const MatmulOperands &mm) {
  int64_t rank = resultType.getRank();
  auto lhsType = cast<RankedTensorType>(mm.lhs.getType());
  auto rhsType = cast<RankedTensorType>(mm.rhs.getType());
  int64_t mDim = lhsType.getRank() - (mm.transposeLhs ? 1 : 2);
  int64_t nDim = rhsType.getRank() - (mm.transposeRhs ? 2 : 1);
  SmallVector<OpFoldResult> result;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!resultType.isDynamicDim(dim)) {
      result.push_back(b.getIndexAttr(resultType.getDimSize(dim)));
    } else if (dim == rank - 2) {
      result.push_back(b.create<tensor::DimOp>(loc, mm.lhs, mDim).getResult());
    } else if (dim == rank - 1) {
      result.push_back(b.create<tensor::DimOp>(loc, mm.rhs, nDim).getResult());
    } else {
      // A dynamic batch dim: the first operand with a dynamic dim there.
      Value size;
      for (Value operand : {mm.lhs, mm.rhs}) {
        auto type = cast<RankedTensorType>(operand.getType());
        int64_t operandDim = dim - (rank - type.getRank());
        if (operandDim >= 0 && type.isDynamicDim(operandDim)) {
          size = b.create<tensor::DimOp>(loc, operand, operandDim);
          break;
        }
      }
      result.push_back(size);
    }
  }
  return result;
}

/// The map of a matmul operand in loops [batch..., m, n, k]: batch dims
/// broadcast (static size 1 reads index 0), then (row, col) of the matrix.
AffineMap getOperandMap(MLIRContext *ctx, RankedTensorType type,
                        unsigned resultRank, unsigned row, unsigned col) {
  unsigned loops = resultRank + 1, batch = type.getRank() - 2;
  unsigned offset = (resultRank - 2) - batch;
  SmallVector<AffineExpr> exprs;
  for (unsigned dim = 0; dim < batch; ++dim)
    exprs.push_back(type.getDimSize(dim) == 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(dim + offset, ctx));
  exprs.push_back(getAffineDimExpr(row, ctx));
  exprs.push_back(getAffineDimExpr(col, ctx));
  return AffineMap::get(loops, 0, exprs, ctx);
}

/// The general product as a linalg.generic accumulating into `init`.
Value buildGenericMatmul(OpBuilder &b, Location loc, const MatmulOperands &mm,
                         Value init) {
  MLIRContext *ctx = b.getContext();
  auto resultType = cast<RankedTensorType>(init.getType());
  unsigned rank = resultType.getRank();
  unsigned m = rank - 2, n = rank - 1, k = rank;
  auto lhsType = cast<RankedTensorType>(mm.lhs.getType());
  auto rhsType = cast<RankedTensorType>(mm.rhs.getType());
  SmallVector<AffineMap> maps = {
      mm.transposeLhs ? getOperandMap(ctx, lhsType, rank, k, m)
                      : getOperandMap(ctx, lhsType, rank, m, k),
      mm.transposeRhs ? getOperandMap(ctx, rhsType, rank, n, k)
                      : getOperandMap(ctx, rhsType, rank, k, n),
      // The result drops the reduction loop k, the last one.
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, ValueRange{mm.lhs, mm.rhs}, init, maps, iterators,
      [](OpBuilder &nb, Location nl, ValueRange args) {
        Value sum;
        if (isa<FloatType>(args[0].getType())) {
          Value product = nb.create<arith::MulFOp>(nl, args[0], args[1]);
          sum = nb.create<arith::AddFOp>(nl, args[2], product);
        } else { // i32 (graph.matmul of integers)
          Value product = nb.create<arith::MulIOp>(nl, args[0], args[1]);
          sum = nb.create<arith::AddIOp>(nl, args[2], product);
        }
        nb.create<linalg::YieldOp>(nl, ValueRange{sum});
      });
  return generic.getResult(0);
}

/// Collapses all but the last dim of `value` into one: [d0, ..., dk] ->
/// [d0 * ... * dk-1, dk].
Value collapseLeadingDims(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  ReassociationIndices leading =
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  SmallVector<ReassociationIndices> reassociation = {leading, {rank - 1}};
  return b.create<tensor::CollapseShapeOp>(loc, value, reassociation);
}

/// lhs @ rhs accumulated into `init` (zeros, or the broadcast bias), whose
/// sizes are `sizes`.
Value buildMatmul(OpBuilder &b, Location loc, const MatmulOperands &mm,
                  Value init, ArrayRef<OpFoldResult> sizes) {
  auto lhsType = cast<RankedTensorType>(mm.lhs.getType());
  auto rhsType = cast<RankedTensorType>(mm.rhs.getType());
  auto resultType = cast<RankedTensorType>(init.getType());
  if (rhsType.getRank() != 2 || mm.transposeLhs)
    return buildGenericMatmul(b, loc, mm, init);
  if (lhsType.getRank() == 2) {
    if (mm.transposeRhs)
      return buildGenericMatmul(b, loc, mm, init);
    return b
        .create<linalg::MatmulOp>(loc, init.getType(),
                                  ValueRange{mm.lhs, mm.rhs}, init)
        .getResult(0);
  }
  // A rank-2 rhs applies to every batch: one [batch * m, k] @ [k, n].
  MatmulOperands flat = mm;
  flat.lhs = collapseLeadingDims(b, loc, mm.lhs);
  Value flatInit = collapseLeadingDims(b, loc, init);
  Value flatResult = buildMatmul(b, loc, flat, flatInit, {});
  int64_t rank = resultType.getRank();
  ReassociationIndices leading =
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  SmallVector<ReassociationIndices> reassociation = {leading, {rank - 1}};
  return b.create<tensor::ExpandShapeOp>(loc, resultType, flatResult,
                                         reassociation, sizes);
}

/// The accumulator a product starts from: zeros, or `bias` [n] broadcast
/// over the result.
Value buildInit(OpBuilder &b, Location loc, RankedTensorType resultType,
                ArrayRef<OpFoldResult> sizes, Value bias) {
  if (!bias) {
    Value zero = createScalarConstant(b, loc, resultType.getElementType(), 0.0);
    return createFilled(b, loc, resultType, sizes, zero);
  }
  return buildElementwise(
      b, loc, resultType, sizes, bias,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    if (resultType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "expected matrices (rank >= 2)");
    MatmulOperands mm{op.getLhs(), op.getRhs(), op.getTransposeA(),
                      op.getTransposeB()};
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes =
        getMatmulSizes(rewriter, loc, resultType, mm);
    Value init = buildInit(rewriter, loc, resultType, sizes, Value());
    rewriter.replaceOp(op, buildMatmul(rewriter, loc, mm, init, sizes));
    return success();
  }
};

/// Keras Dense: x [..., in] @ kernel [in, out] (+ bias), the bias being the
/// accumulator's initial value.
struct DenseLowering : OpRewritePattern<DenseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DenseOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    if (resultType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "expected x of rank >= 2");
    MatmulOperands mm{op.getX(), op.getKernel()};
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes =
        getMatmulSizes(rewriter, loc, resultType, mm);
    Value init = buildInit(rewriter, loc, resultType, sizes, op.getBias());
    rewriter.replaceOp(op, buildMatmul(rewriter, loc, mm, init, sizes));
    return success();
  }
};

/// x [..., k] @ kernel [k, n] as one [m, k] @ [k, n] GEMM, m the product of
/// the leading dims, the kernel packed (packGemmWeights).
struct FusedDenseToKernel : OpRewritePattern<FusedDenseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedDenseOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    auto kernelType = cast<RankedTensorType>(op.getKernel().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t k = kernelType.getDimSize(0), n = kernelType.getDimSize(1);
    SmallVector<int64_t> leading =
        llvm::to_vector(llvm::seq<int64_t>(0, xType.getRank() - 1));
    Value m = getDimsProduct(rewriter, loc, x, leading);
    Value packed = packGemmWeights(rewriter, loc, op.getKernel(), k, n);
    Value output = allocResultLike(rewriter, loc, resultType, x);
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_sgemm{
            .batch = 1,
            .M = m,
            .N = n,
            .K = k,
            .A = x,
            .lda = k,
            .stride_a = 0,
            .trans_a = 0,
            .B = packed,
            .ldb = n,
            .stride_b = 0,
            .trans_b = 0,
            .b_packed = 1,
            .C = output,
            .ldc = n,
            .stride_c = 0,
            .bias = op.getBias(),
            .residual = op.getResidual(),
            .activation = getEpilogueCode(op.getActivation(), op.getRoundTo()) |
                          bf16OperandsFlag(op),
            .alpha = op.getAlpha().convertToFloat(),
            .beta = op.getBeta().convertToFloat()});
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
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_sgemm{.batch = batch,
                               .M = m,
                               .N = n,
                               .K = k,
                               .A = lhs,
                               .lda = lhsCols,
                               .stride_a = mul(m, k),
                               .trans_a = transA,
                               .B = rhs,
                               .ldb = rhsCols,
                               .stride_b = sharedRhs ? zero : mul(k, n),
                               .trans_b = transB,
                               .b_packed = 0,
                               .C = output,
                               .ldc = n,
                               .stride_c = mul(m, n),
                               .bias = nullptr,
                               .residual = nullptr,
                               .activation = bf16OperandsFlag(op),
                               .alpha = 0,
                               .beta = 0});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphLinalgOpsToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  patterns.add<MatmulLowering, DenseLowering>(patterns.getContext());
  if (kernelCalls)
    patterns.add<FusedDenseToKernel, MatmulToKernel>(patterns.getContext(),
                                                     /*benefit=*/2);
}
