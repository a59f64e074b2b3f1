//===- PrecisionPolicy.cpp - Keras' mixed precision policies --------------===//
//
// tfcc --precision=mixed_bf16 | mixed_f16: as Keras' mixed_bfloat16 and
// mixed_float16 policies, layers compute in the 16-bit type and variables
// stay float32, cast at use; softmax, losses, normalization and reductions
// compute in float32; the model's interface is unchanged. Runs on the graph
// after fusion, so a fused convolution's epilogue (bias, folded batch norm,
// activation) computes with it; in a training build before autodiff.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_PRECISIONPOLICY
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

/// How an op computes under the policy.
enum class Placement {
  Low,    // in the 16-bit type: its f32 operands cast down
  F32,    // in float32: its 16-bit operands cast up
  Follow, // in its operands' type: data movement, comparisons, selections
};

Placement placementOf(Operation *op) {
  // Keras' layers that compute in the policy's compute dtype: dense and
  // convolutions, pooling, activations and elementwise arithmetic,
  // resizing.
  if (isa<MatmulOp, DenseOp, Conv2DOp, DepthwiseConv2DOp, FusedConv2DOp,
          FusedDenseOp, AvgPool2DOp, MaxPool2DOp, GlobalAvgPool2DOp,
          GlobalMaxPool2DOp, ResizeOp, AddOp, SubOp, MulOp, DivOp, MaximumOp,
          MinimumOp, PowOp, NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
          SquareOp, TanhOp, SigmoidOp, ReluOp, Relu6Op, ErfOp, FloorOp, CeilOp,
          MathOp, HardSigmoidOp, HardSwishOp, GeluOp, LeakyReluOp, ClipOp,
          DropoutOp>(op))
    return Placement::Low;
  if (isa<CastOp, ReshapeOp, TransposeOp, ConcatOp, SliceOp, PadOp, GatherOp,
          GatherElementsOp, SelectOp, CompareOp, ReduceMaxOp, ReduceMinOp,
          ArgmaxOp, TopKIndicesOp, BroadcastLikeOp>(op))
    return Placement::Follow;
  // Softmax, log-softmax, losses, batch and layer normalization, sums and
  // means, quantization and every op not named above: float32.
  return Placement::F32;
}

/// Rewrites one function under the policy, op by op in order.
class PolicyRewriter {
public:
  PolicyRewriter(FloatType low) : low(low) {}

  void run(func::FuncOp func) {
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().getOps())
      ops.push_back(&op);
    for (Operation *op : ops)
      rewrite(op);
  }

private:
  bool isF32(Value v) const {
    return getElementTypeOrSelf(v.getType()).isF32();
  }
  bool isLow(Value v) const { return getElementTypeOrSelf(v.getType()) == low; }

  /// `value` as a tensor of `element`: itself, or one graph.cast per value
  /// and type, placed right after its definition.
  Value castTo(Value value, Type element) {
    if (getElementTypeOrSelf(value.getType()) == element)
      return value;
    Value &cached = casts[{value, element}];
    if (!cached) {
      OpBuilder b(value.getContext());
      b.setInsertionPointAfterValue(value);
      cached = b.create<CastOp>(
          value.getLoc(),
          cast<RankedTensorType>(value.getType()).clone(element), value);
    }
    return cached;
  }

  void rewrite(Operation *op) {
    Type f32 = Float32Type::get(op->getContext());
    // Ops outside the policy (assignments, calls, the return: the
    // interface keeps its types) take f32 where a value became 16-bit.
    if (!isa_and_present<GraphDialect>(op->getDialect()) ||
        isa<ConstantOp, ReadOp, AssignOp>(op) || op->getNumRegions() != 0) {
      for (OpOperand &operand : op->getOpOperands())
        if (retyped.contains(operand.get()))
          operand.set(castTo(operand.get(), f32));
      return;
    }
    Placement placement = placementOf(op);
    if (placement == Placement::Follow)
      placement =
          llvm::any_of(op->getOperands(), [&](Value v) { return isLow(v); })
              ? Placement::Low
              : Placement::F32;
    // A cast's result type is the model's; only its operand moves.
    bool castOp = isa<CastOp>(op);
    Type target = placement == Placement::Low ? Type(low) : f32;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (castOp || !(isF32(v) || isLow(v)))
        continue;
      operand.set(castTo(v, target));
    }
    if (castOp || placement != Placement::Low)
      return;
    // Results computed in the 16-bit type; their users (rewritten later, or
    // the return) cast them where they need f32.
    for (OpResult result : op->getResults())
      if (isF32(result)) {
        result.setType(cast<RankedTensorType>(result.getType()).clone(low));
        retyped.insert(result);
      }
  }

  FloatType low;
  DenseMap<std::pair<Value, Type>, Value> casts;
  /// The results this rewriter turned from f32 into the 16-bit type.
  DenseSet<Value> retyped;
};

struct PrecisionPolicyPass
    : tfcc::impl::PrecisionPolicyBase<PrecisionPolicyPass> {
  using PrecisionPolicyBase::PrecisionPolicyBase;

  void runOnOperation() override {
    FloatType low;
    if (policy == "mixed_bf16")
      low = FloatType::getBF16(&getContext());
    else if (policy == "mixed_f16")
      low = FloatType::getF16(&getContext());
    else {
      getOperation().emitError() << "tfcc-precision-policy: unknown policy '"
                                 << policy << "' (mixed_bf16 or mixed_f16)";
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        PolicyRewriter(low).run(func);
  }
};

} // namespace
