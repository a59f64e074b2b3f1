//===- GpuDeviceBuffers.cpp - an entry's buffers in GPU memory
//-------------===//
//
// For the CUDA target, after the arena plan: the caller passes host buffers
// (the C header is the CPU build's), the runtime allocates the arena in
// device memory. Each other buffer an entry touches gets a device copy: the
// arguments it reads are copied in, those it writes copied back before each
// return, and the weights (memref globals, host constants) copied in. Every
// memref.copy then moves device memory: a gpu.memcpy where both sides are
// contiguous, a linalg.copy (a kernel) where not.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_GPUDEVICEBUFFERS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

constexpr const char *kCudaWeightFunction = "tfcc_rt_cuda_weight";

struct Access {
  bool read = false;
  bool written = false;
};

/// How the function's ops use `buffer` and the views of it: unknown users
/// count as reading and writing it.
Access accessOf(Value buffer) {
  Access access;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.push_back(view->getResult(0));
        continue;
      }
      if (isa<memref::DimOp, memref::ExtractStridedMetadataOp>(user))
        continue;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        access.read = access.written = true;
        continue;
      }
      SmallVector<SideEffects::EffectInstance<MemoryEffects::Effect>> found;
      effects.getEffectsOnValue(value, found);
      for (auto &effect : found) {
        access.read |= isa<MemoryEffects::Read>(effect.getEffect());
        access.written |= isa<MemoryEffects::Write>(effect.getEffect());
      }
    }
  }
  return access;
}

/// A device buffer of `host`'s type and sizes.
Value allocateLike(OpBuilder &b, Location loc, Value host) {
  auto type = cast<MemRefType>(host.getType());
  SmallVector<Value> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      sizes.push_back(b.create<memref::DimOp>(loc, host, i));
  return b
      .create<gpu::AllocOp>(
          loc, MemRefType::get(type.getShape(), type.getElementType()),
          /*asyncToken=*/Type(), ValueRange{}, sizes, ValueRange{},
          /*hostShared=*/false)
      .getMemref();
}

bool isContiguous(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return type.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(type);
}

/// The weight `global` reads (host constant data) from its device copy,
/// which the runtime uploads at its first use and keeps (tfcc_rt_cuda_weight):
/// no copy per call. MLIR 19 has no op that makes a buffer from an address,
/// so the copy is a view of the arena at the difference of the two
/// addresses (a plain, wrapping pointer addition in the LLVM code); only the
/// kernels dereference it.
LogicalResult useDeviceWeight(OpBuilder &b, memref::GetGlobalOp global,
                              Value arena) {
  Location loc = global.getLoc();
  auto type = cast<MemRefType>(global.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return global.emitError("tfcc-gpu-device-buffers: internal error: a "
                            "weight of type ")
           << type << " (static, identity layout, scalars expected)";
  if (global.getResult().use_empty())
    return success();
  // uint64_t tfcc_rt_cuda_weight(uint64_t, uint64_t): runtime/src/cuda.h.
  auto i64 = b.getI64Type();
  tfcc::declareRuntimeFunction(global->getParentOfType<ModuleOp>(),
                               kCudaWeightFunction,
                               b.getFunctionType({i64, i64}, {i64}));
  int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  auto hostPointer =
      b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, global);
  Value hostAddress = b.create<arith::IndexCastOp>(loc, i64, hostPointer);
  Value bytes = b.create<arith::ConstantOp>(
      loc, b.getI64IntegerAttr(type.getNumElements() * elementBytes));
  Value device =
      b.create<func::CallOp>(loc, kCudaWeightFunction, TypeRange{i64},
                             ValueRange{hostAddress, bytes})
          .getResult(0);
  Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, arena);
  Value shift = b.create<arith::SubIOp>(
      loc, b.create<arith::IndexCastOp>(loc, b.getIndexType(), device), base);
  Value view = b.create<memref::ViewOp>(loc, type, arena, shift, ValueRange{});
  global.getResult().replaceAllUsesExcept(view, hostPointer);
  return success();
}

LogicalResult placeOnDevice(func::FuncOp func) {
  if (!func->hasAttr("tfcc.arena_fixed"))
    return func.emitError("tfcc-gpu-device-buffers: internal error: an entry "
                          "without an arena plan (run tfcc-arena-allocation "
                          "first)");
  Block &entry = func.getBody().front();
  // tfcc-arena-allocation appended the arena and the batch size.
  unsigned arenaIndex = func.getNumArguments() - 2;
  OpBuilder b(&entry, entry.begin());
  SmallVector<Value> deviceBuffers;
  SmallVector<std::pair<Value, Value>> copiedBack; // (host, device)

  auto moveToDevice = [&](Value host, Location loc, bool writeBack) {
    Access access = accessOf(host);
    if (!access.read && !access.written)
      return;
    Value device = allocateLike(b, loc, host);
    SmallPtrSet<Operation *, 4> keep;
    for (OpOperand &use : host.getUses())
      if (isa<memref::DimOp>(use.getOwner()))
        keep.insert(use.getOwner());
    if (access.read)
      keep.insert(
          b.create<gpu::MemcpyOp>(loc, Type(), ValueRange{}, device, host));
    keep.insert(device.getDefiningOp());
    host.replaceAllUsesExcept(device, keep);
    deviceBuffers.push_back(device);
    if (writeBack && access.written)
      copiedBack.emplace_back(host, device);
  };

  for (BlockArgument arg : func.getArguments())
    if (isa<MemRefType>(arg.getType()) && arg.getArgNumber() != arenaIndex)
      moveToDevice(arg, func.getLoc(), /*writeBack=*/true);

  SmallVector<memref::GetGlobalOp> globals;
  WalkResult nested = func.walk([&](memref::GetGlobalOp global) {
    if (global->getBlock() != &entry) {
      global.emitError("tfcc-gpu-device-buffers: internal error: a weight "
                       "read inside a loop or branch");
      return WalkResult::interrupt();
    }
    globals.push_back(global);
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return failure();
  for (memref::GetGlobalOp global : globals) {
    b.setInsertionPointAfter(global);
    if (failed(useDeviceWeight(b, global, func.getArgument(arenaIndex))))
      return failure();
  }

  // Device to device now: a copy of contiguous buffers is one memcpy.
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    b.setInsertionPoint(copy);
    if (isContiguous(copy.getSource()) && isContiguous(copy.getTarget()))
      b.create<gpu::MemcpyOp>(copy.getLoc(), Type(), ValueRange{},
                              copy.getTarget(), copy.getSource());
    else
      b.create<linalg::CopyOp>(copy.getLoc(), copy.getSource(),
                               copy.getTarget());
    copy.erase();
  }

  // A scalar the host reads (a flag an index check computed): copied into
  // host memory first.
  SmallVector<memref::LoadOp> hostReads;
  func.walk([&](memref::LoadOp load) {
    if (load.getMemRefType().getRank() == 0 &&
        !load->getParentOfType<linalg::LinalgOp>() &&
        !load->getParentOfType<LoopLikeOpInterface>())
      hostReads.push_back(load);
  });
  for (memref::LoadOp load : hostReads) {
    b.setInsertionPoint(load);
    auto type = MemRefType::get({}, load.getType());
    Value host = b.create<memref::AllocaOp>(load.getLoc(), type);
    b.create<gpu::MemcpyOp>(load.getLoc(), Type(), ValueRange{}, host,
                            load.getMemRef());
    load.getMemrefMutable().assign(host);
  }

  // Errors reported by code that becomes GPU kernels (an index out of
  // range): the largest code goes to a device word, which the host reads
  // back and reports before returning.
  SmallVector<func::CallOp> kernelReports;
  func.walk([&](func::CallOp call) {
    if (call.getCallee() == tfcc::kReportErrorFunction &&
        call->getParentOp() != func.getOperation() &&
        (call->getParentOfType<linalg::LinalgOp>() ||
         call->getParentOfType<LoopLikeOpInterface>()))
      kernelReports.push_back(call);
  });
  Value errorWord;
  if (!kernelReports.empty()) {
    b.setInsertionPointToStart(&entry);
    Location loc = func.getLoc();
    auto wordType = MemRefType::get({}, b.getI32Type());
    errorWord = b.create<gpu::AllocOp>(loc, wordType, Type(), ValueRange{},
                                       ValueRange{}, ValueRange{}, false)
                    .getMemref();
    Value zero = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0));
    b.create<gpu::MemsetOp>(loc, Type(), ValueRange{}, errorWord, zero);
    for (func::CallOp call : kernelReports) {
      b.setInsertionPoint(call);
      b.create<memref::AtomicRMWOp>(call.getLoc(), arith::AtomicRMWKind::maxs,
                                    call.getOperand(0), errorWord,
                                    ValueRange{});
      call.erase();
    }
  }

  func.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    if (errorWord) {
      Location loc = ret.getLoc();
      auto wordType = MemRefType::get({}, b.getI32Type());
      Value host = b.create<memref::AllocaOp>(loc, wordType);
      b.create<gpu::MemcpyOp>(loc, Type(), ValueRange{}, host, errorWord);
      Value code = b.create<memref::LoadOp>(loc, host);
      Value zero = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0));
      Value failed =
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, code, zero);
      b.create<scf::IfOp>(loc, failed, [&](OpBuilder &nb, Location nl) {
        nb.create<func::CallOp>(nl, tfcc::kReportErrorFunction, TypeRange{},
                                code);
        nb.create<scf::YieldOp>(nl);
      });
      b.create<gpu::DeallocOp>(loc, Type(), ValueRange{}, errorWord);
    }
    for (auto [host, device] : copiedBack)
      b.create<gpu::MemcpyOp>(ret.getLoc(), Type(), ValueRange{}, host, device);
    for (Value device : deviceBuffers)
      b.create<gpu::DeallocOp>(ret.getLoc(), Type(), ValueRange{}, device);
  });
  return success();
}

struct GpuDeviceBuffers : tfcc::impl::GpuDeviceBuffersBase<GpuDeviceBuffers> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isDeclaration() && failed(placeOnDevice(func)))
        return signalPassFailure();
  }
};

} // namespace
