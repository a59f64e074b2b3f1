//===- WidenLowPrecisionOps.cpp - f16/bf16 ops computed in f32 ------------===//
//
// The lowering and the kernels compute in f32. A graph op on f16 or bf16
// tensors is therefore rewritten here to cast its low-precision operands to
// f32 (exactly), compute in f32 (matmuls and convolutions accumulating in
// f32) and round each result once to its type. Between ops the values then
// travel as f32 holding 16-bit values: a rounding that cannot change them
// (after a max pool or reshape of rounded values) is dropped, so only ops
// that compute round, in one pass over their result. Storing 16 bits would
// halve the bytes moved but cost a conversion at every op on CPUs without
// 16-bit arithmetic (AVX2: 1.6x the f32 time on the Fashion-MNIST CNN).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/ConstantValues.h"
#include "passes/LowPrecisionValues.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_WIDENLOWPRECISIONOPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

bool isLowFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF16() || element.isBF16();
}

/// `type` with f16 / bf16 elements replaced by f32.
Type widened(Type type) {
  if (!isLowFloat(type))
    return type;
  return cast<RankedTensorType>(type).clone(
      Float32Type::get(type.getContext()));
}

bool needsWidening(Operation *op) {
  if (!isa_and_present<GraphDialect>(op->getDialect()) ||
      isa<ConstantOp, ReadOp, AssignOp, CastOp>(op) || op->getNumRegions() != 0)
    return false;
  return llvm::any_of(op->getOperandTypes(), isLowFloat) ||
         llvm::any_of(op->getResultTypes(), isLowFloat);
}

/// Rewrites `op` in f32: each low-precision operand widened (a constant's
/// values as an f32 constant, others by a graph.cast, one per value), each
/// low-precision result rounded back by a graph.cast.
void widen(Operation *op, DenseMap<Value, Value> &widenedValues) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    if (!isLowFloat(operand.getType())) {
      operands.push_back(operand);
      continue;
    }
    Value &wide = widenedValues[operand];
    if (!wide) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(operand);
      auto type = cast<RankedTensorType>(widened(operand.getType()));
      std::optional<std::vector<float>> values;
      if (type.hasStaticShape())
        values = tfcc::getConstantFloats(operand);
      wide = values ? Value(b.create<ConstantOp>(
                          loc, DenseElementsAttr::get(type, ArrayRef(*values))))
                    : Value(b.create<CastOp>(loc, type, operand));
    }
    operands.push_back(wide);
  }
  OperationState state(loc, op->getName());
  state.addOperands(operands);
  state.addAttributes(op->getAttrs());
  for (Type type : op->getResultTypes())
    state.addTypes(widened(type));
  Operation *wideOp = b.create(state);
  for (auto [result, wideResult] :
       llvm::zip(op->getResults(), wideOp->getResults())) {
    Value replacement = wideResult;
    if (result.getType() != wideResult.getType())
      replacement = b.create<CastOp>(loc, result.getType(), wideResult);
    result.replaceAllUsesWith(replacement);
  }
  op->erase();
}

/// Ops with one float operand whose results are some of its values, chosen
/// by position or by order: rounding commutes with them (it is monotonic
/// and symmetric), so round(op(x)) == op(round(x)).
bool commutesWithRounding(Operation *op) {
  if (!isa<ReshapeOp, TransposeOp, SliceOp, GatherOp, BroadcastLikeOp, NegOp,
           AbsOp, ReluOp, MaxPool2DOp, GlobalMaxPool2DOp, ReduceMaxOp,
           ReduceMinOp>(op) ||
      op->getNumResults() != 1)
    return false;
  return llvm::count_if(op->getOperandTypes(), [](Type type) {
           return isa<FloatType>(getElementTypeOrSelf(type));
         }) == 1;
}

/// The f32 -> 16-bit -> f32 cast pair whose result is `value`, or nullptr.
CastOp roundingPairOf(Value value) {
  auto widening = value.getDefiningOp<CastOp>();
  if (!widening || !getElementTypeOrSelf(value.getType()).isF32())
    return {};
  auto rounding = widening.getX().getDefiningOp<CastOp>();
  if (!rounding || !isLowFloat(rounding.getY().getType()) ||
      rounding.getX().getType() != value.getType())
    return {};
  return widening;
}

/// Moves each rounding (a cast pair) below the ops that commute with it when
/// it has no other use: after a 2x2 max pool it rounds a quarter of the
/// values, after a reshape it meets the next op's own.
void sinkRoundings(Operation *root) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<CastOp> pairs;
    root->walk([&](CastOp op) {
      if (roundingPairOf(op.getY()))
        pairs.push_back(op);
    });
    for (CastOp widening : pairs) {
      auto rounding = widening.getX().getDefiningOp<CastOp>();
      if (!widening.getY().hasOneUse() || !rounding.getY().hasOneUse())
        continue;
      Operation *user = *widening.getY().getUsers().begin();
      if (!commutesWithRounding(user) ||
          !getElementTypeOrSelf(user->getResult(0).getType()).isF32())
        continue;
      Value result = user->getResult(0);
      user->replaceUsesOfWith(widening.getY(), rounding.getX());
      OpBuilder b(user->getContext());
      b.setInsertionPointAfter(user);
      auto lowType =
          cast<RankedTensorType>(result.getType())
              .clone(getElementTypeOrSelf(rounding.getY().getType()));
      Value low = b.create<CastOp>(user->getLoc(), lowType, result);
      Value wide = b.create<CastOp>(user->getLoc(), result.getType(), low);
      result.replaceAllUsesExcept(wide, low.getDefiningOp());
      widening.erase();
      rounding.erase();
      changed = true;
    }
  }
}

/// Drops the rounding of f32 -> 16 bits -> f32 cast pairs whose input is
/// exact in the 16-bit type already (a max pool of rounded values, say): the
/// values stay f32 between ops, rounded once where an op computed them.
void dropExactRoundings(Operation *root) {
  SmallVector<CastOp> widenings;
  root->walk([&](CastOp op) {
    if (getElementTypeOrSelf(op.getY().getType()).isF32() &&
        isLowFloat(op.getX().getType()))
      widenings.push_back(op);
  });
  tfcc::ExactnessCache known;
  for (CastOp widening : widenings) {
    auto rounding = widening.getX().getDefiningOp<CastOp>();
    if (!rounding || !getElementTypeOrSelf(rounding.getX().getType()).isF32() ||
        rounding.getX().getType() != widening.getY().getType())
      continue;
    if (tfcc::isExactIn(rounding.getX(),
                        getElementTypeOrSelf(rounding.getY().getType()), known))
      widening.getY().replaceAllUsesWith(rounding.getX());
  }
}

struct WidenLowPrecisionOpsPass
    : tfcc::impl::WidenLowPrecisionOpsBase<WidenLowPrecisionOpsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (needsWidening(op))
        ops.push_back(op);
    });
    DenseMap<Value, Value> widenedValues;
    for (Operation *op : ops)
      widen(op, widenedValues);
    sinkRoundings(getOperation());
    dropExactRoundings(getOperation());
  }
};

} // namespace
