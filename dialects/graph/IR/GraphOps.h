//===- GraphOps.h - the tfcc graph dialect ----------------------*- C++ -*-===//
//
// Dialect, attribute and op declarations of the graph IR (contract v1).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_GRAPHOPS_H
#define TFCC_DIALECTS_GRAPH_IR_GRAPHOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "dialects/graph/IR/TensorSize.h"

#include "dialects/graph/IR/GraphDialect.h.inc"

namespace mlir::graph {
/// graph.math's functions (MathFunctions.def).
enum class MathFunction {
#define TFCC_MATH_FUNCTION(Name, fn, onnx, reference, lowering) Name,
#include "dialects/graph/IR/MathFunctions.def"
};
/// The function whose `fn` attribute is `name`, if any.
std::optional<MathFunction> mathFunctionNamed(llvm::StringRef name);
/// The `fn` attribute of `function`.
llvm::StringRef mathFunctionName(MathFunction function);
/// The largest window of a depthwise graph.fused_conv2d_int8: the runtime
/// kernel's float sums of (x - z) * w are exact up to there (the lowering
/// checks that TFCC_RT_DWQ_MAX_TAPS agrees).
inline constexpr int64_t kMaxInt8DepthwiseTaps = 512;
/// Output pixels in a tile of the int8 convolution's kernel, which holds
/// whole windows of a `max_pool` (the lowering checks that
/// TFCC_RT_QCONV_POOL_TILE_ROWS and its rule agree).
inline constexpr int64_t kInt8ConvPoolTileRows = 8;
/// Whether graph.fused_conv2d_int8's `max_pool = [ph, pw]` fits its tiles:
/// ph rows of whole windows (ph divides the tile, pw its share of a row),
/// and more than one pixel.
constexpr bool isInt8ConvPoolWindow(int64_t ph, int64_t pw) {
  return ph >= 1 && pw >= 1 && ph * pw >= 2 && ph <= kInt8ConvPoolTileRows &&
         kInt8ConvPoolTileRows % ph == 0 && pw <= kInt8ConvPoolTileRows / ph &&
         (kInt8ConvPoolTileRows / ph) % pw == 0;
}
/// The value graph.pad pads a graph.max_pool2d input of element type
/// `element` with, so that padding never wins a window holding an input
/// element: -inf, or for 8-bit integers (quantized data) the type's lowest
/// value (0, -128).
float getMaxPoolPadValue(Type element);
} // namespace mlir::graph

#define GET_ATTRDEF_CLASSES
#include "dialects/graph/IR/GraphAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/graph/IR/GraphOps.h.inc"

#endif // TFCC_DIALECTS_GRAPH_IR_GRAPHOPS_H
