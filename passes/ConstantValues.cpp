//===- ConstantValues.cpp - compile-time values of weight tensors ---------===//

#include "passes/ConstantValues.h"

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/IR/Initializers.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>

using namespace mlir;

/// The values of an f16 / bf16 constant, exact in f32.
static std::optional<std::vector<float>> getHalfFloats(ElementsAttr elements) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(elements.getElementType()).getFloatSemantics();
  int64_t count = elements.getNumElements();
  std::vector<float> values;
  values.reserve(count);
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    for (const APFloat &v : dense.getValues<APFloat>())
      values.push_back(static_cast<float>(v.convertToDouble()));
    return values;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(elements)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != static_cast<size_t>(count) * 2)
      return std::nullopt;
    const char *data = blob->getData().data();
    for (int64_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, data + 2 * i, 2);
      values.push_back(static_cast<float>(graph::halfValue(semantics, bits)));
    }
    return values;
  }
  return std::nullopt;
}

static std::optional<std::vector<float>> getFloats(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  if (elements &&
      (elements.getElementType().isF16() || elements.getElementType().isBF16()))
    return getHalfFloats(elements);
  if (!elements || !elements.getElementType().isF32())
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(elements)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    int64_t count = elements.getNumElements();
    if (!blob ||
        blob->getData().size() != static_cast<size_t>(count) * sizeof(float))
      return std::nullopt;
    std::vector<float> values(count);
    std::memcpy(values.data(), blob->getData().data(), count * sizeof(float));
    return values;
  }
  return std::nullopt;
}

/// The integers of a constant of i8 / ui8 / i32 / i64 elements, sign- or
/// zero-extended as its type says.
static std::optional<std::vector<int64_t>> getIntegers(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  auto type = elements ? dyn_cast<IntegerType>(elements.getElementType())
                       : IntegerType();
  if (!type || type.getWidth() > 64)
    return std::nullopt;
  bool isUnsigned = type.isUnsigned();
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    std::vector<int64_t> values;
    values.reserve(dense.getNumElements());
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                  : v.getSExtValue());
    return values;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(elements);
  if (!resource || type.getWidth() != 8)
    return std::nullopt;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  int64_t count = elements.getNumElements();
  if (!blob || blob->getData().size() != static_cast<size_t>(count))
    return std::nullopt;
  std::vector<int64_t> values(count);
  for (int64_t i = 0; i < count; ++i) {
    auto byte = static_cast<uint8_t>(blob->getData()[i]);
    values[i] = isUnsigned ? byte : static_cast<int8_t>(byte);
  }
  return values;
}

/// The compile-time value of `value`: a constant's, or the initial value of
/// a variable that no training can change.
static Attribute getConstantAttr(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {};
  if (auto constant = dyn_cast<graph::ConstantOp>(def))
    return constant.getValue();
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return constant.getValue();
  auto read = dyn_cast<graph::ReadOp>(def);
  if (!read)
    return {};
  auto module = read->getParentOfType<ModuleOp>();
  // Variables of a training model may change (graph.train_step before
  // tfcc-autodiff; kStatefulAttr, which tfcc-layout-state sets, after it).
  if (!module || !module.getOps<graph::TrainStepOp>().empty() ||
      module->hasAttr(mlir::tfcc::kStatefulAttr))
    return {};
  auto variable = SymbolTable::lookupNearestSymbolFrom<graph::VariableOp>(
      read, read.getVariableAttr());
  if (!variable)
    return {};
  FailureOr<DenseElementsAttr> init = graph::getVariableInitialValue(variable);
  if (failed(init))
    return {};
  return *init;
}

/// `values` (row-major, of `type`'s shape) transposed by `perm`: result
/// dim i is input dim perm[i].
template <typename T>
static std::vector<T> transposeValues(const std::vector<T> &values,
                                      ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> perm) {
  int64_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  SmallVector<int64_t> outShape, index(rank, 0);
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<T> out;
  out.reserve(values.size());
  for (size_t n = 0; n < values.size(); ++n) {
    int64_t offset = 0;
    for (int64_t i = 0; i < rank; ++i)
      offset += index[i] * strides[perm[i]];
    out.push_back(values[offset]);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < outShape[i])
        break;
      index[i] = 0;
    }
  }
  return out;
}

/// The values of `value` by `get` on its constant attribute, looking through
/// graph.transpose ops (whose permutation is applied here) and graph.reshape
/// ops (which keep the row-major order).
template <typename T, typename GetFn>
static std::optional<std::vector<T>> getConstantValues(Value value,
                                                       GetFn get) {
  if (auto reshape = value.getDefiningOp<graph::ReshapeOp>())
    return getConstantValues<T>(reshape.getX(), get);
  auto transpose = value.getDefiningOp<graph::TransposeOp>();
  if (!transpose)
    return get(getConstantAttr(value));
  auto type = cast<RankedTensorType>(transpose.getX().getType());
  if (!type.hasStaticShape())
    return std::nullopt;
  std::optional<std::vector<T>> values =
      getConstantValues<T>(transpose.getX(), get);
  if (!values)
    return std::nullopt;
  SmallVector<int64_t> perm;
  for (Attribute a : transpose.getPerm())
    perm.push_back(cast<IntegerAttr>(a).getInt());
  return transposeValues(*values, type.getShape(), perm);
}

std::optional<std::vector<float>> mlir::tfcc::getConstantFloats(Value value) {
  // A constant rounded to f16 or bf16 (or widened back): its values, each
  // rounded as the cast rounds it (to nearest even).
  if (auto cast = value.getDefiningOp<graph::CastOp>()) {
    Type from = getElementTypeOrSelf(cast.getX().getType());
    auto to = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getY().getType()));
    if (!isa<FloatType>(from) || from.isF64() || !to || to.isF64())
      return std::nullopt;
    std::optional<std::vector<float>> values = getConstantFloats(cast.getX());
    if (values && !to.isF32())
      for (float &v : *values)
        v = static_cast<float>(graph::roundToHalf(to.getFloatSemantics(), v));
    return values;
  }
  return getConstantValues<float>(value, getFloats);
}

std::optional<std::vector<int64_t>>
mlir::tfcc::getConstantIntegers(Value value) {
  return getConstantValues<int64_t>(value, getIntegers);
}

std::optional<std::vector<float>>
mlir::tfcc::getConstantOrDequantizedFloats(Value value) {
  auto dequantize = value.getDefiningOp<graph::DequantizeOp>();
  if (!dequantize)
    return getConstantFloats(value);
  auto type = cast<RankedTensorType>(dequantize.getX().getType());
  std::optional<std::vector<int64_t>> x = getConstantIntegers(dequantize.getX());
  std::optional<std::vector<float>> scale =
      getConstantFloats(dequantize.getScale());
  std::optional<std::vector<int64_t>> zeroPoint =
      getConstantIntegers(dequantize.getZeroPoint());
  if (!x || !scale || !zeroPoint || !type.hasStaticShape() ||
      scale->size() != zeroPoint->size())
    return std::nullopt;
  // Per tensor: one scale; per axis: one per index of `axis`, whose index
  // for flat position i is (i / inner) % extent.
  int64_t inner = 1, extent = 1;
  if (scale->size() != 1) {
    int64_t rank = type.getRank();
    std::optional<int64_t> axis = graph::normalizeAxis(dequantize.getAxis(), rank);
    if (!axis || type.getDimSize(*axis) != static_cast<int64_t>(scale->size()))
      return std::nullopt;
    extent = type.getDimSize(*axis);
    for (int64_t d = *axis + 1; d < rank; ++d)
      inner *= type.getDimSize(d);
  }
  // As graph.dequantize computes it: (x - zero point) in f32, times scale.
  std::vector<float> values(x->size());
  for (size_t i = 0; i < x->size(); ++i) {
    size_t k = scale->size() == 1 ? 0 : (i / inner) % extent;
    values[i] =
        static_cast<float>((*x)[i] - (*zeroPoint)[k]) * (*scale)[k];
  }
  return values;
}

std::optional<mlir::tfcc::ChannelQuantization>
mlir::tfcc::getChannelQuantization(Value dequantized, ArrayRef<int64_t> perm) {
  auto dequantize = dequantized.getDefiningOp<graph::DequantizeOp>();
  if (!dequantize)
    return std::nullopt;
  auto type = cast<RankedTensorType>(dequantize.getX().getType());
  int64_t rank = type.getRank();
  if (!perm.empty() && static_cast<int64_t>(perm.size()) != rank)
    return std::nullopt;
  // The last axis of the transposed tensor is axis perm.back() of x.
  int64_t channelAxis = perm.empty() ? rank - 1 : perm.back();
  if (rank == 0 || type.isDynamicDim(channelAxis))
    return std::nullopt;
  int64_t channels = type.getDimSize(channelAxis);
  std::optional<std::vector<float>> scales =
      getConstantFloats(dequantize.getScale());
  std::optional<std::vector<int64_t>> zeroPoints =
      getConstantIntegers(dequantize.getZeroPoint());
  if (!scales || !zeroPoints || scales->size() != zeroPoints->size())
    return std::nullopt;
  if (cast<RankedTensorType>(dequantize.getScale().getType()).getRank() == 0) {
    scales->assign(channels, scales->front());
    zeroPoints->assign(channels, zeroPoints->front());
  } else if (graph::normalizeAxis(dequantize.getAxis(), rank) != channelAxis ||
             static_cast<int64_t>(scales->size()) != channels) {
    return std::nullopt;
  }
  return ChannelQuantization{std::move(*scales), std::move(*zeroPoints)};
}
