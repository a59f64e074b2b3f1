//===- CheckGpuPlacement.cpp - nothing reads device memory on the host ----===//
//
// For the CUDA target, after convert-parallel-loops-to-gpu: every buffer is
// device memory, so an op outside the gpu.launch regions that reads or
// writes a buffer (a load, a store, a call of a CPU kernel) would fault on
// the host. Each one is an error naming its node: tfcc places no op on the
// CPU silently.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_CHECKGPUPLACEMENT
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Whether `value` is a buffer in device memory: any but the host's own
/// stack buffers (memref.alloca: a word read back from the device).
bool isDeviceBuffer(Value value) {
  return isa<BaseMemRefType, LLVM::LLVMPointerType>(value.getType()) &&
         !value.getDefiningOp<memref::AllocaOp>();
}

/// Whether `op`, run on the host, would read or write the memory of a
/// device buffer (a call that passes one: a CPU kernel).
bool accessesBuffers(Operation *op) {
  if (isa<gpu::GPUDialect>(op->getDialect()))
    return false;
  bool hasBuffer = llvm::any_of(op->getOperands(), isDeviceBuffer);
  if (isa<func::CallOp>(op))
    return hasBuffer;
  if (!hasBuffer ||
      isa<ViewLikeOpInterface, memref::DimOp, memref::ExtractStridedMetadataOp,
          memref::ExtractAlignedPointerAsIndexOp, func::ReturnOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  return effects.hasEffect<MemoryEffects::Read>() ||
         effects.hasEffect<MemoryEffects::Write>();
}

struct CheckGpuPlacement
    : tfcc::impl::CheckGpuPlacementBase<CheckGpuPlacement> {
  void runOnOperation() override {
    bool failed = false;
    // Host memory in a kernel: a buffer allocated on the host (the arena
    // plan leaves none; a stack buffer is the host's own).
    getOperation()->walk([&](gpu::LaunchOp launch) {
      launch.getBody().walk([&](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (def && isa<memref::AllocOp, memref::AllocaOp>(def) &&
              !launch->isAncestor(def)) {
            inner->emitError() << "tfcc cannot run this on the GPU: it uses "
                                  "a buffer in host memory";
            failed = true;
          }
        }
      });
    });
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (!accessesBuffers(op))
        return WalkResult::advance();
      if (auto call = dyn_cast<func::CallOp>(op))
        op->emitError() << "tfcc cannot run this on the GPU: it calls the "
                           "CPU function '"
                        << call.getCallee() << "'";
      else
        op->emitError() << "tfcc cannot run '" << op->getName()
                        << "' on the GPU: it is not in a GPU kernel, and the "
                           "host cannot read device memory";
      failed = true;
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
