//===- OnnxImporter.cpp - ONNX models to graph IR -------------------------===//
//
// The importer core: reads the protobuf, checks the opset, creates the
// module and its `predict` entry, turns initializers into host tensors and
// walks the nodes in order, handing each to the converter registered for its
// op type (NN.cpp, Elementwise.cpp, Shape.cpp, Reductions.cpp) through the
// ImportContext interface.
//
// This file is compiled with exceptions enabled: ONNX shape inference reports
// errors by throwing.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"
#include "compiler/BoundedFile.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

#include "dialects/graph/IR/DimNames.h"
#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/IR/Limits.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "dialects/graph/IR/TensorSize.h"
#include "dialects/graph/IR/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <onnx/shape_inference/implementation.h>

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>

using namespace mlir;
using namespace tfcc::onnx_import;

//===----------------------------------------------------------------------===//
// HostTensor, attributes, element types
//===----------------------------------------------------------------------===//

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

HostTensor HostTensor::zeros(Type elementType, ArrayRef<int64_t> shape) {
  HostTensor t;
  t.elementType = elementType;
  t.shape.assign(shape.begin(), shape.end());
  if (isa<FloatType>(elementType))
    t.floats.assign(t.numElements(), 0.0);
  else
    t.ints.assign(t.numElements(), 0);
  return t;
}

bool HostTensor::isFloat() const { return isa<FloatType>(elementType); }

bool HostTensor::isUnknown(int64_t i) const {
  return !unknown.empty() && unknown[i];
}

void HostTensor::setUnknown(int64_t i) {
  assert(!isFloat() && "only integer entries can be unknown");
  if (unknown.empty())
    unknown.assign(ints.size(), false);
  unknown[i] = true;
  ints[i] = -1;
}

bool HostTensor::hasUnknowns() const {
  return llvm::is_contained(unknown, true);
}

void HostTensor::copyElement(int64_t to, const HostTensor &src, int64_t from) {
  assert(src.elementType == elementType && "copy between element types");
  if (isFloat()) {
    floats[to] = src.floats[from];
    return;
  }
  if (src.isUnknown(from)) {
    setUnknown(to);
    return;
  }
  ints[to] = src.ints[from];
  if (!unknown.empty())
    unknown[to] = false;
}

RankedTensorType HostTensor::type() const {
  return RankedTensorType::get(shape, elementType);
}

const onnx::AttributeProto *ImportContext::attr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &a : node().attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t ImportContext::attrInt(llvm::StringRef name,
                               int64_t defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : defaultValue;
}

float ImportContext::attrFloat(llvm::StringRef name, float defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : defaultValue;
}

std::string ImportContext::attrString(llvm::StringRef name,
                                      const std::string &defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : defaultValue;
}

std::vector<int64_t>
ImportContext::attrInts(llvm::StringRef name,
                        std::vector<int64_t> defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return defaultValue;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> ImportContext::attrFloats(llvm::StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return {};
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

Type tfcc::onnx_import::elementTypeOf(MLIRContext *context,
                                      int32_t onnxDataType) {
  Builder b(context);
  switch (onnxDataType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  default:
    return nullptr;
  }
}

namespace {

std::string dataTypeName(int32_t dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

/// A symbol name made of [A-Za-z0-9_], not starting with a digit.
std::string sanitize(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "_" + out;
  return out;
}

/// Little-endian element `i` of `raw`, of type T.
template <typename T> T readRaw(const std::string &raw, int64_t i) {
  T value;
  std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
  return value;
}

/// FLOAT16 or BFLOAT16: 16-bit patterns, in raw data or one per int32_data
/// entry (the ONNX spec's typed form).
bool isHalfData(int32_t dt) {
  return dt == onnx::TensorProto::FLOAT16 || dt == onnx::TensorProto::BFLOAT16;
}

/// The value of 16-bit pattern `bits` of FLOAT16 / BFLOAT16 `dt` (exact).
double halfValue(int32_t dt, uint16_t bits) {
  return graph::halfValue(
      graph::halfSemantics(dt == onnx::TensorProto::BFLOAT16), bits);
}

/// Ops whose leading inputs (named by `inputs`, one letter each) ONNX's
/// shape inference reads at a fixed rank without checking it, in opsets
/// before 7 (the later ones check; tfcc's converters then refuse a wrong
/// rank with their own message).
struct InferenceRanks {
  llvm::StringLiteral op;
  llvm::StringLiteral inputs;
  int rank;
};
constexpr InferenceRanks kInferenceRanks[] = {{"Gemm", "AB", 2},
                                              {"RNN", "XWR", 3},
                                              {"GRU", "XWR", 3},
                                              {"LSTM", "XWR", 3}};

/// Checks that a TensorProto of a supported element type holds exactly the
/// values its dims declare (raw or typed), without allocating. False with
/// `error` set otherwise, and for data in an external file, which tfcc does
/// not read (ONNX's shape inference of a Range died of SIGSEGV on such a
/// scalar: fuzz/onnx_import); true for other element types. Used on every
/// initializer before ONNX's shape inference reads any, and by
/// convertTensor.
bool checkTensorData(const onnx::TensorProto &tensor, std::string &error) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL ||
      tensor.external_data_size() > 0) {
    error = "keeps its data in an external file (not supported)";
    return false;
  }
  int32_t dt = tensor.data_type();
  bool supported =
      dt == onnx::TensorProto::FLOAT || dt == onnx::TensorProto::DOUBLE ||
      isHalfData(dt) || dt == onnx::TensorProto::INT32 ||
      dt == onnx::TensorProto::INT64 || dt == onnx::TensorProto::BOOL ||
      dt == onnx::TensorProto::INT8 || dt == onnx::TensorProto::UINT8;
  if (!supported)
    return true;
  std::vector<int64_t> shape;
  for (int64_t d : tensor.dims()) {
    if (d < 0) {
      error = "has a negative dimension";
      return false;
    }
    shape.push_back(d);
  }
  size_t width =
      dt == onnx::TensorProto::INT64 || dt == onnx::TensorProto::DOUBLE ? 8
      : dt == onnx::TensorProto::BOOL || dt == onnx::TensorProto::INT8 ||
              dt == onnx::TensorProto::UINT8
          ? 1
      : isHalfData(dt) ? 2
                       : 4;
  std::optional<int64_t> count = graph::checkedElementCount(shape);
  if (!count || !graph::checkedBytesProduct(*count, width)) {
    error = "declares more than " +
            std::to_string(graph::kMaxTensorBytes >> 30) +
            " GiB, the largest tensor tfcc accepts";
    return false;
  }
  int64_t n = *count;
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != static_cast<size_t>(n) * width) {
      error = "has " + std::to_string(tensor.raw_data().size()) +
              " bytes of raw data for " + std::to_string(n) + " elements";
      return false;
    }
    return true;
  }
  int64_t stored = dt == onnx::TensorProto::FLOAT  ? tensor.float_data_size()
                   : dt == onnx::TensorProto::DOUBLE ? tensor.double_data_size()
                   : dt == onnx::TensorProto::INT64  ? tensor.int64_data_size()
                                                     : tensor.int32_data_size();
  if (stored != n) {
    error = "has " + std::to_string(stored) + " values for " +
            std::to_string(n) + " elements";
    return false;
  }
  return true;
}

/// Converts a TensorProto (initializer or Constant value) to a HostTensor.
/// On failure returns a message (no diagnostic).
FailureOr<HostTensor> convertTensor(MLIRContext *context,
                                    const onnx::TensorProto &tensor,
                                    std::string &error) {
  HostTensor host;
  host.elementType = elementTypeOf(context, tensor.data_type());
  if (!host.elementType) {
    error = "has unsupported element type " + dataTypeName(tensor.data_type());
    return failure();
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL ||
      tensor.external_data_size() > 0) {
    error = "keeps its data in an external file (not supported)";
    return failure();
  }
  // The dims and the data count checked before anything is allocated: the
  // dims of a small file may declare any size.
  if (!checkTensorData(tensor, error))
    return failure();
  host.shape.assign(tensor.dims().begin(), tensor.dims().end());
  int64_t n = *graph::checkedElementCount(host.shape);
  int32_t dt = tensor.data_type();
  bool isFloatData = dt == onnx::TensorProto::FLOAT ||
                     dt == onnx::TensorProto::DOUBLE || isHalfData(dt);
  if (isFloatData)
    host.floats.resize(n);
  else
    host.ints.resize(n);
  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    for (int64_t i = 0; i < n; ++i) {
      switch (dt) {
      case onnx::TensorProto::FLOAT:
        host.floats[i] = readRaw<float>(raw, i);
        break;
      case onnx::TensorProto::DOUBLE:
        host.floats[i] = readRaw<double>(raw, i);
        break;
      case onnx::TensorProto::FLOAT16:
      case onnx::TensorProto::BFLOAT16:
        host.floats[i] = halfValue(dt, readRaw<uint16_t>(raw, i));
        break;
      case onnx::TensorProto::INT32:
        host.ints[i] = readRaw<int32_t>(raw, i);
        break;
      case onnx::TensorProto::INT64:
        host.ints[i] = readRaw<int64_t>(raw, i);
        break;
      case onnx::TensorProto::INT8:
        host.ints[i] = readRaw<int8_t>(raw, i);
        break;
      case onnx::TensorProto::UINT8:
        host.ints[i] = readRaw<uint8_t>(raw, i);
        break;
      default:
        host.ints[i] = raw[i] != 0;
        break;
      }
    }
    return host;
  }
  switch (dt) {
  case onnx::TensorProto::FLOAT:
    for (int64_t i = 0; i < n; ++i)
      host.floats[i] = tensor.float_data(i);
    break;
  case onnx::TensorProto::DOUBLE:
    for (int64_t i = 0; i < n; ++i)
      host.floats[i] = tensor.double_data(i);
    break;
  case onnx::TensorProto::INT64:
    for (int64_t i = 0; i < n; ++i)
      host.ints[i] = tensor.int64_data(i);
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    for (int64_t i = 0; i < n; ++i)
      host.floats[i] = halfValue(dt, uint16_t(tensor.int32_data(i)));
    break;
  default: // INT32, BOOL, INT8, UINT8: one int32 per element
    for (int64_t i = 0; i < n; ++i)
      host.ints[i] = dt == onnx::TensorProto::BOOL ? tensor.int32_data(i) != 0
                     : dt == onnx::TensorProto::INT8
                         ? int64_t(int8_t(tensor.int32_data(i)))
                     : dt == onnx::TensorProto::UINT8
                         ? int64_t(uint8_t(tensor.int32_data(i)))
                         : int64_t(tensor.int32_data(i));
    break;
  }
  return host;
}

/// The graph-IR type of an ONNX value type; null when not a ranked tensor of
/// a supported element type.
RankedTensorType typeFromProto(MLIRContext *context,
                               const onnx::TypeProto &type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return nullptr;
  Type elementType = elementTypeOf(context, type.tensor_type().elem_type());
  if (!elementType)
    return nullptr;
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim :
       type.tensor_type().shape().dim())
    shape.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                        ? dim.dim_value()
                        : ShapedType::kDynamic);
  return RankedTensorType::get(shape, elementType);
}

/// What a name in the ONNX graph stands for.
struct ValueEntry {
  Value value;                              // the graph value, once built
  std::optional<HostTensor> host;           // value known at import time
  const onnx::TensorProto *initializer = nullptr; // not yet converted
  // The initializer this entry holds, converted or not: a Loop body's
  // initializers are converted (and materialized) once, not per iteration.
  const onnx::TensorProto *fromInitializer = nullptr;
  std::string undefinedReason; // set for outputs a converter did not define
  std::string unknownOrigin;   // for partially known `host` values
};

class Importer final : public ImportContext {
public:
  /// Reads the file at `path`, or parses `*bytes` (named `path` in
  /// messages) when given.
  Importer(MLIRContext &context, std::string path,
           const std::map<std::string, std::vector<int64_t>> &inputShapes,
           const std::map<std::string, std::string> &inputValues,
           const std::vector<uint8_t> *bytes = nullptr)
      : mlirContext(context), b(&context), path(std::move(path)),
        inputShapes(inputShapes), inputValues(inputValues), givenBytes(bytes) {
    fileLoc = FileLineColLoc::get(&context, this->path, 0, 0);
  }

  OwningOpRef<ModuleOp> run(const std::string &moduleName);

  //===--- ImportContext ---------------------------------------------------===//
  OpBuilder &builder() override { return b; }
  const onnx::NodeProto &node() const override { return *currentNode; }
  int64_t opset() const override { return opsetVersion; }
  Location loc() const override { return currentLoc; }

  FailureOr<Value> input(int i) override;
  const HostTensor *constantInput(int i) override;
  const HostTensor *partialConstantInput(int i) override;
  std::string unknownOrigin(int i) override;
  RankedTensorType inputType(int i) override;
  FailureOr<HostTensor> attrTensor(llvm::StringRef name) override;
  void setOutput(int i, Value value) override;
  void setConstantOutput(int i, HostTensor value) override;
  void setPaddedRowsOutput(int i, Value value, Value count) override;
  FailureOr<Value> reshape(Value value, llvm::ArrayRef<int64_t> shape) override;
  Value cast(Value value, Type elementType) override;
  Value transpose(Value value, llvm::ArrayRef<int64_t> perm) override;
  Value constant(const HostTensor &value) override;
  LogicalResult unsupported(const llvm::Twine &what) override;
  LogicalResult invalid(const llvm::Twine &what) override;
  FailureOr<std::vector<SubgraphValue>>
  importSubgraph(llvm::StringRef name,
                 llvm::ArrayRef<SubgraphValue> inputs) override;

private:
  /// Refuses the first node of `graph` or its subgraphs with no converter.
  LogicalResult checkOpsSupported(const onnx::GraphProto &graph);
  /// Converts the nodes of `graph` in order into the entry function.
  LogicalResult convertNodes(const onnx::GraphProto &graph);
  /// "dynamic dimension 0 of 'x' [?, 3]" for input `i` of the current node.
  std::string dynamicDimsOf(int i);
  InFlightDiagnostic error(const llvm::Twine &message) {
    return emitError(fileLoc, message);
  }
  LogicalResult parseModel();
  LogicalResult checkOpset();
  LogicalResult validateGraph();
  /// Checks `graph` (the model's, or a subgraph named by `subgraphOf`) in
  /// the scope of the names in `defined`, adding those it defines.
  LogicalResult validateScope(const onnx::GraphProto &graph,
                              llvm::StringSet<> &defined,
                              llvm::StringRef subgraphOf);
  LogicalResult applyInputShapes();
  LogicalResult applyInputValues();
  void runShapeInference();
  FailureOr<ValueEntry *> lookup(const std::string &name);
  FailureOr<const HostTensor *> hostValue(ValueEntry &entry,
                                          const std::string &name);
  Value materialize(const HostTensor &value, llvm::StringRef nameHint);
  std::string uniqueSymbol(llvm::StringRef hint);
  std::string nodeName(const onnx::NodeProto &node, int index) const;
  /// The converter of `node`'s op (default domain only), or null.
  ConverterFn converterOf(const onnx::NodeProto &node) const;
  /// Refuses int8 / uint8 inputs of a node whose converter does not handle
  /// them (kEightBitOps).
  LogicalResult checkEightBitInputs(const onnx::NodeProto &node);
  void reportUnsupportedOp(const onnx::NodeProto &node, int index);

  MLIRContext &mlirContext;
  OpBuilder b;
  std::string path;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  std::map<std::string, std::string> inputValues;
  const std::vector<uint8_t> *givenBytes; // the model when not read from path
  Location fileLoc = UnknownLoc::get(&mlirContext);
  Location currentLoc = UnknownLoc::get(&mlirContext);
  onnx::ModelProto model;
  int64_t opsetVersion = 0;
  const onnx::NodeProto *currentNode = nullptr;
  int currentIndex = 0;
  ModuleOp module;
  func::FuncOp entry;
  llvm::StringMap<ValueEntry> values;
  llvm::StringMap<RankedTensorType> inferredTypes;
  llvm::StringSet<> symbols;
  ConverterTable converters;
  /// Values whose dim 0 is a data-dependent row count padded to its static
  /// size (NonMaxSuppression's output and what reads its rows apart).
  struct PaddedRows {
    Value count;           // scalar i64: the real row count
    std::string origin;    // the node that made the count
    std::string countName; // its graph output's name
    int64_t rows;          // the padded (static) row count
  };
  llvm::StringMap<PaddedRows> paddedRows;
  /// The padded rows node `node` reads (null when none), or a diagnostic
  /// when the node is not one that keeps them apart.
  FailureOr<const PaddedRows *> checkPaddedInputs(const onnx::NodeProto &node,
                                                  int index);
  /// Marks the outputs of a node that read padded rows, checking they keep
  /// them as their dimension 0.
  LogicalResult markPaddedOutputs(const onnx::NodeProto &node, int index,
                                  const PaddedRows &padded);
  int64_t subgraphNodes = 0; // converted by importSubgraph, in all
};

} // namespace

//===----------------------------------------------------------------------===//
// Reading and checking the model
//===----------------------------------------------------------------------===//

LogicalResult Importer::parseModel() {
  std::vector<uint8_t> fileBytes;
  std::string readError;
  if (!givenBytes &&
      !::tfcc::readBoundedFile(path, graph::kMaxOnnxFileBytes, "ONNX model",
                               fileBytes, readError))
    return error(readError);
  const std::vector<uint8_t> &bytes = givenBytes ? *givenBytes : fileBytes;
  if (bytes.empty())
    return error("cannot parse ONNX model '" + path + "': the file is empty");
  if (bytes.size() > size_t(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return error("cannot parse ONNX model '" + path +
                 "': not a valid ONNX protobuf (corrupt or truncated file)");
  if (!model.has_graph())
    return error("cannot parse ONNX model '" + path +
                 "': the model has no graph (corrupt or truncated file?)");
  return success();
}

LogicalResult Importer::checkOpset() {
  bool found = false;
  for (const onnx::OperatorSetIdProto &opsetId : model.opset_import()) {
    if (opsetId.domain().empty() || opsetId.domain() == "ai.onnx") {
      // Two versions leave each reader to pick one (ONNX's shape inference
      // and tfcc picked differently: an opset-6 GRU inferred as such crashed
      // libonnx, fuzz/onnx_import).
      if (found && opsetId.version() != opsetVersion)
        return error("cannot parse ONNX model '" + path +
                     "': it imports two versions of the default ONNX "
                     "domain (opsets " +
                     llvm::Twine(opsetVersion) + " and " +
                     llvm::Twine(opsetId.version()) + ")");
      opsetVersion = opsetId.version();
      found = true;
    }
  }
  if (!found)
    return error("cannot parse ONNX model '" + path +
                 "': it imports no version of the default ONNX domain");
  if (opsetVersion < tfcc::kMinOnnxOpset || opsetVersion > tfcc::kMaxOnnxOpset)
    return error("unsupported opset " + llvm::Twine(opsetVersion) +
                 " of the default ONNX domain (tfcc supports " +
                 llvm::Twine(tfcc::kMinOnnxOpset) + " to " +
                 llvm::Twine(tfcc::kMaxOnnxOpset) + ")");
  return success();
}

std::string Importer::nodeName(const onnx::NodeProto &node, int index) const {
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

/// Calls `fn` on each subgraph `node` holds (If's branches, Loop's and
/// Scan's bodies).
template <typename Fn>
void forEachSubgraph(const onnx::NodeProto &node, Fn fn) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      fn(attr.g());
    for (const onnx::GraphProto &g : attr.graphs())
      fn(g);
  }
}
template <typename Fn>
void forEachMutableSubgraph(onnx::NodeProto &node, Fn fn) {
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    if (attr.has_g())
      fn(*attr.mutable_g());
    for (onnx::GraphProto &g : *attr.mutable_graphs())
      fn(g);
  }
}

/// Adds to `reads` the names the nodes of `graph` (and of the subgraphs they
/// hold) read, and `graph`'s outputs, that `graph` does not define: what a
/// node holding `graph` reads implicitly from the enclosing scopes.
void collectOuterReads(const onnx::GraphProto &graph,
                       llvm::StringSet<> &reads) {
  llvm::StringSet<> local, inner;
  for (const onnx::TensorProto &init : graph.initializer())
    local.insert(init.name());
  for (const onnx::ValueInfoProto &in : graph.input())
    local.insert(in.name());
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &out : node.output())
      local.insert(out);
    for (const std::string &in : node.input())
      inner.insert(in);
    forEachSubgraph(
        node, [&](const onnx::GraphProto &g) { collectOuterReads(g, inner); });
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    inner.insert(out.name());
  for (const auto &name : inner.keys())
    if (!name.empty() && !local.contains(name))
      reads.insert(name);
}

/// The names `node` reads: its inputs and what its subgraphs read from
/// outside them.
llvm::StringSet<> namesRead(const onnx::NodeProto &node) {
  llvm::StringSet<> reads;
  for (const std::string &in : node.input())
    if (!in.empty())
      reads.insert(in);
  forEachSubgraph(
      node, [&](const onnx::GraphProto &g) { collectOuterReads(g, reads); });
  return reads;
}

/// Orders the nodes of `graph` (and of its subgraphs) so that each comes
/// after the nodes producing what it reads, as ONNX Runtime accepts graphs
/// out of order (a float16-converted ISNet is one). Stable: nodes already
/// in order keep it; nodes that read a name nothing produces, or that sit
/// on a cycle, keep their relative order at the end, where validation
/// reports them.
void sortNodes(onnx::GraphProto &graph) {
  int n = graph.node_size();
  for (onnx::NodeProto &node : *graph.mutable_node())
    forEachMutableSubgraph(node, [](onnx::GraphProto &g) { sortNodes(g); });
  llvm::StringMap<int> producer;
  for (int i = 0; i < n; ++i)
    for (const std::string &out : graph.node(i).output())
      if (!out.empty())
        producer.try_emplace(out, i);
  std::vector<std::vector<int>> users(n);
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    llvm::StringSet<> reads = namesRead(graph.node(i));
    for (const auto &name : reads.keys()) {
      auto it = producer.find(name);
      if (it == producer.end())
        continue;
      users[it->second].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<int> order;
  std::vector<bool> placed(n, false);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    placed[i] = true;
    for (int user : users[i])
      if (--pending[user] == 0)
        ready.push(user);
  }
  for (int i = 0; i < n; ++i)
    if (!placed[i])
      order.push_back(i);
  bool sorted = true;
  for (int i = 0; i < n; ++i)
    sorted &= order[i] == i;
  if (sorted)
    return;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> reordered;
  for (int i : order)
    reordered.Add()->Swap(graph.mutable_node(i));
  graph.mutable_node()->Swap(&reordered);
}

LogicalResult Importer::validateGraph() {
  llvm::StringSet<> defined;
  return validateScope(model.graph(), defined, /*subgraphOf=*/"");
}

LogicalResult Importer::validateScope(const onnx::GraphProto &graph,
                                      llvm::StringSet<> &defined,
                                      llvm::StringRef subgraphOf) {
  // What a subgraph defines is its own: removed from `defined` when done
  // (rather than validating it against a copy: one per If node).
  std::vector<std::string> added;
  auto assignOnce = [&](const std::string &name,
                        const std::string &who) -> LogicalResult {
    if (defined.insert(name).second) {
      added.push_back(name);
      return success();
    }
    return error(who + " defines '" + name +
                 "', which a graph input, initializer or earlier node "
                 "already defines (ONNX names are assigned once)");
  };
  if (graph.sparse_initializer_size() > 0)
    return error("cannot import ONNX model '" + path +
                 "': sparse initializers are not supported");
  for (const onnx::TensorProto &init : graph.initializer()) {
    if (init.name().empty())
      return error("cannot parse ONNX model '" + path +
                   "': an initializer has no name");
    // Before ONNX's shape inference, which reads the values of constant
    // inputs: an INT64 scalar stored as int32_data crashed it (a null
    // dereference in libonnx on Range; found by fuzz/onnx_import).
    std::string why;
    if (!checkTensorData(init, why)) {
      std::string reader;
      for (int index = 0; index < graph.node_size() && reader.empty(); ++index)
        for (const std::string &in : graph.node(index).input())
          if (in == init.name() && reader.empty())
            reader = " (read by " + graph.node(index).op_type() + " node '" +
                     nodeName(graph.node(index), index) + "')";
      return error("initializer '" + init.name() + "' " + why + reader);
    }
    if (!subgraphOf.empty() &&
        failed(
            assignOnce(init.name(), "an initializer of " + subgraphOf.str())))
      return failure();
    if (subgraphOf.empty())
      defined.insert(init.name());
  }
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (in.name().empty())
      return error("cannot parse ONNX model '" + path +
                   "': a graph input has no name");
    if (!subgraphOf.empty() &&
        failed(assignOnce(in.name(), "an input of " + subgraphOf.str())))
      return failure();
    // Checked again at import; here because ONNX's shape inference of an
    // EyeLike with a dtype read the type of an input that has none
    // (SIGSEGV inside libonnx, fuzz/onnx_import). An input that is also an
    // initializer takes the initializer's type.
    if (subgraphOf.empty() && !defined.contains(in.name()) &&
        !in.type().has_tensor_type())
      return error("graph input '" + in.name() + "' is not a tensor");
    if (subgraphOf.empty())
      defined.insert(in.name());
  }
  // Ranks known before shape inference (graph inputs and initializers).
  llvm::StringMap<int> knownRank;
  for (const onnx::TensorProto &init : graph.initializer())
    knownRank[init.name()] = init.dims_size();
  for (const onnx::ValueInfoProto &in : graph.input())
    if (in.type().has_tensor_type() && in.type().tensor_type().has_shape())
      knownRank[in.name()] = in.type().tensor_type().shape().dim_size();
  llvm::StringSet<> produced;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &out : node.output())
      produced.insert(out);
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto &node = graph.node(index);
    // ONNX's shape inference indexes the weight's dims by the input's rank:
    // a Conv (and a ConvInteger, a ConvTranspose) whose weight has another
    // rank crashed inside libonnx (found by fuzz/onnx_import).
    const std::string &op = node.op_type();
    int weightInput =
        op == "Conv" || op == "ConvInteger" || op == "ConvTranspose" ? 1
        : op == "QLinearConv"                                        ? 3
                                                                     : -1;
    if (weightInput > 0 && node.input_size() > weightInput) {
      auto x = knownRank.find(node.input(0));
      auto w = knownRank.find(node.input(weightInput));
      if (x != knownRank.end() && w != knownRank.end() &&
          x->second != w->second)
        return error("node '" + nodeName(node, index) + "' (" + op +
                     ") has an input of rank " + llvm::Twine(x->second) +
                     " and a weight of rank " + llvm::Twine(w->second) +
                     ": they must be equal");
    }
    // ... and LayerNormalization's an axis below -rank (its Mean's shape
    // written from there: SIGSEGV, fuzz/onnx_import). Of the axis attributes
    // of 40 ops tried at +-1.6e9, -rank-1 and rank, only this one crashed.
    if (op == "LayerNormalization" && node.input_size() > 0)
      if (auto x = knownRank.find(node.input(0)); x != knownRank.end())
        for (const onnx::AttributeProto &attr : node.attribute())
          if (attr.name() == "axis" &&
              (attr.i() < -x->second || attr.i() >= x->second))
            return error("node '" + nodeName(node, index) + "' (" + op +
                         ") has axis " + llvm::Twine(attr.i()) +
                         " for an input of rank " + llvm::Twine(x->second));
    // ... and the leading inputs of ops whose old inference (opset 6 and
    // before: Gemm, RNN, GRU, LSTM) read their dims unchecked: a rank
    // other than ONNX's crashed it (SIGSEGV, fuzz/onnx_import). Ranks 0, 1
    // and 5 given to each input of 46 ops through the harness crashed only
    // these.
    for (const InferenceRanks &rule : kInferenceRanks)
      if (op == rule.op && opsetVersion < 7)
        for (int i = 0;
             i < std::min<int>(node.input_size(), rule.inputs.size()); ++i)
          if (auto r = knownRank.find(node.input(i));
              r != knownRank.end() && r->second != rule.rank)
            return error("node '" + nodeName(node, index) + "' (" + op +
                         ") has " + llvm::Twine(rule.inputs[i]) + " of rank " +
                         llvm::Twine(r->second) + ": it must be " +
                         llvm::Twine(rule.rank));
    if (node.op_type().empty())
      return error("cannot parse ONNX model '" + path + "': node " +
                   llvm::Twine(index) + " ('" + node.name() +
                   "') has no op_type");
    // Nodes were sorted (sortNodes): a name read before it is defined is
    // defined nowhere or only on a cycle.
    llvm::StringSet<> reads = namesRead(node);
    for (const auto &in : reads.keys())
      if (!defined.contains(in))
        return error("node '" + nodeName(node, index) + "' (" + node.op_type() +
                     ") reads '" + in.str() + "', which " +
                     (produced.contains(in)
                          ? std::string("only a node on a cycle defines (the "
                                        "graph has a cycle)")
                          : std::string("no graph input, initializer or node "
                                        "defines")));
    // ONNX's shape inference (run next) divides by these: a zero there
    // killed the importer with SIGFPE inside libonnx.
    for (const onnx::AttributeProto &attr : node.attribute()) {
      llvm::StringRef name = attr.name();
      bool positiveInts = name == "strides" || name == "dilations" ||
                          name == "kernel_shape";
      bool positiveInt = name == "group" || name == "blocksize";
      // Whatever the declared type (libonnx reads the field regardless).
      if (positiveInts &&
          llvm::any_of(attr.ints(), [](int64_t v) { return v < 1; }))
        return error("node '" + nodeName(node, index) + "' (" +
                     node.op_type() + ") has " + attr.name() + " " +
                     formatInts(llvm::to_vector(attr.ints())) +
                     ": each must be at least 1");
      if (positiveInt && attr.has_i() && attr.i() < 1)
        return error("node '" + nodeName(node, index) + "' (" +
                     node.op_type() + ") has " + attr.name() + " " +
                     llvm::Twine(attr.i()) + ": it must be at least 1");
    }
    // Subgraphs see the names defined so far; what they define stays
    // theirs.
    for (const onnx::AttributeProto &attr : node.attribute()) {
      std::string owner = "the " + attr.name() + " of " + node.op_type() +
                          " node '" + nodeName(node, index) + "'";
      auto validateSubgraph = [&](const onnx::GraphProto &g) {
        return validateScope(g, defined, owner);
      };
      if (attr.has_g() && failed(validateSubgraph(attr.g())))
        return failure();
      for (const onnx::GraphProto &g : attr.graphs())
        if (failed(validateSubgraph(g)))
          return failure();
    }
    // ONNX graphs are in SSA form: a name is defined once.
    for (const std::string &out : node.output())
      if (!out.empty() &&
          failed(assignOnce(out, "node '" + nodeName(node, index) + "' (" +
                                     node.op_type() + ")")))
        return failure();
  }
  if (graph.output_size() == 0)
    return subgraphOf.empty() ? error("cannot import ONNX model '" + path +
                                      "': the graph has no outputs")
                              : error(subgraphOf + " has no outputs");
  for (const onnx::ValueInfoProto &out : graph.output())
    if (!defined.contains(out.name()))
      return subgraphOf.empty() ? error("cannot parse ONNX model '" + path +
                                        "': graph output '" + out.name() +
                                        "' is never defined")
                                : error("output '" + out.name() + "' of " +
                                        subgraphOf + " is never defined");
  if (!subgraphOf.empty())
    for (const std::string &name : added)
      defined.erase(name);
  return success();
}

/// Pins the dims of the graph inputs named in `inputShapes` (-1 keeps a dim
/// dynamic), before ONNX shape inference so that it sees them.
LogicalResult Importer::applyInputShapes() {
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &[name, dims] : inputShapes) {
    onnx::ValueInfoProto *input = nullptr;
    for (onnx::ValueInfoProto &in : *graph.mutable_input())
      if (in.name() == name && !initializers.contains(name))
        input = &in;
    std::string shape;
    for (auto [i, d] : llvm::enumerate(dims))
      shape += (i ? "x" : "") + (d < 0 ? std::string("?") : std::to_string(d));
    if (!input) {
      std::string names;
      for (const onnx::ValueInfoProto &in : graph.input())
        if (!initializers.contains(in.name()))
          names += (names.empty() ? "'" : ", '") + in.name() + "'";
      return error("input shape " + name + "=" + shape +
                   ": the model has no graph input '" + name +
                   "' (its inputs: " + names + ")");
    }
    if (!input->type().has_tensor_type())
      return error("input shape " + name + "=" + shape + ": graph input '" +
                   name + "' is not a tensor");
    onnx::TypeProto_Tensor *tensor =
        input->mutable_type()->mutable_tensor_type();
    if (tensor->has_shape() &&
        tensor->shape().dim_size() != static_cast<int>(dims.size()))
      return error("input shape " + name + "=" + shape + " has rank " +
                   llvm::Twine(dims.size()) + " but graph input '" + name +
                   "' has rank " + llvm::Twine(tensor->shape().dim_size()));
    if (!tensor->has_shape())
      for (size_t i = 0; i < dims.size(); ++i)
        tensor->mutable_shape()->add_dim();
    for (auto [i, d] : llvm::enumerate(dims)) {
      onnx::TensorShapeProto::Dimension *dim =
          tensor->mutable_shape()->mutable_dim(i);
      if (d < 0)
        continue;
      if (dim->has_dim_value() && dim->dim_value() != d)
        return error("input shape " + name + "=" + shape + " sets dimension " +
                     llvm::Twine(i) + " to " + llvm::Twine(d) +
                     " but graph input '" + name + "' has the static size " +
                     llvm::Twine(dim->dim_value()) + " there");
      dim->set_dim_value(d);
    }
  }
  return success();
}

/// Turns the graph inputs named in `inputValues` into initializers filled
/// with that value (after applyInputShapes, so the shape may come from it).
LogicalResult Importer::applyInputValues() {
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &[name, text] : inputValues) {
    std::string what = "input value " + name + "=" + text;
    const onnx::ValueInfoProto *input = nullptr;
    for (const onnx::ValueInfoProto &in : graph.input())
      if (in.name() == name && !initializers.contains(name))
        input = &in;
    if (!input || !input->type().has_tensor_type())
      return error(what + ": the model has no tensor graph input '" + name +
                   "'");
    const onnx::TypeProto_Tensor &tensor = input->type().tensor_type();
    onnx::TensorProto value;
    value.set_name(name);
    value.set_data_type(tensor.elem_type());
    int64_t count = 1;
    for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
      if (!dim.has_dim_value())
        return error(what + ": graph input '" + name +
                     "' has a dynamic dimension (pin it with --input-shape)");
      value.add_dims(dim.dim_value());
      count *= dim.dim_value();
    }
    if (count > kMaxFoldedElements)
      return error(what + ": graph input '" + name + "' has more than " +
                   llvm::Twine(kMaxFoldedElements) + " elements");
    llvm::StringRef number(text);
    int64_t integer;
    double real;
    switch (tensor.elem_type()) {
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
      if (number.getAsInteger(10, integer) ||
          (tensor.elem_type() == onnx::TensorProto::INT32 &&
           integer != static_cast<int32_t>(integer)))
        return error(what + ": not an integer of graph input '" + name +
                     "''s type");
      for (int64_t i = 0; i < count; ++i) {
        if (tensor.elem_type() == onnx::TensorProto::INT64)
          value.add_int64_data(integer);
        else
          value.add_int32_data(static_cast<int32_t>(integer));
      }
      break;
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
      if (number.getAsDouble(real))
        return error(what + ": not a number");
      for (int64_t i = 0; i < count; ++i) {
        if (tensor.elem_type() == onnx::TensorProto::FLOAT)
          value.add_float_data(static_cast<float>(real));
        else
          value.add_double_data(real);
      }
      break;
    default:
      return error(what + ": graph input '" + name +
                   "' is not float, double, int32 or int64");
    }
    *graph.add_initializer() = std::move(value);
  }
  return success();
}

void Importer::runShapeInference() {
  auto record = [&](const onnx::ValueInfoProto &info) {
    if (!info.has_type())
      return;
    if (RankedTensorType type = typeFromProto(&mlirContext, info.type()))
      inferredTypes[info.name()] = type;
  };
  for (const onnx::ValueInfoProto &info : model.graph().output())
    record(info);
  // libonnx applies the newest schema it knows to a node of a newer opset:
  // for ops whose signature changed since (Split's num_outputs, Resize's
  // axes) that infers wrong shapes, and its inference has crashed on inputs
  // it did not expect. The converters need only the types of the values
  // they build, so a model newer than libonnx goes without.
  const auto &ranges =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto known = ranges.find(onnx::ONNX_DOMAIN);
  if (known == ranges.end() || opsetVersion > known->second.second)
    return;
  onnx::ModelProto inferred = model;
  try {
    onnx::shape_inference::InferShapes(inferred);
  } catch (const std::exception &) {
    // Continue without: converters then rely on the types of built values.
  } catch (...) {
  }
  for (const onnx::ValueInfoProto &info : inferred.graph().value_info())
    record(info);
  for (const onnx::ValueInfoProto &info : inferred.graph().output())
    record(info);
  for (const onnx::ValueInfoProto &info : model.graph().output())
    record(info);
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

std::string Importer::uniqueSymbol(llvm::StringRef hint) {
  std::string base = sanitize(hint), name = base;
  for (int n = 1; symbols.contains(name) || name == "predict"; ++n)
    name = base + "_" + std::to_string(n);
  symbols.insert(name);
  return name;
}

Value Importer::materialize(const HostTensor &value, llvm::StringRef nameHint) {
  RankedTensorType type = value.type();
  Type elementType = value.elementType;
  // Small tensors and booleans inline; larger ones become variables whose
  // value lives in a dense_resource blob.
  if (value.numElements() <= 16 || elementType.isInteger(1)) {
    DenseElementsAttr attr;
    if (elementType.isF32()) {
      std::vector<float> data(value.floats.begin(), value.floats.end());
      attr = DenseElementsAttr::get(type, llvm::ArrayRef<float>(data));
    } else if (elementType.isF64()) {
      attr = DenseElementsAttr::get(type, llvm::ArrayRef<double>(value.floats));
    } else if (elementType.isF16() || elementType.isBF16()) {
      const llvm::fltSemantics &format =
          llvm::cast<FloatType>(elementType).getFloatSemantics();
      SmallVector<APFloat> data;
      for (double v : value.floats)
        data.push_back(APFloat(format, APInt(16, graph::halfBits(format, v))));
      attr = DenseElementsAttr::get(type, data);
    } else if (elementType.isInteger(32)) {
      std::vector<int32_t> data(value.ints.begin(), value.ints.end());
      attr = DenseElementsAttr::get(type, llvm::ArrayRef<int32_t>(data));
    } else if (elementType.isInteger(64)) {
      attr = DenseElementsAttr::get(type, llvm::ArrayRef<int64_t>(value.ints));
    } else if (elementType.isInteger(8)) {
      SmallVector<APInt> data;
      for (int64_t v : value.ints)
        data.push_back(APInt(8, static_cast<uint8_t>(v)));
      attr = DenseElementsAttr::get(type, data);
    } else {
      SmallVector<bool> data;
      for (int64_t v : value.ints)
        data.push_back(v != 0);
      attr = DenseElementsAttr::get(type, llvm::ArrayRef<bool>(data));
    }
    return b.create<graph::ConstantOp>(currentLoc, type, attr);
  }
  std::vector<char> bytes;
  size_t alignment = 4;
  auto append = [&](const void *data, size_t size) {
    const char *p = static_cast<const char *>(data);
    bytes.insert(bytes.end(), p, p + size);
  };
  if (elementType.isF32()) {
    for (double v : value.floats) {
      float f = static_cast<float>(v);
      append(&f, sizeof f);
    }
  } else if (elementType.isF64()) {
    append(value.floats.data(), value.floats.size() * sizeof(double));
    alignment = 8;
  } else if (elementType.isF16() || elementType.isBF16()) {
    const llvm::fltSemantics &format =
        llvm::cast<FloatType>(elementType).getFloatSemantics();
    for (double v : value.floats) {
      uint16_t bits = graph::halfBits(format, v);
      append(&bits, sizeof bits);
    }
  } else if (elementType.isInteger(32)) {
    for (int64_t v : value.ints) {
      int32_t i = static_cast<int32_t>(v);
      append(&i, sizeof i);
    }
  } else if (elementType.isInteger(8)) {
    for (int64_t v : value.ints) {
      uint8_t i = static_cast<uint8_t>(v);
      append(&i, sizeof i);
    }
  } else {
    append(value.ints.data(), value.ints.size() * sizeof(int64_t));
    alignment = 8;
  }
  return graph::createWeightVariable(
      b, entry, NameLoc::get(b.getStringAttr(nameHint), fileLoc), currentLoc,
      uniqueSymbol(nameHint), type, bytes, alignment);
}

FailureOr<ValueEntry *> Importer::lookup(const std::string &name) {
  auto it = values.find(name);
  if (it == values.end())
    return failure();
  return &it->second;
}

FailureOr<const HostTensor *> Importer::hostValue(ValueEntry &entry,
                                                  const std::string &name) {
  if (entry.host)
    return &*entry.host;
  if (!entry.initializer)
    return static_cast<const HostTensor *>(nullptr);
  std::string message;
  FailureOr<HostTensor> converted =
      convertTensor(&mlirContext, *entry.initializer, message);
  if (failed(converted)) {
    InFlightDiagnostic diag = emitError(currentLoc);
    diag << "initializer '" << name << "' " << message;
    if (currentNode)
      diag << " (read by " << currentNode->op_type() << " node '"
           << nodeName(*currentNode, currentIndex) << "', opset "
           << opsetVersion << ")";
    return failure();
  }
  entry.host = std::move(*converted);
  entry.initializer = nullptr;
  return &*entry.host;
}

FailureOr<Value> Importer::input(int i) {
  if (!hasInput(i)) {
    emitError(currentLoc) << currentNode->op_type() << " node '"
                          << nodeName(*currentNode, currentIndex)
                          << "' has no input " << i
                          << " (opset " << opsetVersion << ")";
    return failure();
  }
  const std::string &name = node().input(i);
  FailureOr<ValueEntry *> entry = lookup(name);
  if (failed(entry)) {
    emitError(currentLoc) << "value '" << name << "' is not defined";
    return failure();
  }
  ValueEntry &e = **entry;
  if (e.value)
    return e.value;
  if (!e.undefinedReason.empty()) {
    emitError(currentLoc) << e.undefinedReason;
    return failure();
  }
  FailureOr<const HostTensor *> host = hostValue(e, name);
  if (failed(host) || !*host)
    return failure();
  if ((*host)->hasUnknowns())
    return unsupported("value '" + name + "' derived from " + e.unknownOrigin +
                       " is needed at run time (only shape computations "
                       "folded at import time may use it)");
  // Materialized at the first use, named after the initializer; the value
  // dominates later uses since the function has one block.
  e.value = materialize(**host, name);
  return e.value;
}

const HostTensor *Importer::constantInput(int i) {
  const HostTensor *t = partialConstantInput(i);
  return t && !t->hasUnknowns() ? t : nullptr;
}

std::string Importer::unknownOrigin(int i) {
  if (!hasInput(i))
    return "";
  FailureOr<ValueEntry *> entry = lookup(node().input(i));
  return failed(entry) ? "" : (*entry)->unknownOrigin;
}

const HostTensor *Importer::partialConstantInput(int i) {
  if (!hasInput(i))
    return nullptr;
  const std::string &name = node().input(i);
  FailureOr<ValueEntry *> entry = lookup(name);
  if (failed(entry))
    return nullptr;
  ValueEntry &e = **entry;
  if (e.host)
    return &*e.host;
  if (!e.initializer)
    return nullptr;
  // Unsupported element types stay unconverted; input(i) reports them.
  std::string message;
  FailureOr<HostTensor> converted =
      convertTensor(&mlirContext, *e.initializer, message);
  if (failed(converted))
    return nullptr;
  e.host = std::move(*converted);
  e.initializer = nullptr;
  return &*e.host;
}

RankedTensorType Importer::inputType(int i) {
  if (!hasInput(i))
    return nullptr;
  const std::string &name = node().input(i);
  FailureOr<ValueEntry *> entry = lookup(name);
  if (failed(entry))
    return nullptr;
  ValueEntry &e = **entry;
  if (e.value)
    return dyn_cast<RankedTensorType>(e.value.getType());
  if (e.host)
    return e.host->type();
  if (e.initializer) {
    Type elementType =
        elementTypeOf(&mlirContext, e.initializer->data_type());
    if (!elementType)
      return nullptr;
    SmallVector<int64_t> shape(e.initializer->dims().begin(),
                               e.initializer->dims().end());
    return RankedTensorType::get(shape, elementType);
  }
  auto it = inferredTypes.find(name);
  return it == inferredTypes.end() ? nullptr : it->second;
}

FailureOr<HostTensor> Importer::attrTensor(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a || !a->has_t()) {
    emitError(currentLoc) << currentNode->op_type() << " node '"
                          << nodeName(*currentNode, currentIndex)
                          << "' has no tensor attribute '"
                          << name << "' (opset " << opsetVersion << ")";
    return failure();
  }
  std::string message;
  FailureOr<HostTensor> converted = convertTensor(&mlirContext, a->t(), message);
  if (failed(converted)) {
    (void)unsupported("tensor attribute '" + name + "' that " + message);
    return failure();
  }
  return converted;
}

void Importer::setOutput(int i, Value value) {
  if (!hasOutput(i))
    return;
  ValueEntry &e = values[node().output(i)];
  e = ValueEntry();
  e.value = value;
}

void Importer::setPaddedRowsOutput(int i, Value value, Value count) {
  if (!hasOutput(i))
    return;
  setOutput(i, value);
  paddedRows[node().output(i)] = PaddedRows{
      count, nodeName(node(), currentIndex), node().output(i) + "_count",
      llvm::cast<RankedTensorType>(value.getType()).getDimSize(0)};
}

FailureOr<const Importer::PaddedRows *>
Importer::checkPaddedInputs(const onnx::NodeProto &node, int index) {
  const PaddedRows *found = nullptr;
  int which = -1, count = 0;
  for (int i = 0; i < node.input_size(); ++i) {
    auto it = paddedRows.find(node.input(i));
    if (node.input(i).empty() || it == paddedRows.end())
      continue;
    if (!found)
      which = i;
    found = &it->second;
    ++count;
  }
  if (!found)
    return static_cast<const PaddedRows *>(nullptr);
  const std::string &op = node.op_type();
  bool keepsRows = false;
  if (count == 1 && op == "Gather") {
    // Rows of the data stay rows when another axis is gathered; indices
    // with padded rows give rows when they index axis 0.
    RankedTensorType data = inputType(0);
    int64_t axis = attrInt("axis", 0);
    if (data && axis < 0)
      axis += data.getRank();
    keepsRows = data && (which == 0 ? axis != 0 : axis == 0);
  } else if (count == 1 && which == 0) {
    keepsRows = op == "Slice" || op == "Squeeze" || op == "Unsqueeze" ||
                op == "Cast" || op == "Identity";
  }
  if (keepsRows)
    return found;
  emitError(currentLoc)
      << "unsupported " << op << " node '" << nodeName(node, index)
      << "' reading '" << node.input(which) << "', whose " << found->rows
      << " rows are padded (NonMaxSuppression node '" << found->origin
      << "' counts the real ones at run time): only Gather, Slice, Squeeze, "
         "Unsqueeze, Cast and Identity may read such rows, keeping them "
         "apart (docs/onnx.md, NonMaxSuppression)";
  return failure();
}

LogicalResult Importer::markPaddedOutputs(const onnx::NodeProto &node,
                                          int index, const PaddedRows &padded) {
  PaddedRows copy = padded;
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    ValueEntry &e = values[node.output(i)];
    auto type = e.value ? dyn_cast<RankedTensorType>(e.value.getType())
                        : RankedTensorType();
    if (!type || type.getRank() < 1 || type.getDimSize(0) != copy.rows) {
      emitError(currentLoc)
          << "unsupported " << node.op_type() << " node '"
          << nodeName(node, index) << "': its output '" << node.output(i)
          << "' does not keep the " << copy.rows
          << " padded rows of NonMaxSuppression node '" << copy.origin
          << "' as its dimension 0 (docs/onnx.md, NonMaxSuppression)";
      return failure();
    }
    paddedRows[node.output(i)] = copy;
  }
  return success();
}

void Importer::setConstantOutput(int i, HostTensor value) {
  if (!hasOutput(i))
    return;
  std::string origin;
  if (value.hasUnknowns()) {
    for (int k = 0; k < numInputs() && origin.empty(); ++k)
      origin = unknownOrigin(k);
    if (origin.empty())
      origin = dynamicDimsOf(0);
  }
  ValueEntry &e = values[node().output(i)];
  e = ValueEntry();
  e.host = std::move(value);
  e.unknownOrigin = std::move(origin);
}

std::string Importer::dynamicDimsOf(int i) {
  RankedTensorType type = inputType(i);
  if (!hasInput(i) || !type)
    return "a dynamic dimension";
  std::string dims, shape;
  int n = 0;
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    shape += (d ? ", " : "") +
             (ShapedType::isDynamic(size) ? std::string("?")
                                          : std::to_string(size));
    if (ShapedType::isDynamic(size)) {
      dims += (n ? ", " : "") + std::to_string(d);
      ++n;
    }
  }
  return (n == 1 ? "dynamic dimension " : "dynamic dimensions ") + dims +
         " of '" + node().input(i) + "' [" + shape + "]";
}

FailureOr<Value> Importer::reshape(Value value, llvm::ArrayRef<int64_t> shape) {
  auto inType = llvm::cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> result;
  int64_t known = 1;
  int dynamicIndex = -1;
  // Several unknown dims: each carries one of the input's dynamic dims, in
  // order (an unsqueeze or squeeze around them; the graph IR's rule).
  SmallVector<int64_t> withUnknowns;
  for (int64_t d : shape)
    withUnknowns.push_back(d == -1 ? ShapedType::kDynamic : d);
  if (graph::isOrderPreservingReshape(inType.getShape(), withUnknowns)) {
    auto op = b.create<graph::ReshapeOp>(
        currentLoc, RankedTensorType::get(withUnknowns, inType.getElementType()),
        value);
    if (failed(verify(op))) {
      op->erase();
      return failure();
    }
    return op.getResult();
  }
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1 || ShapedType::isDynamic(d)) {
      if (dynamicIndex >= 0) {
        emitError(currentLoc) << "cannot reshape " << inType
                              << " to a shape with more than one unknown "
                                 "dimension (unless the input has as many, "
                                 "with the static dimensions around them "
                                 "agreeing)";
        return failure();
      }
      dynamicIndex = static_cast<int>(i);
      result.push_back(ShapedType::kDynamic);
      continue;
    }
    if (d < 0) {
      emitError(currentLoc) << "cannot reshape " << inType
                            << " to a negative dimension " << d;
      return failure();
    }
    // The target comes from the file's data: its product may pass int64.
    std::optional<int64_t> product = graph::checkedBytesProduct(known, d);
    if (!product) {
      emitError(currentLoc)
          << "cannot reshape " << inType << " to a shape of more than "
          << graph::kMaxTensorBytes << " elements (dimension " << i << " is "
          << d << ")";
      return failure();
    }
    known = *product;
    result.push_back(d);
  }
  if (inType.hasStaticShape()) {
    int64_t total = inType.getNumElements();
    if (dynamicIndex >= 0 && known != 0 && total % known == 0)
      result[dynamicIndex] = total / known;
    if ((dynamicIndex < 0 || known == 0) && known != total) {
      emitError(currentLoc) << "cannot reshape " << inType << " ("
                            << total << " elements) to "
                            << RankedTensorType::get(result,
                                                     inType.getElementType());
      return failure();
    }
  }
  auto type = RankedTensorType::get(result, inType.getElementType());
  if (type == inType)
    return value;
  auto op = b.create<graph::ReshapeOp>(currentLoc, type, value);
  if (failed(verify(op))) {
    op->erase();
    return failure();
  }
  return op.getResult();
}

Value Importer::cast(Value value, Type elementType) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return b.create<graph::CastOp>(currentLoc, type.clone(elementType), value);
}

Value Importer::transpose(Value value, llvm::ArrayRef<int64_t> perm) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  bool identity = true;
  SmallVector<int64_t> shape;
  for (auto [i, p] : llvm::enumerate(perm)) {
    identity &= p == static_cast<int64_t>(i);
    shape.push_back(type.getDimSize(p));
  }
  if (identity)
    return value;
  return b.create<graph::TransposeOp>(
      currentLoc, RankedTensorType::get(shape, type.getElementType()), value,
      b.getI64ArrayAttr(perm));
}

Value Importer::constant(const HostTensor &value) {
  return materialize(value, nodeName(*currentNode, currentIndex) + "_const");
}

LogicalResult Importer::unsupported(const llvm::Twine &what) {
  return emitError(currentLoc)
         << "unsupported " << what << " in " << currentNode->op_type()
         << " node '" << nodeName(*currentNode, currentIndex) << "' (opset "
         << opsetVersion << ")";
}

LogicalResult Importer::invalid(const llvm::Twine &what) {
  return emitError(currentLoc)
         << "invalid " << what << " in " << currentNode->op_type()
         << " node '" << nodeName(*currentNode, currentIndex) << "' (opset "
         << opsetVersion << ")";
}

//===----------------------------------------------------------------------===//
// The import
//===----------------------------------------------------------------------===//

/// The ops whose converters take int8 and uint8 inputs: quantization, casts,
/// data movement, elementwise integer arithmetic and comparisons, and max
/// pooling (QOperator models pool uint8 data; 1-D and 2-D, refused in 3-D)
/// (the graph ops that lower ui8 as unsigned, docs/quantization.md).
// clang-format off
constexpr llvm::StringLiteral kEightBitOps[] = {
    "QuantizeLinear", "DequantizeLinear", "MatMulInteger", "QLinearMatMul",
    "ConvInteger", "QLinearConv", "MaxPool",
    "Cast", "Identity", "Reshape",
    "Flatten", "Transpose", "Concat", "Split", "Slice", "Squeeze", "Unsqueeze",
    "Gather", "Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Neg", "Abs",
    "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Where",
    "Shape", "Size", "Expand", "Tile"};
// clang-format on

LogicalResult Importer::checkEightBitInputs(const onnx::NodeProto &node) {
  if (llvm::is_contained(kEightBitOps, node.op_type()))
    return success();
  for (int i = 0; i < node.input_size(); ++i) {
    RankedTensorType type = hasInput(i) ? inputType(i) : nullptr;
    if (type && type.getElementType().isInteger(8))
      return unsupported(
          (type.getElementType().isUnsignedInteger() ? "uint8" : "int8") +
          llvm::Twine(" input '") + node.input(i) +
          "' (tfcc takes 8-bit inputs in quantization, casts, data "
          "movement, elementwise arithmetic and max pooling only)");
  }
  return success();
}

ConverterFn Importer::converterOf(const onnx::NodeProto &node) const {
  const std::string &domain = node.domain();
  if (!domain.empty() && domain != "ai.onnx")
    return nullptr;
  auto it = converters.find(node.op_type());
  return it == converters.end() ? nullptr : it->second;
}

void Importer::reportUnsupportedOp(const onnx::NodeProto &node, int index) {
  const std::string &domain = node.domain();
  bool defaultDomain = domain.empty() || domain == "ai.onnx";
  std::string op =
      defaultDomain ? node.op_type() : domain + "." + node.op_type();
  emitError(NameLoc::get(b.getStringAttr(nodeName(node, index)), fileLoc))
      << "unsupported op '" << op << "' in node '" << nodeName(node, index)
      << "' (opset " << opsetVersion << ")";
}

LogicalResult Importer::checkOpsSupported(const onnx::GraphProto &graph) {
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto &node = graph.node(index);
    if (!converterOf(node)) {
      reportUnsupportedOp(node, index);
      return failure();
    }
    LogicalResult inner = success();
    forEachSubgraph(node, [&](const onnx::GraphProto &g) {
      if (succeeded(inner))
        inner = checkOpsSupported(g);
    });
    if (failed(inner))
      return failure();
  }
  return success();
}

LogicalResult Importer::convertNodes(const onnx::GraphProto &graph) {
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto &node = graph.node(index);
    currentNode = &node;
    currentIndex = index;
    currentLoc = NameLoc::get(b.getStringAttr(nodeName(node, index)), fileLoc);
    ConverterFn convert = converterOf(node); // checked before: never null
    FailureOr<const PaddedRows *> padded = checkPaddedInputs(node, index);
    if (!convert || failed(padded) || failed(checkEightBitInputs(node)) ||
        failed(convert(*this)))
      return failure();
    if (*padded && failed(markPaddedOutputs(node, index, **padded)))
      return failure();
    // Outputs the converter left undefined fail when something reads them.
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty())
        continue;
      ValueEntry &e = values[node.output(i)];
      if (e.value || e.host)
        continue;
      e.initializer = nullptr;
      e.undefinedReason = "unsupported output " + std::to_string(i) + " ('" +
                          node.output(i) + "') of " + node.op_type() +
                          " node '" + nodeName(node, index) + "' (opset " +
                          std::to_string(opsetVersion) + ")";
    }
  }
  return success();
}

FailureOr<std::vector<ImportContext::SubgraphValue>>
Importer::importSubgraph(llvm::StringRef name,
                         llvm::ArrayRef<SubgraphValue> inputs) {
  const onnx::AttributeProto *a = attr(name);
  if (!a || !a->has_g())
    return invalid("missing graph attribute '" + name + "'");
  const onnx::GraphProto &graph = a->g();
  if (graph.input_size() != static_cast<int>(inputs.size()))
    return invalid("graph attribute '" + name + "' with " +
                   llvm::Twine(graph.input_size()) + " inputs for " +
                   llvm::Twine(inputs.size()) + " values");
  subgraphNodes += graph.node_size();
  if (subgraphNodes > kMaxSubgraphNodes)
    return unsupported("model whose subgraphs (If branches, Loop bodies "
                       "once per iteration) expand to more than " +
                       llvm::Twine(kMaxSubgraphNodes) + " nodes");
  const onnx::NodeProto *node = currentNode;
  int index = currentIndex;
  Location loc = currentLoc;
  for (const onnx::TensorProto &init : graph.initializer()) {
    ValueEntry &e = values[init.name()];
    if (e.fromInitializer == &init)
      continue;
    e = ValueEntry();
    e.initializer = &init;
    e.fromInitializer = &init;
  }
  for (auto [input, bound] : llvm::zip(graph.input(), inputs)) {
    ValueEntry &e = values[input.name()];
    e = ValueEntry();
    e.value = bound.value;
    e.host = bound.host;
  }
  LogicalResult converted = convertNodes(graph);
  currentNode = node;
  currentIndex = index;
  currentLoc = loc;
  if (failed(converted))
    return failure();
  std::vector<SubgraphValue> outputs;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    ValueEntry &e = values[out.name()];
    if (!e.value && !e.undefinedReason.empty()) {
      emitError(currentLoc) << "output '" << out.name() << "' of '" << name
                            << "': " << e.undefinedReason;
      return failure();
    }
    SubgraphValue output;
    output.value = e.value;
    if (!e.value) {
      FailureOr<const HostTensor *> host = hostValue(e, out.name());
      if (failed(host))
        return failure();
      if (!*host)
        return invalid("output '" + out.name() + "' of '" + name +
                       "' that is never defined");
      output.host = **host;
    }
    outputs.push_back(std::move(output));
  }
  return outputs;
}

OwningOpRef<ModuleOp> Importer::run(const std::string &moduleName) {
  if (failed(parseModel()) || failed(checkOpset()))
    return nullptr;
  sortNodes(*model.mutable_graph());
  if (failed(validateGraph()) || failed(applyInputShapes()) ||
      failed(applyInputValues()))
    return nullptr;
  registerElementwiseConverters(converters);
  registerNNConverters(converters);
  registerShapeConverters(converters);
  registerReductionConverters(converters);
  registerActivationConverters(converters);
  registerLossConverters(converters);
  registerMaskConverters(converters);
  registerRecurrentConverters(converters);
  registerDetectionConverters(converters);
  registerEinsumConverters(converters);
  registerScatterConverters(converters);
  registerQuantizationConverters(converters);
  registerControlFlowConverters(converters);
  // Unsupported ops are refused before ONNX's shape inference sees them: it
  // crashed (a null dereference in libonnx) on a ConvTranspose whose weight
  // has rank 2 (found by fuzz/onnx_import).
  if (failed(checkOpsSupported(model.graph())))
    return nullptr;
  runShapeInference();

  const onnx::GraphProto &graph = model.graph();
  std::string name = moduleName.empty()
                         ? sanitize(llvm::sys::path::stem(path))
                         : moduleName;
  OwningOpRef<ModuleOp> owned(ModuleOp::create(fileLoc, name));
  module = *owned;

  // Initializers first: a graph input that shares its name with an
  // initializer is a default value, not an argument.
  for (const onnx::TensorProto &init : graph.initializer())
    values[init.name()].initializer = &init;

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  // The dim_params of dynamic dims beyond the first (the batch's), for
  // tfcc --dim-bound (kDimNamesAttr); empty when there are none.
  SmallVector<ArrayAttr> argDimNames;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (values.count(in.name()))
      continue;
    const onnx::TypeProto &type = in.type();
    if (!type.has_tensor_type()) {
      error("graph input '" + in.name() + "' is not a tensor");
      return nullptr;
    }
    Type elementType =
        elementTypeOf(&mlirContext, type.tensor_type().elem_type());
    if (!elementType) {
      error("graph input '" + in.name() + "' has unsupported element type " +
            dataTypeName(type.tensor_type().elem_type()) +
            " (tfcc supports float, double, float16, bfloat16, int32, int64, "
            "int8, "
            "uint8 and "
            "bool)");
      return nullptr;
    }
    if (!type.tensor_type().has_shape()) {
      error("graph input '" + in.name() + "' has no shape (unknown rank)");
      return nullptr;
    }
    argTypes.push_back(typeFromProto(&mlirContext, type));
    argNames.push_back(in.name());
    SmallVector<Attribute> dimNames;
    bool named = false;
    for (auto [i, dim] : llvm::enumerate(type.tensor_type().shape().dim())) {
      bool dynamic = !(dim.has_dim_value() && dim.dim_value() >= 0);
      std::string param = dynamic && i > 0 ? dim.dim_param() : "";
      named |= !param.empty();
      dimNames.push_back(b.getStringAttr(param));
    }
    argDimNames.push_back(named ? b.getArrayAttr(dimNames) : ArrayAttr());
  }

  b.setInsertionPointToEnd(module.getBody());
  entry = b.create<func::FuncOp>(fileLoc, "predict",
                                 b.getFunctionType(argTypes, {}));
  Block *body = entry.addEntryBlock();
  for (auto [i, argName] : llvm::enumerate(argNames)) {
    entry.setArgAttr(i, "tfcc.name", b.getStringAttr(argName));
    if (argDimNames[i])
      entry.setArgAttr(i, graph::kDimNamesAttr, argDimNames[i]);
    values[argName].value = body->getArgument(i);
  }
  b.setInsertionPointToEnd(body);

  if (failed(convertNodes(graph)))
    return nullptr;

  // The graph outputs, materialized at the end of the function.
  currentLoc = fileLoc;
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    ValueEntry &e = values[out.name()];
    if (!e.value && !e.undefinedReason.empty()) {
      emitError(fileLoc) << "graph output '" << out.name()
                         << "': " << e.undefinedReason;
      return nullptr;
    }
    if (!e.value) {
      FailureOr<const HostTensor *> host = hostValue(e, out.name());
      if (failed(host) || !*host) {
        emitError(fileLoc) << "graph output '" << out.name()
                           << "' is not defined";
        return nullptr;
      }
      if ((*host)->hasUnknowns()) {
        emitError(fileLoc) << "unsupported graph output '" << out.name()
                           << "': value derived from " << e.unknownOrigin
                           << " is needed at run time";
        return nullptr;
      }
      e.value = materialize(**host, out.name());
    }
    results.push_back(e.value);
  }
  // The row counts of outputs with padded rows, after the graph's outputs.
  SmallVector<std::string> resultNames;
  for (const onnx::ValueInfoProto &out : graph.output())
    resultNames.push_back(out.name());
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = paddedRows.find(out.name());
    if (it == paddedRows.end() ||
        llvm::is_contained(resultNames, it->second.countName))
      continue;
    results.push_back(it->second.count);
    resultNames.push_back(it->second.countName);
  }
  b.create<func::ReturnOp>(fileLoc, results);
  entry.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(resultNames))
    entry.setResultAttr(i, "tfcc.name", b.getStringAttr(name));

  if (failed(verify(module)))
    return nullptr;
  return owned;
}

OwningOpRef<ModuleOp> tfcc::importOnnxModel(
    const std::string &path, MLIRContext &context,
    const std::string &moduleName,
    const std::map<std::string, std::vector<int64_t>> &inputShapes,
    const std::map<std::string, std::string> &inputValues) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  Importer importer(context, path, inputShapes, inputValues);
  return importer.run(moduleName);
}

OwningOpRef<ModuleOp> tfcc::importOnnxModelFromBytes(
    const std::vector<uint8_t> &bytes, const std::string &sourceName,
    MLIRContext &context, const std::string &moduleName,
    const std::map<std::string, std::vector<int64_t>> &inputShapes,
    const std::map<std::string, std::string> &inputValues) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  Importer importer(context, sourceName, inputShapes, inputValues, &bytes);
  return importer.run(moduleName);
}
