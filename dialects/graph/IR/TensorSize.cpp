//===- TensorSize.cpp - checked element counts and byte sizes -------------===//

#include "dialects/graph/IR/TensorSize.h"

#include "dialects/graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

int64_t graph::elementBytes(Type elementType) {
  if (!elementType.isIntOrFloat())
    return 1;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return bits < 8 ? 1 : (bits + 7) / 8;
}

std::optional<int64_t>
graph::checkedElementCount(llvm::ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      continue;
    if (d < 0 || llvm::MulOverflow(count, d, count))
      return std::nullopt;
  }
  return count;
}

std::optional<int64_t> graph::checkedBytesProduct(int64_t a, int64_t b) {
  int64_t product;
  if (a < 0 || b < 0 || llvm::MulOverflow(a, b, product) ||
      product > kMaxTensorBytes)
    return std::nullopt;
  return product;
}

std::optional<int64_t> graph::checkedStaticBytes(ShapedType type) {
  if (!type.hasRank())
    return std::nullopt;
  std::optional<int64_t> count = checkedElementCount(type.getShape());
  if (!count)
    return std::nullopt;
  return checkedBytesProduct(*count, elementBytes(type.getElementType()));
}

LogicalResult
graph::verifyTensorSize(function_ref<InFlightDiagnostic()> emitError, Type type,
                        const llvm::Twine &what) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() || checkedStaticBytes(shaped))
    return success();
  return emitError() << what << " " << type
                     << " exceeds the largest tensor tfcc accepts ("
                     << (kMaxTensorBytes >> 30)
                     << " GiB; a dynamic dimension counts 1)";
}

LogicalResult graph::verifyOperandAndResultSizes(Operation *op) {
  auto error = [op] { return op->emitOpError(); };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(verifyTensorSize(error, type,
                                "operand #" + llvm::Twine(i) + " type")))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(verifyTensorSize(error, type,
                                "result #" + llvm::Twine(i) + " type")))
      return failure();
  return success();
}

LogicalResult graph::verifyModelSizes(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    Operation *op = func;
    std::string name = func.getSymName().str();
    auto error = [op, name]() -> InFlightDiagnostic {
      return op->emitError() << "function @" << name << ": ";
    };
    FunctionType type = func.getFunctionType();
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      if (failed(verifyTensorSize(error, t,
                                  "argument #" + llvm::Twine(i) + " type")))
        return failure();
    for (auto [i, t] : llvm::enumerate(type.getResults()))
      if (failed(verifyTensorSize(error, t,
                                  "result #" + llvm::Twine(i) + " type")))
        return failure();
  }
  // Weights are held in memory whole (the compiler's and the model's
  // read-only data): their total has the same bound.
  int64_t total = 0;
  Operation *last = nullptr;
  WalkResult walk = module.walk([&](Operation *op) {
    Type type;
    if (auto variable = dyn_cast<VariableOp>(op))
      type = variable.getTensorType();
    else if (auto constant = dyn_cast<ConstantOp>(op))
      type = constant.getOutput().getType();
    else
      return WalkResult::advance();
    std::optional<int64_t> bytes = checkedStaticBytes(cast<ShapedType>(type));
    if (!bytes || llvm::AddOverflow(total, *bytes, total) ||
        total > kMaxTensorBytes) {
      last = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return last->emitOpError()
           << "brings the model's variables and constants past "
           << (kMaxTensorBytes >> 30)
           << " GiB, the most tfcc accepts in one model";
  return success();
}
