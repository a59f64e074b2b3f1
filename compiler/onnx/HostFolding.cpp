//===- HostFolding.cpp - import-time evaluation of ONNX ops ---------------===//

#include "compiler/onnx/HostFolding.h"

#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/IR/TensorSize.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;

namespace tfcc::onnx_import {
namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isBool(Type t) { return t.isSignlessInteger(1); }

/// Offset into a tensor of `shape` (right-aligned against the result rank) of
/// the result index `index`, with broadcasting of size-1 dims.
int64_t broadcastOffset(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  size_t skip = index.size() - shape.size();
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[skip + d]);
  return offset;
}

int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

int64_t wrapNeg(int64_t a) {
  return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
}

int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

/// Integer part of a binary op; nullopt where the graph op fails at run time.
std::optional<int64_t> intBinary(HostBinary fn, int64_t a, int64_t b) {
  switch (fn) {
  case HostBinary::Add:
    return wrapAdd(a, b);
  case HostBinary::Sub:
    return wrapAdd(a, wrapNeg(b));
  case HostBinary::Mul:
    return wrapMul(a, b);
  case HostBinary::Div:
    if (b == 0)
      return std::nullopt;
    if (b == -1)
      return wrapNeg(a);
    return a / b; // truncates toward zero
  case HostBinary::Pow: {
    if (b < 0)
      return std::nullopt;
    int64_t result = 1;
    for (; b > 0; b >>= 1) {
      if (b & 1)
        result = wrapMul(result, a);
      a = wrapMul(a, a);
    }
    return result;
  }
  case HostBinary::Max:
    return std::max(a, b);
  case HostBinary::Min:
    return std::min(a, b);
  case HostBinary::Eq:
    return a == b;
  case HostBinary::Lt:
    return a < b;
  case HostBinary::Le:
    return a <= b;
  case HostBinary::Gt:
    return a > b;
  case HostBinary::Ge:
    return a >= b;
  }
  return std::nullopt;
}

double floatBinary(HostBinary fn, double a, double b) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  switch (fn) {
  case HostBinary::Add:
    return a + b;
  case HostBinary::Sub:
    return a - b;
  case HostBinary::Mul:
    return a * b;
  case HostBinary::Div:
    return a / b;
  case HostBinary::Pow:
    return std::pow(a, b);
  case HostBinary::Max:
    return (std::isnan(a) || std::isnan(b)) ? nan : (a > b ? a : b);
  case HostBinary::Min:
    return (std::isnan(a) || std::isnan(b)) ? nan : (a < b ? a : b);
  case HostBinary::Eq:
    return a == b;
  case HostBinary::Lt:
    return a < b;
  case HostBinary::Le:
    return a <= b;
  case HostBinary::Gt:
    return a > b;
  case HostBinary::Ge:
    return a >= b;
  }
  return nan;
}

bool isComparison(HostBinary fn) {
  return fn == HostBinary::Eq || fn == HostBinary::Lt ||
         fn == HostBinary::Le || fn == HostBinary::Gt || fn == HostBinary::Ge;
}

/// Float to integer as graph.cast does: truncation toward zero, NaN to 0,
/// saturation at the type's range (compared in double, where both bounds'
/// powers of two are exact).
int64_t floatToInt(Type intType, double v) {
  if (std::isnan(v))
    return 0;
  if (isBool(intType))
    return v != 0.0;
  double t = std::trunc(v);
  if (intType.isInteger(8)) { // saturates, as graph.cast does
    double lowest = intType.isUnsignedInteger() ? 0.0 : -128.0;
    return static_cast<int64_t>(std::clamp(t, lowest, lowest + 255.0));
  }
  if (intType.isSignlessInteger(32)) {
    if (t <= -0x1p31)
      return std::numeric_limits<int32_t>::min();
    if (t >= 0x1p31)
      return std::numeric_limits<int32_t>::max();
    return static_cast<int64_t>(t);
  }
  if (t <= -0x1p63)
    return std::numeric_limits<int64_t>::min();
  if (t >= 0x1p63)
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(t);
}

/// A tensor of `elementType` and `shape` with the elements of `x` picked by
/// `sourceOf(flat)` (an offset into x): the data-movement folds.
template <typename SourceFn>
HostTensor gatherElements(const HostTensor &x, ArrayRef<int64_t> shape,
                          SourceFn sourceOf) {
  HostTensor result = HostTensor::zeros(x.elementType, shape);
  forEachIndex(shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    result.copyElement(flat, x, sourceOf(index, flat));
  });
  return result;
}

} // namespace

std::vector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

int64_t productOf(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

std::optional<int64_t> checkedProductOf(ArrayRef<int64_t> dims) {
  // Host dims have no dynamic ones: a negative dim is an error here.
  if (llvm::any_of(dims, [](int64_t d) { return d < 0; }))
    return std::nullopt;
  return mlir::graph::checkedElementCount(dims);
}

int64_t stepCount(int64_t start, int64_t end, int64_t step) {
  assert(step != 0 && "a step of zero takes no steps");
  uint64_t distance, magnitude;
  if (step > 0) {
    if (end <= start)
      return 0;
    distance = static_cast<uint64_t>(end) - static_cast<uint64_t>(start);
    magnitude = static_cast<uint64_t>(step);
  } else {
    if (end >= start)
      return 0;
    distance = static_cast<uint64_t>(start) - static_cast<uint64_t>(end);
    magnitude = 0 - static_cast<uint64_t>(step); // exact for INT64_MIN too
  }
  uint64_t count = (distance - 1) / magnitude + 1;
  return count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(count);
}

double roundToFloatElement(Type floatType, double value) {
  assert(isFloat(floatType) && "not a float type");
  if (floatType.isF64())
    return value;
  if (floatType.isF16() || floatType.isBF16())
    return graph::roundToHalf(cast<FloatType>(floatType).getFloatSemantics(),
                              value);
  return static_cast<double>(static_cast<float>(value));
}

int64_t wrapToIntElement(Type intType, int64_t value) {
  assert(!isFloat(intType) && "not an integer type");
  if (isBool(intType))
    return value != 0;
  if (intType.isSignlessInteger(32))
    return static_cast<int32_t>(static_cast<uint32_t>(value));
  if (intType.isSignlessInteger(8))
    return static_cast<int8_t>(static_cast<uint8_t>(value));
  if (intType.isUnsignedInteger(8))
    return static_cast<uint8_t>(value);
  return value;
}

HostTensor makeFloatTensor(Type floatType, std::vector<int64_t> shape,
                           std::vector<double> values) {
  HostTensor t;
  t.elementType = floatType;
  t.shape = std::move(shape);
  t.floats = std::move(values);
  for (double &v : t.floats)
    v = roundToFloatElement(floatType, v);
  return t;
}

HostTensor makeIntTensor(Type intType, std::vector<int64_t> shape,
                         std::vector<int64_t> values) {
  HostTensor t;
  t.elementType = intType;
  t.shape = std::move(shape);
  t.ints = std::move(values);
  for (int64_t &v : t.ints)
    v = wrapToIntElement(intType, v);
  return t;
}

HostTensor makeI64Tensor(MLIRContext *context, ArrayRef<int64_t> values,
                         bool scalar) {
  std::vector<int64_t> shape;
  if (!scalar)
    shape = {static_cast<int64_t>(values.size())};
  return makeIntTensor(IntegerType::get(context, 64), std::move(shape),
                       std::vector<int64_t>(values.begin(), values.end()));
}

HostTensor makeFilled(Type elementType, ArrayRef<int64_t> shape,
                      int64_t value) {
  int64_t n = productOf(shape);
  if (isFloat(elementType))
    return makeFloatTensor(elementType, shape,
                           std::vector<double>(n, static_cast<double>(value)));
  return makeIntTensor(elementType, shape, std::vector<int64_t>(n, value));
}

HostTensor makeFilledFloat(Type floatType, ArrayRef<int64_t> shape,
                           double value) {
  return makeFloatTensor(floatType, shape,
                         std::vector<double>(productOf(shape), value));
}

std::optional<std::vector<int64_t>>
broadcastStaticShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[i] = da == 1 ? db : da;
  }
  return result;
}

std::optional<HostTensor> foldBinary(HostBinary fn, const HostTensor &a,
                                     const HostTensor &b) {
  if (a.elementType != b.elementType)
    return std::nullopt;
  auto shape = broadcastStaticShapes(a.shape, b.shape);
  if (!shape)
    return std::nullopt;
  Type operandType = a.elementType;
  Type resultType = isComparison(fn)
                        ? IntegerType::get(operandType.getContext(), 1)
                        : operandType;
  HostTensor result = HostTensor::zeros(resultType, *shape);
  bool ok = true;
  forEachIndex(*shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t i = broadcastOffset(index, a.shape);
    int64_t j = broadcastOffset(index, b.shape);
    if (a.isFloat()) {
      double r = floatBinary(fn, a.floats[i], b.floats[j]);
      if (isComparison(fn))
        result.ints[flat] = r != 0.0;
      else
        result.floats[flat] = roundToFloatElement(resultType, r);
      return;
    }
    if (a.isUnknown(i) || b.isUnknown(j)) {
      // Arithmetic on an unknown integer is unknown; a comparison's result
      // would be a boolean nobody knows: give up.
      if (isComparison(fn))
        ok = false;
      else
        result.setUnknown(flat);
      return;
    }
    std::optional<int64_t> v = intBinary(fn, a.ints[i], b.ints[j]);
    if (!v) {
      ok = false;
      return;
    }
    result.ints[flat] = wrapToIntElement(resultType, *v);
  });
  if (!ok)
    return std::nullopt;
  return result;
}

std::optional<HostTensor> foldUnary(HostUnary fn, const HostTensor &x) {
  bool isF = x.isFloat();
  bool isB = isBool(x.elementType);
  if (fn == HostUnary::Not ? !isB : isB)
    return std::nullopt;
  if (!isF && (fn == HostUnary::Floor || fn == HostUnary::Ceil ||
               fn == HostUnary::Sqrt))
    return std::nullopt;
  HostTensor result = x;
  if (isF) {
    for (double &v : result.floats) {
      switch (fn) {
      case HostUnary::Neg:
        v = -v;
        break;
      case HostUnary::Abs:
        v = std::fabs(v);
        break;
      case HostUnary::Floor:
        v = std::floor(v);
        break;
      case HostUnary::Ceil:
        v = std::ceil(v);
        break;
      case HostUnary::Sqrt:
        v = std::sqrt(v);
        break;
      case HostUnary::Relu:
        v = v < 0 ? 0.0 : v; // NaN stays NaN
        break;
      case HostUnary::Not:
        break;
      }
      v = roundToFloatElement(x.elementType, v);
    }
    return result;
  }
  for (int64_t i = 0; i < result.numElements(); ++i) {
    if (result.isUnknown(i)) // unknown stays unknown
      continue;
    int64_t &v = result.ints[i];
    switch (fn) {
    case HostUnary::Neg:
      v = wrapNeg(v);
      break;
    case HostUnary::Abs:
      v = v < 0 ? wrapNeg(v) : v;
      break;
    case HostUnary::Relu:
      v = v < 0 ? 0 : v;
      break;
    case HostUnary::Not:
      v = v == 0;
      break;
    case HostUnary::Floor:
    case HostUnary::Ceil:
    case HostUnary::Sqrt:
      break;
    }
    v = wrapToIntElement(x.elementType, v);
  }
  return result;
}

std::optional<HostTensor> foldSelect(const HostTensor &cond,
                                     const HostTensor &a,
                                     const HostTensor &b) {
  if (!isBool(cond.elementType) || a.elementType != b.elementType ||
      cond.hasUnknowns())
    return std::nullopt;
  auto shape = broadcastStaticShapes(cond.shape, a.shape);
  if (shape)
    shape = broadcastStaticShapes(*shape, b.shape);
  if (!shape)
    return std::nullopt;
  HostTensor result = HostTensor::zeros(a.elementType, *shape);
  forEachIndex(*shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    if (cond.ints[broadcastOffset(index, cond.shape)] != 0)
      result.copyElement(flat, a, broadcastOffset(index, a.shape));
    else
      result.copyElement(flat, b, broadcastOffset(index, b.shape));
  });
  return result;
}

HostTensor foldCast(const HostTensor &x, Type elementType) {
  assert((!x.hasUnknowns() || elementType.isSignlessInteger(32) ||
          elementType.isSignlessInteger(64)) &&
         "unknown entries only cast between integer types");
  bool toFloat = isFloat(elementType);
  HostTensor result = HostTensor::zeros(elementType, x.shape);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    if (x.isFloat() && toFloat)
      result.floats[i] = roundToFloatElement(elementType, x.floats[i]);
    else if (x.isFloat())
      result.ints[i] = floatToInt(elementType, x.floats[i]);
    else if (x.isUnknown(i))
      result.setUnknown(i);
    else if (toFloat) // the int64 rounds to the nearest double, then to f32
      result.floats[i] = roundToFloatElement(
          elementType, static_cast<double>(x.ints[i]));
    else
      result.ints[i] = wrapToIntElement(elementType, x.ints[i]);
  }
  return result;
}

HostTensor foldReshape(const HostTensor &x, ArrayRef<int64_t> shape) {
  HostTensor result = x;
  result.shape.assign(shape.begin(), shape.end());
  return result;
}

HostTensor foldTranspose(const HostTensor &x, ArrayRef<int64_t> perm) {
  std::vector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x.shape[p]);
  std::vector<int64_t> inStrides = stridesOf(x.shape);
  return gatherElements(x, shape, [&](ArrayRef<int64_t> index, int64_t) {
    int64_t offset = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      offset += index[d] * inStrides[perm[d]];
    return offset;
  });
}

std::optional<HostTensor> foldConcat(ArrayRef<const HostTensor *> inputs,
                                     int64_t axis) {
  const HostTensor &first = *inputs.front();
  std::vector<int64_t> shape = first.shape;
  if (axis < 0 || axis >= (int64_t)shape.size())
    return std::nullopt;
  shape[axis] = 0;
  for (const HostTensor *t : inputs) {
    if (t->elementType != first.elementType ||
        t->shape.size() != first.shape.size())
      return std::nullopt;
    for (size_t d = 0; d < shape.size(); ++d)
      if ((int64_t)d != axis && t->shape[d] != first.shape[d])
        return std::nullopt;
    shape[axis] += t->shape[axis];
  }
  // Row-major: for each outer index, append each input's inner block.
  int64_t outer = productOf(ArrayRef<int64_t>(shape).take_front(axis));
  int64_t inner = productOf(ArrayRef<int64_t>(shape).drop_front(axis + 1));
  HostTensor result = HostTensor::zeros(first.elementType, shape);
  int64_t flat = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor *t : inputs) {
      int64_t block = t->shape[axis] * inner;
      for (int64_t k = 0; k < block; ++k)
        result.copyElement(flat++, *t, o * block + k);
    }
  return result;
}

HostTensor foldSlice(const HostTensor &x, ArrayRef<int64_t> starts,
                     ArrayRef<int64_t> steps, ArrayRef<int64_t> counts) {
  std::vector<int64_t> inStrides = stridesOf(x.shape);
  return gatherElements(x, counts, [&](ArrayRef<int64_t> index, int64_t) {
    int64_t offset = 0;
    for (size_t d = 0; d < counts.size(); ++d)
      offset += (starts[d] + index[d] * steps[d]) * inStrides[d];
    return offset;
  });
}

std::optional<HostTensor> foldGather(const HostTensor &table,
                                     const HostTensor &indices, int64_t axis) {
  if (indices.isFloat() || indices.hasUnknowns())
    return std::nullopt;
  int64_t dim = table.shape[axis];
  std::vector<int64_t> shape(table.shape.begin(), table.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), table.shape.begin() + axis + 1, table.shape.end());
  int64_t outer = productOf(ArrayRef<int64_t>(table.shape).take_front(axis));
  int64_t inner =
      productOf(ArrayRef<int64_t>(table.shape).drop_front(axis + 1));
  for (int64_t i : indices.ints)
    if (i < -dim || i >= dim)
      return std::nullopt;
  HostTensor result = HostTensor::zeros(table.elementType, shape);
  int64_t flat = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : indices.ints) {
      int64_t begin = (o * dim + (i < 0 ? i + dim : i)) * inner;
      for (int64_t k = 0; k < inner; ++k)
        result.copyElement(flat++, table, begin + k);
    }
  return result;
}

std::optional<HostTensor> foldExpand(const HostTensor &x,
                                     ArrayRef<int64_t> shape) {
  auto outShape = broadcastStaticShapes(x.shape, shape);
  if (!outShape)
    return std::nullopt;
  return gatherElements(x, *outShape, [&](ArrayRef<int64_t> index, int64_t) {
    return broadcastOffset(index, x.shape);
  });
}

HostTensor foldReduce(HostReduce fn, const HostTensor &x,
                      ArrayRef<bool> reduced, bool keepDims) {
  std::vector<int64_t> keptShape; // reduced dims as 1
  std::vector<int64_t> outShape;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    keptShape.push_back(reduced[d] ? 1 : x.shape[d]);
    if (!reduced[d] || keepDims)
      outShape.push_back(keptShape.back());
  }
  int64_t n = productOf(keptShape);
  int64_t count = n == 0 ? 0 : productOf(x.shape) / std::max<int64_t>(n, 1);
  if (x.isFloat()) {
    double init = 0.0;
    if (fn == HostReduce::Prod)
      init = 1.0;
    else if (fn == HostReduce::Max)
      init = -std::numeric_limits<double>::infinity();
    else if (fn == HostReduce::Min)
      init = std::numeric_limits<double>::infinity();
    std::vector<double> acc(n, init);
    forEachIndex(x.shape, [&](ArrayRef<int64_t> index, int64_t flat) {
      double v = x.floats[flat];
      double &a = acc[broadcastOffset(index, keptShape)];
      switch (fn) {
      case HostReduce::Sum:
      case HostReduce::Mean:
        a += v;
        break;
      case HostReduce::Prod:
        a *= v;
        break;
      case HostReduce::Max:
        a = (std::isnan(a) || std::isnan(v)) ? std::nan("") : std::max(a, v);
        break;
      case HostReduce::Min:
        a = (std::isnan(a) || std::isnan(v)) ? std::nan("") : std::min(a, v);
        break;
      }
    });
    if (fn == HostReduce::Mean)
      for (double &a : acc)
        a /= static_cast<double>(count);
    return makeFloatTensor(x.elementType, outShape, std::move(acc));
  }
  int64_t init = 0;
  if (fn == HostReduce::Prod)
    init = 1;
  else if (fn == HostReduce::Max)
    init = std::numeric_limits<int64_t>::min();
  else if (fn == HostReduce::Min)
    init = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> acc(n, init);
  forEachIndex(x.shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t v = x.ints[flat];
    int64_t &a = acc[broadcastOffset(index, keptShape)];
    switch (fn) {
    case HostReduce::Sum:
    case HostReduce::Mean:
      a = wrapAdd(a, v);
      break;
    case HostReduce::Prod:
      a = wrapMul(a, v);
      break;
    case HostReduce::Max:
      a = std::max(a, v);
      break;
    case HostReduce::Min:
      a = std::min(a, v);
      break;
    }
  });
  if (fn == HostReduce::Mean)
    for (int64_t &a : acc)
      a = count == 0 ? 0 : a / count;
  return makeIntTensor(x.elementType, outShape, std::move(acc));
}

std::optional<SmallVector<const HostTensor *>>
allConstantInputs(ImportContext &ctx, bool allowPartial) {
  SmallVector<const HostTensor *> inputs;
  bool any = false;
  for (int i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i)) {
      inputs.push_back(nullptr);
      continue;
    }
    const HostTensor *t =
        allowPartial ? ctx.partialConstantInput(i) : ctx.constantInput(i);
    if (!t)
      return std::nullopt;
    inputs.push_back(t);
    any = true;
  }
  if (!any)
    return std::nullopt;
  return inputs;
}

LogicalResult unsupportedUnknownInput(ImportContext &ctx, int i,
                                     StringRef what) {
  const HostTensor *t = ctx.partialConstantInput(i);
  assert(t && t->hasUnknowns() && "not a partially known input");
  return ctx.unsupported("'" + what + "' input " + formatPartialInts(*t) +
                         " derived from " + ctx.unknownOrigin(i) +
                         " (not known at import time)");
}

FailureOr<std::vector<int64_t>> constantIntsInput(ImportContext &ctx, int i,
                                                  StringRef what) {
  const HostTensor *t = ctx.constantInput(i);
  if (!t && ctx.partialConstantInput(i))
    return unsupportedUnknownInput(ctx, i, what);
  if (!t)
    return ctx.unsupported("non-constant '" + what + "' input");
  if (t->isFloat())
    return ctx.unsupported("'" + what + "' input of element type " +
                           (t->elementType.isF64() ? "f64" : "f32"));
  return t->asInts();
}

std::string formatInts(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::string formatPartialInts(const HostTensor &t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.numElements(); ++i)
    s += (i ? ", " : "") +
         (t.isUnknown(i) ? std::string("?") : std::to_string(t.ints[i]));
  return s + "]";
}

std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return os.str();
}

} // namespace tfcc::onnx_import
