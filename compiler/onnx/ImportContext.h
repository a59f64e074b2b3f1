//===- ImportContext.h - what ONNX op converters see ------------*- C++ -*-===//
//
// The interface between the importer core (OnnxImporter.cpp) and the op
// converters (one file per op family: Elementwise.cpp, NN.cpp, Shape.cpp,
// Reductions.cpp). A converter reads the current node's inputs and attributes
// and defines its outputs, as graph-IR values or as host tensors known at
// import time (constant folding of shape computations).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_ONNX_IMPORTCONTEXT_H
#define TFCC_COMPILER_ONNX_IMPORTCONTEXT_H

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <cassert>
#include <optional>
#include <string>
#include <vector>

namespace tfcc::onnx_import {

/// A tensor whose value is known while importing: initializers, Constant
/// nodes and folded shape computations. Element types: f32, f64, i32, i64,
/// i1, i8, ui8.
///
/// Elements are stored by kind, row-major: `floats` for f32 (rounded to f32)
/// and f64, `ints` for i32, i64, i1 (0/1), i8 and ui8; the other vector is
/// empty.
/// Integers never pass through floating point: int64 shape values such as
/// Slice's INT64_MAX ends stay exact.
///
/// Partially known values: an i32/i64 tensor may hold UNKNOWN entries
/// (`unknown`: empty, or one flag per element) for the sizes of dynamic
/// dimensions (Shape and Size of a tensor with dynamic dims, and what is
/// folded from them); their `ints` entry is meaningless. Converters see
/// partially known tensors only through partialConstantInput(); they can be
/// neither read as numbers (constantInput() is null for them) nor
/// materialized as graph values (input() reports that the value is needed at
/// run time).
struct HostTensor {
  mlir::Type elementType;
  std::vector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  std::vector<bool> unknown;

  /// A zero-filled tensor of `elementType` and `shape` (static dims).
  static HostTensor zeros(mlir::Type elementType,
                          llvm::ArrayRef<int64_t> shape);

  /// Whether the elements live in `floats` (f32, f64) rather than `ints`.
  bool isFloat() const;
  int64_t numElements() const;
  /// The elements of an integer tensor; unknown entries as -1 (check
  /// hasUnknowns() first).
  const std::vector<int64_t> &asInts() const {
    assert(!isFloat() && "asInts() of a float tensor");
    return ints;
  }
  mlir::RankedTensorType type() const;
  /// Whether entry `i` is unknown (the size of a dynamic dimension).
  bool isUnknown(int64_t i) const;
  /// Marks entry `i` of an integer tensor unknown.
  void setUnknown(int64_t i);
  /// Whether any entry is unknown.
  bool hasUnknowns() const;
  /// Element `to` becomes a copy of `src`'s element `from` (same element
  /// type), unknown or not: the primitive of the data-movement folds.
  void copyElement(int64_t to, const HostTensor &src, int64_t from);
};

class ImportContext {
public:
  virtual ~ImportContext() = default;

  mlir::MLIRContext *context() { return builder().getContext(); }
  /// Inserts into the body of the entry function.
  virtual mlir::OpBuilder &builder() = 0;
  /// The node being converted.
  virtual const onnx::NodeProto &node() const = 0;
  /// Version of the default ONNX domain the model imports.
  virtual int64_t opset() const = 0;
  /// NameLoc(node name or "<OpType>_<index>", file location of the model).
  virtual mlir::Location loc() const = 0;

  //===--- inputs ---------------------------------------------------------===//
  int numInputs() const { return node().input_size(); }
  /// False for absent optional inputs (index past the end or empty name).
  bool hasInput(int i) const {
    return i < node().input_size() && !node().input(i).empty();
  }
  /// The input as a graph value; host tensors are materialized on demand
  /// (graph.constant, or graph.variable + graph.read for initializers).
  /// Fails with a diagnostic when the input is missing or unsupported, or
  /// when it is partially known ("value derived from dynamic dimension ... is
  /// needed at run time").
  virtual mlir::FailureOr<mlir::Value> input(int i) = 0;
  /// The input's value when fully known at import time, else null (also for
  /// partially known values).
  virtual const HostTensor *constantInput(int i) = 0;
  /// The input's value when known at import time, possibly with unknown
  /// entries (HostTensor::isUnknown), else null. For folding paths that
  /// propagate unknowns.
  virtual const HostTensor *partialConstantInput(int i) = 0;
  /// For a partially known input: where its unknown entries come from, e.g.
  /// "dynamic dimension 0 of 'x' [?, 3]". Empty otherwise.
  virtual std::string unknownOrigin(int i) = 0;
  /// The input's type: from the graph value or host tensor, else from ONNX
  /// shape inference. Null when unknown.
  virtual mlir::RankedTensorType inputType(int i) = 0;

  //===--- attributes -----------------------------------------------------===//
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t attrInt(llvm::StringRef name, int64_t defaultValue) const;
  float attrFloat(llvm::StringRef name, float defaultValue) const;
  std::string attrString(llvm::StringRef name,
                         const std::string &defaultValue) const;
  std::vector<int64_t> attrInts(llvm::StringRef name,
                                std::vector<int64_t> defaultValue = {}) const;
  std::vector<float> attrFloats(llvm::StringRef name) const;
  /// Tensor attribute (Constant's `value`), converted; fails with a
  /// diagnostic for unsupported element types.
  virtual mlir::FailureOr<HostTensor> attrTensor(llvm::StringRef name) = 0;

  //===--- outputs --------------------------------------------------------===//
  virtual void setOutput(int i, mlir::Value value) = 0;
  /// `value` may be partially known; its unknowns are then traced to the
  /// first partially known input (or, for Shape/Size, to input 0's dynamic
  /// dimensions) for diagnostics.
  virtual void setConstantOutput(int i, HostTensor value) = 0;
  /// Output i with a data-dependent row count padded to its static dim 0
  /// (NonMaxSuppression): `count` (a scalar i64) holds the real count. Which
  /// ops may read such a value is the importer's rule; where it reaches the
  /// graph's outputs, `count` becomes an output too (Detection.cpp).
  virtual void setPaddedRowsOutput(int i, mlir::Value value,
                                   mlir::Value count) = 0;
  int numOutputs() const { return node().output_size(); }
  /// False for optional outputs nobody reads (empty name).
  bool hasOutput(int i) const {
    return i < node().output_size() && !node().output(i).empty();
  }

  //===--- building graph ops ---------------------------------------------===//
  /// Creates a graph op and sets its result type to the one the dialect
  /// infers (ShapeInference.cpp). Not for cast and reshape, whose written
  /// result type carries information: use cast() and reshape().
  /// Returns failure (with the dialect's diagnostic) when inference fails.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> create(Args &&...args) {
    auto placeholder = mlir::RankedTensorType::get({}, builder().getF32Type());
    auto op = builder().create<OpTy>(loc(), placeholder,
                                     std::forward<Args>(args)...);
    mlir::FailureOr<mlir::RankedTensorType> type =
        mlir::graph::inferResultType(op);
    if (mlir::failed(type)) {
      op->erase();
      return mlir::failure();
    }
    op->getResult(0).setType(*type);
    return op->getResult(0);
  }
  /// graph.reshape to `shape` (ShapedType::kDynamic for at most one dim).
  virtual mlir::FailureOr<mlir::Value> reshape(mlir::Value value,
                                               llvm::ArrayRef<int64_t> shape) = 0;
  virtual mlir::Value cast(mlir::Value value, mlir::Type elementType) = 0;
  virtual mlir::Value transpose(mlir::Value value,
                                llvm::ArrayRef<int64_t> perm) = 0;
  virtual mlir::Value constant(const HostTensor &value) = 0;

  //===--- subgraphs ------------------------------------------------------===//
  /// The most nodes the subgraphs of a model may expand to in all (If
  /// branches, each unrolled iteration of a Loop body, nested ones
  /// included): a bound on the import time a small file can ask for.
  static constexpr int64_t kMaxSubgraphNodes = 1 << 18;
  /// What a subgraph takes or yields: a graph value, or a value known at
  /// import time.
  struct SubgraphValue {
    mlir::Value value;
    std::optional<HostTensor> host;
  };
  /// Converts the nodes of the current node's graph attribute `name` (an If
  /// branch, an iteration of a Loop body) into the entry function, in the
  /// scope of the values defined so far, with the subgraph's inputs bound to
  /// `inputs` (as many as it declares), and returns the subgraph's outputs
  /// in order. Fails with a diagnostic at the failing node, or when the
  /// model's subgraphs would exceed kMaxSubgraphNodes.
  virtual mlir::FailureOr<std::vector<SubgraphValue>>
  importSubgraph(llvm::StringRef name,
                 llvm::ArrayRef<SubgraphValue> inputs = {}) = 0;

  //===--- errors ---------------------------------------------------------===//
  /// Emits "<what> in <OpType> node '<name>' (opset N)" at loc() and
  /// returns failure, e.g. unsupported("attribute 'mode' = \"reflect\"").
  virtual mlir::LogicalResult unsupported(const llvm::Twine &what) = 0;
  /// Emits "invalid <what> in <OpType> node '<name>' (opset N)": the model
  /// breaks ONNX's rules, e.g. invalid("scale 0 (...)").
  virtual mlir::LogicalResult invalid(const llvm::Twine &what) = 0;
};

/// A converter for one ONNX op type; called once per node.
using ConverterFn = mlir::LogicalResult (*)(ImportContext &);
using ConverterTable = llvm::StringMap<ConverterFn>;

/// Abs Neg Exp Log Sqrt Reciprocal Floor Ceil Relu LeakyRelu Clip Sigmoid
/// Tanh HardSigmoid HardSwish Erf Add Sub Mul Div Pow Max Min Where Equal
/// Less Greater LessOrEqual GreaterOrEqual Not And Or Cast Identity Dropout
void registerElementwiseConverters(ConverterTable &table);
/// Conv Gemm MatMul BatchNormalization MaxPool AveragePool GlobalAveragePool
/// GlobalMaxPool Resize Upsample Softmax LogSoftmax LayerNormalization
void registerNNConverters(ConverterTable &table);
/// Reshape Flatten Transpose Concat Split Slice Squeeze Unsqueeze Pad Gather
/// Constant ConstantOfShape Shape Expand Range Size
void registerShapeConverters(ConverterTable &table);
/// ReduceMean ReduceSum ReduceMax ReduceMin ArgMax
void registerReductionConverters(ConverterTable &table);
/// Elu Selu Celu Softplus Softsign Mish Gelu ThresholdedRelu PRelu Tile
/// InstanceNormalization GroupNormalization
void registerActivationConverters(ConverterTable &table);
/// If Loop
void registerControlFlowConverters(ConverterTable &table);
/// NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss
void registerLossConverters(ConverterTable &table);
/// Trilu Hardmax OneHot EyeLike TopK CumSum
void registerMaskConverters(ConverterTable &table);
/// LSTM GRU RNN
void registerRecurrentConverters(ConverterTable &table);
/// NonMaxSuppression
void registerDetectionConverters(ConverterTable &table);
/// Einsum (transposes, reductions and matmuls)
void registerEinsumConverters(ConverterTable &table);
/// ScatterElements Scatter ScatterND (constant indices)
void registerScatterConverters(ConverterTable &table);
/// QuantizeLinear DequantizeLinear DynamicQuantizeLinear MatMulInteger
/// QLinearMatMul ConvInteger QLinearConv
void registerQuantizationConverters(ConverterTable &table);

/// The current node's Conv (its attributes: pads, strides, dilations, group,
/// kernel_shape) of `x` (NCHW, or NCL for 1-D) with `weight` (OIHW / OIL) or,
/// when `weight` is null, the f32 host tensor `hostWeight`, plus `bias` (may
/// be null): graph.conv2d between transposes (NN.cpp). ConvInteger and
/// QLinearConv call it with widened operands.
mlir::FailureOr<mlir::Value> convolveNCHW(ImportContext &ctx, mlir::Value x,
                                          mlir::Value weight,
                                          const HostTensor *hostWeight,
                                          mlir::Value bias);

/// Element type of an ONNX TensorProto data type, or null when the graph IR
/// has none (float16, uint16, string, ...).
mlir::Type elementTypeOf(mlir::MLIRContext *context, int32_t onnxDataType);

} // namespace tfcc::onnx_import

#endif // TFCC_COMPILER_ONNX_IMPORTCONTEXT_H
