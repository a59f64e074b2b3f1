//===- ProfileSpans.cpp - runtime profiling hooks around each op ----------===//
//
// After the memory plan, each entry's kernel calls, loop nests (linalg ops)
// and copies are grouped by the node they come from, and each group gets
//   %on = (tfcc_rt_profiling_active != 0)
//   scf.if %on { tfcc_rt_profile_begin("conv1", "tfcc_rt_conv2d_f32") }
//   ... the group ...
//   scf.if %on { tfcc_rt_profile_end() }
// so an unprofiled call pays one load and branch per op (runtime/src/
// profile.c records the spans).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphToLinalg/Utils.h"
#include "passes/NodeNames.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_PROFILESPANS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

constexpr const char *kActiveFlag = "tfcc_rt_profiling_active";
constexpr const char *kBeginFunction = "tfcc_rt_profile_begin";
constexpr const char *kEndFunction = "tfcc_rt_profile_end";

/// What a span of `op` is called besides its node: the kernel it calls or the
/// op itself ("linalg.generic": a generated loop nest); "" when `op` does no
/// work worth a span (constants, views, address arithmetic, error reports).
std::string spanKind(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op)) {
    StringRef callee = call.getCallee();
    if (callee == tfcc::kReportErrorFunction ||
        callee == tfcc::kReportNumericsFunction || callee == kBeginFunction ||
        callee == kEndFunction)
      return "";
    return callee.str();
  }
  if (isa<linalg::LinalgOp, memref::CopyOp>(op))
    return op->getName().getStringRef().str();
  if (op->getNumRegions() == 0)
    return "";
  // Control flow (a loop, a conditional) around work.
  bool work = false;
  op->walk([&](Operation *inner) {
    if (inner != op && (isa<linalg::LinalgOp, memref::CopyOp>(inner) ||
                        (isa<func::CallOp>(inner) && !spanKind(inner).empty())))
      work = true;
    return work ? WalkResult::interrupt() : WalkResult::advance();
  });
  return work ? op->getName().getStringRef().str() : "";
}

class SpanBuilder {
public:
  explicit SpanBuilder(ModuleOp module) : module_(module), symbols_(module) {}

  /// Wraps each group of consecutive ops of one node in the blocks of `func`.
  void instrument(func::FuncOp func) {
    for (Block &block : func.getBody()) {
      struct Group {
        Operation *first = nullptr, *last = nullptr;
        std::string name;
        llvm::SetVector<StringRef> kinds;
      };
      SmallVector<Group> groups;
      for (Operation &op : block.without_terminator()) {
        std::string kind = spanKind(&op);
        if (kind.empty())
          continue;
        std::string name = tfcc::nodeLabel(op.getLoc());
        if (name.empty())
          name = kind;
        if (groups.empty() || groups.back().name != name)
          groups.push_back(Group{&op, &op, name, {}});
        groups.back().last = &op;
        groups.back().kinds.insert(internKind(kind));
      }
      for (Group &group : groups) {
        std::string kinds;
        for (StringRef kind : group.kinds)
          kinds += (kinds.empty() ? "" : "+") + kind.str();
        wrap(group.first, group.last, group.name, kinds);
      }
    }
  }

private:
  StringRef internKind(const std::string &kind) {
    return kinds_.insert(kind).first->getKey();
  }

  /// The address of a NUL-terminated constant holding `text` (one global per
  /// distinct text).
  Value stringAddress(OpBuilder &b, Location loc, StringRef text) {
    auto it = strings_.find(text);
    if (it == strings_.end())
      it = strings_
               .try_emplace(
                   text, tfcc::createStringConstant(b, loc, module_, symbols_,
                                                    "__tfcc_span_name", text))
               .first;
    return b.create<LLVM::AddressOfOp>(
        loc, LLVM::LLVMPointerType::get(b.getContext()), it->second.getValue());
  }

  void declare(OpBuilder &b, Location loc) {
    if (declared_)
      return;
    declared_ = true;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module_.getBody());
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    if (!symbols_.lookup(kActiveFlag))
      b.create<LLVM::GlobalOp>(loc, b.getI32Type(), /*isConstant=*/false,
                               LLVM::Linkage::External, kActiveFlag,
                               Attribute());
    if (!symbols_.lookup(kBeginFunction))
      b.create<func::FuncOp>(loc, kBeginFunction,
                             b.getFunctionType({ptr, ptr}, {}))
          .setPrivate();
    if (!symbols_.lookup(kEndFunction))
      b.create<func::FuncOp>(loc, kEndFunction, b.getFunctionType({}, {}))
          .setPrivate();
  }

  void wrap(Operation *first, Operation *last, StringRef name, StringRef kind) {
    OpBuilder b(first);
    Location loc = first->getLoc();
    declare(b, loc);
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    Value flagAddress = b.create<LLVM::AddressOfOp>(loc, ptr, kActiveFlag);
    Value flag = b.create<LLVM::LoadOp>(loc, b.getI32Type(), flagAddress);
    Value zero = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0));
    Value on =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, flag, zero);
    b.create<scf::IfOp>(loc, on, [&](OpBuilder &nb, Location nl) {
      Value nameAddress = stringAddress(nb, nl, name);
      Value kindAddress = stringAddress(nb, nl, kind);
      nb.create<func::CallOp>(nl, kBeginFunction, TypeRange{},
                              ValueRange{nameAddress, kindAddress});
      nb.create<scf::YieldOp>(nl);
    });
    b.setInsertionPointAfter(last);
    b.create<scf::IfOp>(loc, on, [&](OpBuilder &nb, Location nl) {
      nb.create<func::CallOp>(nl, kEndFunction, TypeRange{}, ValueRange{});
      nb.create<scf::YieldOp>(nl);
    });
  }

  ModuleOp module_;
  SymbolTable symbols_;
  llvm::StringMap<StringAttr> strings_;
  llvm::StringSet<> kinds_;
  bool declared_ = false;
};

struct ProfileSpansPass : tfcc::impl::ProfileSpansBase<ProfileSpansPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          func.getSymName().starts_with(tfcc::kEntryImplPrefix))
        entries.push_back(func);
    SpanBuilder builder(module);
    for (func::FuncOp func : entries)
      builder.instrument(func);
  }
};

} // namespace
