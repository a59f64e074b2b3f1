//===- LinalgOps.cpp - graph.matmul and graph.dense to linalg -------------===//
//
// A plain 2-D product becomes linalg.matmul. A batched lhs against a rank-2
// rhs (Dense on [..., in], or matmul with a shared weight) is collapsed to
// 2-D first, so it still uses linalg.matmul. Everything else (transposes,
// broadcast batch dims) is one linalg.generic over [batch..., m, n, k].
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

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
        Value product = nb.create<arith::MulFOp>(nl, args[0], args[1]);
        nb.create<linalg::YieldOp>(
            nl, ValueRange{nb.create<arith::AddFOp>(nl, args[2], product)});
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

} // namespace

void mlir::tfcc::populateGraphLinalgOpsToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, DenseLowering>(patterns.getContext());
}
