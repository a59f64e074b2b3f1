//===- RenameEntries.cpp - entry functions get their internal names ------===//
//
// The C interface exports each entry under a C name (<prefix>_<entry>); the
// lowered body must not clash with it, or with any other C symbol of the
// program (ops.mlir has entries called `exp` and `log`), so every entry
// (public function with a body) is renamed __tfcc_impl_<entry>, with its uses.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_RENAMEENTRIES
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

struct RenameEntriesPass : tfcc::impl::RenameEntriesBase<RenameEntriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.isPublic() ||
          func.getSymName().starts_with(tfcc::kEntryImplPrefix))
        continue;
      auto name = StringAttr::get(
          &getContext(), tfcc::kEntryImplPrefix + func.getSymName().str());
      if (failed(SymbolTable::replaceAllSymbolUses(func, name, module))) {
        func.emitError() << "cannot rename the uses of entry '"
                         << func.getSymName() << "'";
        return signalPassFailure();
      }
      func.setSymName(name);
    }
  }
};

} // namespace
