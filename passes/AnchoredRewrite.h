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

} // namespace mlir::tfcc

#endif // TFCC_PASSES_ANCHOREDREWRITE_H
