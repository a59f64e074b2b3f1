//===- Weights.cpp - a model's weights as graph.variable ops --------------===//

#include "dialects/graph/IR/Weights.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

Value graph::createWeightVariable(OpBuilder &b, Operation *before,
                                  Location variableLoc, Location readLoc,
                                  StringRef symbol, RankedTensorType type,
                                  ArrayRef<char> raw, size_t alignment) {
  auto init = DenseResourceElementsAttr::get(
      type, symbol,
      // Mutable: MLIR 19's allocateAndCopyWithAlign writes the copy through
      // getMutableData(), which asserts on an immutable blob (found by the
      // ONNX fuzz harness, built with assertions).
      HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, alignment,
                                                    /*dataIsMutable=*/true));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(before);
    b.create<VariableOp>(variableLoc, symbol, type, init, /*trainable=*/true);
  }
  return b.create<ReadOp>(readLoc, type, symbol);
}
