//===- OpContext.h - what TFLite operator converters see --------*- C++ -*-===//
//
// The interface between the importer core (TfliteImporter.cpp) and the
// operator converters (TfliteOps.cpp): a converter reads the current
// operator's inputs (graph values, or constant tensors known at import time)
// and options, builds graph ops and defines the operator's outputs.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_TFLITE_OPCONTEXT_H
#define TFCC_COMPILER_TFLITE_OPCONTEXT_H

// flatc's code has default labels in switches over every enum value.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wcovered-switch-default"
#include "compiler/tflite/tflite_format_generated.h"
#pragma clang diagnostic pop

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <vector>

namespace tfcc::tflite_import {

/// A tensor whose data the file holds (weights, shapes, axes), checked to
/// have exactly the bytes its type and shape need.
struct ConstTensor {
  tflite::TensorType type = tflite::TensorType::FLOAT32;
  std::vector<int64_t> shape;
  llvm::ArrayRef<uint8_t> bytes;
  /// The tensor's quantization parameters; null when it has none.
  const tflite::QuantizationParameters *quantization = nullptr;

  int64_t numElements() const;
  /// The elements of an INT32, INT64, INT8, UINT8 or BOOL tensor.
  std::vector<int64_t> ints() const;
  /// The elements of a FLOAT32 or FLOAT16 tensor, as float, or the real
  /// values of a quantized one (scale * (q - zero_point), per tensor or per
  /// axis).
  std::vector<float> floats() const;
  bool isInteger() const;
  bool isFloat() const {
    return type == tflite::TensorType::FLOAT32 ||
           type == tflite::TensorType::FLOAT16;
  }
  /// Whether the tensor holds quantized integers (INT8, UINT8 or INT32 with
  /// scales).
  bool isQuantized() const;
  /// Whether floats() reads it: float or quantized.
  bool isReal() const { return isFloat() || isQuantized(); }
};

/// Name of a TensorType ("FLOAT16", "type 42").
std::string tensorTypeName(tflite::TensorType type);

/// The zero points of `q` (empty when it has none), read byte by byte: the
/// FlatBuffers verifier checks a vector's length field for alignment, not its
/// int64 elements, so a file may put them at a 4-byte boundary (found by
/// fuzz/tflite_import under UBSan).
std::vector<int64_t> zeroPoints(const tflite::QuantizationParameters &q);

class OpContext {
public:
  virtual ~OpContext() = default;

  virtual mlir::OpBuilder &builder() = 0;
  mlir::MLIRContext *context() { return builder().getContext(); }
  /// NameLoc(first output tensor's name, file location).
  virtual mlir::Location loc() const = 0;
  virtual const tflite::Operator &op() const = 0;

  //===--- inputs ---------------------------------------------------------===//
  int numInputs() const {
    return op().inputs() ? static_cast<int>(op().inputs()->size()) : 0;
  }
  /// False for absent optional inputs (index past the end or -1).
  bool hasInput(int i) const {
    return i < numInputs() && op().inputs()->Get(i) >= 0;
  }
  /// The input as a graph value; constant tensors are materialized (FLOAT16
  /// ones only through DEQUANTIZE). Fails with a diagnostic when the input
  /// is missing or of an unsupported type.
  virtual mlir::FailureOr<mlir::Value> input(int i) = 0;
  /// The input's data when the file holds it, else null.
  virtual const ConstTensor *constantInput(int i) = 0;
  /// The input's data, which the operator needs at import time (an axis, a
  /// shape, paddings): fails with a diagnostic naming `what` when the input
  /// is absent or not a constant, or is not an integer tensor.
  virtual mlir::FailureOr<std::vector<int64_t>>
  constantInts(int i, llvm::StringRef what) = 0;
  /// The input's type as the file declares it; null when the type has no
  /// graph-IR counterpart.
  virtual mlir::RankedTensorType inputType(int i) = 0;

  //===--- outputs --------------------------------------------------------===//
  int numOutputs() const {
    return op().outputs() ? static_cast<int>(op().outputs()->size()) : 0;
  }
  /// The output's type as the file declares it (null when unsupported).
  virtual mlir::RankedTensorType outputType(int i) = 0;
  /// Defines output i. Fails with a diagnostic when `value`'s type differs
  /// from the file's declaration of the tensor.
  virtual mlir::LogicalResult setOutput(int i, mlir::Value value) = 0;

  //===--- building -------------------------------------------------------===//
  /// Creates a graph op whose result type the dialect infers.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> create(Args &&...args) {
    auto placeholder = mlir::RankedTensorType::get({}, builder().getF32Type());
    auto created =
        builder().create<OpTy>(loc(), placeholder, std::forward<Args>(args)...);
    mlir::FailureOr<mlir::RankedTensorType> type =
        mlir::graph::inferResultType(created);
    if (mlir::failed(type)) {
      created->erase();
      return mlir::failure();
    }
    created->getResult(0).setType(*type);
    return created->getResult(0);
  }
  /// Creates a graph op whose result has its operand's type (the unary
  /// elementwise ops, softmax).
  template <typename OpTy, typename... Args>
  mlir::Value sameType(mlir::Value x, Args &&...args) {
    return builder().create<OpTy>(loc(), x, std::forward<Args>(args)...);
  }
  /// graph.reshape of `value` to `shape` (static).
  virtual mlir::FailureOr<mlir::Value>
  reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape) = 0;
  /// An f32 tensor of `shape` holding `data` (row-major): a graph.constant,
  /// or a graph.variable named after `nameHint` when large.
  virtual mlir::Value constantF32(llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<float> data,
                                  llvm::StringRef nameHint) = 0;
  /// The same for an i8 tensor (int8 weights).
  virtual mlir::Value constantI8(llvm::ArrayRef<int64_t> shape,
                                 llvm::ArrayRef<int8_t> data,
                                 llvm::StringRef nameHint) = 0;

  //===--- errors ---------------------------------------------------------===//
  /// "unsupported <what> in <OP> operator #<index> ('<output>')".
  virtual mlir::LogicalResult unsupported(const llvm::Twine &what) = 0;
  /// "invalid <what> in <OP> operator ...": the file breaks TFLite's rules.
  virtual mlir::LogicalResult invalid(const llvm::Twine &what) = 0;
};

/// Converts one operator of a builtin code.
using ConverterFn = mlir::LogicalResult (*)(OpContext &);

/// The converter of builtin operator `code`, or null when tfcc has none.
ConverterFn builtinConverter(tflite::BuiltinOperator code);

/// The converter of custom operator `name`, or null when tfcc has none.
ConverterFn customConverter(llvm::StringRef name);

} // namespace tfcc::tflite_import

#endif // TFCC_COMPILER_TFLITE_OPCONTEXT_H
