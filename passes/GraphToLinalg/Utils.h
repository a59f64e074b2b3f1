//===- Utils.h - helpers shared by the graph-to-linalg patterns -*- C++ -*-===//
//
// Private to passes/GraphToLinalg: building blocks the pattern families share
// (result sizes with dynamic dims, broadcasting indexing maps, elementwise and
// reduction linalg.generic ops, runtime error reports).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_GRAPHTOLINALG_UTILS_H
#define TFCC_PASSES_GRAPHTOLINALG_UTILS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::graph {
class FusedConv2DInt8Op;
class PadOp;
} // namespace mlir::graph

namespace mlir::tfcc {

/// Error code passed to the runtime's report function for an index (gather
/// index, class label) outside its dimension.
inline constexpr int32_t kErrorOutOfRange = 2;

/// Body of an elementwise or reduction linalg.generic: the block arguments
/// (inputs, then outputs) in, the values to yield out. The generic builders
/// below pass unsigned block arguments as signless (toSignless) and convert
/// the body's value back to the output's type (fromSignless).
using ScalarBodyFn =
    function_ref<Value(OpBuilder &b, Location loc, ValueRange args)>;

//===----------------------------------------------------------------------===//
// Constants and sizes
//===----------------------------------------------------------------------===//

/// Checks that `type` is a 4-D ranked tensor with static dims 1..3 (NHWC
/// with only the batch dynamic).
bool isNhwcWithStaticHwc(Type type);

/// Whether a dimension other than the first of an operand or result of
/// `op` is dynamic: the case most lowerings refuse (the batch is dim 0).
bool hasDynamicInnerDims(Operation *op);

/// Whether `pad` is a constant pad of an NHWC tensor's H and W only (no
/// negative pads): one a pooling kernel's implicit padding can take the
/// place of, given a value it never lets win.
bool isConstantPadOfHW(graph::PadOp pad);

/// Whether the runtime's int8 convolution kernel (tfcc_rt_qconv2d_u8s8_*,
/// which alone takes a `max_pool`) computes graph.fused_conv2d_int8 `op`
/// (static image sizes, not depthwise): its rows gathered per task or read
/// in place, not a plain GEMM of a 1x1 convolution's input nor rows or
/// weights over that kernel's limits (gathered by tfcc_rt_im2col_u8 first).
bool isInt8ConvKernelConv(graph::FusedConv2DInt8Op op);

/// Whether a graph value holds unsigned integers (ui8). Bodies compute on
/// signless values, so lowerings whose result depends on signedness read it
/// off the graph op's types with this.
bool hasUnsignedElements(Value graphValue);
/// The signless integer of `type`'s width for an unsigned integer `type`;
/// `type` itself otherwise.
Type signlessOf(Type type);
/// `x` (a float) clamped to [lowest, highest] with maxnumf / minnumf: NaN
/// gives `lowest`.
Value clampFloat(OpBuilder &b, Location loc, Value x, double lowest,
                 double highest);

/// `value` as the signless integer of its width when its type is an unsigned
/// integer (a builtin.unrealized_conversion_cast, erased by
/// tfcc-strip-signedness); `value` itself otherwise.
Value toSignless(OpBuilder &b, Location loc, Value value);
/// `value` (signless) cast to `type` when that is the unsigned integer of its
/// width; `value` itself otherwise.
Value fromSignless(OpBuilder &b, Location loc, Value value, Type type);

/// A scalar constant of `type` (float or integer, ui8 through a signless
/// constant and fromSignless) holding `value`.
Value createScalarConstant(OpBuilder &b, Location loc, Type type, double value);
/// The lowest (-inf, or the signed minimum) value of a float or integer type.
Value createLowestValue(OpBuilder &b, Location loc, Type type);
/// The highest (+inf, or the signed maximum) value of a float or integer type.
Value createHighestValue(OpBuilder &b, Location loc, Type type);

/// Extent of dimension `dim` of `tensor` as an index value.
Value getDimValue(OpBuilder &b, Location loc, Value tensor, int64_t dim);
/// Product of the extents of `dims` of `tensor`, as an index value.
Value getDimsProduct(OpBuilder &b, Location loc, Value tensor,
                     ArrayRef<int64_t> dims);
/// Converts an index value to a float of `floatType` (or an integer of that
/// type when `type` is an integer).
Value castIndexTo(OpBuilder &b, Location loc, Value index, Type type);

/// Sizes of a result of `type` whose dynamic dims are the (right-aligned)
/// dims of the first operand having a dynamic dim there (NumPy broadcasting:
/// a dynamic dim is assumed not to broadcast). In a model with named
/// dimensions, where two operands' dynamic dims could differ at run time, a
/// difference is reported (kErrorOutOfRange) and the size is their minimum.
SmallVector<OpFoldResult> getBroadcastSizes(OpBuilder &b, Location loc,
                                            RankedTensorType type,
                                            ValueRange operands);

/// tensor.empty of `type`, its dynamic extents taken from `sizes`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes);
/// tensor.empty of `type` filled with `scalar` (linalg.fill).
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes, Value scalar);

//===----------------------------------------------------------------------===//
// linalg.generic builders
//===----------------------------------------------------------------------===//

/// The map reading an operand of `operandType` inside `loopRank` parallel
/// loops under NumPy broadcasting: the operand's dims align with the last
/// loops, and its static size-1 dims read index 0.
AffineMap getBroadcastMap(MLIRContext *ctx, ShapedType operandType,
                          unsigned loopRank);

/// The map from `rank` loops to those not in `droppedDims` (the output of a
/// reduction over `droppedDims`).
AffineMap getDropDimsMap(MLIRContext *ctx, unsigned rank,
                         ArrayRef<int64_t> droppedDims);

/// An all-parallel linalg.generic producing a tensor of `resultType` (sizes
/// `resultSizes`) from `inputs`, which broadcast against the result.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ArrayRef<OpFoldResult> resultSizes, ValueRange inputs,
                       ScalarBodyFn body);
/// Same, taking dynamic result sizes from the inputs.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBodyFn body);

/// A linalg.generic reading `inputs` through `inputMaps` and writing `init`
/// through `outputMap`, with `iterators`; the body yields `body(args)`.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps, Value init,
                   AffineMap outputMap, ArrayRef<utils::IteratorType> iterators,
                   ScalarBodyFn body);

/// Iterator types of `rank` loops, those in `reductionDims` reductions.
SmallVector<utils::IteratorType>
getIterators(unsigned rank, ArrayRef<int64_t> reductionDims = {});

/// Reduces `input` over `axes` (sorted, distinct) into a tensor without those
/// dims, starting from `init` and folding with `body(in, acc)`.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Value init, ScalarBodyFn body);

/// The maximum `max` of float `x` along `axis` and the sum of exp(x - max)
/// along it, both without that dim: the stable parts of (log) softmax.
struct SoftmaxStats {
  Value max, sumExp;
};
SoftmaxStats buildSoftmaxStats(OpBuilder &b, Location loc, Value x,
                               int64_t axis);

//===----------------------------------------------------------------------===//
// Windows (convolution, pooling)
//===----------------------------------------------------------------------===//

/// Padding of the H and W dims of an NHWC tensor for a window op.
struct WindowPadding {
  int64_t before[2] = {0, 0};
  int64_t after[2] = {0, 0};
  bool isZero() const {
    return !before[0] && !before[1] && !after[0] && !after[1];
  }
};

/// TF padding of the static spatial sizes `inHW` for a window of `window`,
/// `strides` and `dilations`: none for VALID; for SAME the total makes the
/// output ceil(in / stride) long, with the odd row/column at the bottom/right.
WindowPadding getWindowPadding(ArrayRef<int64_t> inHW, ArrayRef<int64_t> window,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> dilations, bool same);

/// Pads the H and W dims of the NHWC tensor `x` with `padValue` (tensor.pad);
/// returns `x` itself when there is no padding.
Value padSpatial(OpBuilder &b, Location loc, Value x,
                 const WindowPadding &padding, Value padValue);

/// A constant [outH, outW, 1] tensor of `elementType`: the number of real
/// (unpadded) input elements under each output position of a 2-D window op
/// over an `inHW` input, at least `minimum` (average pooling divides by it,
/// its gradient spreads by it). Small integers: exact in every float type.
Value createWindowCounts(OpBuilder &b, Location loc, Type elementType,
                         ArrayRef<int64_t> inHW, int64_t outH, int64_t outW,
                         ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                         const WindowPadding &padding, int64_t minimum);

/// The output extent of one spatial dim of a window op (convolution,
/// pooling) over an input extent `in` known at run time:
/// floor((in + padTotal - span) / stride) + 1, span = (window - 1) *
/// dilation + 1, at least 0. Reports kErrorOutOfRange at run time where it is
/// below 1 (an input smaller than the window) or differs from a static
/// `declared` extent; the result is then `declared` itself, so a kernel never
/// writes past the buffer of the declared type.
Value buildWindowOutputSize(OpBuilder &b, Location loc, Operation *anchor,
                            Value in, int64_t padTotal, int64_t window,
                            int64_t stride, int64_t dilation,
                            int64_t declared);

/// The integers of an array attribute of integers.
SmallVector<int64_t> getIntegers(ArrayAttr attr);

/// tensor.expand_shape splitting the last dim of `value` into
/// [size / inner, inner].
Value splitLastDim(OpBuilder &b, Location loc, Value value, int64_t inner);
/// tensor.collapse_shape merging the last two dims of `value`.
Value mergeLastDims(OpBuilder &b, Location loc, Value value);

//===----------------------------------------------------------------------===//
// Runtime checks
//===----------------------------------------------------------------------===//

/// An i1 that is true when any element of the integer tensor `indices` is
/// outside [0, limit).
Value buildAnyOutOfRange(OpBuilder &b, Location loc, Value indices,
                         Value limit);

/// A new private constant `llvm.mlir.global` at the end of `module` holding
/// `text` NUL-terminated, named `symbolPrefix` (made unique in `symbols`):
/// the strings generated code hands the runtime. Returns its name.
StringAttr createStringConstant(OpBuilder &b, Location loc, ModuleOp module,
                                SymbolTable &symbols, StringRef symbolPrefix,
                                StringRef text);

/// Emits `scf.if %condition { func.call @tfcc_rt_report_error(code) }`,
/// declaring the report function in the module of `anchor` if needed.
void buildErrorReport(OpBuilder &b, Location loc, Operation *anchor,
                      Value condition, int32_t code);

/// Converts an integer `value` to an index clamped to [0, limit - 1], so that
/// a bad index never reads out of bounds.
Value buildClampedIndex(OpBuilder &b, Location loc, Value value, Value limit);

} // namespace mlir::tfcc

#endif // TFCC_PASSES_GRAPHTOLINALG_UTILS_H
