//===- LowPrecisionValues.cpp - f32 tensors holding 16-bit values ---------===//

#include "passes/LowPrecisionValues.h"

#include "dialects/graph/IR/GraphOps.h"
#include "passes/ConstantValues.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

#include <cstring>

using namespace mlir;
using namespace mlir::graph;

bool mlir::tfcc::keepsValuesExact(Operation *op) {
  return isa<ReshapeOp, TransposeOp, ConcatOp, SliceOp, GatherOp,
             GatherElementsOp, BroadcastLikeOp, SelectOp, MaximumOp, MinimumOp,
             NegOp, AbsOp, ReluOp, MaxPool2DOp, MaxPool2DWithIndicesOp,
             GlobalMaxPool2DOp, ReduceMaxOp, ReduceMinOp>(op);
}

/// Whether `v` converts to `low` without rounding.
static bool isExactFloat(float v, Type low) {
  if (low.isBF16()) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return (bits & 0xffffu) == 0;
  }
  llvm::APFloat value(v);
  bool losesInfo = false;
  value.convert(cast<FloatType>(low).getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return !losesInfo;
}

bool mlir::tfcc::isExactIn(Value value, Type low, ExactnessCache &known) {
  const std::pair<Value, Type> key(value, low);
  if (auto it = known.find(key); it != known.end())
    return it->second;
  known[key] = false; // (graphs are acyclic; this ends any recursion)
  bool exact = false;
  Operation *def = value.getDefiningOp();
  if (auto castOp = dyn_cast_or_null<CastOp>(def)) {
    exact = getElementTypeOrSelf(castOp.getX().getType()) == low;
  } else if (isa_and_present<FusedConv2DOp, FusedDenseOp>(def)) {
    auto roundTo = def->getAttrOfType<TypeAttr>("round_to");
    exact = roundTo && roundTo.getValue() == low;
  } else if (def && keepsValuesExact(def)) {
    exact = llvm::all_of(def->getOperands(), [&](Value operand) {
      Type element = getElementTypeOrSelf(operand.getType());
      return !element.isF32() || isExactIn(operand, low, known);
    });
  } else if (def && def->hasTrait<OpTrait::ConstantLike>()) {
    std::optional<std::vector<float>> values = getConstantFloats(value);
    exact = values && llvm::all_of(*values, [&](float v) {
              return isExactFloat(v, low);
            });
  }
  known[key] = exact;
  return exact;
}
