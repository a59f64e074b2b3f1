//===- GpuMapLoops.cpp - loop nests shaped for GPU kernels ----------------===//
//
// For the CUDA target, on buffers: the linalg ops become parallel loops
// (those with no parallel dimension, a reduction to one value, inside a
// parallel loop of one iteration: one GPU thread runs them, since the host
// cannot read device memory; likewise a serial loop nest that touches
// memory outside any parallel loop). Each outermost scf.parallel then
// becomes a 1-d loop over all its iterations (the innermost dimension
// fastest, so consecutive threads touch consecutive elements) tiled into
// blocks of `block-size` threads; gpu-map-parallel-loops maps the tiles to
// GPU blocks and the elements to threads.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

namespace mlir::tfcc {
#define GEN_PASS_DEF_GPUMAPLOOPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

bool touchesMemory(Operation *root) {
  return root
      ->walk([](Operation *op) {
        if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
                memref::GenericAtomicRMWOp>(op))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Wraps `op` into `scf.parallel (%i) = (0) to (1) step (1)`.
void wrapInSingleIteration(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  auto parallel = b.create<scf::ParallelOp>(loc, ValueRange{zero},
                                            ValueRange{one}, ValueRange{one});
  op->moveBefore(parallel.getBody()->getTerminator());
}

struct GpuMapLoops : tfcc::impl::GpuMapLoopsBase<GpuMapLoops> {
  using GpuMapLoopsBase::GpuMapLoopsBase;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation()->emitError("tfcc-gpu-map-loops: block-size must be in "
                                "1..1024");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> linalgOps;
    getOperation()->walk([&](linalg::LinalgOp op) {
      linalgOps.push_back(op);
      return WalkResult::skip();
    });
    for (linalg::LinalgOp op : linalgOps) {
      if (!op.hasPureBufferSemantics()) {
        op->emitError("tfcc-gpu-map-loops: internal error: a linalg op on "
                      "tensors after bufferization");
        return signalPassFailure();
      }
      if (op.getNumParallelLoops() == 0 &&
          !op->getParentOfType<scf::ParallelOp>())
        wrapInSingleIteration(op);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op))) {
        op->emitError("tfcc-gpu-map-loops: internal error: this op does not "
                      "lower to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }

    SmallVector<scf::ForOp> serial;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ParallelOp>(op))
        return WalkResult::skip();
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop)
        return WalkResult::advance();
      bool hasParallel =
          loop->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      if (hasParallel)
        return WalkResult::advance(); // its parallel loops become kernels
      if (touchesMemory(loop))
        serial.push_back(loop);
      return WalkResult::skip();
    });
    for (scf::ForOp loop : serial)
      wrapInSingleIteration(loop);
    // A store outside any loop (a scalar result): one thread too.
    SmallVector<memref::StoreOp> strayStores;
    getOperation()->walk([&](memref::StoreOp store) {
      if (!store->getParentOfType<scf::ParallelOp>() &&
          !store->getParentOfType<LoopLikeOpInterface>())
        strayStores.push_back(store);
    });
    for (memref::StoreOp store : strayStores)
      wrapInSingleIteration(store);

    SmallVector<scf::ParallelOp> outermost;
    getOperation()->walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
      outermost.push_back(loop);
      return WalkResult::skip();
    });
    for (scf::ParallelOp loop : outermost) {
      unsigned rank = loop.getNumLoops();
      if (rank > 1) {
        std::vector<unsigned> all(rank);
        std::iota(all.begin(), all.end(), 0u);
        rewriter.setInsertionPoint(loop);
        // The collapsed loop replaces `loop`, right before where it was.
        Operation *next = loop->getNextNode();
        collapseParallelLoops(rewriter, loop, {all});
        Operation *previous = next->getPrevNode();
        while (!isa<scf::ParallelOp>(previous))
          previous = previous->getPrevNode();
        loop = cast<scf::ParallelOp>(previous);
      }
      // One iteration (a wrapped serial nest): one thread, no tiles.
      std::optional<int64_t> trips =
          getConstantIntValue(loop.getUpperBound().front());
      if (trips && *trips <= 1)
        continue;
      scf::tileParallelLoop(loop, {static_cast<int64_t>(blockSize)},
                            /*noMinMaxBounds=*/true);
    }
  }
};

} // namespace
