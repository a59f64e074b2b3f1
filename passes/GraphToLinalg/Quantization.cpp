//===- Quantization.cpp - graph.quantize / graph.dequantize to linalg -----===//
//
// Each becomes one all-parallel linalg.generic computing ONNX's formula in
// f32 (docs/quantization.md). A per-axis scale and zero point [C] are
// expanded to [C, 1, ..., 1] so NumPy broadcasting lines them up with the
// axis. Bodies compute on signless integers; ui8 is told apart by the graph
// op's types (tfcc-strip-signedness then drops the unsigned types).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

/// A 1-D per-axis parameter [C] of an operand of `rank` reshaped to
/// [C, 1, ..., 1] (rank - axis dims) so it broadcasts along `axis`; a scalar
/// (or an axis that is already the last) as it is.
Value alignWithAxis(OpBuilder &b, Location loc, Value parameter, int64_t axis,
                    int64_t rank) {
  auto type = cast<RankedTensorType>(parameter.getType());
  if (type.getRank() == 0 || axis == rank - 1)
    return parameter;
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = type.getDimSize(0);
  SmallVector<OpFoldResult> sizes(rank - axis, b.getIndexAttr(1));
  sizes[0] = tensor::getMixedSize(b, loc, parameter, 0);
  ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, rank - axis));
  return b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), parameter,
      ArrayRef<ReassociationIndices>{all}, sizes);
}

/// The integer `value` (signless) as f32, unsigned when the graph type says.
Value intToFloat(OpBuilder &b, Location loc, Value value, bool isUnsigned) {
  Type f32 = b.getF32Type();
  if (isUnsigned)
    return b.create<arith::UIToFPOp>(loc, f32, value);
  return b.create<arith::SIToFPOp>(loc, f32, value);
}

/// The scale and zero point of graph.quantize or graph.dequantize `op`, each
/// aligned with the op's axis for broadcasting against x.
template <typename OpTy>
FailureOr<std::pair<Value, Value>>
alignedParameters(OpTy op, PatternRewriter &rewriter) {
  int64_t rank = cast<RankedTensorType>(op.getX().getType()).getRank();
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rank);
  if (!axis && cast<RankedTensorType>(op.getScale().getType()).getRank() != 0)
    return rewriter.notifyMatchFailure(op, "axis out of range");
  int64_t a = axis.value_or(0);
  return std::make_pair(
      alignWithAxis(rewriter, op.getLoc(), op.getScale(), a, rank),
      alignWithAxis(rewriter, op.getLoc(), op.getZeroPoint(), a, rank));
}

/// Rounds an f32 in [-2^22, 2^22] half to even: adding and subtracting
/// 1.5 * 2^23 leaves no fraction bits, and the default rounding mode is to
/// nearest even. (math.roundeven would become a libm call per element.)
Value roundHalfToEven(OpBuilder &b, Location loc, Value x) {
  Value magic = createScalarConstant(b, loc, x.getType(), 0x1.8p23);
  return b.create<arith::SubFOp>(loc, b.create<arith::AddFOp>(loc, x, magic),
                                 magic);
}

struct QuantizeLowering : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<std::pair<Value, Value>> parameters =
        alignedParameters(op, rewriter);
    if (failed(parameters))
      return failure();
    bool isUnsigned = hasUnsignedElements(op.getY());
    double lowest = isUnsigned ? 0.0 : -128.0;
    double highest = isUnsigned ? 255.0 : 127.0;
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getY().getType()),
        ValueRange{op.getX(), parameters->first, parameters->second},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value quotient = b.create<arith::DivFOp>(l, args[0], args[1]);
          // Beyond +-1024 every zero point saturates: clamp first so the
          // rounding trick's range holds (NaN becomes -1024, then lowest).
          Value rounded = roundHalfToEven(
              b, l, clampFloat(b, l, quotient, -1024.0, 1024.0));
          Value shifted = b.create<arith::AddFOp>(
              l, rounded, intToFloat(b, l, args[2], isUnsigned));
          Value clamped = clampFloat(b, l, shifted, lowest, highest);
          Type i8 = b.getI8Type();
          if (isUnsigned)
            return b.create<arith::FPToUIOp>(l, i8, clamped);
          return b.create<arith::FPToSIOp>(l, i8, clamped);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DequantizeLowering : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<std::pair<Value, Value>> parameters =
        alignedParameters(op, rewriter);
    if (failed(parameters))
      return failure();
    bool isUnsigned = hasUnsignedElements(op.getX());
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getY().getType()),
        ValueRange{op.getX(), parameters->first, parameters->second},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value difference = b.create<arith::SubFOp>(
              l, intToFloat(b, l, args[0], isUnsigned),
              intToFloat(b, l, args[2], isUnsigned));
          return b.create<arith::MulFOp>(l, difference, args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphQuantizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<QuantizeLowering, DequantizeLowering>(patterns.getContext());
}
