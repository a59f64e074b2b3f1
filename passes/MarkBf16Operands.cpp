//===- MarkBf16Operands.cpp - products of bf16 values ---------------------===//
//
// A --precision=mixed_bf16 layer multiplies f32 tensors that hold bf16
// values. Marked, its GEMM may take both operands as bf16 and run on
// AVX512_BF16's vdpbf16ps (TFCC_ACT_BF16_OPERANDS), twice the multiply-adds
// per instruction of an f32 FMA, with the same exact products accumulated in
// f32.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/LowPrecisionValues.h"
#include "passes/Passes.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_MARKBF16OPERANDS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

/// Whether `lhs` and `rhs` are f32 tensors holding bf16 values.
bool bothHoldBf16(Value lhs, Value rhs, tfcc::ExactnessCache &known) {
  Type bf16 = BFloat16Type::get(lhs.getContext());
  return getElementTypeOrSelf(lhs.getType()).isF32() &&
         getElementTypeOrSelf(rhs.getType()).isF32() &&
         tfcc::isExactIn(lhs, bf16, known) && tfcc::isExactIn(rhs, bf16, known);
}

struct MarkBf16OperandsPass
    : tfcc::impl::MarkBf16OperandsBase<MarkBf16OperandsPass> {
  void runOnOperation() override {
    tfcc::ExactnessCache known;
    UnitAttr mark = UnitAttr::get(&getContext());
    getOperation()->walk([&](Operation *op) {
      bool products = false;
      if (auto dense = dyn_cast<FusedDenseOp>(op))
        products = bothHoldBf16(dense.getX(), dense.getKernel(), known);
      else if (auto matmul = dyn_cast<MatmulOp>(op))
        products = bothHoldBf16(matmul.getLhs(), matmul.getRhs(), known);
      else if (auto filterGrad = dyn_cast<Conv2DBackpropFilterOp>(op))
        products = bothHoldBf16(filterGrad.getX(), filterGrad.getDy(), known);
      if (products)
        op->setAttr(tfcc::kBf16OperandsAttrName, mark);
    });
  }
};

} // namespace
