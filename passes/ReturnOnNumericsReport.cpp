//===- ReturnOnNumericsReport.cpp - a --check-numerics call stops ---------===//
//
// tfcc-check-numerics reports a NaN or an infinity with
//   scf.if %bad { func.call @tfcc_rt_report_numerics(%node) }
// after the node. Once the functions return nothing (after the out-params
// pass), each such report becomes a branch that reports and returns: the
// call stops at the first node that made one, and a train step's variable
// updates, which come last, are not made.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_RETURNONNUMERICSREPORT
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Whether `op` is `scf.if %c { ... func.call @tfcc_rt_report_numerics }`
/// without an else region or results.
bool isNumericsReport(Operation *op) {
  auto ifOp = dyn_cast<scf::IfOp>(op);
  if (!ifOp || ifOp.getNumResults() != 0 || !ifOp.getElseRegion().empty())
    return false;
  for (Operation &inner : ifOp.getThenRegion().front())
    if (auto call = dyn_cast<func::CallOp>(inner);
        call && call.getCallee() == tfcc::kReportNumericsFunction)
      return true;
  return false;
}

/// Replaces `ifOp` by a branch to a block holding its body and a return.
void returnAfterReport(scf::IfOp ifOp) {
  Block *before = ifOp->getBlock();
  Block *after = before->splitBlock(std::next(ifOp->getIterator()));
  Region *region = before->getParent();
  auto *report = new Block();
  region->getBlocks().insertAfter(before->getIterator(), report);
  Block &then = ifOp.getThenRegion().front();
  report->getOperations().splice(report->end(), then.getOperations(),
                                 then.begin(), std::prev(then.end()));
  OpBuilder b = OpBuilder::atBlockEnd(report);
  b.create<func::ReturnOp>(ifOp.getLoc());
  b.setInsertionPoint(ifOp);
  b.create<cf::CondBranchOp>(ifOp.getLoc(), ifOp.getCondition(), report,
                             ValueRange{}, after, ValueRange{});
  ifOp.erase();
}

struct ReturnOnNumericsReportPass
    : tfcc::impl::ReturnOnNumericsReportBase<ReturnOnNumericsReportPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // A function with results would need values to return.
      if (func.isExternal() || func.getNumResults() != 0)
        continue;
      SmallVector<scf::IfOp> reports;
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (isNumericsReport(&op))
            reports.push_back(cast<scf::IfOp>(op));
      for (scf::IfOp report : reports)
        returnAfterReport(report);
    }
  }
};

} // namespace
