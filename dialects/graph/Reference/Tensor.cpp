//===- Tensor.cpp - tensors and helpers of the reference interpreter ------===//

#include "dialects/graph/Reference/Tensor.h"
#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/Reference/Evaluators.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <limits>

namespace tfcc::ref {

const char *toString(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return "f32";
  case ElementKind::F64:
    return "f64";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  case ElementKind::I1:
    return "i1";
  case ElementKind::I8:
    return "i8";
  case ElementKind::UI8:
    return "ui8";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  }
  return "?";
}

IntegerRange integerRangeOf(ElementKind kind) {
  switch (kind) {
  case ElementKind::I32:
    return {-0x1p31, 0x1p31 - 1};
  case ElementKind::I64:
    return {-0x1p63, 0x1p63};
  case ElementKind::I8:
    return {-128.0, 127.0};
  case ElementKind::UI8:
    return {0.0, 255.0};
  case ElementKind::I1:
  case ElementKind::F32:
  case ElementKind::F64:
  case ElementKind::F16:
  case ElementKind::BF16:
    break;
  }
  return {0.0, 1.0};
}

std::optional<ElementKind> elementKindOf(mlir::Type elementType) {
  if (elementType.isF32())
    return ElementKind::F32;
  if (elementType.isF64())
    return ElementKind::F64;
  if (elementType.isF16())
    return ElementKind::F16;
  if (elementType.isBF16())
    return ElementKind::BF16;
  if (elementType.isSignlessInteger(32))
    return ElementKind::I32;
  if (elementType.isSignlessInteger(64))
    return ElementKind::I64;
  if (elementType.isSignlessInteger(1))
    return ElementKind::I1;
  if (elementType.isSignlessInteger(8))
    return ElementKind::I8;
  if (elementType.isUnsignedInteger(8))
    return ElementKind::UI8;
  return std::nullopt;
}

int64_t numElementsOf(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

int64_t Tensor::numElements() const { return numElementsOf(shape); }

Tensor Tensor::zeros(ElementKind kind, std::vector<int64_t> shape) {
  Tensor tensor;
  tensor.kind = kind;
  tensor.shape = std::move(shape);
  tensor.data.assign(tensor.numElements(), 0.0);
  return tensor;
}

std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::string shapeToString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text +=
        mlir::ShapedType::isDynamic(shape[i]) ? "?" : std::to_string(shape[i]);
  }
  return text + "]";
}

namespace detail {

ElementKind resultKindOf(mlir::Operation *op) {
  auto type = llvm::cast<mlir::ShapedType>(op->getResult(0).getType());
  return *elementKindOf(type.getElementType());
}

std::vector<int64_t> toInts(mlir::ArrayAttr array) {
  std::vector<int64_t> ints;
  for (mlir::Attribute attr : array)
    ints.push_back(llvm::cast<mlir::IntegerAttr>(attr).getInt());
  return ints;
}

mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                       Report &report) {
  if (axis < -rank || axis >= rank)
    return report.fail("axis " + llvm::Twine(axis) + " out of range for rank " +
                       llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

mlir::FailureOr<std::vector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                                      llvm::ArrayRef<int64_t> b,
                                                      Report &report) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Dimension i counted from the end; missing dimensions are 1.
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return report.fail("shapes " + shapeToString(a) + " and " +
                         shapeToString(b) + " do not broadcast");
    result[rank - 1 - i] = da == 1 ? db : da;
  }
  return result;
}

mlir::LogicalResult expectRank(const Tensor &tensor, int64_t rank,
                               llvm::StringRef what, Report &report) {
  if (tensor.rank() == rank)
    return mlir::success();
  return report.fail(what + " has shape " + shapeToString(tensor.shape) +
                     ", expected rank " + llvm::Twine(rank));
}

mlir::LogicalResult checkGatherIndices(const Tensor &indices, int64_t dim,
                                       Report &report) {
  for (double value : indices.data) {
    int64_t index = static_cast<int64_t>(value);
    if (index < 0 || index >= dim)
      return report.fail("gather index " + llvm::Twine(index) +
                         " out of range [0, " + llvm::Twine(dim) + ")");
  }
  return mlir::success();
}

int64_t nhwc(const Tensor &t, int64_t n, int64_t h, int64_t w, int64_t c) {
  return ((n * t.shape[1] + h) * t.shape[2] + w) * t.shape[3] + c;
}

std::vector<int64_t> unravel(int64_t linear, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> index(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    index[i] = linear % shape[i];
    linear /= shape[i];
  }
  return index;
}

int64_t broadcastOffset(llvm::ArrayRef<int64_t> index,
                        llvm::ArrayRef<int64_t> shape) {
  size_t lead = index.size() - shape.size();
  int64_t offset = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    offset = offset * shape[i] + (shape[i] == 1 ? 0 : index[lead + i]);
  return offset;
}

double normalizeElement(double value, ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return static_cast<double>(static_cast<float>(value));
  case ElementKind::F64:
    return value;
  case ElementKind::F16:
    return mlir::graph::roundToHalf(mlir::graph::halfSemantics(false), value);
  case ElementKind::BF16:
    return mlir::graph::roundToHalf(mlir::graph::halfSemantics(true), value);
  case ElementKind::I32:
    return static_cast<double>(static_cast<int32_t>(
        static_cast<uint32_t>(static_cast<int64_t>(value))));
  case ElementKind::I64: {
    // Saturate: converting an out-of-range double to int64 is undefined.
    if (std::isnan(value))
      return 0.0;
    if (value >= 0x1p63)
      return static_cast<double>(std::numeric_limits<int64_t>::max());
    if (value < -0x1p63)
      return static_cast<double>(std::numeric_limits<int64_t>::min());
    return static_cast<double>(static_cast<int64_t>(value));
  }
  case ElementKind::I1:
    return static_cast<double>(static_cast<int64_t>(value) & 1);
  case ElementKind::I8:
    return static_cast<double>(
        static_cast<int8_t>(static_cast<uint8_t>(static_cast<int64_t>(value))));
  case ElementKind::UI8:
    return static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(value)));
  }
  return value;
}

} // namespace detail
} // namespace tfcc::ref
