//===- CollapseInnerLoops.cpp - longer innermost loops for vectors --------===//
//
// An elementwise loop nest over an NHWC tensor with few channels (the input
// image of a one-channel model: ?x28x28x1) has an innermost loop of one or a
// few iterations: LLVM vectorizes it 4 wide, or not at all, and spends the
// rest on loop control. Where the tensors are contiguous in the trailing
// loops (every indexing map keeps them in order), those loops are one loop
// over the same elements. This pass collapses the trailing loops of
// all-parallel linalg.generic ops into one until it runs at least
// kMinInnerTrips times, leaving the leading loops (the batch, and the rows
// that tfcc-parallelize-loops distributes over threads) as they were.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_COLLAPSEINNERLOOPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Collapsing stops once the innermost loop has this many iterations: 4
/// vectors of 16 floats, where loop control is amortized.
constexpr int64_t kMinInnerTrips = 64;

/// Whether `op` is all-parallel, does not read its loop indices and has a
/// static innermost loop of fewer than kMinInnerTrips iterations.
bool hasShortInnerLoop(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || op.hasIndexSemantics() ||
      op.getNumLoops() < 2)
    return false;
  int64_t inner = op.getStaticLoopRanges().back();
  return !ShapedType::isDynamic(inner) && inner < kMinInnerTrips;
}

/// The trailing loops of `op` to collapse into one: the innermost and those
/// before it, while the innermost's static trip count stays under
/// kMinInnerTrips and every indexing map keeps them contiguous and in order
/// (a per-channel operand, which reads only the last loop, stops it). Empty
/// when that is fewer than two loops, or the op is not all-parallel, reads
/// its loop indices or has a map with constant results.
ReassociationIndices trailingLoopsToCollapse(linalg::GenericOp op) {
  if (!hasShortInnerLoop(op))
    return {};
  SmallVector<int64_t> trips = op.getStaticLoopRanges();
  const int64_t rank = trips.size();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Maps with constant results (a per-axis scale [3, 1, 1] read as (d1, 0,
  // 0)) are left alone: MLIR 19's collapseOpIterationDims rewrites such a
  // constant as a loop index.
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return {};
  ReassociationIndices group = {rank - 1};
  int64_t inner = trips.back();
  for (int64_t d = rank - 2; d >= 0 && inner < kMinInnerTrips; --d) {
    if (ShapedType::isDynamic(trips[d]))
      break;
    ReassociationIndices wider = llvm::to_vector(llvm::seq<int64_t>(d, rank));
    if (!linalg::areDimSequencesPreserved(maps, {wider}))
      break;
    group = std::move(wider);
    inner *= trips[d];
  }
  if (group.size() < 2)
    return {};
  return group;
}

/// Records the linalg.generic ops a rewrite creates.
struct GenericsCreated : RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      created.push_back(generic);
  }
  SmallVector<linalg::GenericOp> created;
};

/// Drops the unit loops of `op` (linalg::dropUnitDims); its discardable
/// attributes carry over to the op that replaces it.
void dropUnitLoops(linalg::GenericOp op, MLIRContext *context) {
  linalg::ControlDropUnitDims unitLoops;
  unitLoops.controlFn = [](Operation *generic) {
    SmallVector<unsigned> unit;
    for (auto [d, trips] : llvm::enumerate(
             cast<linalg::GenericOp>(generic).getStaticLoopRanges()))
      if (trips == 1)
        unit.push_back(d);
    return unit;
  };
  GenericsCreated listener;
  IRRewriter rewriter(context, &listener);
  rewriter.setInsertionPoint(op);
  SmallVector<NamedAttribute> attrs =
      llvm::to_vector(op->getDiscardableAttrs());
  if (failed(linalg::dropUnitDims(rewriter, op, unitLoops)))
    return;
  for (linalg::GenericOp created : listener.created)
    for (NamedAttribute attr : attrs)
      created->setDiscardableAttr(attr.getName(), attr.getValue());
}

/// Collapses the loops trailingLoopsToCollapse names; the op's discardable
/// attributes carry over. Returns whether it did.
bool collapseTrailingLoops(linalg::GenericOp op, RewriterBase &rewriter) {
  ReassociationIndices group = trailingLoopsToCollapse(op);
  if (group.empty())
    return false;
  SmallVector<ReassociationIndices> loops;
  for (int64_t d = 0; d < group.front(); ++d)
    loops.push_back({d});
  loops.push_back(group);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, loops, rewriter);
  if (failed(collapsed))
    return false;
  for (NamedAttribute attr : op->getDiscardableAttrs())
    collapsed->collapsedOp->setDiscardableAttr(attr.getName(), attr.getValue());
  rewriter.replaceOp(op, collapsed->results);
  return true;
}

/// The tensor-semantics generics under `root` with a short innermost loop.
SmallVector<linalg::GenericOp> shortInnerLoopOps(Operation *root) {
  SmallVector<linalg::GenericOp> ops;
  root->walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && hasShortInnerLoop(op))
      ops.push_back(op);
  });
  return ops;
}

struct CollapseInnerLoopsPass
    : tfcc::impl::CollapseInnerLoopsBase<CollapseInnerLoopsPass> {
  void runOnOperation() override {
    // Unit loops first (the one channel of ?x28x28x1, which the maps read as
    // a constant 0 and so would not keep contiguous with the others).
    for (linalg::GenericOp op : shortInnerLoopOps(getOperation()))
      dropUnitLoops(op, &getContext());
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : shortInnerLoopOps(getOperation()))
      collapseTrailingLoops(op, rewriter);
  }
};

} // namespace
