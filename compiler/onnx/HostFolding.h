//===- HostFolding.h - import-time evaluation of ONNX ops -------*- C++ -*-===//
//
// Host arithmetic on HostTensors, shared by the op converters to fold
// computations whose inputs are known while importing (shape subgraphs:
// Shape -> Gather -> Concat -> Reshape, ...). Every function computes what the
// graph op it replaces would: f32 results rounded to f32, integer math in
// int64 (never through a double) and wrapped to the element width, integer
// division truncating toward zero, i1 as 0/1.
//
// Unknown integer entries (HostTensor::isUnknown: sizes of dynamic
// dimensions) propagate: data movement (reshape, transpose, concat, slice,
// gather, expand, integer casts) copies them, arithmetic on one gives one,
// and what would need its value (a comparison, a select on it) gives up
// (nullopt), so that the caller emits graph ops -- and fails there with a
// diagnostic, as a partially known value has no graph value.
//
// Also: small helpers the converters share to read constant inputs.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_ONNX_HOSTFOLDING_H
#define TFCC_COMPILER_ONNX_HOSTFOLDING_H

#include "compiler/onnx/ImportContext.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace tfcc::onnx_import {

/// Folded results with more elements than this are computed by graph ops.
inline constexpr int64_t kMaxFoldedElements = 4096;
/// Constants that converters build from a shape (ConstantOfShape, Range) may
/// have at most this many elements (64 Mi: 256 MiB as f32).
inline constexpr int64_t kMaxMaterializedElements = int64_t(1) << 26;

/// Product of static dims (1 for a scalar).
int64_t productOf(llvm::ArrayRef<int64_t> dims);
/// Row-major strides (in elements) of static `shape`.
std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// Calls fn(index, flat) for every element of static `shape` in row-major
/// order.
template <typename Fn>
void forEachIndex(llvm::ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = productOf(shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(llvm::ArrayRef<int64_t>(index), flat);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}
/// Product of static dims, or nullopt when a dim is negative or the product
/// overflows int64.
std::optional<int64_t> checkedProductOf(llvm::ArrayRef<int64_t> dims);

/// The number of elements a step of `step` (non-zero) takes from `start`
/// before it reaches `end` (exclusive): ceil((end - start) / step), 0 when
/// the range is empty; no intermediate value overflows, for any int64
/// arguments.
int64_t stepCount(int64_t start, int64_t end, int64_t step);

/// The value an f32/f64 element holds for `value` (rounded to f32 for f32).
double roundToFloatElement(mlir::Type floatType, double value);
/// The value an i1/i32/i64 element holds for `value`: 0/1 for i1, wrapped to
/// 32 bits (two's complement) for i32.
int64_t wrapToIntElement(mlir::Type intType, int64_t value);

/// A float tensor with `values` rounded to `floatType`.
HostTensor makeFloatTensor(mlir::Type floatType, std::vector<int64_t> shape,
                           std::vector<double> values);
/// An integer tensor with `values` wrapped to `intType`.
HostTensor makeIntTensor(mlir::Type intType, std::vector<int64_t> shape,
                         std::vector<int64_t> values);
/// A 1-D i64 tensor (a shape), or a scalar when `scalar` is set (one value).
HostTensor makeI64Tensor(mlir::MLIRContext *context,
                         llvm::ArrayRef<int64_t> values, bool scalar = false);
/// `shape` filled with the integer `value` as an element of `elementType`
/// (exact for integer types, the nearest float for float types).
HostTensor makeFilled(mlir::Type elementType, llvm::ArrayRef<int64_t> shape,
                      int64_t value);
/// `shape` filled with `value` (f32 or f64 only).
HostTensor makeFilledFloat(mlir::Type floatType, llvm::ArrayRef<int64_t> shape,
                           double value);

/// NumPy broadcasting of static shapes; nullopt when incompatible.
std::optional<std::vector<int64_t>>
broadcastStaticShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

enum class HostBinary { Add, Sub, Mul, Div, Pow, Max, Min, Eq, Lt, Le, Gt, Ge };
enum class HostUnary { Neg, Abs, Floor, Ceil, Sqrt, Relu, Not };
enum class HostReduce { Sum, Mean, Max, Min, Prod };

/// Elementwise ops with broadcasting. nullopt when the graph op would fail at
/// run time (integer division by zero, integer to a negative power) or the
/// operands do not fit (types, shapes); the caller then emits graph ops.
std::optional<HostTensor> foldBinary(HostBinary fn, const HostTensor &a,
                                     const HostTensor &b);
std::optional<HostTensor> foldUnary(HostUnary fn, const HostTensor &x);
/// graph.select semantics: cond (i1) ? a : b, broadcasting.
std::optional<HostTensor> foldSelect(const HostTensor &cond,
                                     const HostTensor &a, const HostTensor &b);
/// graph.cast semantics (float to integer truncates toward zero, NaN gives
/// 0, out-of-range values saturate; integer to integer wraps). A tensor with
/// unknown entries may only be cast to i32 or i64.
HostTensor foldCast(const HostTensor &x, mlir::Type elementType);

HostTensor foldReshape(const HostTensor &x, llvm::ArrayRef<int64_t> shape);
HostTensor foldTranspose(const HostTensor &x, llvm::ArrayRef<int64_t> perm);
/// `axis` normalized; shapes must agree outside it (nullopt otherwise).
std::optional<HostTensor> foldConcat(llvm::ArrayRef<const HostTensor *> inputs,
                                     int64_t axis);
/// Per dimension: first index `starts[d]`, step `steps[d]` (non-zero, may be
/// negative) and `counts[d]` elements; all indices must be in range.
HostTensor foldSlice(const HostTensor &x, llvm::ArrayRef<int64_t> starts,
                     llvm::ArrayRef<int64_t> steps,
                     llvm::ArrayRef<int64_t> counts);
/// ONNX Gather (negative indices count from the end); nullopt when an index
/// is out of range.
std::optional<HostTensor> foldGather(const HostTensor &table,
                                     const HostTensor &indices, int64_t axis);
/// Broadcasts `x` to the NumPy broadcast of its shape and `shape`.
std::optional<HostTensor> foldExpand(const HostTensor &x,
                                     llvm::ArrayRef<int64_t> shape);
/// Reduces the axes marked in `reduced` (one flag per dimension).
HostTensor foldReduce(HostReduce fn, const HostTensor &x,
                      llvm::ArrayRef<bool> reduced, bool keepDims);

//===--- converter helpers ----------------------------------------------===//

/// The present inputs when all of them are known at import time (absent
/// optional inputs are null entries); nullopt otherwise or when no input is
/// present. With `allowPartial`, inputs with unknown entries count as known.
std::optional<llvm::SmallVector<const HostTensor *>>
allConstantInputs(ImportContext &ctx, bool allowPartial = false);

/// The integer values of input `i`, which must be known at import time;
/// otherwise reports "non-constant '<what>' input" as unsupported, or, for a
/// partially known input, unsupportedUnknownInput.
mlir::FailureOr<std::vector<int64_t>>
constantIntsInput(ImportContext &ctx, int i, llvm::StringRef what);

/// Reports the partially known input `i` as unsupported: "'<what>' input
/// [?, 200] derived from dynamic dimension 0 of 'x' [?, 3] (not known at
/// import time)".
mlir::LogicalResult unsupportedUnknownInput(ImportContext &ctx, int i,
                                            llvm::StringRef what);

/// "[1, 2, 3]" for diagnostics.
std::string formatInts(llvm::ArrayRef<int64_t> values);
/// "[?, 200]" for diagnostics: integers with unknown entries as '?'.
std::string formatPartialInts(const HostTensor &t);

/// Name of an element type for diagnostics ("f32", "i64", ...).
std::string typeName(mlir::Type type);

} // namespace tfcc::onnx_import

#endif // TFCC_COMPILER_ONNX_HOSTFOLDING_H
