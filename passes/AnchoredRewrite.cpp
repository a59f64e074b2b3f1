//===- AnchoredRewrite.cpp - patterns applied where they match ------------===//

#include "passes/AnchoredRewrite.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/FoldUtils.h"

#include <algorithm>

using namespace mlir;

LogicalResult
mlir::tfcc::applyPatternsAtAnchors(Operation *root,
                                   const FrozenRewritePatternSet &patterns,
                                   GreedyRewriteConfig config) {
  if (!patterns.getMatchAnyOpNativePatterns().empty() ||
      patterns.getPDLByteCode())
    return applyPatternsAndFoldGreedily(root, patterns, config);
  const auto &rooted = patterns.getOpSpecificNativePatterns();
  config.strictMode = GreedyRewriteStrictness::AnyOp;
  if (root->getNumRegions() == 1)
    config.scope = &root->getRegion(0);
  // As the whole-region driver does, again until nothing changes: a rewrite
  // can enable a pattern at an op it did not touch (a select whose
  // condition's operand changed).
  for (int64_t iteration = 0;
       config.maxIterations == GreedyRewriteConfig::kNoLimit ||
       iteration < config.maxIterations;
       ++iteration) {
    SmallVector<Operation *> anchors;
    auto collect = [&](Operation *op) {
      if (op != root && rooted.count(op->getName()))
        anchors.push_back(op);
    };
    // The driver pops its worklist from the back: bottom-up, it is filled in
    // post-order, as the whole-region driver does; top-down, in pre-order,
    // reversed.
    if (config.useTopDownTraversal) {
      root->walk<WalkOrder::PreOrder>(collect);
      std::reverse(anchors.begin(), anchors.end());
    } else {
      root->walk<WalkOrder::PostOrder>(collect);
    }
    bool changed = false;
    if (!anchors.empty() &&
        failed(applyOpPatternsAndFold(anchors, patterns, config, &changed)))
      return failure();
    if (!changed)
      return success();
  }
  return failure();
}

void mlir::tfcc::mergeConstants(Operation *root) {
  // In the whole-region driver's order (post-order), which decides the one
  // kept and the order at the region's start.
  SmallVector<std::pair<Operation *, Attribute>> constants;
  root->walk([&](Operation *op) {
    Attribute value;
    if (op != root && matchPattern(op, m_Constant(&value)))
      constants.emplace_back(op, value);
  });
  OperationFolder folder(root->getContext());
  for (auto [op, value] : constants)
    folder.insertKnownConstant(op, value);
}

LogicalResult mlir::tfcc::applyPatternsAtAnchorsAndMergeConstants(
    Operation *root, const FrozenRewritePatternSet &patterns) {
  if (failed(applyPatternsAtAnchors(root, patterns)))
    return failure();
  mergeConstants(root);
  return success();
}
