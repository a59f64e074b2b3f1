//===- LowerStateAccess.cpp - variable accesses as state memory views -----===//
//
// Runs before bufferization: a read is a `restrict` tensor of the view (no
// other tensor aliases the state), copied when its function also assigns,
// because one-shot bufferization would otherwise let a later in-place write
// reach the read.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_LOWERSTATEACCESS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Rewrites the variable accesses of the public function `func`, whose last
/// argument is the state memory.
LogicalResult lowerAccesses(func::FuncOp func, ArrayRef<Operation *> accesses,
                            bool writes, SymbolTable &symbols) {
  Value state = func.getArguments().back();
  for (Operation *op : accesses) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto read = dyn_cast<graph::ReadOp>(op);
    StringRef name =
        read ? read.getVariable() : cast<graph::AssignOp>(op).getVariable();
    auto variable = symbols.lookup<graph::VariableOp>(name);
    if (!variable)
      return op->emitError() << "unknown variable '" << name << "'";
    auto offset = variable->getAttrOfType<IntegerAttr>(tfcc::kStateOffsetAttr);
    if (!offset)
      return variable.emitError()
             << "variable '" << name << "' has no place in the state memory ("
             << tfcc::kStateOffsetAttr << ", set by tfcc-layout-state)";
    auto tensorType = cast<RankedTensorType>(
        read ? op->getResult(0).getType() : op->getOperand(0).getType());
    Value byteOffset = b.create<arith::ConstantIndexOp>(loc, offset.getInt());
    auto viewType =
        MemRefType::get(tensorType.getShape(), tensorType.getElementType());
    Value view = b.create<memref::ViewOp>(loc, viewType, state, byteOffset,
                                          ValueRange{});
    if (read) {
      Value tensor = b.create<bufferization::ToTensorOp>(
          loc, TypeRange{tensorType}, ValueRange{view},
          ArrayRef<NamedAttribute>{
              b.getNamedAttr("restrict", b.getUnitAttr())});
      if (writes)
        tensor = b.create<bufferization::AllocTensorOp>(loc, tensorType,
                                                        ValueRange{}, tensor);
      op->getResult(0).replaceAllUsesWith(tensor);
    } else {
      b.create<bufferization::MaterializeInDestinationOp>(
          loc, TypeRange{}, ValueRange{op->getOperand(0), view},
          ArrayRef<NamedAttribute>{
              b.getNamedAttr("restrict", b.getUnitAttr()),
              b.getNamedAttr("writable", b.getUnitAttr())});
    }
    op->erase();
  }
  return success();
}

struct LowerStateAccess : tfcc::impl::LowerStateAccessBase<LowerStateAccess> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto stateBytes = module->getAttrOfType<IntegerAttr>(tfcc::kStateBytesAttr);
    if (!stateBytes)
      return;
    MemRefType stateType =
        MemRefType::get({std::max<int64_t>(stateBytes.getInt(), 1)},
                        IntegerType::get(&getContext(), 8));
    SymbolTable symbols(module);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<Operation *> accesses;
      bool writes = false;
      func.walk([&](Operation *op) {
        if (isa<graph::ReadOp>(op))
          accesses.push_back(op);
        if (isa<graph::AssignOp>(op)) {
          accesses.push_back(op);
          writes = true;
        }
      });
      if (!func.isPublic()) {
        if (!accesses.empty()) {
          accesses.front()->emitError()
              << "a variable access in private function '" << func.getSymName()
              << "' survived inlining";
          return signalPassFailure();
        }
        continue;
      }
      func.insertArgument(func.getNumArguments(), stateType, {}, func.getLoc());
      if (failed(lowerAccesses(func, accesses, writes, symbols)))
        return signalPassFailure();
    }
  }
};

} // namespace
