//===- Elementwise.cpp - graph elementwise ops to linalg.generic ----------===//
//
// Every elementwise op (binary with NumPy broadcasting, unary, cast, compare,
// select) becomes one all-parallel linalg.generic whose body is the scalar
// computation below; operands broadcast through their indexing maps. A tree of
// single-use elementwise ops of one result shape becomes one linalg.generic
// computing them all (lowerElementwiseGroups): the fusion that would merge
// them later costs time per op (docs/reliability.md, long graphs).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value constant(OpBuilder &b, Location loc, Value like, double value) {
  return createScalarConstant(b, loc, like.getType(), value);
}

/// Builds the float or the integer form of a binary op, as the operands'
/// element type asks.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isFloat(lhs))
    return b.create<FloatOp>(loc, lhs, rhs);
  return b.create<IntOp>(loc, lhs, rhs);
}

Value relu6(OpBuilder &b, Location loc, Value x) {
  Value zero = constant(b, loc, x, 0.0), six = constant(b, loc, x, 6.0);
  Value positive = b.create<arith::MaximumFOp>(loc, x, zero);
  return b.create<arith::MinimumFOp>(loc, positive, six);
}

Value hardSigmoid(OpBuilder &b, Location loc, Value x) {
  Value shifted = b.create<arith::AddFOp>(loc, x, constant(b, loc, x, 3.0));
  return b.create<arith::DivFOp>(loc, relu6(b, loc, shifted),
                                 constant(b, loc, x, 6.0));
}

//===----------------------------------------------------------------------===//
// Scalar computations, one overload per op. `args` are the element values of
// the operands; `resultType` the result element type.
//===----------------------------------------------------------------------===//

Value computeScalar(AddOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, args[0], args[1]);
}
Value computeScalar(SubOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, args[0], args[1]);
}
Value computeScalar(MulOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args[0], args[1]);
}
Value computeScalar(DivOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  // Integer division truncates toward zero, like TF's Div.
  if (hasUnsignedElements(op.getLhs()))
    return b.create<arith::DivUIOp>(loc, args[0], args[1]);
  return floatOrInt<arith::DivFOp, arith::DivSIOp>(b, loc, args[0], args[1]);
}
Value computeScalar(ModOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  Value lhs = args[0], rhs = args[1];
  if (isa<FloatType>(lhs.getType()))
    return b.create<arith::RemFOp>(loc, lhs, rhs); // fmod (the verifier's rule)
  // A divisor of 0 or -1 becomes 1: the result 0 without remsi's traps.
  Value zero = createScalarConstant(b, loc, rhs.getType(), 0);
  Value one = createScalarConstant(b, loc, rhs.getType(), 1);
  if (hasUnsignedElements(op.getLhs())) {
    Value isZero =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, rhs, zero);
    return b.create<arith::RemUIOp>(
        loc, lhs, b.create<arith::SelectOp>(loc, isZero, one, rhs));
  }
  Value minusOne = createScalarConstant(b, loc, rhs.getType(), -1);
  Value trap = b.create<arith::OrIOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, rhs, zero),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, rhs, minusOne));
  Value r = b.create<arith::RemSIOp>(
      loc, lhs, b.create<arith::SelectOp>(loc, trap, one, rhs));
  if (op.getFmod())
    return r;
  // Python's sign: a nonzero remainder whose sign differs from the divisor's
  // moves by the divisor.
  Value nonzero =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, r, zero);
  Value signsDiffer = b.create<arith::XOrIOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, r, zero),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rhs, zero));
  Value adjust = b.create<arith::AndIOp>(loc, nonzero, signsDiffer);
  return b.create<arith::SelectOp>(loc, adjust,
                                   b.create<arith::AddIOp>(loc, r, rhs), r);
}
Value computeScalar(MaximumOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  if (hasUnsignedElements(op.getLhs()))
    return b.create<arith::MaxUIOp>(loc, args[0], args[1]);
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, args[0],
                                                       args[1]);
}
Value computeScalar(MinimumOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  if (hasUnsignedElements(op.getLhs()))
    return b.create<arith::MinUIOp>(loc, args[0], args[1]);
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, args[0],
                                                       args[1]);
}
/// Integer power by squaring over the exponent's bits, in a fixed-trip
/// scf.for (math.ipowi has no lowering in the CPU pipeline). The bits of a
/// negative exponent are used as unsigned (the reference rejects it).
Value integerPower(OpBuilder &b, Location loc, Value base, Value exponent) {
  Type type = base.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value bits = b.create<arith::ConstantIndexOp>(loc, width);
  Value step = b.create<arith::ConstantIndexOp>(loc, 1);
  Value one = createScalarConstant(b, loc, type, 1);
  auto loop = b.create<scf::ForOp>(
      loc, zero, bits, step, ValueRange{one, base, exponent},
      [&](OpBuilder &nb, Location nl, Value, ValueRange iter) {
        Value result = iter[0], power = iter[1], rest = iter[2];
        Value bit = nb.create<arith::AndIOp>(nl, rest, one);
        Value isSet =
            nb.create<arith::CmpIOp>(nl, arith::CmpIPredicate::ne, bit,
                                     createScalarConstant(nb, nl, type, 0));
        Value product = nb.create<arith::MulIOp>(nl, result, power);
        result = nb.create<arith::SelectOp>(nl, isSet, product, result);
        power = nb.create<arith::MulIOp>(nl, power, power);
        rest = nb.create<arith::ShRUIOp>(nl, rest, one);
        nb.create<scf::YieldOp>(nl, ValueRange{result, power, rest});
      });
  return loop.getResult(0);
}

Value computeScalar(PowOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  if (isFloat(args[0]))
    return b.create<math::PowFOp>(loc, args[0], args[1]);
  return integerPower(b, loc, args[0], args[1]);
}

Value computeScalar(NegOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  if (isFloat(args[0]))
    return b.create<arith::NegFOp>(loc, args[0]);
  return b.create<arith::SubIOp>(loc, constant(b, loc, args[0], 0), args[0]);
}
Value computeScalar(AbsOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  if (isFloat(args[0]))
    return b.create<math::AbsFOp>(loc, args[0]);
  if (hasUnsignedElements(op.getX()))
    return args[0];
  // select(x < 0, -x, x): math.absi has no lowering in the CPU pipeline.
  Value zero = constant(b, loc, args[0], 0);
  Value negative =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, args[0], zero);
  Value negated = b.create<arith::SubIOp>(loc, zero, args[0]);
  return b.create<arith::SelectOp>(loc, negative, negated, args[0]);
}
Value computeScalar(SquareOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args[0], args[0]);
}
Value computeScalar(ExpOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<math::ExpOp>(loc, args[0]);
}
Value computeScalar(LogOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<math::LogOp>(loc, args[0]);
}
Value computeScalar(SqrtOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<math::SqrtOp>(loc, args[0]);
}
Value computeScalar(RsqrtOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  // 1 / sqrt(x): math.rsqrt has no lowering to LLVM or libm in MLIR 19.
  Value root = b.create<math::SqrtOp>(loc, args[0]);
  return b.create<arith::DivFOp>(loc, constant(b, loc, args[0], 1.0), root);
}
Value computeScalar(TanhOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<math::TanhOp>(loc, args[0]);
}
Value computeScalar(ErfOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<math::ErfOp>(loc, args[0]);
}
Value computeScalar(FloorOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  return b.create<math::FloorOp>(loc, args[0]);
}
Value computeScalar(CeilOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<math::CeilOp>(loc, args[0]);
}
template <typename MathOpTy>
Value unaryMath(OpBuilder &b, Location loc, Value x) {
  return b.create<MathOpTy>(loc, x);
}
/// sign(x): x itself where it is zero or NaN.
Value buildSign(OpBuilder &b, Location loc, Value x) {
  Value zero = constant(b, loc, x, 0.0);
  Value positive =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, zero);
  Value negative =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, zero);
  Value orMinusOne =
      b.create<arith::SelectOp>(loc, negative, constant(b, loc, x, -1.0), x);
  return b.create<arith::SelectOp>(loc, positive, constant(b, loc, x, 1.0),
                                   orMinusOne);
}
Value computeScalar(MathOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  switch (op.getFunction()) {
#define TFCC_MATH_FUNCTION(Name, fn, onnx, reference, lowering)                \
  case MathFunction::Name:                                                     \
    return lowering(b, loc, args[0]);
#include "dialects/graph/IR/MathFunctions.def"
  }
  llvm_unreachable("graph.math verifies its function");
}
Value computeScalar(SigmoidOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  Value x = args[0], one = constant(b, loc, x, 1.0);
  Value expNeg = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
  return b.create<arith::DivFOp>(loc, one,
                                 b.create<arith::AddFOp>(loc, one, expNeg));
}
Value computeScalar(ReluOp, OpBuilder &b, Location loc, ValueRange args, Type) {
  return b.create<arith::MaximumFOp>(loc, args[0],
                                     constant(b, loc, args[0], 0.0));
}
Value computeScalar(Relu6Op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  return relu6(b, loc, args[0]);
}
Value computeScalar(HardSigmoidOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  return hardSigmoid(b, loc, args[0]);
}
Value computeScalar(HardSwishOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  return b.create<arith::MulFOp>(loc, args[0], hardSigmoid(b, loc, args[0]));
}
Value computeScalar(GeluOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  Value x = args[0];
  Value half = constant(b, loc, x, 0.5), one = constant(b, loc, x, 1.0);
  Value inner;
  if (op.getApproximate() == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value cube =
        b.create<arith::MulFOp>(loc, x, b.create<arith::MulFOp>(loc, x, x));
    Value poly = b.create<arith::AddFOp>(
        loc, x,
        b.create<arith::MulFOp>(loc, constant(b, loc, x, 0.044715), cube));
    Value scaled = b.create<arith::MulFOp>(
        loc, constant(b, loc, x, std::sqrt(2.0 / M_PI)), poly);
    inner = b.create<math::TanhOp>(loc, scaled);
  } else {
    // 0.5 x (1 + erf(x / sqrt(2)))
    inner = b.create<math::ErfOp>(
        loc, b.create<arith::MulFOp>(loc, x, constant(b, loc, x, M_SQRT1_2)));
  }
  Value halfX = b.create<arith::MulFOp>(loc, half, x);
  return b.create<arith::MulFOp>(loc, halfX,
                                 b.create<arith::AddFOp>(loc, one, inner));
}
Value computeScalar(LeakyReluOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  Value x = args[0];
  Value alpha = constant(b, loc, x, op.getAlpha().convertToDouble());
  Value positive = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x,
                                           constant(b, loc, x, 0.0));
  return b.create<arith::SelectOp>(loc, positive, x,
                                   b.create<arith::MulFOp>(loc, alpha, x));
}
Value computeScalar(ClipOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  // Ordered compares: NaN fails both and stays NaN.
  Value x = args[0];
  Value lo = constant(b, loc, x, op.getMin().convertToDouble());
  Value hi = constant(b, loc, x, op.getMax().convertToDouble());
  Value below = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, lo);
  Value above = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, hi);
  Value upper = b.create<arith::SelectOp>(loc, above, hi, x);
  return b.create<arith::SelectOp>(loc, below, lo, upper);
}

/// A float converted to the 8-bit integer `to` (signless; `toUnsigned` for
/// ui8) with saturation, NaN giving 0, as the interpreter does.
Value saturatingFloatToInt8(OpBuilder &b, Location loc, Value x, Type to,
                            bool toUnsigned) {
  Value clamped = clampFloat(b, loc, x, toUnsigned ? 0.0 : -128.0,
                             toUnsigned ? 255.0 : 127.0);
  Value converted =
      toUnsigned ? Value(b.create<arith::FPToUIOp>(loc, to, clamped))
                 : Value(b.create<arith::FPToSIOp>(loc, to, clamped));
  Value isNaN =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
  return b.create<arith::SelectOp>(loc, isNaN,
                                   createScalarConstant(b, loc, to, 0),
                                   converted);
}

Value computeScalar(CastOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type to) {
  Value x = args[0];
  Type from = x.getType();
  bool fromUnsigned = hasUnsignedElements(op.getX()), toUnsigned = hasUnsignedElements(op.getY());
  to = signlessOf(to);
  if (from == to)
    return x; // also i8 <-> ui8: the same bits
  if (to.isInteger(1)) {
    // Anything non-zero is true; NaN != 0 (unordered) too.
    if (isFloat(x))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x,
                                     constant(b, loc, x, 0.0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x,
                                   constant(b, loc, x, 0));
  }
  if (isa<FloatType>(to)) {
    if (auto fromFloat = dyn_cast<FloatType>(from)) {
      unsigned fromWidth = fromFloat.getWidth(),
               toWidth = cast<FloatType>(to).getWidth();
      // f16 <-> bf16: through f32, which holds both exactly.
      if (fromWidth == toWidth) {
        x = b.create<arith::ExtFOp>(loc, b.getF32Type(), x);
        fromWidth = 32;
      }
      return fromWidth < toWidth ? Value(b.create<arith::ExtFOp>(loc, to, x))
                                 : Value(b.create<arith::TruncFOp>(loc, to, x));
    }
    // Booleans convert as 0/1, ui8 as unsigned, other integers as signed.
    if (from.isInteger(1) || fromUnsigned)
      return b.create<arith::UIToFPOp>(loc, to, x);
    return b.create<arith::SIToFPOp>(loc, to, x);
  }
  // Integer results: floats truncate toward zero, saturating for 8 bits.
  if (isFloat(x)) {
    if (to.isInteger(8))
      return saturatingFloatToInt8(b, loc, x, to, toUnsigned);
    return b.create<arith::FPToSIOp>(loc, to, x);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth(),
           toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return b.create<arith::TruncIOp>(loc, to, x);
  if (fromWidth == 1 || fromUnsigned)
    return b.create<arith::ExtUIOp>(loc, to, x);
  return b.create<arith::ExtSIOp>(loc, to, x);
}

Value computeScalar(SelectOp, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  return b.create<arith::SelectOp>(loc, args[0], args[1], args[2]);
}

/// Float predicates are ordered (false on NaN) except "ne", which is true on
/// NaN as in C and NumPy.
std::optional<arith::CmpFPredicate> floatPredicate(StringRef name) {
  return llvm::StringSwitch<std::optional<arith::CmpFPredicate>>(name)
      .Case("eq", arith::CmpFPredicate::OEQ)
      .Case("ne", arith::CmpFPredicate::UNE)
      .Case("lt", arith::CmpFPredicate::OLT)
      .Case("le", arith::CmpFPredicate::OLE)
      .Case("gt", arith::CmpFPredicate::OGT)
      .Case("ge", arith::CmpFPredicate::OGE)
      .Default(std::nullopt);
}

/// Integer predicates, signed but for i1 (false < true) and ui8.
std::optional<arith::CmpIPredicate> intPredicate(StringRef name,
                                                 bool isUnsigned) {
  using P = arith::CmpIPredicate;
  return llvm::StringSwitch<std::optional<P>>(name)
      .Case("eq", P::eq)
      .Case("ne", P::ne)
      .Case("lt", isUnsigned ? P::ult : P::slt)
      .Case("le", isUnsigned ? P::ule : P::sle)
      .Case("gt", isUnsigned ? P::ugt : P::sgt)
      .Case("ge", isUnsigned ? P::uge : P::sge)
      .Default(std::nullopt);
}

Value computeScalar(CompareOp op, OpBuilder &b, Location loc, ValueRange args,
                    Type) {
  Value lhs = args[0], rhs = args[1];
  if (isFloat(lhs))
    return b.create<arith::CmpFOp>(loc, *floatPredicate(op.getPredicate()), lhs,
                                   rhs);
  return b.create<arith::CmpIOp>(
      loc,
      *intPredicate(op.getPredicate(),
                    lhs.getType().isInteger(1) || hasUnsignedElements(op.getLhs())),
      lhs, rhs);
}

/// Attributes the scalar computation relies on; the verifier normally
/// guarantees them.
LogicalResult checkLowerable(Operation *) { return success(); }
LogicalResult checkLowerable(CompareOp op) {
  return success(floatPredicate(op.getPredicate()).has_value());
}
LogicalResult checkLowerable(GeluOp op) {
  return success(op.getApproximate() == "none" ||
                 op.getApproximate() == "tanh");
}

/// Lowers an elementwise op to a linalg.generic computing `computeScalar`.
template <typename OpTy> struct ElementwiseLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkLowerable(op)))
      return rewriter.notifyMatchFailure(op, "unsupported attribute value");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type elementType = resultType.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return computeScalar(op, b, loc, args.drop_back(), elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The ops lowered through computeScalar: one list for the patterns and the
/// grouping.
template <typename... Ops> struct OpList {};
using ElementwiseOps =
    OpList<AddOp, SubOp, MulOp, DivOp, ModOp, MaximumOp, MinimumOp,
           PowOp, // binary
           NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, SquareOp, TanhOp,
           SigmoidOp, ReluOp, Relu6Op, ErfOp, FloorOp, CeilOp, MathOp,
           HardSigmoidOp, HardSwishOp, GeluOp, LeakyReluOp, ClipOp, // unary
           CastOp, CompareOp, SelectOp>;

template <typename... Ops>
void addElementwisePatterns(OpList<Ops...>, RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<Ops>...>(patterns.getContext());
}

/// Whether `op` is one of `Ops` with attributes computeScalar handles.
template <typename... Ops>
bool isLowerableElementwise(OpList<Ops...>, Operation *op) {
  auto lowerable = [](auto typed) {
    return typed && succeeded(checkLowerable(typed));
  };
  return (... || lowerable(dyn_cast<Ops>(op)));
}

/// computeScalar of `op`, one of `Ops`, on the element values `args`.
template <typename... Ops>
Value computeScalarOf(OpList<Ops...>, Operation *op, OpBuilder &b,
                      Location loc, ValueRange args) {
  Type elementType = getElementTypeOrSelf(op->getResult(0).getType());
  Value result;
  auto compute = [&](auto typed) {
    if (!typed)
      return false;
    result = computeScalar(typed, b, loc, args, elementType);
    return true;
  };
  (void)(... || compute(dyn_cast<Ops>(op)));
  return result;
}

/// Graph ops in one group at most; tfcc-fuse-elementwise may still merge
/// groups up to its body limit (2048 ops). A graph op is 1-12 scalar ops, so
/// a group's body stays near that limit; groups of 64 left the 100,000-node
/// chain of docs/reliability.md 1563 generics for the fusion to merge.
constexpr unsigned kMaxGroupOps = 256;

bool isGroupable(Operation *op) {
  return op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType()) &&
         isLowerableElementwise(ElementwiseOps(), op);
}

/// Whether groupable `producer` joins the group of its one user: an
/// elementwise op of the same result shape in the same block, so that the
/// producer's value is an element of the user's iteration space.
bool joinsUser(Operation *producer) {
  if (!isGroupable(producer) || !producer->hasOneUse())
    return false;
  Operation *user = *producer->user_begin();
  return user->getBlock() == producer->getBlock() && isGroupable(user) &&
         cast<RankedTensorType>(user->getResult(0).getType()).getShape() ==
             cast<RankedTensorType>(producer->getResult(0).getType())
                 .getShape();
}

/// Lowers the group rooted at `root` (its members: the producers that join
/// their user, transitively, up to kMaxGroupOps) to one linalg.generic over
/// the group's outside operands. Producers cut off by the limit are added to
/// `roots`. A group of one op, or one whose dynamic result dims no outside
/// operand carries, is left to ElementwiseLowering.
void lowerGroup(Operation *root, SmallVectorImpl<Operation *> &roots) {
  SmallVector<Operation *> members; // producers before their users
  SmallVector<Value> inputs;
  llvm::SmallDenseMap<Value, unsigned> inputIndex;
  unsigned budget = kMaxGroupOps;
  std::function<void(Operation *)> collect = [&](Operation *op) {
    --budget;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && joinsUser(producer)) {
        if (budget > 0) {
          collect(producer);
          continue;
        }
        roots.push_back(producer);
      }
      if (inputIndex.try_emplace(operand, inputs.size()).second)
        inputs.push_back(operand);
    }
    members.push_back(op);
  };
  collect(root);
  if (members.size() == 1)
    return;

  auto resultType = cast<RankedTensorType>(root->getResult(0).getType());
  int64_t rank = resultType.getRank();
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!resultType.isDynamicDim(dim))
      continue;
    bool carried = llvm::any_of(inputs, [&](Value input) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t inputDim = dim - (rank - type.getRank());
      return inputDim >= 0 && type.isDynamicDim(inputDim);
    });
    if (!carried)
      return;
  }

  OpBuilder b(root);
  Value result = buildElementwise(
      b, root->getLoc(), resultType, inputs,
      [&](OpBuilder &nested, Location, ValueRange args) {
        IRMapping elements;
        for (auto [input, arg] : llvm::zip(inputs, args.drop_back()))
          elements.map(input, arg);
        for (Operation *member : members) {
          SmallVector<Value> operands;
          for (Value operand : member->getOperands())
            operands.push_back(elements.lookup(operand));
          elements.map(member->getResult(0),
                       computeScalarOf(ElementwiseOps(), member, nested,
                                       member->getLoc(), operands));
        }
        return elements.lookup(root->getResult(0));
      });
  root->getResult(0).replaceAllUsesWith(result);
  for (Operation *member : llvm::reverse(members))
    member->erase();
}

/// dropout is the identity outside training.
struct DropoutLowering : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getX());
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  addElementwisePatterns(ElementwiseOps(), patterns);
  patterns.add<DropoutLowering>(patterns.getContext());
}

void mlir::tfcc::lowerElementwiseGroups(Operation *root) {
  SmallVector<Operation *> roots;
  root->walk([&](Operation *op) {
    if (isGroupable(op) && !joinsUser(op))
      roots.push_back(op);
  });
  while (!roots.empty())
    lowerGroup(roots.pop_back_val(), roots);
}
