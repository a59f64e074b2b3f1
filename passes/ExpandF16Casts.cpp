//===- ExpandF16Casts.cpp - f16 <-> f32 conversions as integer operations -===//
//
// LLVM turns an f16 conversion into one instruction where the target has it
// (F16C on x86, AArch64, ARM's fp16 extension) and into a libgcc/compiler-rt
// call elsewhere (__truncsfhf2, __extendhfsf2), which a model library links
// without. Expanded here into bit operations (and one f32 add or subtract
// for the subnormals), the conversions work on every target. The f32 -> bf16
// rounding too (upstream's arith-expand then widens bf16 to f32).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace mlir::tfcc {
#define GEN_PASS_DEF_EXPANDF16CASTS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

bool isF16(Type type) { return type.isF16(); }
bool isLowFloat(Type type) { return type.isF16() || type.isBF16(); }

Value i32Constant(OpBuilder &b, Location loc, uint32_t value) {
  return b.create<arith::ConstantOp>(
      loc, b.getI32IntegerAttr(static_cast<int32_t>(value)));
}
Value f32FromBits(OpBuilder &b, Location loc, uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
}

/// f16 -> f32, exact: the exponent rebiased, infinities and NaNs kept,
/// subnormals renormalized by an exact f32 subtraction.
Value extendF16(OpBuilder &b, Location loc, Value half) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto cst = [&](uint32_t v) { return i32Constant(b, loc, v); };
  Value x = b.create<arith::ExtUIOp>(
      loc, i32, b.create<arith::BitcastOp>(loc, b.getI16Type(), half));
  Value sign = b.create<arith::ShLIOp>(
      loc, b.create<arith::AndIOp>(loc, x, cst(0x8000)), cst(16));
  Value bits = b.create<arith::ShLIOp>(
      loc, b.create<arith::AndIOp>(loc, x, cst(0x7fff)), cst(13));
  Value exponent = b.create<arith::AndIOp>(loc, bits, cst(0x0f800000));
  Value rebiased = b.create<arith::AddIOp>(loc, bits, cst(112u << 23));
  Value special = b.create<arith::AddIOp>(loc, rebiased, cst(112u << 23));
  Value subnormal = b.create<arith::BitcastOp>(
      loc, i32,
      b.create<arith::SubFOp>(
          loc,
          b.create<arith::BitcastOp>(
              loc, f32, b.create<arith::AddIOp>(loc, rebiased, cst(1u << 23))),
          f32FromBits(b, loc, 113u << 23)));
  Value isSpecial = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                            exponent, cst(0x0f800000));
  Value isSubnormal =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, exponent, cst(0));
  Value magnitude = b.create<arith::SelectOp>(
      loc, isSpecial, special,
      b.create<arith::SelectOp>(loc, isSubnormal, subnormal, rebiased));
  return b.create<arith::BitcastOp>(
      loc, f32, b.create<arith::OrIOp>(loc, magnitude, sign));
}

/// f32 -> f16 rounded to nearest even: overflow to infinity, NaN to a quiet
/// NaN, subnormal results rounded by an f32 addition.
Value truncateToF16(OpBuilder &b, Location loc, Value single) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto cst = [&](uint32_t v) { return i32Constant(b, loc, v); };
  Value u = b.create<arith::BitcastOp>(loc, i32, single);
  Value sign = b.create<arith::AndIOp>(loc, u, cst(0x80000000));
  Value a = b.create<arith::XOrIOp>(loc, u, sign);
  // |x| >= 65520 (and infinities, NaNs).
  Value isNaN = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ugt, a,
                                        cst(0x7f800000));
  Value large = b.create<arith::SelectOp>(loc, isNaN, cst(0x7e00), cst(0x7c00));
  Value isLarge = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, a,
                                          cst(0x47800000));
  // |x| < 2^-14: the f32 addition of 0.5 rounds the mantissa where f16's
  // subnormals keep it.
  const uint32_t denormMagic = 126u << 23;
  Value sum = b.create<arith::BitcastOp>(
      loc, i32,
      b.create<arith::AddFOp>(loc, b.create<arith::BitcastOp>(loc, f32, a),
                              f32FromBits(b, loc, denormMagic)));
  Value small = b.create<arith::SubIOp>(loc, sum, cst(denormMagic));
  Value isSmall = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, a,
                                          cst(113u << 23));
  // Normal: rebias, add half an f16 ulp minus one plus the kept bit's
  // parity (ties to even), shift; a carry rounds up to the next exponent or
  // to infinity.
  Value odd = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, a, cst(13)), cst(1));
  Value biased = b.create<arith::AddIOp>(
      loc, b.create<arith::SubIOp>(loc, a, cst(0x38000000 - 0xfff)), odd);
  Value normal = b.create<arith::ShRUIOp>(loc, biased, cst(13));
  Value magnitude = b.create<arith::SelectOp>(
      loc, isLarge, large,
      b.create<arith::SelectOp>(loc, isSmall, small, normal));
  Value bits = b.create<arith::OrIOp>(
      loc, magnitude, b.create<arith::ShRUIOp>(loc, sign, cst(16)));
  return b.create<arith::BitcastOp>(
      loc, b.getF16Type(),
      b.create<arith::TruncIOp>(loc, b.getI16Type(), bits));
}

/// f32 -> bf16 rounded to nearest even, NaN to a quiet NaN, in i32 code
/// ending in one bitcast: upstream's expansion selects among bf16 values,
/// which targets without bf16 (ARMv7) cannot legalize once vectorized.
Value truncateToBF16(OpBuilder &b, Location loc, Value single) {
  Type i32 = b.getI32Type();
  auto cst = [&](uint32_t v) { return i32Constant(b, loc, v); };
  Value u = b.create<arith::BitcastOp>(loc, i32, single);
  Value isNaN = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ugt,
      b.create<arith::AndIOp>(loc, u, cst(0x7fffffff)), cst(0x7f800000));
  Value high = b.create<arith::ShRUIOp>(loc, u, cst(16));
  Value odd = b.create<arith::AndIOp>(loc, high, cst(1));
  Value rounded = b.create<arith::ShRUIOp>(
      loc,
      b.create<arith::AddIOp>(loc, b.create<arith::AddIOp>(loc, u, cst(0x7fff)),
                              odd),
      cst(16));
  Value quietNaN = b.create<arith::OrIOp>(loc, high, cst(0x40));
  Value bits = b.create<arith::SelectOp>(loc, isNaN, quietNaN, rounded);
  return b.create<arith::BitcastOp>(
      loc, b.getBF16Type(),
      b.create<arith::TruncIOp>(loc, b.getI16Type(), bits));
}

/// extf from f16 (to f32, or to f64 through f32).
struct ExpandExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF16(op.getIn().getType()))
      return rewriter.notifyMatchFailure(op, "not a scalar f16 operand");
    Value single = extendF16(rewriter, op.getLoc(), op.getIn());
    if (!op.getType().isF32())
      single =
          rewriter.create<arith::ExtFOp>(op.getLoc(), op.getType(), single);
    rewriter.replaceOp(op, single);
    return success();
  }
};

/// truncf to f16 or bf16 (from f32; from f64 through f32, rounding twice).
struct ExpandTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type from = op.getIn().getType(), to = op.getType();
    if (!isLowFloat(to) || !(from.isF32() || from.isF64()))
      return rewriter.notifyMatchFailure(op, "not a scalar truncf to f16/bf16");
    Value single = op.getIn();
    if (from.isF64())
      single = rewriter.create<arith::TruncFOp>(op.getLoc(),
                                                rewriter.getF32Type(), single);
    rewriter.replaceOp(op, to.isBF16()
                               ? truncateToBF16(rewriter, op.getLoc(), single)
                               : truncateToF16(rewriter, op.getLoc(), single));
    return success();
  }
};

struct ExpandF16CastsPass : tfcc::impl::ExpandF16CastsBase<ExpandF16CastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandExtF, ExpandTruncF>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
