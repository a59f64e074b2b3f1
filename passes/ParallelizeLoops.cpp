//===- ParallelizeLoops.cpp - the tfcc-parallelize-loops pass -------------===//
//
// Generated loop nests (everything not lowered to a runtime micro-kernel)
// reach this pass as scf.parallel ops from
// tfcc-lower-linalg-to-parallel-loops.
// Large ones whose bodies call nothing become omp.parallel + omp.wsloop
// nowait over their leading dimensions; the rest become serial scf.for
// nests. The OpenMP translation outlines the bodies; the few libomp entry
// points the outlined code calls are implemented by the tfcc runtime on the
// context's thread pool (runtime/src/omp_shim.c).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"

#include <limits>

namespace mlir::tfcc {
#define GEN_PASS_DEF_PARALLELIZELOOPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Whether `op` (and everything nested in it) may run on another thread:
/// no calls (a runtime error is reported per thread), no allocation, only
/// arithmetic, math (libm is thread-safe), memory accesses and loops.
bool isThreadSafe(Operation *op) {
  bool ok = true;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return WalkResult::advance();
    if (isa<CallOpInterface>(nested) ||
        isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
            memref::CopyOp, memref::AllocaScopeOp>(nested)) {
      ok = false;
      return WalkResult::interrupt();
    }
    StringRef ns = nested->getDialect() ? nested->getDialect()->getNamespace()
                                        : StringRef();
    if (ns != arith::ArithDialect::getDialectNamespace() &&
        ns != math::MathDialect::getDialectNamespace() &&
        ns != memref::MemRefDialect::getDialectNamespace() &&
        ns != scf::SCFDialect::getDialectNamespace() &&
        ns != affine::AffineDialect::getDialectNamespace() &&
        ns != index::IndexDialect::getDialectNamespace()) {
      ok = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return ok;
}

/// A loop's trip count: static when its bounds and step are constants.
std::optional<int64_t> staticTripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb);
  std::optional<int64_t> u = getConstantIntValue(ub);
  std::optional<int64_t> s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u > *l ? (*u - *l + *s - 1) / *s : 0;
}

/// The work of a loop nest: a static factor times trip counts known only at
/// run time (loops whose bounds are defined above the nest; the other
/// dynamic loops count once).
struct Work {
  int64_t staticPart = 1;
  SmallVector<std::array<Value, 3>> dynamicLoops; // lb, ub, step

  void multiply(int64_t n) {
    staticPart = n > 0 && staticPart > std::numeric_limits<int64_t>::max() / n
                     ? std::numeric_limits<int64_t>::max()
                     : staticPart * n;
  }
};

bool definedAbove(Value v, Operation *nest) {
  return !nest->isAncestor(v.getParentRegion()->getParentOp());
}

/// Body operations executed by one run of `block` (scf.for multiplies by its
/// static trip count; scf.if takes its larger branch). Dynamic trip counts of
/// loops whose bounds come from above `nest` are collected in `dynamicLoops`.
int64_t blockWork(Block &block, Operation *nest, Work &work) {
  int64_t total = 0;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    int64_t w = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      int64_t inner = blockWork(*loop.getBody(), nest, work);
      if (std::optional<int64_t> n = staticTripCount(
              loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
        w = inner * *n;
      else {
        w = inner;
        if (definedAbove(loop.getLowerBound(), nest) &&
            definedAbove(loop.getUpperBound(), nest) &&
            definedAbove(loop.getStep(), nest))
          work.dynamicLoops.push_back(
              {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
      }
    } else if (op.getNumRegions() > 0) {
      int64_t most = 0;
      for (Region &region : op.getRegions())
        for (Block &b : region)
          most = std::max(most, blockWork(b, nest, work));
      w = 1 + most;
    }
    total =
        std::min<int64_t>(total + w, std::numeric_limits<int64_t>::max() / 4);
  }
  return total;
}

/// Moves the body of `parallel` (without its terminator) to before
/// `insertBefore`, replacing induction variable i by `ivs[i]`.
void moveBody(scf::ParallelOp parallel, ValueRange ivs,
              Operation *insertBefore) {
  Block *body = parallel.getBody();
  for (auto [arg, iv] : llvm::zip(body->getArguments(), ivs))
    arg.replaceAllUsesWith(iv);
  Block *dest = insertBefore->getBlock();
  dest->getOperations().splice(insertBefore->getIterator(),
                               body->getOperations(), body->begin(),
                               std::prev(body->end()));
}

/// Builds serial scf.for loops for dimensions [first, rank) of `parallel` at
/// `b`'s insertion point; returns their induction variables and sets `b`
/// inside the innermost one (before its yield).
SmallVector<Value> buildSerialLoops(OpBuilder &b, scf::ParallelOp parallel,
                                    unsigned first) {
  SmallVector<Value> ivs;
  Location loc = parallel.getLoc();
  for (unsigned d = first; d < parallel.getNumLoops(); ++d) {
    auto loop = b.create<scf::ForOp>(loc, parallel.getLowerBound()[d],
                                     parallel.getUpperBound()[d],
                                     parallel.getStep()[d]);
    ivs.push_back(loop.getInductionVar());
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  return ivs;
}

} // namespace

/// Replaces `parallel` (no reductions) by a serial scf.for nest.
void mlir::tfcc::serializeParallelLoop(scf::ParallelOp parallel) {
  OpBuilder b(parallel);
  SmallVector<Value> ivs = buildSerialLoops(b, parallel, 0);
  Operation *anchor = &*b.getInsertionPoint();
  moveBody(parallel, ivs, anchor);
  parallel.erase();
}

/// Replaces `parallel` by omp.parallel num_threads(numThreads) +
/// omp.wsloop nowait over its first `distributed` dimensions, with serial
/// scf.for loops for the others inside.
void mlir::tfcc::distributeParallelLoop(scf::ParallelOp parallel,
                                        unsigned distributed,
                                        Value numThreads) {
  Location loc = parallel.getLoc();
  OpBuilder b(parallel);
  omp::ParallelClauseOps parallelClauses;
  parallelClauses.numThreadsVar = numThreads;
  auto ompParallel = b.create<omp::ParallelOp>(loc, parallelClauses);
  b.createBlock(&ompParallel.getRegion());
  omp::WsloopClauseOps wsloopClauses;
  wsloopClauses.nowaitAttr = b.getUnitAttr();
  auto wsloop = b.create<omp::WsloopOp>(loc, wsloopClauses);
  b.create<omp::TerminatorOp>(loc);
  b.createBlock(&wsloop.getRegion());
  auto nest = b.create<omp::LoopNestOp>(
      loc, parallel.getLowerBound().take_front(distributed),
      parallel.getUpperBound().take_front(distributed),
      parallel.getStep().take_front(distributed));
  b.create<omp::TerminatorOp>(loc);
  SmallVector<Type> ivTypes(distributed, b.getIndexType());
  SmallVector<Location> ivLocs(distributed, loc);
  Block *nestBody = b.createBlock(&nest.getRegion(), {}, ivTypes, ivLocs);
  auto yield = b.create<omp::YieldOp>(loc);
  b.setInsertionPoint(yield);
  SmallVector<Value> ivs(nestBody->getArguments());
  llvm::append_range(ivs, buildSerialLoops(b, parallel, distributed));
  moveBody(parallel, ivs, &*b.getInsertionPoint());
  parallel.erase();
}

namespace {

struct ParallelizeLoopsPass
    : public mlir::tfcc::impl::ParallelizeLoopsBase<ParallelizeLoopsPass> {
  using ParallelizeLoopsBase::ParallelizeLoopsBase;

  /// Distributes `parallel` when large enough; returns false to serialize it.
  bool tryDistribute(scf::ParallelOp parallel) {
    if (!parallel.getInitVals().empty() || !isThreadSafe(parallel))
      return false;
    unsigned rank = parallel.getNumLoops();
    Work work;
    work.multiply(
        std::max<int64_t>(1, blockWork(*parallel.getBody(), parallel, work)));
    // The distributed dimensions: the fewest leading ones reaching
    // minOuterIterations statically, never the innermost of several that
    // is not a unit dimension (it stays a plain loop LLVM can vectorize;
    // distributed, it would be collapsed into the OpenMP loop, whose
    // induction variables are a division and remainder per element).
    unsigned distributed = 0;
    int64_t outer = 1;
    bool outerDynamic = false;
    SmallVector<std::array<Value, 3>> outerDynamicLoops;
    unsigned innermost = rank - 1;
    while (innermost > 0 && staticTripCount(parallel.getLowerBound()[innermost],
                                            parallel.getUpperBound()[innermost],
                                            parallel.getStep()[innermost]) == 1)
      --innermost;
    unsigned maxDistributed = innermost > 0 ? innermost : 1;
    for (unsigned d = 0; d < rank; ++d) {
      Value lb = parallel.getLowerBound()[d], ub = parallel.getUpperBound()[d],
            step = parallel.getStep()[d];
      std::optional<int64_t> n = staticTripCount(lb, ub, step);
      if (n)
        work.multiply(*n);
      else
        work.dynamicLoops.push_back({lb, ub, step});
      if (d < maxDistributed && outer < minOuterIterations) {
        ++distributed;
        if (n)
          outer *= *n;
        else {
          outerDynamic = true;
          outerDynamicLoops.push_back({lb, ub, step});
        }
      }
    }
    if (!outerDynamic && outer < 2)
      return false;
    // Static work for fewer than two threads stays serial: a fork of one
    // thread only adds the outlined call, and the loop's trip count, now a
    // per-thread range, is no longer a constant (LLVM then adds a scalar
    // remainder loop beside the vector one).
    if (work.dynamicLoops.empty() && work.staticPart < 2 * minWorkPerThread)
      return false;

    // num_threads = clamp(work / minWorkPerThread, 1, distributed
    // iterations), at most INT32_MAX.
    OpBuilder b(parallel);
    Location loc = parallel.getLoc();
    Value numThreads;
    int64_t outerCap = std::min<int64_t>(outer, int64_t(1) << 30);
    if (work.dynamicLoops.empty()) {
      int64_t n =
          std::min<int64_t>(work.staticPart / minWorkPerThread, outerCap);
      numThreads = b.create<arith::ConstantIntOp>(loc, n, 32);
    } else {
      Type i64 = b.getI64Type();
      auto c = [&](int64_t v) -> Value {
        return b.create<arith::ConstantIntOp>(loc, v, 64);
      };
      // Saturating i64 arithmetic: trip counts are clamped to 2^20 each,
      // products to 2^40.
      auto product = [&](int64_t staticPart,
                         ArrayRef<std::array<Value, 3>> loops) {
        Value total = c(std::min<int64_t>(staticPart, int64_t(1) << 40));
        for (auto [lb, ub, step] : loops) {
          Value span = b.create<arith::SubIOp>(loc, ub, lb);
          Value trips = b.create<arith::CeilDivSIOp>(loc, span, step);
          trips = b.create<arith::IndexCastOp>(loc, i64, trips);
          trips = b.create<arith::MaxSIOp>(loc, trips, c(0));
          trips = b.create<arith::MinSIOp>(loc, trips, c(int64_t(1) << 20));
          total = b.create<arith::MulIOp>(loc, total, trips);
          total = b.create<arith::MinSIOp>(loc, total, c(int64_t(1) << 40));
        }
        return total;
      };
      Value n = b.create<arith::DivSIOp>(
          loc, product(work.staticPart, work.dynamicLoops),
          c(minWorkPerThread));
      n = b.create<arith::MinSIOp>(loc, n,
                                   product(outerCap, outerDynamicLoops));
      n = b.create<arith::MaxSIOp>(loc, n, c(1));
      n = b.create<arith::MinSIOp>(loc, n,
                                   c(std::numeric_limits<int32_t>::max()));
      numThreads = b.create<arith::TruncIOp>(loc, b.getI32Type(), n);
    }
    mlir::tfcc::distributeParallelLoop(parallel, distributed, numThreads);
    return true;
  }

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
        outermost.push_back(parallel);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    // Nested scf.parallel ops stay serial inside their (maybe distributed)
    // parent: one fork per nest.
    for (scf::ParallelOp parallel : outermost) {
      SmallVector<scf::ParallelOp> nested;
      parallel.getBody()->walk(
          [&](scf::ParallelOp inner) { nested.push_back(inner); });
      for (scf::ParallelOp inner : nested) // post-order: innermost first
        if (inner.getInitVals().empty())
          mlir::tfcc::serializeParallelLoop(inner);
      if (!parallel.getInitVals().empty())
        continue; // left for a later lowering (scf-to-cf handles it)
      if (!tryDistribute(parallel))
        mlir::tfcc::serializeParallelLoop(parallel);
    }
  }
};

} // namespace
