//===- Runner.cpp - drive compiled models and the interpreter -------------===//

#include "compiler/Runner.h"

#include "compiler/ElementTypes.h"

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/Reference/Interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace mlir;

namespace tfcc {

//===----------------------------------------------------------------------===//
// Host tensors <-> interpreter tensors
//===----------------------------------------------------------------------===//

/// The APFloat format of a 16-bit float dtype (f16 or bf16).
static const llvm::fltSemantics &halfFormatOf(DType dtype) {
  return mlir::graph::halfSemantics(dtype == DType::BF16);
}

double elementAsDouble(const NpyArray &a, int64_t i) {
  const uint8_t *p = a.data.data();
  switch (a.dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return double(v);
  }
  case DType::BOOL:
    return double(p[i] != 0);
  case DType::I8:
    return double(int8_t(p[i]));
  case DType::U8:
    return double(p[i]);
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p + 2 * i, 2);
    return mlir::graph::halfValue(halfFormatOf(a.dtype), bits);
  }
  default:
    return NAN;
  }
}

static void setElement(NpyArray &a, int64_t i, double v) {
  uint8_t *p = a.data.data();
  switch (a.dtype) {
  case DType::F32: {
    float f = float(v);
    std::memcpy(p + 4 * i, &f, 4);
    return;
  }
  case DType::F64:
    std::memcpy(p + 8 * i, &v, 8);
    return;
  case DType::I32: {
    int32_t x = int32_t(v);
    std::memcpy(p + 4 * i, &x, 4);
    return;
  }
  case DType::I64: {
    int64_t x = int64_t(v);
    std::memcpy(p + 8 * i, &x, 8);
    return;
  }
  case DType::BOOL:
    p[i] = v != 0;
    return;
  case DType::I8:
  case DType::U8:
    p[i] = uint8_t(int64_t(v));
    return;
  case DType::F16:
  case DType::BF16: {
    uint16_t bits = mlir::graph::halfBits(halfFormatOf(a.dtype), v);
    std::memcpy(p + 2 * i, &bits, 2);
    return;
  }
  default:
    return;
  }
}

static NpyArray makeArray(DType dtype, std::vector<int64_t> shape) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.assign(a.numElements() * byteSize(dtype), 0);
  return a;
}

static std::optional<ref::ElementKind> kindOf(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return ref::ElementKind::F32;
  case DType::F64:
    return ref::ElementKind::F64;
  case DType::I32:
    return ref::ElementKind::I32;
  case DType::I64:
    return ref::ElementKind::I64;
  case DType::BOOL:
    return ref::ElementKind::I1;
  case DType::I8:
    return ref::ElementKind::I8;
  case DType::U8:
    return ref::ElementKind::UI8;
  case DType::F16:
    return ref::ElementKind::F16;
  case DType::BF16:
    return ref::ElementKind::BF16;
  default:
    return std::nullopt;
  }
}

static DType dtypeOf(ref::ElementKind kind) {
  switch (kind) {
  case ref::ElementKind::F32:
    return DType::F32;
  case ref::ElementKind::F64:
    return DType::F64;
  case ref::ElementKind::I32:
    return DType::I32;
  case ref::ElementKind::I64:
    return DType::I64;
  case ref::ElementKind::I1:
    return DType::BOOL;
  case ref::ElementKind::I8:
    return DType::I8;
  case ref::ElementKind::UI8:
    return DType::U8;
  case ref::ElementKind::F16:
    return DType::F16;
  case ref::ElementKind::BF16:
    return DType::BF16;
  }
  return DType::F32;
}

static bool toTensors(const std::vector<NpyArray> &arrays,
                      std::vector<ref::Tensor> &tensors, std::string &error) {
  tensors.clear();
  for (const NpyArray &a : arrays) {
    auto kind = kindOf(a.dtype);
    if (!kind) {
      error = std::string("the interpreter does not support dtype ") +
              dtypeName(a.dtype);
      return false;
    }
    ref::Tensor t = ref::Tensor::zeros(*kind, a.shape);
    for (int64_t i = 0; i < a.numElements(); ++i)
      t.data[i] = elementAsDouble(a, i);
    tensors.push_back(std::move(t));
  }
  return true;
}

static NpyArray fromTensor(const ref::Tensor &t) {
  NpyArray a = makeArray(dtypeOf(t.kind), t.shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    setElement(a, i, t.data[i]);
  return a;
}

bool interpretTraining(ModuleOp module, const std::string &trainEntry,
                       const std::vector<NpyArray> &inputs, unsigned steps,
                       const std::string &probeEntry,
                       const std::vector<NpyArray> &probeInputs,
                       const std::vector<std::string> &variables,
                       InterpretedTraining &result, std::string &error) {
  std::vector<ref::Tensor> args, probeArgs;
  if (!toTensors(inputs, args, error) ||
      !toTensors(probeInputs, probeArgs, error))
    return false;
  ref::Interpreter interpreter(module);
  auto probe = [&](std::vector<NpyArray> &out) {
    if (probeEntry.empty())
      return true;
    auto results = interpreter.run(probeEntry, probeArgs);
    if (failed(results)) {
      error = interpreter.error();
      return false;
    }
    out.clear();
    for (const ref::Tensor &t : *results)
      out.push_back(fromTensor(t));
    return true;
  };
  if (!probe(result.probeBefore))
    return false;
  result.losses.clear();
  for (unsigned step = 0; step < steps; ++step) {
    auto results = interpreter.run(trainEntry, args);
    if (failed(results)) {
      error = interpreter.error();
      return false;
    }
    if (results->empty() || (*results)[0].numElements() < 1) {
      error = "the train step returned no loss";
      return false;
    }
    result.losses.push_back((*results)[0].data[0]);
  }
  if (!probe(result.probeAfter))
    return false;
  result.variables.clear();
  for (const std::string &name : variables) {
    auto value = interpreter.variable(name);
    if (failed(value)) {
      error = interpreter.error();
      return false;
    }
    result.variables.push_back(fromTensor(*value));
  }
  return true;
}

bool interpret(ModuleOp module, const std::string &entry,
               const std::vector<NpyArray> &inputs,
               std::vector<NpyArray> &outputs, std::string &error) {
  std::vector<ref::Tensor> args;
  if (!toTensors(inputs, args, error))
    return false;
  ref::Interpreter interpreter(module);
  auto results = interpreter.run(entry, args);
  if (failed(results)) {
    error = interpreter.error();
    return false;
  }
  outputs.clear();
  for (const ref::Tensor &t : *results) {
    NpyArray a = makeArray(dtypeOf(t.kind), t.shape);
    for (int64_t i = 0; i < t.numElements(); ++i)
      setElement(a, i, t.data[i]);
    outputs.push_back(std::move(a));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

namespace {

/// What values an argument may take so the model is well defined on it.
struct Domain {
  bool positive = false;       // feeds log, sqrt, rsqrt or pow
  std::optional<int64_t> bound; // integer in [0, bound)
};

Domain domainOf(BlockArgument arg) {
  Domain domain;
  for (Operation *user : arg.getUsers()) {
    if (isa<graph::LogOp, graph::SqrtOp, graph::RsqrtOp, graph::PowOp>(user))
      domain.positive = true;
    if (auto gather = dyn_cast<graph::GatherOp>(user)) {
      if (gather.getIndices() != arg)
        continue;
      auto table = cast<RankedTensorType>(gather.getTable().getType());
      int64_t axis = static_cast<int64_t>(gather.getAxis());
      if (axis < 0)
        axis += table.getRank();
      if (!table.isDynamicDim(axis))
        domain.bound = table.getDimSize(axis);
    }
    if (auto loss = dyn_cast<graph::SparseSoftmaxCrossEntropyOp>(user)) {
      auto logits = cast<RankedTensorType>(loss.getLogits().getType());
      if (loss.getLabels() == arg && !logits.isDynamicDim(1))
        domain.bound = logits.getDimSize(1);
    }
  }
  return domain;
}

} // namespace

std::vector<NpyArray> makeRandomInputs(func::FuncOp func, int64_t batch,
                                       uint64_t seed) {
  std::vector<std::vector<int64_t>> shapes;
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    std::vector<int64_t> shape;
    for (int64_t d : type.getShape())
      shape.push_back(ShapedType::isDynamic(d) ? batch : d);
    shapes.push_back(std::move(shape));
  }
  return makeRandomInputs(func, shapes, seed);
}

std::vector<NpyArray>
makeRandomInputs(func::FuncOp func,
                 const std::vector<std::vector<int64_t>> &shapes,
                 uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<NpyArray> inputs;
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    const std::vector<int64_t> &shape = shapes[arg.getArgNumber()];
    Type et = type.getElementType();
    DType dtype = dtypeOfElementType(et).value_or(DType::F32);
    NpyArray a = makeArray(dtype, shape);
    Domain domain = domainOf(arg);
    std::uniform_real_distribution<double> real(domain.positive ? 0.1 : -1.0,
                                                domain.positive ? 2.0 : 1.0);
    // 8-bit integers (quantized data) take their whole range.
    int64_t low = dtype == DType::U8 ? 0 : dtype == DType::I8 ? -128 : -5;
    int64_t high = dtype == DType::U8 ? 255 : dtype == DType::I8 ? 127 : 5;
    std::uniform_int_distribution<int64_t> integer(
        domain.bound ? 0 : low, domain.bound ? *domain.bound - 1 : high);
    for (int64_t i = 0; i < a.numElements(); ++i) {
      double v = isFloatDType(dtype)    ? real(rng)
                 : dtype == DType::BOOL ? double(rng() & 1)
                                        : double(integer(rng));
      setElement(a, i, v);
    }
    inputs.push_back(std::move(a));
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// Agreement
//===----------------------------------------------------------------------===//

/// Calls fn(reference element, |actual - reference|) for each element pair
/// of two arrays of one shape, skipping NaNs (inf == inf differs by 0).
/// Returns false when it skipped any.
template <typename Fn>
static bool forEachDifference(const NpyArray &actual, const NpyArray &reference,
                              Fn fn) {
  bool noNan = true;
  for (int64_t i = 0; i < actual.numElements(); ++i) {
    double a = elementAsDouble(actual, i), b = elementAsDouble(reference, i);
    if (std::isnan(a) || std::isnan(b)) {
      noNan = false;
      continue;
    }
    fn(b, a == b ? 0.0 : std::fabs(a - b));
  }
  return noNan;
}

Agreement compareArrays(const NpyArray &actual, const NpyArray &reference) {
  Agreement r;
  r.exact = !isFloatDType(actual.dtype);
  r.typeTolerance = actual.dtype == DType::F16    ? 0x1p-8
                    : actual.dtype == DType::BF16 ? 0x1p-5
                                                  : 0.0;
  if (actual.shape != reference.shape || actual.dtype != reference.dtype) {
    r.shapeMismatch = true;
    return r;
  }
  double maxRef = 0;
  r.nan = !forEachDifference(actual, reference, [&](double b, double diff) {
    r.maxAbsError = std::max(r.maxAbsError, diff);
    maxRef = std::max(maxRef, std::fabs(b));
  });
  r.relError = maxRef > 0 && std::isfinite(maxRef) ? r.maxAbsError / maxRef
                                                   : r.maxAbsError;
  return r;
}

Deviation measureDeviation(const NpyArray &output,
                           const NpyArray &reference) {
  Deviation d;
  if (output.shape != reference.shape ||
      (output.dtype != reference.dtype &&
       !(isFloatDType(output.dtype) && isFloatDType(reference.dtype)))) {
    d.shapeMismatch = true;
    return d;
  }
  int64_t n = output.numElements();
  if ((output.dtype == DType::F16 || output.dtype == DType::BF16) &&
      (reference.dtype == DType::F32 || reference.dtype == DType::F64)) {
    NpyArray rounded = convertElements(reference, output.dtype);
    d.roundedEqual = 0;
    for (int64_t i = 0; i < n; ++i)
      d.roundedEqual +=
          elementAsDouble(output, i) == elementAsDouble(rounded, i) ||
          (std::isnan(elementAsDouble(output, i)) &&
           std::isnan(elementAsDouble(rounded, i)));
  }
  double signal = 0, noise = 0, sumAbs = 0;
  int64_t counted = 0;
  d.nan = !forEachDifference(output, reference, [&](double b, double diff) {
    d.maxAbsError = std::max(d.maxAbsError, diff);
    sumAbs += diff;
    signal += b * b;
    noise += diff * diff;
    ++counted;
  });
  d.meanAbsError = counted ? sumAbs / double(counted) : 0;
  d.sqnrDb = noise == 0 ? std::numeric_limits<double>::infinity()
                        : 10 * std::log10(signal / noise);
  int64_t rowLength = output.shape.empty() ? 1 : output.shape.back();
  if (n == 0 || rowLength == 0)
    return d;
  d.rows = n / rowLength;
  auto argmax = [&](const NpyArray &a, int64_t row) {
    int64_t best = 0;
    double bestValue = elementAsDouble(a, row * rowLength);
    for (int64_t k = 1; k < rowLength; ++k) {
      double v = elementAsDouble(a, row * rowLength + k);
      if (v > bestValue || (std::isnan(bestValue) && !std::isnan(v))) {
        best = k;
        bestValue = v;
      }
    }
    return best;
  };
  for (int64_t row = 0; row < d.rows; ++row)
    d.top1Agreeing += argmax(output, row) == argmax(reference, row);
  return d;
}

NpyArray convertElements(const NpyArray &array, DType dtype) {
  if (array.dtype == dtype)
    return array;
  NpyArray converted = makeArray(dtype, array.shape);
  for (int64_t i = 0; i < array.numElements(); ++i)
    setElement(converted, i, elementAsDouble(array, i));
  return converted;
}

bool sameEntrySignature(const tfcc_entry_info &entry,
                        const tfcc_entry_info &reference, std::string &error) {
  auto compare = [&](const char *kind, int count, const tfcc_arg_info *args,
                     int refCount, const tfcc_arg_info *refArgs) {
    if (count != refCount) {
      error = std::string("entry '") + entry.name + "' has " +
              std::to_string(count) + " " + kind + "s, the reference's " +
              std::to_string(refCount);
      return false;
    }
    for (int i = 0; i < count; ++i) {
      const tfcc_arg_info &a = args[i], &b = refArgs[i];
      bool sameType = a.dtype == b.dtype || (isFloatDType(DType(a.dtype)) &&
                                             isFloatDType(DType(b.dtype)));
      bool same = sameType && a.rank == b.rank &&
                  std::equal(a.dims, a.dims + a.rank, b.dims);
      if (!same) {
        error = std::string("entry '") + entry.name + "': " + kind + " " +
                std::to_string(i) + " ('" + a.name + "') is " +
                dtypeName(DType(a.dtype)) + " " +
                shapeString(std::vector<int64_t>(a.dims, a.dims + a.rank)) +
                ", the reference's ('" + b.name + "') " +
                dtypeName(DType(b.dtype)) + " " +
                shapeString(std::vector<int64_t>(b.dims, b.dims + b.rank));
        return false;
      }
    }
    return true;
  };
  return compare("input", entry.num_inputs, entry.inputs, reference.num_inputs,
                 reference.inputs) &&
         compare("output", entry.num_outputs, entry.outputs,
                 reference.num_outputs, reference.outputs);
}

} // namespace tfcc
