//===- ConstantValues.cpp - compile-time values of weight tensors ---------===//

#include "passes/ConstantValues.h"

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/Initializers.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>

using namespace mlir;

static std::optional<std::vector<float>> getFloats(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  if (!elements || !elements.getElementType().isF32())
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(elements)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    int64_t count = elements.getNumElements();
    if (!blob ||
        blob->getData().size() != static_cast<size_t>(count) * sizeof(float))
      return std::nullopt;
    std::vector<float> values(count);
    std::memcpy(values.data(), blob->getData().data(), count * sizeof(float));
    return values;
  }
  return std::nullopt;
}

std::optional<std::vector<float>> mlir::tfcc::getConstantFloats(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto constant = dyn_cast<graph::ConstantOp>(def))
    return getFloats(constant.getValue());
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return getFloats(constant.getValue());
  auto read = dyn_cast<graph::ReadOp>(def);
  if (!read)
    return std::nullopt;
  auto module = read->getParentOfType<ModuleOp>();
  // Variables of a training model may change (graph.train_step before
  // tfcc-autodiff; kStatefulAttr, which tfcc-layout-state sets, after it).
  if (!module || !module.getOps<graph::TrainStepOp>().empty() ||
      module->hasAttr(mlir::tfcc::kStatefulAttr))
    return std::nullopt;
  auto variable = SymbolTable::lookupNearestSymbolFrom<graph::VariableOp>(
      read, read.getVariableAttr());
  if (!variable || !variable.getTensorType().getElementType().isF32())
    return std::nullopt;
  FailureOr<DenseElementsAttr> init = graph::getVariableInitialValue(variable);
  if (failed(init))
    return std::nullopt;
  return getFloats(*init);
}
