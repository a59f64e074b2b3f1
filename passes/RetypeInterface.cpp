//===- RetypeInterface.cpp - 16-bit float arguments and results -----------===//
//
// tfcc --io-dtype=bf16|f16: the entry points take and return the 16-bit type
// where the model has f32 tensors, so a caller that holds its data in 16
// bits passes it without converting, and moves half the bytes. Inside, a
// cast to f32 after each such argument and to the 16-bit type before each
// such result keeps the model as it was (the precision policy then decides
// where values compute); a train step's loss stays f32, as Keras keeps it.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_RETYPEINTERFACE
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

/// `func`'s f32 tensor arguments, and its results unless `keepResults`,
/// retyped to `low`, with the casts that keep its body as it was.
void retypeEntry(func::FuncOp func, Type low, bool keepResults) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    Type type = arg.getType();
    if (!isF32Tensor(type))
      continue;
    arg.setType(cast<RankedTensorType>(type).clone(low));
    auto wide = b.create<CastOp>(func.getLoc(), type, arg);
    arg.replaceAllUsesExcept(wide, wide);
  }
  if (!keepResults)
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands())
        if (isF32Tensor(operand.get().getType()))
          operand.set(b.create<CastOp>(
              ret.getLoc(),
              cast<RankedTensorType>(operand.get().getType()).clone(low),
              operand.get()));
    });
  SmallVector<Type> results;
  for (Type type : func.getResultTypes())
    results.push_back(!keepResults && isF32Tensor(type)
                          ? cast<RankedTensorType>(type).clone(low)
                          : type);
  func.setType(
      FunctionType::get(func.getContext(), entry.getArgumentTypes(), results));
}

struct RetypeInterfacePass
    : tfcc::impl::RetypeInterfaceBase<RetypeInterfacePass> {
  using RetypeInterfaceBase::RetypeInterfaceBase;

  void runOnOperation() override {
    Type low;
    if (dtype == "bf16")
      low = FloatType::getBF16(&getContext());
    else if (dtype == "f16")
      low = FloatType::getF16(&getContext());
    else if (dtype == "f32")
      return;
    else {
      getOperation().emitError() << "tfcc-retype-interface: unknown dtype '"
                                 << dtype << "' (bf16, f16 or f32)";
      return signalPassFailure();
    }
    llvm::StringSet<> losses;
    for (auto step : getOperation().getOps<TrainStepOp>())
      losses.insert(step.getLoss());
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic())
        retypeEntry(func, low, losses.contains(func.getSymName()));
  }
};

} // namespace
