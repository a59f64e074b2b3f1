//===- AnchoredRewrite.h - patterns applied where they match ---*- C++ -*-===//
//
// applyPatternsAndFoldGreedily visits and tries to fold every op under its
// root on each iteration, and simplifies the regions after each one. Passes
// whose patterns are rooted at a few op kinds spent most of their time that
// way on huge graphs they hardly matched (docs/reliability.md). This driver
// starts from the ops a pattern is rooted at instead.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_ANCHOREDREWRITE_H
#define TFCC_PASSES_ANCHOREDREWRITE_H

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfcc {

/// Applies `patterns` greedily to the ops under `root` that one of them is
/// rooted at, in the order applyPatternsAndFoldGreedily would visit them
/// (`config.useTopDownTraversal`), and to the ops their rewrites create,
/// change or leave without users, folding those. Other ops are neither
/// folded nor erased when dead: the canonicalization after such a pass does
/// that. Patterns that match any op make it the whole-region driver.
/// Returns failure where the rewrites did not converge.
LogicalResult applyPatternsAtAnchors(Operation *root,
                                     const FrozenRewritePatternSet &patterns,
                                     GreedyRewriteConfig config = {});

/// Merges the equal constants of each region isolated from above under
/// `root` into one at the start of that region, as the whole-region driver
/// does before each sweep: a pass that creates constants with the anchored
/// driver leaves the same IR as one that used the whole-region driver.
void mergeConstants(Operation *root);

/// applyPatternsAtAnchors, then mergeConstants: for passes that replace a
/// whole-region driver and should leave the IR it left (but for what
/// folding ops no pattern is rooted at would have changed).
LogicalResult applyPatternsAtAnchorsAndMergeConstants(
    Operation *root, const FrozenRewritePatternSet &patterns);

} // namespace mlir::tfcc

#endif // TFCC_PASSES_ANCHOREDREWRITE_H
