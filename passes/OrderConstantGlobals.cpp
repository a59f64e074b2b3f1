//===- OrderConstantGlobals.cpp - constant globals in first-use order -----===//
//
// One-shot bufferization (MLIR 19) takes the functions of a module in an
// order read from a DenseMap keyed by pointers, and creates each constant's
// memref.global as it goes: named __constant_<type>, with _0, _1, ... after
// it on a clash, at the top of the module. A module of several functions
// thus got its globals' names and order, and the library's weights section,
// from the heap's addresses: two compiles of one model could differ. This
// pass renames and orders them by their first use in the module, so the
// output depends on the input alone.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_ORDERCONSTANTGLOBALS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kConstantPrefix = "__constant_";

/// A global bufferization made for a constant tensor.
bool isConstantGlobal(memref::GlobalOp global) {
  return global.getConstant() && global.isPrivate() &&
         global.getSymName().starts_with(kConstantPrefix);
}

/// The name without bufferization's clash suffix: the type part
/// (`2x3xf32`) has no underscore, so one after it starts the suffix.
StringRef baseName(StringRef name) {
  StringRef type = name.drop_front(kConstantPrefix.size());
  size_t suffix = type.find('_');
  return suffix == StringRef::npos
             ? name
             : name.take_front(kConstantPrefix.size() + suffix);
}

struct OrderConstantGlobalsPass
    : tfcc::impl::OrderConstantGlobalsBase<OrderConstantGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // First use first; globals nothing uses after them, as they stand.
    llvm::SetVector<Operation *> ordered;
    module.walk([&](memref::GetGlobalOp use) {
      auto global = symbols.lookup<memref::GlobalOp>(use.getName());
      if (global && isConstantGlobal(global))
        ordered.insert(global);
    });
    for (auto global : module.getOps<memref::GlobalOp>())
      if (isConstantGlobal(global))
        ordered.insert(global);
    if (ordered.empty())
      return;

    // New names as bufferization would give them in this order, avoiding
    // the module's other symbols.
    llvm::StringMap<unsigned> clashes;
    llvm::StringSet<> taken;
    auto isFree = [&](StringRef candidate) {
      Operation *owner = symbols.lookup(candidate);
      return !taken.contains(candidate) && (!owner || ordered.contains(owner));
    };
    SmallVector<StringAttr> newNames;
    DenseMap<Attribute, Attribute> renamed;
    for (Operation *global : ordered) {
      StringAttr old = SymbolTable::getSymbolName(global);
      std::string base = baseName(old.getValue()).str(), name = base;
      while (!isFree(name))
        name = base + "_" + std::to_string(clashes[base]++);
      taken.insert(name);
      newNames.push_back(StringAttr::get(&getContext(), name));
      renamed[FlatSymbolRefAttr::get(old)] =
          FlatSymbolRefAttr::get(newNames.back());
    }

    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](FlatSymbolRefAttr ref) -> std::optional<Attribute> {
          auto it = renamed.find(ref);
          if (it == renamed.end())
            return std::nullopt;
          return it->second;
        });
    for (Operation &op : module.getBody()->getOperations())
      if (!ordered.contains(&op))
        replacer.recursivelyReplaceElementsIn(&op, /*replaceAttrs=*/true,
                                              /*replaceLocs=*/false,
                                              /*replaceTypes=*/false);
    Block *body = module.getBody();
    for (auto [global, name] :
         llvm::reverse(llvm::zip_equal(ordered, newNames))) {
      SymbolTable::setSymbolName(global, name);
      global->moveBefore(body, body->begin());
    }
  }
};

} // namespace
