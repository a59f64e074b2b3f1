//===- CheckNumerics.cpp - report the first NaN or infinity by node -------===//
//
// tfcc --check-numerics: after each graph op with a floating-point result,
// a reduction tests the result's elements for NaN and infinities and, where
// one is found, calls tfcc_rt_report_numerics with the node's name and op.
// The runtime keeps the first report of a call (runtime/src/runtime.c).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphToLinalg/Utils.h"
#include "passes/NodeNames.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/APInt.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_CHECKNUMERICS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Whether any element of float tensor `value` is a NaN or an infinity, as
/// an i1: its exponent bits all ones.
Value buildAnyNonFinite(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto floatType = cast<FloatType>(type.getElementType());
  unsigned width = floatType.getWidth();
  unsigned mantissa = floatType.getFPMantissaWidth() - 1;
  auto bitsType = b.getIntegerType(width);
  // Ones in the exponent field: below the sign bit, above the mantissa.
  llvm::APInt exponentMask =
      llvm::APInt::getBitsSet(width, mantissa, width - 1);
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value init = b.create<arith::ConstantOp>(loc, b.getBoolAttr(false));
  Value any = tfcc::buildReduction(
      b, loc, value, axes, init,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value bits = nb.create<arith::BitcastOp>(nl, bitsType, args[0]);
        Value mask = nb.create<arith::ConstantOp>(
            nl, nb.getIntegerAttr(bitsType, exponentMask));
        Value exponent = nb.create<arith::AndIOp>(nl, bits, mask);
        Value nonFinite = nb.create<arith::CmpIOp>(nl, arith::CmpIPredicate::eq,
                                                   exponent, mask);
        return nb.create<arith::OrIOp>(nl, args[1], nonFinite);
      });
  return b.create<tensor::ExtractOp>(loc, any, ValueRange{});
}

/// "node 'conv1' (graph.conv2d)", "result 1 of node 'bn' (...)", or "node at
/// model.mlir:3:8 (graph.add)" / "a graph.add node" without a name.
std::string describeResult(Operation *op, unsigned result) {
  std::string opName = op->getName().getStringRef().str();
  std::vector<std::string> names = tfcc::locationNames(op->getLoc());
  std::string label = tfcc::nodeLabel(op->getLoc());
  std::string node = label.empty()   ? "a " + opName + " node"
                     : names.empty() ? "node at " + label + " (" + opName + ")"
                                     : "node '" + label + "' (" + opName + ")";
  if (op->getNumResults() > 1)
    return "result " + std::to_string(result) + " of " + node;
  return node;
}

class NumericsChecker {
public:
  explicit NumericsChecker(ModuleOp module)
      : module_(module), symbols_(module) {}

  void checkFunction(func::FuncOp func) {
    for (Block &block : func.getBody()) {
      SmallVector<Operation *> ops;
      for (Operation &op : block)
        if (op.getDialect() && op.getDialect()->getNamespace() == "graph" &&
            !op.hasTrait<OpTrait::ConstantLike>())
          ops.push_back(&op);
      for (Operation *op : ops) {
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        for (OpResult result : op->getResults()) {
          auto type = dyn_cast<RankedTensorType>(result.getType());
          if (!type || !isa<FloatType>(type.getElementType()))
            continue;
          check(b, op->getLoc(), result,
                describeResult(op, result.getResultNumber()));
        }
      }
    }
  }

private:
  void check(OpBuilder &b, Location loc, Value value, const std::string &what) {
    declare(b, loc);
    Value bad = buildAnyNonFinite(b, loc, value);
    b.create<scf::IfOp>(loc, bad, [&](OpBuilder &nb, Location nl) {
      StringAttr node = tfcc::createStringConstant(
          nb, nl, module_, symbols_, "__tfcc_numerics_node", what);
      Value address = nb.create<LLVM::AddressOfOp>(
          nl, LLVM::LLVMPointerType::get(nb.getContext()), node);
      nb.create<func::CallOp>(nl, tfcc::kReportNumericsFunction, TypeRange{},
                              ValueRange{address});
      nb.create<scf::YieldOp>(nl);
    });
  }

  void declare(OpBuilder &b, Location loc) {
    if (declared_ || symbols_.lookup(tfcc::kReportNumericsFunction))
      return;
    declared_ = true;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module_.getBody());
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    b.create<func::FuncOp>(loc, tfcc::kReportNumericsFunction,
                           b.getFunctionType({ptr}, {}))
        .setPrivate();
  }

  ModuleOp module_;
  SymbolTable symbols_;
  bool declared_ = false;
};

struct CheckNumericsPass : tfcc::impl::CheckNumericsBase<CheckNumericsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    NumericsChecker checker(module);
    for (func::FuncOp func : funcs)
      if (!func.isExternal())
        checker.checkFunction(func);
  }
};

} // namespace
