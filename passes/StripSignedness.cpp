//===- StripSignedness.cpp - unsigned integer types become signless -------===//
//
// The graph IR has ui8 (ONNX uint8) so the importer, the interpreter and the C
// interface know a tensor's signedness; arith, linalg bodies and LLVM take only
// signless integers. The lowering reads the signedness off the graph op and
// builds bodies whose arithmetic is signless, with
// builtin.unrealized_conversion_cast between a body's ui8 block arguments and
// its i8 values. This pass then gives every value, block argument, function
// type and constant the signless type of the same width, which turns those
// casts into i8 -> i8 and lets it erase them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_STRIPSIGNEDNESS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// `type` with each unsigned integer (alone, as the element of a shaped type
/// or in a function type) replaced by the signless integer of its width.
Type stripSignedness(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.isUnsigned()
               ? IntegerType::get(type.getContext(), integer.getWidth())
               : type;
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    Type element = stripSignedness(shaped.getElementType());
    return element == shaped.getElementType() ? type
                                              : shaped.clone(element);
  }
  if (auto function = dyn_cast<FunctionType>(type)) {
    auto strip = [](TypeRange types) {
      return llvm::map_to_vector(types, stripSignedness);
    };
    return FunctionType::get(type.getContext(), strip(function.getInputs()),
                             strip(function.getResults()));
  }
  return type;
}

/// `attr` retyped to `type` when it is a constant's dense value of an
/// unsigned type (the bits stay as they are).
Attribute stripSignedness(Attribute attr) {
  auto typed = dyn_cast<TypedAttr>(attr);
  if (!typed)
    return attr;
  Type stripped = stripSignedness(typed.getType());
  if (stripped == typed.getType())
    return attr;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.bitcast(cast<ShapedType>(stripped).getElementType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    return DenseResourceElementsAttr::get(cast<ShapedType>(stripped),
                                          resource.getRawHandle());
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return IntegerAttr::get(stripped, integer.getValue());
  return attr;
}

struct StripSignednessPass
    : tfcc::impl::StripSignednessBase<StripSignednessPass> {
  void runOnOperation() override {
    SmallVector<UnrealizedConversionCastOp> casts;
    getOperation()->walk([&](Operation *op) {
      for (OpResult result : op->getResults())
        result.setType(stripSignedness(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(stripSignedness(arg.getType()));
      if (auto function = dyn_cast<FunctionOpInterface>(op))
        function.setType(stripSignedness(function.getFunctionType()));
      for (NamedAttribute named : op->getAttrs()) {
        Attribute stripped = stripSignedness(named.getValue());
        if (stripped != named.getValue())
          op->setAttr(named.getName(), stripped);
      }
      if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op))
        casts.push_back(cast);
    });
    for (UnrealizedConversionCastOp cast : casts) {
      if (cast->getNumOperands() != 1 || cast->getNumResults() != 1 ||
          cast->getOperand(0).getType() != cast->getResult(0).getType())
        continue;
      cast->getResult(0).replaceAllUsesWith(cast->getOperand(0));
      cast->erase();
    }
  }
};

} // namespace
