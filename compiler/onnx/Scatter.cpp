//===- Scatter.cpp - ScatterElements / ScatterND with constant indices -----===//
//
// A documented decomposition, for indices known at import time (as models
// exported from slice assignments have them): the importer computes which
// element of `updates` each output element receives, and the scatter becomes
// graph.gather of the flattened updates by that constant map, put in place
// with graph.select on a constant mask. Several writes to one element (the
// reductions) are rounds: round r holds every element's r-th write, combined
// with the running result (add, mul, max, min; none keeps the last write).
// Indices computed at run time are refused.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"
#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

using namespace mlir;
using namespace mlir::graph;
using namespace tfcc::onnx_import;

namespace {

/// The most output elements a scatter's constant maps may describe (the map
/// and mask are constants of that many elements per round).
constexpr int64_t kMaxScatterElements = int64_t(1) << 22;
/// The most writes to one element (rounds of the decomposition).
constexpr int64_t kMaxScatterRounds = 64;

/// writes[t]: the update elements written to output element t, in order.
using Writes = std::vector<std::vector<int64_t>>;

/// Builds the output from `data`, `updates` and the writes: one
/// gather-and-select round per write depth.
LogicalResult emitScatter(ImportContext &ctx, Value data, Value updates,
                          const Writes &writes, llvm::StringRef reduction) {
  auto dataType = cast<RankedTensorType>(data.getType());
  auto updatesType = cast<RankedTensorType>(updates.getType());
  size_t rounds = 0;
  for (const auto &w : writes)
    rounds = std::max(rounds, w.size());
  if (reduction == "none" && rounds > 1)
    rounds = 1; // the last write wins (ONNX leaves duplicates undefined)
  if (int64_t(rounds) > kMaxScatterRounds)
    return ctx.unsupported("indices writing one element more than " +
                           llvm::Twine(kMaxScatterRounds) + " times");
  OpChain b{ctx};
  OpBuilder &ob = ctx.builder();
  Value flat = b.reshape(updates, {updatesType.getNumElements()});
  Value result = data;
  for (size_t r = 0; r < rounds && !b.failed; ++r) {
    std::vector<int64_t> map(writes.size(), 0), mask(writes.size(), 0);
    for (size_t t = 0; t < writes.size(); ++t) {
      if (writes[t].size() <= r)
        continue;
      map[t] = reduction == "none" ? writes[t].back() : writes[t][r];
      mask[t] = 1;
    }
    Value index = ctx.constant(
        makeIntTensor(ob.getI64Type(), dataType.getShape().vec(), map));
    Value where = ctx.constant(
        makeIntTensor(ob.getI1Type(), dataType.getShape().vec(), mask));
    Value written =
        b.check(ctx.create<GatherOp>(flat, index, ob.getI64IntegerAttr(0)));
    Value combined = written;
    if (reduction == "add")
      combined = b.binary<AddOp>(result, written);
    else if (reduction == "mul")
      combined = b.binary<MulOp>(result, written);
    else if (reduction == "max")
      combined = b.binary<MaximumOp>(result, written);
    else if (reduction == "min")
      combined = b.binary<MinimumOp>(result, written);
    result = b.select(where, combined, result);
  }
  return b.finish(result);
}

/// The static data and updates of a scatter, and its constant indices.
struct ScatterOperands {
  Value data, updates;
  RankedTensorType dataType, updatesType;
  const HostTensor *indices = nullptr;
  std::string reduction;
};

FailureOr<ScatterOperands> readOperands(ImportContext &ctx) {
  ScatterOperands s;
  FailureOr<Value> data = ctx.input(0), updates = ctx.input(2);
  if (failed(data) || failed(updates))
    return failure();
  s.data = *data;
  s.updates = *updates;
  s.dataType = cast<RankedTensorType>(s.data.getType());
  s.updatesType = cast<RankedTensorType>(s.updates.getType());
  if (s.dataType.getElementType() != s.updatesType.getElementType())
    return ctx.invalid("updates of type " + typeName(s.updatesType) +
                       " for data " + typeName(s.dataType));
  if (!s.dataType.hasStaticShape() || !s.updatesType.hasStaticShape())
    return ctx.unsupported("data or updates of dynamic shape (" +
                           typeName(s.dataType) + ", " +
                           typeName(s.updatesType) + ")");
  if (s.dataType.getNumElements() > kMaxScatterElements)
    return ctx.unsupported("data of more than " +
                           llvm::Twine(kMaxScatterElements) + " elements");
  s.indices = ctx.constantInput(1);
  if (!s.indices)
    return ctx.unsupported("non-constant 'indices' (tfcc scatters by indices "
                           "known at import time)");
  if (s.indices->isFloat())
    return ctx.invalid("'indices' of a float type");
  s.reduction = ctx.attrString("reduction", "none");
  if (s.reduction != "none" && s.reduction != "add" && s.reduction != "mul" &&
      s.reduction != "max" && s.reduction != "min")
    return ctx.invalid("attribute 'reduction' = \"" + s.reduction + "\"");
  return s;
}

/// ScatterElements (and the older Scatter): updates[p] goes to the output
/// element p with p[axis] = indices[p].
LogicalResult convertScatterElements(ImportContext &ctx) {
  FailureOr<ScatterOperands> s = readOperands(ctx);
  if (failed(s))
    return failure();
  ArrayRef<int64_t> dataShape = s->dataType.getShape();
  const HostTensor &indices = *s->indices;
  int64_t rank = dataShape.size();
  int64_t attrAxis = ctx.attrInt("axis", 0);
  std::optional<int64_t> axis = normalizeAxis(attrAxis, rank);
  if (!axis)
    return ctx.invalid("attribute 'axis' = " + llvm::Twine(attrAxis) +
                       " for rank " + llvm::Twine(rank));
  if (indices.shape != s->updatesType.getShape().vec() ||
      int64_t(indices.shape.size()) != rank)
    return ctx.invalid("indices of shape " + typeName(indices.type()) +
                       " for updates " + typeName(s->updatesType) +
                       " and data " + typeName(s->dataType));
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && indices.shape[d] > dataShape[d])
      return ctx.invalid("indices " + typeName(indices.type()) +
                         " larger than data " + typeName(s->dataType) +
                         " in dimension " + llvm::Twine(d));
  const std::vector<int64_t> &values = indices.asInts();
  const int64_t size = dataShape[*axis];
  for (int64_t index : values)
    if (index < -size || index >= size)
      return ctx.invalid("index " + llvm::Twine(index) + " for dimension " +
                         llvm::Twine(*axis) + " of size " + llvm::Twine(size));
  std::vector<int64_t> dataStrides = stridesOf(dataShape);
  Writes writes(productOf(dataShape));
  forEachIndex(indices.shape, [&](ArrayRef<int64_t> position, int64_t k) {
    int64_t index = values[k], target = 0;
    for (int64_t d = 0; d < rank; ++d)
      target += (d == *axis ? (index < 0 ? index + size : index) : position[d]) *
                dataStrides[d];
    writes[target].push_back(k);
  });
  return emitScatter(ctx, s->data, s->updates, writes, s->reduction);
}

/// ScatterND: indices [..., k] name elements (k = rank) or slices of data;
/// updates [..., data.shape[k:]].
LogicalResult convertScatterND(ImportContext &ctx) {
  FailureOr<ScatterOperands> s = readOperands(ctx);
  if (failed(s))
    return failure();
  ArrayRef<int64_t> dataShape = s->dataType.getShape();
  const HostTensor &indices = *s->indices;
  int64_t rank = dataShape.size();
  if (indices.shape.empty() || indices.shape.back() < 1 ||
      indices.shape.back() > rank)
    return ctx.invalid("indices of shape " + typeName(indices.type()) +
                       " for data " + typeName(s->dataType));
  int64_t k = indices.shape.back();
  std::vector<int64_t> expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), dataShape.begin() + k, dataShape.end());
  if (s->updatesType.getShape().vec() != expected)
    return ctx.invalid("updates " + typeName(s->updatesType) + " for indices " +
                       typeName(indices.type()) + " and data " +
                       typeName(s->dataType));
  std::vector<int64_t> dataStrides = stridesOf(dataShape);
  int64_t slice = productOf(dataShape.drop_front(k));
  int64_t tuples = productOf(indices.shape) / k;
  const std::vector<int64_t> &values = indices.asInts();
  Writes writes(productOf(dataShape));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t index = values[t * k + d], size = dataShape[d];
      if (index < -size || index >= size)
        return ctx.invalid("index " + llvm::Twine(index) + " for dimension " +
                           llvm::Twine(d) + " of size " + llvm::Twine(size));
      base += (index < 0 ? index + size : index) * dataStrides[d];
    }
    for (int64_t j = 0; j < slice; ++j)
      writes[base + j].push_back(t * slice + j);
  }
  return emitScatter(ctx, s->data, s->updates, writes, s->reduction);
}

} // namespace

void tfcc::onnx_import::registerScatterConverters(ConverterTable &table) {
  table["ScatterElements"] = convertScatterElements;
  table["Scatter"] = convertScatterElements;
  table["ScatterND"] = convertScatterND;
}
