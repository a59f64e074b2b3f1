//===- Tensor.h - plain tensors of the reference interpreter ----*- C++ -*-===//
//
// A tensor of the reference interpreter: an element kind, a shape and its
// values in row-major order, every value held as a double. See
// docs/interpreter.md for how each kind is represented.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_REFERENCE_TENSOR_H
#define TFCC_DIALECTS_GRAPH_REFERENCE_TENSOR_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfcc::ref {

/// The element types the interpreter evaluates.
enum class ElementKind { F32, F64, I32, I64, I1, I8, UI8, F16, BF16 };

/// The MLIR spelling of `kind`: "f32", "f64", "i32", "i64", "i1", "i8",
/// "ui8", "f16" or "bf16".
const char *toString(ElementKind kind);

/// Whether `kind` is a floating-point kind (f32, f64, f16 or bf16).
inline bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F32 || kind == ElementKind::F64 ||
         kind == ElementKind::F16 || kind == ElementKind::BF16;
}

/// The smallest and largest value of an integer kind (i1: 0 and 1; i64's
/// largest is 2^63, the nearest double).
struct IntegerRange {
  double lowest, highest;
};
IntegerRange integerRangeOf(ElementKind kind);

/// The kind of an MLIR element type, or std::nullopt for types the interpreter
/// does not evaluate (f8, i16, ...).
std::optional<ElementKind> elementKindOf(mlir::Type elementType);

/// A dense tensor. `data` holds numElements() values in row-major order:
/// f32 values are exactly representable as float, f16 and bf16 values as
/// those types (every operation's exact result rounded once to nearest
/// even), f64 values are any double, integers are integral
/// (i64 is exact up to 2^53), i1 is 0 or 1, ui8 in [0, 255].
struct Tensor {
  ElementKind kind = ElementKind::F32;
  std::vector<int64_t> shape;
  std::vector<double> data;

  /// The product of the dimensions (1 for a rank-0 tensor).
  int64_t numElements() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }

  /// A tensor of `shape` filled with zeros.
  static Tensor zeros(ElementKind kind, std::vector<int64_t> shape);
};

/// The number of elements of `shape`.
int64_t numElementsOf(llvm::ArrayRef<int64_t> shape);

/// Row-major strides of `shape`, in elements.
std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// `shape` written as "[2, 3]", with dynamic dimensions written "?".
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

} // namespace tfcc::ref

#endif // TFCC_DIALECTS_GRAPH_REFERENCE_TENSOR_H
