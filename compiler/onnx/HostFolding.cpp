//===- HostFolding.cpp - import-time evaluation of ONNX ops ---------------===//

#include "compiler/onnx/HostFolding.h"

#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;

namespace tfcc::onnx_import {
namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isBool(Type t) { return t.isSignlessInteger(1); }

std::vector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Offset into a tensor of `shape` (right-aligned against the result rank) of
/// the result index `index`, with broadcasting of size-1 dims.
int64_t broadcastOffset(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  size_t skip = index.size() - shape.size();
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[skip + d]);
  return offset;
}

/// Calls fn(index, flat) for every element of `shape` in row-major order.
template <typename Fn>
void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = productOf(shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(ArrayRef<int64_t>(index), flat);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

/// Integer part of a binary op; nullopt where the graph op fails at run time.
std::optional<int64_t> intBinary(HostBinary fn, int64_t a, int64_t b) {
  switch (fn) {
  case HostBinary::Add:
    return static_cast<int64_t>(static_cast<uint64_t>(a) +
                                static_cast<uint64_t>(b));
  case HostBinary::Sub:
    return static_cast<int64_t>(static_cast<uint64_t>(a) -
                                static_cast<uint64_t>(b));
  case HostBinary::Mul:
    return wrapMul(a, b);
  case HostBinary::Div:
    if (b == 0)
      return std::nullopt;
    if (b == -1)
      return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
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

} // namespace

int64_t productOf(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

double roundToElement(Type elementType, double value) {
  if (elementType.isF64())
    return value;
  if (isFloat(elementType))
    return static_cast<double>(static_cast<float>(value));
  if (std::isnan(value)) // an unknown integer stays unknown
    return value;
  if (isBool(elementType))
    return value != 0.0 ? 1.0 : 0.0;
  if (elementType.isSignlessInteger(32)) {
    auto v = static_cast<int64_t>(value);
    return static_cast<double>(
        static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))));
  }
  return value;
}

HostTensor makeHostTensor(Type elementType, std::vector<int64_t> shape,
                          std::vector<double> values) {
  for (double &v : values)
    v = roundToElement(elementType, v);
  return HostTensor{elementType, std::move(shape), std::move(values)};
}

HostTensor makeI64Tensor(MLIRContext *context, ArrayRef<int64_t> values,
                         bool scalar) {
  HostTensor t;
  t.elementType = IntegerType::get(context, 64);
  if (!scalar)
    t.shape = {static_cast<int64_t>(values.size())};
  for (int64_t v : values)
    t.values.push_back(static_cast<double>(v));
  return t;
}

HostTensor makeFilled(Type elementType, ArrayRef<int64_t> shape, double value) {
  return HostTensor{elementType, std::vector<int64_t>(shape),
                    std::vector<double>(productOf(shape),
                                        roundToElement(elementType, value))};
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
  HostTensor result{resultType, *shape,
                    std::vector<double>(productOf(*shape), 0.0)};
  bool ok = true;
  forEachIndex(*shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    double x = a.values[broadcastOffset(index, a.shape)];
    double y = b.values[broadcastOffset(index, b.shape)];
    double r;
    if (!isFloat(operandType) && (std::isnan(x) || std::isnan(y))) {
      // Arithmetic on an unknown integer is unknown; a comparison's result
      // would be a boolean nobody knows: give up.
      if (isComparison(fn))
        ok = false;
      result.values[flat] = unknownValue();
      return;
    }
    if (isFloat(operandType)) {
      r = floatBinary(fn, x, y);
    } else {
      std::optional<int64_t> v = intBinary(fn, static_cast<int64_t>(x),
                                           static_cast<int64_t>(y));
      if (!v) {
        ok = false;
        return;
      }
      r = static_cast<double>(*v);
    }
    result.values[flat] = roundToElement(resultType, r);
  });
  if (!ok)
    return std::nullopt;
  return result;
}

std::optional<HostTensor> foldUnary(HostUnary fn, const HostTensor &x) {
  bool isF = isFloat(x.elementType);
  bool isB = isBool(x.elementType);
  if (fn == HostUnary::Not ? !isB : isB)
    return std::nullopt;
  if (!isF && (fn == HostUnary::Floor || fn == HostUnary::Ceil ||
               fn == HostUnary::Sqrt))
    return std::nullopt;
  HostTensor result = x;
  for (double &v : result.values) {
    if (!isF && std::isnan(v)) // unknown stays unknown
      continue;
    switch (fn) {
    case HostUnary::Neg:
      v = isF ? -v
              : static_cast<double>(static_cast<int64_t>(
                    0 - static_cast<uint64_t>(static_cast<int64_t>(v))));
      break;
    case HostUnary::Abs:
      v = isF ? std::fabs(v)
              : (v < 0 ? static_cast<double>(static_cast<int64_t>(
                             0 - static_cast<uint64_t>(static_cast<int64_t>(v))))
                       : v);
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
      v = v != 0.0 ? 0.0 : 1.0;
      break;
    }
    v = roundToElement(x.elementType, v);
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
  HostTensor result{a.elementType, *shape,
                    std::vector<double>(productOf(*shape), 0.0)};
  forEachIndex(*shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    result.values[flat] = cond.values[broadcastOffset(index, cond.shape)] != 0.0
                              ? a.values[broadcastOffset(index, a.shape)]
                              : b.values[broadcastOffset(index, b.shape)];
  });
  return result;
}

HostTensor foldCast(const HostTensor &x, Type elementType) {
  assert((!x.hasUnknowns() || elementType.isSignlessInteger(32) ||
          elementType.isSignlessInteger(64)) &&
         "unknown entries only cast between integer types");
  HostTensor result = x;
  result.elementType = elementType;
  bool fromFloat = isFloat(x.elementType);
  for (double &v : result.values) {
    if (fromFloat && (elementType.isSignlessInteger(32) ||
                      elementType.isSignlessInteger(64))) {
      // Truncate toward zero; NaN gives 0 and out-of-range values saturate,
      // as the reference interpreter does.
      double lowest = elementType.isSignlessInteger(32) ? -0x1p31 : -0x1p63;
      double highest =
          elementType.isSignlessInteger(32) ? 0x1p31 - 1 : 0x1p63 - 1024;
      v = std::isnan(v) ? 0.0
                        : std::min(std::max(std::trunc(v), lowest), highest);
      continue;
    }
    v = roundToElement(elementType, v);
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
  HostTensor result{x.elementType, shape,
                    std::vector<double>(x.values.size(), 0.0)};
  forEachIndex(shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t offset = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      offset += index[d] * inStrides[perm[d]];
    result.values[flat] = x.values[offset];
  });
  return result;
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
  HostTensor result{first.elementType, shape, {}};
  result.values.reserve(productOf(shape));
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor *t : inputs) {
      int64_t block = t->shape[axis] * inner;
      result.values.insert(result.values.end(),
                           t->values.begin() + o * block,
                           t->values.begin() + (o + 1) * block);
    }
  return result;
}

HostTensor foldSlice(const HostTensor &x, ArrayRef<int64_t> starts,
                     ArrayRef<int64_t> steps, ArrayRef<int64_t> counts) {
  std::vector<int64_t> inStrides = stridesOf(x.shape);
  HostTensor result{x.elementType, std::vector<int64_t>(counts),
                    std::vector<double>(productOf(counts), 0.0)};
  forEachIndex(counts, [&](ArrayRef<int64_t> index, int64_t flat) {
    int64_t offset = 0;
    for (size_t d = 0; d < counts.size(); ++d)
      offset += (starts[d] + index[d] * steps[d]) * inStrides[d];
    result.values[flat] = x.values[offset];
  });
  return result;
}

std::optional<HostTensor> foldGather(const HostTensor &table,
                                     const HostTensor &indices, int64_t axis) {
  int64_t dim = table.shape[axis];
  std::vector<int64_t> shape(table.shape.begin(), table.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), table.shape.begin() + axis + 1, table.shape.end());
  int64_t outer = productOf(ArrayRef<int64_t>(table.shape).take_front(axis));
  int64_t inner =
      productOf(ArrayRef<int64_t>(table.shape).drop_front(axis + 1));
  HostTensor result{table.elementType, shape, {}};
  result.values.reserve(productOf(shape));
  for (int64_t o = 0; o < outer; ++o)
    for (double raw : indices.values) {
      auto i = static_cast<int64_t>(raw);
      if (i < 0)
        i += dim;
      if (i < 0 || i >= dim)
        return std::nullopt;
      auto begin = table.values.begin() + (o * dim + i) * inner;
      result.values.insert(result.values.end(), begin, begin + inner);
    }
  return result;
}

std::optional<HostTensor> foldExpand(const HostTensor &x,
                                     ArrayRef<int64_t> shape) {
  auto outShape = broadcastStaticShapes(x.shape, shape);
  if (!outShape)
    return std::nullopt;
  HostTensor result{x.elementType, *outShape,
                    std::vector<double>(productOf(*outShape), 0.0)};
  forEachIndex(*outShape, [&](ArrayRef<int64_t> index, int64_t flat) {
    result.values[flat] = x.values[broadcastOffset(index, x.shape)];
  });
  return result;
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
  double init = 0.0;
  if (fn == HostReduce::Prod)
    init = 1.0;
  else if (fn == HostReduce::Max)
    init = -std::numeric_limits<double>::infinity();
  else if (fn == HostReduce::Min)
    init = std::numeric_limits<double>::infinity();
  std::vector<double> acc(n, init);
  bool isF = isFloat(x.elementType);
  forEachIndex(x.shape, [&](ArrayRef<int64_t> index, int64_t flat) {
    double v = x.values[flat];
    double &a = acc[broadcastOffset(index, keptShape)];
    switch (fn) {
    case HostReduce::Sum:
    case HostReduce::Mean:
      a = isF ? a + v
              : static_cast<double>(static_cast<int64_t>(
                    static_cast<uint64_t>(static_cast<int64_t>(a)) +
                    static_cast<uint64_t>(static_cast<int64_t>(v))));
      break;
    case HostReduce::Prod:
      a = isF ? a * v
              : static_cast<double>(
                    wrapMul(static_cast<int64_t>(a), static_cast<int64_t>(v)));
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
      a = isF ? a / static_cast<double>(count)
              : static_cast<double>(static_cast<int64_t>(a) / count);
  return makeHostTensor(x.elementType, outShape, std::move(acc));
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
  if (isFloat(t->elementType))
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
  std::vector<int64_t> ints = t.asInts();
  std::string s = "[";
  for (size_t i = 0; i < ints.size(); ++i)
    s += (i ? ", " : "") +
         (t.isUnknown(i) ? std::string("?") : std::to_string(ints[i]));
  return s + "]";
}

std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return os.str();
}

} // namespace tfcc::onnx_import
