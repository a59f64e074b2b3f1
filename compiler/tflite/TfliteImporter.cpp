//===- TfliteImporter.cpp - TFLite models to graph IR ---------------------===//
//
// Reads the .tflite FlatBuffer through the code flatc generates from
// tflite_format.fbs, checks it with the FlatBuffers verifier before reading
// anything, and converts subgraph 0 operator by operator (TfliteOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/tflite/TfliteImporter.h"
#include "compiler/BoundedFile.h"
#include "compiler/tflite/OpContext.h"

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/Limits.h"
#include "dialects/graph/IR/TensorSize.h"
#include "dialects/graph/IR/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

using namespace mlir;
namespace tflite = tfcc::tflite;
using namespace tfcc::tflite_import;

namespace {

/// A symbol name made of [A-Za-z0-9_], not starting with a digit.
std::string sanitize(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "_" + out;
  return out;
}

/// Bytes of one element of `type`, or 0 for types tfcc does not read.
int64_t elementBytes(tflite::TensorType type) {
  switch (type) {
  case tflite::TensorType::FLOAT32:
  case tflite::TensorType::INT32:
    return 4;
  case tflite::TensorType::FLOAT16:
    return 2;
  case tflite::TensorType::INT64:
    return 8;
  case tflite::TensorType::INT8:
  case tflite::TensorType::UINT8:
  case tflite::TensorType::BOOL:
    return 1;
  default:
    return 0;
  }
}

/// The zero points a quantized tensor of `type` may have, or nothing for
/// types whose quantization tfcc never reads.
std::optional<std::pair<int64_t, int64_t>>
zeroPointRange(tflite::TensorType type) {
  switch (type) {
  case tflite::TensorType::INT8:
    return std::make_pair(int64_t(-128), int64_t(127));
  case tflite::TensorType::UINT8:
    return std::make_pair(int64_t(0), int64_t(255));
  case tflite::TensorType::INT16:
  case tflite::TensorType::INT32:
    return std::make_pair(int64_t(0), int64_t(0));
  default:
    return std::nullopt;
  }
}

/// IEEE binary16 to float.
float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  int exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return sign ? -magnitude : magnitude;
}

template <typename T> T readLE(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

} // namespace

std::string tfcc::tflite_import::tensorTypeName(tflite::TensorType type) {
  const char *name = tflite::EnumNameTensorType(type);
  if (name && *name)
    return name;
  return "type " + std::to_string(static_cast<int>(type));
}

std::vector<int64_t>
tfcc::tflite_import::zeroPoints(const tflite::QuantizationParameters &q) {
  std::vector<int64_t> zeros;
  if (const auto *vector = q.zero_point())
    for (flatbuffers::uoffset_t i = 0; i < vector->size(); ++i)
      zeros.push_back(readLE<int64_t>(vector->Data() + i * sizeof(int64_t)));
  return zeros;
}

int64_t ConstTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool ConstTensor::isInteger() const {
  switch (type) {
  case tflite::TensorType::INT32:
  case tflite::TensorType::INT64:
  case tflite::TensorType::INT8:
  case tflite::TensorType::UINT8:
  case tflite::TensorType::BOOL:
    return true;
  default:
    return false;
  }
}

std::vector<int64_t> ConstTensor::ints() const {
  std::vector<int64_t> out(numElements());
  const uint8_t *p = bytes.data();
  for (int64_t i = 0, n = out.size(); i < n; ++i) {
    switch (type) {
    case tflite::TensorType::INT32:
      out[i] = readLE<int32_t>(p + 4 * i);
      break;
    case tflite::TensorType::INT64:
      out[i] = readLE<int64_t>(p + 8 * i);
      break;
    case tflite::TensorType::INT8:
      out[i] = static_cast<int8_t>(p[i]);
      break;
    case tflite::TensorType::UINT8:
    case tflite::TensorType::BOOL:
      out[i] = p[i];
      break;
    default:
      assert(false && "ints() of a non-integer tensor");
    }
  }
  return out;
}

bool ConstTensor::isQuantized() const {
  return (type == tflite::TensorType::INT8 ||
          type == tflite::TensorType::UINT8 ||
          type == tflite::TensorType::INT32) &&
         quantization && quantization->scale() &&
         quantization->scale()->size() > 0;
}

std::vector<float> ConstTensor::floats() const {
  if (isQuantized()) {
    // Checked by the importer (checkQuantization): one scale, or one per
    // index of quantized_dimension; zero points as many or none.
    const auto *scales = quantization->scale();
    std::vector<int64_t> zeros = zeroPoints(*quantization);
    int64_t channels = scales->size(), inner = 1;
    for (int64_t d = quantization->quantized_dimension() + 1;
         channels > 1 && d < int64_t(shape.size()); ++d)
      inner *= shape[d];
    std::vector<int64_t> q = ints();
    std::vector<float> out(q.size());
    for (size_t k = 0; k < q.size(); ++k) {
      int64_t ch = channels > 1 ? (int64_t(k) / inner) % channels : 0;
      int64_t zero = zeros.empty() ? 0 : zeros[ch];
      out[k] = scales->Get(ch) * static_cast<float>(q[k] - zero);
    }
    return out;
  }
  std::vector<float> out(numElements());
  const uint8_t *p = bytes.data();
  for (int64_t i = 0, n = out.size(); i < n; ++i)
    out[i] = type == tflite::TensorType::FLOAT16
                 ? halfToFloat(readLE<uint16_t>(p + 2 * i))
                 : readLE<float>(p + 4 * i);
  return out;
}

namespace {

/// What the importer knows of one tensor of the subgraph.
struct TensorEntry {
  Value value;
  std::optional<ConstTensor> constant;
  /// An int8 / uint8 activation with a scale and zero point: held as ui8
  /// (int8 shifted by 128, the same real values), read by converters as
  /// its f32 real value (`real`, built at first use).
  bool quantized = false;
  Value real;
  /// Why the tensor cannot be read, when it cannot (set once, reported at
  /// first use).
  std::string problem;
};

class Importer : public OpContext {
public:
  Importer(MLIRContext &context, const std::string &path,
           const std::vector<uint8_t> &bytes)
      : b(&context), path(path), bytes(bytes),
        fileLoc(FileLineColLoc::get(&context, path, 0, 0)),
        currentLoc(fileLoc) {}

  OwningOpRef<ModuleOp> run(const std::string &moduleName);

  // OpContext.
  OpBuilder &builder() override { return b; }
  Location loc() const override { return currentLoc; }
  const tflite::Operator &op() const override { return *currentOp; }
  FailureOr<Value> input(int i) override;
  const ConstTensor *constantInput(int i) override;
  FailureOr<std::vector<int64_t>> constantInts(int i,
                                               llvm::StringRef what) override;
  RankedTensorType inputType(int i) override;
  RankedTensorType outputType(int i) override;
  LogicalResult setOutput(int i, Value value) override;
  FailureOr<Value> reshape(Value value, ArrayRef<int64_t> shape) override;
  Value constantF32(ArrayRef<int64_t> shape, ArrayRef<float> data,
                    llvm::StringRef nameHint) override;
  Value constantI8(ArrayRef<int64_t> shape, ArrayRef<int8_t> data,
                   llvm::StringRef nameHint) override;
  LogicalResult unsupported(const llvm::Twine &what) override;
  LogicalResult invalid(const llvm::Twine &what) override;

private:
  LogicalResult fail(const llvm::Twine &message) {
    emitError(fileLoc) << message;
    return failure();
  }
  LogicalResult readTensors();
  LogicalResult convertOperators();
  /// The subgraph's tensor `index` (checked in range by readTensors and
  /// operator checks).
  const tflite::Tensor &tensor(int32_t index) const {
    return *subgraph->tensors()->Get(index);
  }
  std::string tensorName(int32_t index) const {
    const tflite::Tensor &t = tensor(index);
    return t.name() ? t.name()->str() : "tensor " + std::to_string(index);
  }
  /// The graph-IR type of tensor `index` (null when its type has none).
  RankedTensorType typeOf(int32_t index);
  /// The f32 type of tensor `index`'s shape: what converters see of a
  /// quantized tensor.
  RankedTensorType realType(int32_t index);
  /// graph.dequantize (toReal) or graph.quantize of quantized activation
  /// `index` (its scale and zero point, int8 as uint8); null on failure.
  Value requantized(int32_t index, Value value, bool toReal);
  Value materialize(int32_t index, const ConstTensor &constant);
  std::string uniqueSymbol(llvm::StringRef hint);
  /// A graph.variable holding `raw` (a dense_resource blob), read here.
  Value variable(RankedTensorType type, ArrayRef<char> raw, size_t alignment,
                 llvm::StringRef nameHint);
  std::string where() const;

  OpBuilder b;
  std::string path;
  const std::vector<uint8_t> &bytes;
  Location fileLoc, currentLoc;
  ModuleOp module;
  func::FuncOp entry;
  const tflite::Model *model = nullptr;
  const tflite::SubGraph *subgraph = nullptr;
  const tflite::Operator *currentOp = nullptr;
  int64_t currentIndex = 0;
  std::string currentOpName;
  std::vector<TensorEntry> tensors;
  llvm::StringSet<> symbols;
};

RankedTensorType Importer::typeOf(int32_t index) {
  const tflite::Tensor &t = tensor(index);
  Type element;
  if (index < int32_t(tensors.size()) && tensors[index].quantized)
    return RankedTensorType::get(realType(index).getShape(),
                                 b.getIntegerType(8, /*isSigned=*/false));
  switch (t.type()) {
  case tflite::TensorType::FLOAT32:
    element = b.getF32Type();
    break;
  case tflite::TensorType::INT32:
    element = b.getI32Type();
    break;
  case tflite::TensorType::INT64:
    element = b.getI64Type();
    break;
  case tflite::TensorType::BOOL:
    element = b.getI1Type();
    break;
  case tflite::TensorType::INT8:
    element = b.getIntegerType(8);
    break;
  case tflite::TensorType::UINT8:
    element = b.getIntegerType(8, /*isSigned=*/false);
    break;
  default:
    return {};
  }
  SmallVector<int64_t> shape;
  if (t.shape())
    for (int32_t d : *t.shape())
      shape.push_back(d);
  return RankedTensorType::get(shape, element);
}

LogicalResult Importer::readTensors() {
  const auto *list = subgraph->tensors();
  int64_t count = list ? list->size() : 0;
  int64_t numBuffers = model->buffers() ? model->buffers()->size() : 0;
  tensors.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    const tflite::Tensor &t = tensor(i);
    TensorEntry &e = tensors[i];
    std::string name = "tensor '" + tensorName(i) + "'";
    // Every tensor's shape first: types are built from it.
    int64_t elements = 1;
    if (t.shape())
      for (int32_t d : *t.shape()) {
        if (d < 0)
          return fail(name + " has a negative dimension " + std::to_string(d));
        if (d > 0 && elements > graph::kMaxTensorBytes / d)
          return fail(name + " has more than " +
                      std::to_string(graph::kMaxTensorBytes) + " elements");
        elements *= d;
      }
    if (t.sparsity()) {
      e.problem = name + " is sparse (tfcc reads dense tensors)";
      continue;
    }
    if (t.is_variable()) {
      e.problem = name + " is a variable (tfcc reads stateless models)";
      continue;
    }
    if (t.quantization() && t.quantization()->details()) {
      e.problem = name + " has custom quantization";
      continue;
    }
    const tflite::QuantizationParameters *q = t.quantization();
    int64_t scales = q && q->scale() ? q->scale()->size() : 0;
    if (scales > 0) {
      int64_t axis = q->quantized_dimension();
      int64_t rank = t.shape() ? t.shape()->size() : 0;
      int64_t zeros = q->zero_point() ? q->zero_point()->size() : 0;
      if ((scales > 1 &&
           (axis < 0 || axis >= rank || t.shape()->Get(axis) != scales)) ||
          (zeros != 0 && zeros != scales))
        return fail(name + " has " + std::to_string(scales) + " scales and " +
                    std::to_string(zeros) +
                    " zero points for quantized dimension " +
                    std::to_string(axis) + " of its shape");
      for (float s : *q->scale())
        if (!(s > 0.0f) || !std::isfinite(s))
          return fail(name + " has a quantization scale of " +
                      std::to_string(s) + " (scales are positive)");
      // Zero points are values of the tensor's type (TFLite's int16 and
      // int32 ones are 0); a wider one overflowed the dequantization or was
      // wrapped to 8 bits.
      std::optional<std::pair<int64_t, int64_t>> range =
          zeroPointRange(t.type());
      if (range)
        for (int64_t z : zeroPoints(*q))
          if (z < range->first || z > range->second)
            return fail(name + " has zero point " + std::to_string(z) +
                        " outside [" + std::to_string(range->first) + ", " +
                        std::to_string(range->second) + "] for type " +
                        tensorTypeName(t.type()));
    }
    // The tensor's data, if the file holds any.
    uint32_t bufferIndex = t.buffer();
    if (bufferIndex >= numBuffers && bufferIndex != 0)
      return fail(name + " refers to buffer " + std::to_string(bufferIndex) +
                  " of " + std::to_string(numBuffers));
    const tflite::Buffer *buffer =
        bufferIndex ? model->buffers()->Get(bufferIndex) : nullptr;
    ArrayRef<uint8_t> data;
    if (buffer && buffer->offset() > 1) {
      // Data outside the FlatBuffer, at an offset from the file's start.
      uint64_t offset = buffer->offset(), size = buffer->size();
      if (offset > bytes.size() || size > bytes.size() - offset)
        return fail(name + ": its buffer lies past the end of the file");
      data = ArrayRef<uint8_t>(bytes.data() + offset, size);
    } else if (buffer && buffer->data()) {
      data = ArrayRef<uint8_t>(buffer->data()->data(), buffer->data()->size());
    }
    if (data.empty() && scales > 0 &&
        (t.type() == tflite::TensorType::INT8 ||
         t.type() == tflite::TensorType::UINT8)) {
      if (scales > 1) {
        e.problem = name + " is an activation quantized per axis";
        continue;
      }
      e.quantized = true;
    }
    if (data.empty())
      continue;
    int64_t width = elementBytes(t.type());
    if (width == 0) {
      e.problem = name + " holds data of type " + tensorTypeName(t.type());
      continue;
    }
    if (int64_t(data.size()) != elements * width)
      return fail(name + " holds " + std::to_string(data.size()) +
                  " bytes where its shape and type need " +
                  std::to_string(elements * width));
    ConstTensor c;
    c.type = t.type();
    if (t.shape())
      c.shape.assign(t.shape()->begin(), t.shape()->end());
    c.bytes = data;
    c.quantization = t.quantization();
    e.constant = std::move(c);
  }
  return success();
}

std::string Importer::where() const {
  return std::string(" in ") + currentOpName + " operator #" +
         std::to_string(currentIndex) + " ('" +
         (numOutputs() > 0 && op().outputs()->Get(0) >= 0
              ? tensorName(op().outputs()->Get(0))
              : std::string("?")) +
         "')";
}

LogicalResult Importer::unsupported(const llvm::Twine &what) {
  emitError(currentLoc) << "unsupported " << what << where();
  return failure();
}

LogicalResult Importer::invalid(const llvm::Twine &what) {
  emitError(currentLoc) << "invalid " << what << where();
  return failure();
}

const ConstTensor *Importer::constantInput(int i) {
  if (!hasInput(i))
    return nullptr;
  TensorEntry &e = tensors[op().inputs()->Get(i)];
  return e.constant ? &*e.constant : nullptr;
}

FailureOr<std::vector<int64_t>> Importer::constantInts(int i,
                                                       llvm::StringRef what) {
  if (!hasInput(i)) {
    (void)invalid(llvm::Twine("operator: its ") + what + " (input " +
                  llvm::Twine(i) + ") is missing");
    return failure();
  }
  const ConstTensor *c = constantInput(i);
  if (!c) {
    (void)unsupported(llvm::Twine(what) + " computed at run time (input " +
                      llvm::Twine(i) + ", '" +
                      tensorName(op().inputs()->Get(i)) +
                      "'); tfcc needs it in the file");
    return failure();
  }
  if (!c->isInteger()) {
    (void)invalid(llvm::Twine(what) + " of type " + tensorTypeName(c->type));
    return failure();
  }
  return c->ints();
}

RankedTensorType Importer::inputType(int i) {
  if (!hasInput(i))
    return {};
  int32_t index = op().inputs()->Get(i);
  const TensorEntry &e = tensors[index];
  if (e.quantized || (e.constant && e.constant->isQuantized()))
    return realType(index);
  return typeOf(index);
}

RankedTensorType Importer::outputType(int i) {
  if (i >= numOutputs() || op().outputs()->Get(i) < 0)
    return {};
  int32_t index = op().outputs()->Get(i);
  return tensors[index].quantized ? realType(index) : typeOf(index);
}

RankedTensorType Importer::realType(int32_t index) {
  const tflite::Tensor &t = tensor(index);
  SmallVector<int64_t> shape;
  if (t.shape())
    shape.assign(t.shape()->begin(), t.shape()->end());
  return RankedTensorType::get(shape, b.getF32Type());
}

Value Importer::requantized(int32_t index, Value value, bool toReal) {
  const tflite::QuantizationParameters *q = tensor(index).quantization();
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  Value scale = b.create<graph::ConstantOp>(
      currentLoc, scalarType,
      DenseElementsAttr::get(scalarType, q->scale()->Get(0)));
  // int8 activations are held as uint8: q + 128 with zero point + 128.
  std::vector<int64_t> zeros = zeroPoints(*q);
  int64_t zero = zeros.empty() ? 0 : zeros[0];
  if (tensor(index).type() == tflite::TensorType::INT8)
    zero += 128;
  auto zeroType =
      RankedTensorType::get({}, b.getIntegerType(8, /*isSigned=*/false));
  Value zeroPoint = b.create<graph::ConstantOp>(
      currentLoc, zeroType,
      DenseElementsAttr::get(zeroType, APInt(8, uint64_t(zero) & 0xff)));
  if (toReal) {
    FailureOr<Value> real = create<graph::DequantizeOp>(value, scale, zeroPoint,
                                                        b.getI64IntegerAttr(0));
    return succeeded(real) ? *real : Value();
  }
  auto op = b.create<graph::QuantizeOp>(currentLoc, typeOf(index), value, scale,
                                        zeroPoint, b.getI64IntegerAttr(0));
  if (failed(op.verify())) {
    op->erase();
    return Value();
  }
  return op.getResult();
}

std::string Importer::uniqueSymbol(llvm::StringRef hint) {
  std::string base = sanitize(hint), name = base;
  for (int n = 1; symbols.contains(name) || name == "predict"; ++n)
    name = base + "_" + std::to_string(n);
  symbols.insert(name);
  return name;
}

Value Importer::constantF32(ArrayRef<int64_t> shape, ArrayRef<float> data,
                            llvm::StringRef nameHint) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  if (data.size() <= 16)
    return b.create<graph::ConstantOp>(currentLoc, type,
                                       DenseElementsAttr::get(type, data));
  ArrayRef<char> raw(reinterpret_cast<const char *>(data.data()),
                     data.size() * sizeof(float));
  return variable(type, raw, alignof(float), nameHint);
}

Value Importer::constantI8(ArrayRef<int64_t> shape, ArrayRef<int8_t> data,
                           llvm::StringRef nameHint) {
  auto type = RankedTensorType::get(shape, b.getIntegerType(8));
  if (data.size() <= 16) {
    SmallVector<APInt> values;
    for (int8_t v : data)
      values.push_back(APInt(8, uint64_t(uint8_t(v))));
    return b.create<graph::ConstantOp>(currentLoc, type,
                                       DenseElementsAttr::get(type, values));
  }
  ArrayRef<char> raw(reinterpret_cast<const char *>(data.data()), data.size());
  return variable(type, raw, 1, nameHint);
}

Value Importer::variable(RankedTensorType type, ArrayRef<char> raw,
                         size_t alignment, llvm::StringRef nameHint) {
  return graph::createWeightVariable(
      b, entry, NameLoc::get(b.getStringAttr(nameHint), fileLoc), currentLoc,
      uniqueSymbol(nameHint), type, raw, alignment);
}

Value Importer::materialize(int32_t index, const ConstTensor &c) {
  RankedTensorType type = typeOf(index);
  std::string name = tensorName(index);
  if (type.getElementType().isF32())
    return constantF32(type.getShape(), c.floats(), name);
  // Integer constants (shapes, indices, int8 weights): inline.
  std::vector<int64_t> values = c.ints();
  SmallVector<APInt> data;
  unsigned width = type.getElementTypeBitWidth();
  for (int64_t v : values)
    data.push_back(
        APInt(64, static_cast<uint64_t>(v), /*isSigned=*/true).trunc(width));
  return b.create<graph::ConstantOp>(currentLoc, type,
                                     DenseElementsAttr::get(type, data));
}

FailureOr<Value> Importer::input(int i) {
  if (!hasInput(i)) {
    (void)invalid("operator: input " + llvm::Twine(i) + " is missing");
    return failure();
  }
  int32_t index = op().inputs()->Get(i);
  TensorEntry &e = tensors[index];
  if (e.quantized && e.value) {
    if (!e.real)
      e.real = requantized(index, e.value, /*toReal=*/true);
    return e.real;
  }
  if (e.value)
    return e.value;
  if (e.constant && e.constant->isQuantized()) {
    if (!e.real)
      e.real = constantF32(e.constant->shape, e.constant->floats(),
                           tensorName(index));
    return e.real;
  }
  if (!e.problem.empty()) {
    (void)unsupported(llvm::Twine("input ") + llvm::Twine(i) + ": " +
                      e.problem);
    return failure();
  }
  if (!e.constant) {
    (void)invalid(llvm::Twine("operator: input ") + llvm::Twine(i) + " ('" +
                  tensorName(index) +
                  "') is neither a constant, a subgraph input nor the output "
                  "of an earlier operator");
    return failure();
  }
  if (!typeOf(index)) {
    (void)unsupported(llvm::Twine("input ") + llvm::Twine(i) + " ('" +
                      tensorName(index) + "') of type " +
                      tensorTypeName(e.constant->type) +
                      (e.constant->type == tflite::TensorType::FLOAT16
                           ? " (float16 weights are read through DEQUANTIZE)"
                           : ""));
    return failure();
  }
  e.value = materialize(index, *e.constant);
  return e.value;
}

LogicalResult Importer::setOutput(int i, Value value) {
  if (i >= numOutputs() || op().outputs()->Get(i) < 0)
    return invalid("operator: output " + llvm::Twine(i) + " is missing");
  int32_t index = op().outputs()->Get(i);
  RankedTensorType declared = outputType(i);
  auto actual = cast<RankedTensorType>(value.getType());
  if (declared != actual) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "output " << i << " ('" << tensorName(index)
       << "'): the file declares " << (declared ? Type(declared) : Type())
       << " where the operator gives " << actual;
    if (!declared)
      return unsupported(llvm::Twine("type ") +
                         tensorTypeName(tensor(index).type()) + " of output " +
                         llvm::Twine(i));
    return invalid(os.str());
  }
  TensorEntry &e = tensors[index];
  if (e.value || e.constant)
    return invalid("operator: output " + llvm::Twine(i) + " ('" +
                   tensorName(index) + "') is defined twice");
  if (e.quantized) {
    // Rounded to the tensor's grid, as TFLite stores it; readers get it
    // back through graph.dequantize.
    e.value = requantized(index, value, /*toReal=*/false);
    return success(bool(e.value));
  }
  e.value = value;
  return success();
}

FailureOr<Value> Importer::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  auto op = b.create<graph::ReshapeOp>(currentLoc, resultType, value);
  if (failed(graph::inferResultType(op))) {
    op->erase();
    return failure();
  }
  return op.getResult();
}

LogicalResult Importer::convertOperators() {
  const auto *ops = subgraph->operators();
  int64_t numCodes =
      model->operator_codes() ? model->operator_codes()->size() : 0;
  int64_t numTensors = tensors.size();
  for (int64_t k = 0, n = ops ? ops->size() : 0; k < n; ++k) {
    currentOp = ops->Get(k);
    currentIndex = k;
    currentOpName = "operator";
    currentLoc = fileLoc;
    // Every tensor index in range before anything reads one.
    for (const auto *list : {currentOp->inputs(), currentOp->outputs()})
      if (list)
        for (int32_t t : *list)
          if (t < -1 || t >= numTensors)
            return fail("operator #" + std::to_string(k) +
                        " refers to tensor " + std::to_string(t) + " of " +
                        std::to_string(numTensors));
    if (numOutputs() > 0 && op().outputs()->Get(0) >= 0)
      currentLoc = NameLoc::get(
          b.getStringAttr(tensorName(op().outputs()->Get(0))), fileLoc);
    if (currentOp->opcode_index() >= numCodes)
      return fail("operator #" + std::to_string(k) + " has operator code " +
                  std::to_string(currentOp->opcode_index()) + " of " +
                  std::to_string(numCodes));
    const tflite::OperatorCode *code =
        model->operator_codes()->Get(currentOp->opcode_index());
    // Codes above 127 live in builtin_code; older files have only the
    // deprecated byte field.
    int32_t builtin =
        std::max<int32_t>(static_cast<int32_t>(code->builtin_code()),
                          code->deprecated_builtin_code());
    auto opCode = static_cast<tflite::BuiltinOperator>(builtin);
    ConverterFn converter = nullptr;
    if (opCode == tflite::BuiltinOperator::CUSTOM) {
      std::string name =
          code->custom_code() ? code->custom_code()->str() : std::string();
      currentOpName = "custom '" + name + "'";
      converter = customConverter(name);
    } else {
      const char *name = tflite::EnumNameBuiltinOperator(opCode);
      currentOpName = name && *name ? std::string(name)
                                    : "builtin " + std::to_string(builtin);
      converter = builtinConverter(opCode);
    }
    if (!converter) {
      emitError(currentLoc) << "unsupported TFLite operator " << currentOpName
                            << " (operator #" << k << ", output '"
                            << (numOutputs() > 0 && op().outputs()->Get(0) >= 0
                                    ? tensorName(op().outputs()->Get(0))
                                    : std::string("?"))
                            << "'; docs/tflite.md lists the operators tfcc "
                               "reads)";
      return failure();
    }
    if (failed(converter(*this)))
      return failure();
    for (int i = 0; i < numOutputs(); ++i)
      if (op().outputs()->Get(i) >= 0 && !tensors[op().outputs()->Get(i)].value)
        return invalid("operator: output " + llvm::Twine(i) +
                       " was not defined");
  }
  return success();
}

OwningOpRef<ModuleOp> Importer::run(const std::string &moduleName) {
  if (bytes.size() < 8 || !tflite::ModelBufferHasIdentifier(bytes.data())) {
    (void)fail("'" + path +
               "' is not a TFLite model (no \"TFL3\" file identifier)");
    return nullptr;
  }
  // The verifier reads FlatBuffers of up to 2 GiB; files over 2 GiB keep
  // their buffers outside it (Buffer.offset), which readTensors checks.
  flatbuffers::Verifier verifier(
      bytes.data(),
      std::min<size_t>(bytes.size(), FLATBUFFERS_MAX_BUFFER_SIZE - 1),
      /*max_depth=*/64, /*max_tables=*/1u << 24);
  if (!tflite::VerifyModelBuffer(verifier)) {
    (void)fail("'" + path +
               "' is a corrupt or truncated TFLite model (the "
               "FlatBuffer does not verify)");
    return nullptr;
  }
  model = tflite::GetModel(bytes.data());
  if (model->version() != 3) {
    (void)fail("unsupported TFLite schema version " +
               std::to_string(model->version()) + " (tfcc reads version 3)");
    return nullptr;
  }
  if (!model->subgraphs() || model->subgraphs()->size() == 0) {
    (void)fail("'" + path + "' has no subgraph");
    return nullptr;
  }
  subgraph = model->subgraphs()->Get(0);
  if (failed(readTensors()))
    return nullptr;
  int64_t numTensors = tensors.size();
  auto checkList = [&](const flatbuffers::Vector<int32_t> *list,
                       const char *what) {
    if (list)
      for (int32_t t : *list)
        if (t < 0 || t >= numTensors)
          return fail(std::string("subgraph ") + what + " " +
                      std::to_string(t) + " is not a tensor (of " +
                      std::to_string(numTensors) + ")");
    return success();
  };
  if (failed(checkList(subgraph->inputs(), "input")) ||
      failed(checkList(subgraph->outputs(), "output")))
    return nullptr;

  std::string name =
      moduleName.empty() ? sanitize(llvm::sys::path::stem(path)) : moduleName;
  OwningOpRef<ModuleOp> owned(ModuleOp::create(fileLoc, name));
  module = *owned;

  SmallVector<Type> argTypes;
  SmallVector<int32_t> argTensors;
  if (subgraph->inputs())
    for (int32_t t : *subgraph->inputs()) {
      if (tensors[t].constant)
        continue;
      if (tensors[t].quantized) {
        (void)fail("subgraph input '" + tensorName(t) + "' is quantized " +
                   tensorTypeName(tensor(t).type()) +
                   " (tfcc reads quantized models with float inputs and "
                   "outputs: QUANTIZE and DEQUANTIZE inside)");
        return nullptr;
      }
      RankedTensorType type = typeOf(t);
      if (!type) {
        (void)fail("subgraph input '" + tensorName(t) +
                   "' has unsupported type " +
                   tensorTypeName(tensor(t).type()));
        return nullptr;
      }
      argTypes.push_back(type);
      argTensors.push_back(t);
    }
  b.setInsertionPointToEnd(module.getBody());
  entry = b.create<func::FuncOp>(fileLoc, "predict",
                                 b.getFunctionType(argTypes, {}));
  Block *body = entry.addEntryBlock();
  for (auto [i, t] : llvm::enumerate(argTensors)) {
    entry.setArgAttr(i, "tfcc.name", b.getStringAttr(tensorName(t)));
    tensors[t].value = body->getArgument(i);
  }
  b.setInsertionPointToEnd(body);

  if (failed(convertOperators()))
    return nullptr;

  currentLoc = fileLoc;
  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  if (subgraph->outputs())
    for (int32_t t : *subgraph->outputs()) {
      TensorEntry &e = tensors[t];
      if (e.quantized) {
        (void)fail("subgraph output '" + tensorName(t) + "' is quantized " +
                   tensorTypeName(tensor(t).type()) +
                   " (tfcc reads quantized models with float inputs and "
                   "outputs: QUANTIZE and DEQUANTIZE inside)");
        return nullptr;
      }
      if (!e.value && e.constant && typeOf(t))
        e.value = materialize(t, *e.constant);
      if (!e.value) {
        (void)fail("subgraph output '" + tensorName(t) + "' is not defined");
        return nullptr;
      }
      results.push_back(e.value);
      resultNames.push_back(tensorName(t));
    }
  b.create<func::ReturnOp>(fileLoc, results);
  entry.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, resultName] : llvm::enumerate(resultNames))
    entry.setResultAttr(i, "tfcc.name", b.getStringAttr(resultName));
  if (failed(verify(module)))
    return nullptr;
  return owned;
}

} // namespace

bool tfcc::isTflitePath(const std::string &path) {
  return llvm::StringRef(path).ends_with_insensitive(".tflite");
}

OwningOpRef<ModuleOp> tfcc::importTfliteModelFromBytes(
    const std::vector<uint8_t> &bytes, const std::string &sourceName,
    MLIRContext &context, const std::string &moduleName) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  Importer importer(context, sourceName, bytes);
  return importer.run(moduleName);
}

OwningOpRef<ModuleOp> tfcc::importTfliteModel(const std::string &path,
                                              MLIRContext &context,
                                              const std::string &moduleName) {
  std::vector<uint8_t> bytes;
  std::string error;
  if (!readBoundedFile(path, graph::kMaxTensorBytes + graph::kMaxMetadataBytes,
                       "TFLite model", bytes, error)) {
    emitError(FileLineColLoc::get(&context, path, 0, 0)) << error;
    return nullptr;
  }
  return importTfliteModelFromBytes(bytes, path, context, moduleName);
}
