//===- LayoutState.cpp - variables of a training model in state memory ----===//
//
// The offsets are the C interface's too: the header's checkpoint table and
// <prefix>_save_checkpoint read them (compiler/Compiler.cpp's signature),
// and tfcc-lower-state-access addresses the variables by them.
//
//===----------------------------------------------------------------------===//

#include "compiler/ElementTypes.h"
#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"
#include "tfcc/tfcc_types.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_LAYOUTSTATE
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

uint64_t alignState(uint64_t n) {
  return (n + TFCC_ARENA_ALIGNMENT - 1) / TFCC_ARENA_ALIGNMENT *
         TFCC_ARENA_ALIGNMENT;
}

struct LayoutState : mlir::tfcc::impl::LayoutStateBase<LayoutState> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    uint64_t offset = 0;
    for (auto variable : module.getOps<graph::VariableOp>()) {
      RankedTensorType type = variable.getTensorType();
      std::optional<::tfcc::DType> dtype =
          ::tfcc::dtypeOfElementType(type.getElementType());
      if (!dtype || *dtype == ::tfcc::DType::BOOL || !type.hasStaticShape()) {
        variable.emitError()
            << "variable of type " << type
            << " cannot live in the state memory of a training model";
        return signalPassFailure();
      }
      variable->setAttr(mlir::tfcc::kStateOffsetAttr,
                        b.getI64IntegerAttr(offset));
      offset =
          alignState(offset + type.getNumElements() * ::tfcc::byteSize(*dtype));
    }
    module->setAttr(mlir::tfcc::kStateBytesAttr, b.getI64IntegerAttr(offset));
    module->setAttr(mlir::tfcc::kStatefulAttr, b.getUnitAttr());
  }
};

} // namespace
