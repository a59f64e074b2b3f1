//===- Runner.cpp - drive compiled models and the interpreter -------------===//

#include "compiler/Runner.h"

#include "compiler/ElementTypes.h"

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/Reference/Interpreter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Object/ObjectFile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <dlfcn.h>
#include <random>

using namespace mlir;

namespace tfcc {

//===----------------------------------------------------------------------===//
// CompiledModel
//===----------------------------------------------------------------------===//

/// The prefix P of a tfcc model: it exports P_info and P_invoke.
static std::string findPrefix(const std::string &path, std::string &error) {
  auto binary = llvm::object::ObjectFile::createObjectFile(path);
  if (!binary) {
    error = "cannot read '" + path + "': " + llvm::toString(binary.takeError());
    return "";
  }
  auto *elf = dyn_cast<llvm::object::ELFObjectFileBase>(binary->getBinary());
  if (!elf) {
    error = "'" + path + "' is not an ELF shared library";
    return "";
  }
  std::set<std::string> names;
  for (const llvm::object::ELFSymbolRef &sym : elf->getDynamicSymbolIterators())
    if (auto name = sym.getName())
      names.insert(name->str());
  for (const std::string &name : names) {
    llvm::StringRef n(name);
    if (!n.consume_back("_invoke"))
      continue;
    if (names.count((n + "_info").str()) && names.count((n + "_create").str()))
      return n.str();
  }
  error = "'" + path + "' exports no tfcc model (no <prefix>_info/_invoke)";
  return "";
}

std::unique_ptr<CompiledModel> CompiledModel::open(const std::string &path,
                                                   std::string &error) {
  std::string prefix = findPrefix(path, error);
  if (prefix.empty())
    return nullptr;
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  // dlopen searches the library path for names without a slash.
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  model->handle_ = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model->handle_) {
    error = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  auto sym = [&](const char *suffix) {
    return dlsym(model->handle_, (prefix + suffix).c_str());
  };
  // The ABI version first: a model of another version may lack functions.
  auto infoFn = reinterpret_cast<const tfcc_model_info *(*)()>(sym("_info"));
  if (infoFn && infoFn()->abi_version != TFCC_ABI_VERSION) {
    error = "'" + path + "' was built for runtime ABI " +
            std::to_string(infoFn()->abi_version) + ", not " +
            std::to_string(TFCC_ABI_VERSION);
    return nullptr;
  }
  model->create_ = reinterpret_cast<CreateFn>(sym("_create_with_threads"));
  model->destroy_ = reinterpret_cast<DestroyFn>(sym("_destroy"));
  model->invoke_ = reinterpret_cast<InvokeFn>(sym("_invoke_dims"));
  model->resolve_ = reinterpret_cast<ResolveFn>(sym("_resolve_dims"));
  model->statusString_ = reinterpret_cast<StatusStringFn>(sym("_status_string"));
  if (!infoFn || !model->create_ || !model->destroy_ || !model->invoke_ ||
      !model->resolve_ ||
      !model->statusString_) {
    error = "'" + path + "' lacks some of the functions of the tfcc C API";
    return nullptr;
  }
  model->info_ = infoFn();
  model->getVariable_ = reinterpret_cast<GetVarFn>(sym("_get_variable"));
  model->setVariable_ = reinterpret_cast<SetVarFn>(sym("_set_variable"));
  model->resetState_ = reinterpret_cast<ResetFn>(sym("_reset_state"));
  return model;
}

std::string CompiledModel::statusMessage(tfcc_status_t status) const {
  std::string text = statusString_(status);
  if (context_ && context_->message[0])
    text += std::string(": ") + context_->message;
  return text;
}

bool CompiledModel::getVariable(const std::string &name, NpyArray &out,
                                std::string &error) {
  if (!getVariable_ || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  for (int32_t i = 0; i < info_->num_variables; ++i) {
    const tfcc_variable_info &v = info_->variables[i];
    if (name != v.name)
      continue;
    out = NpyArray();
    out.dtype = static_cast<DType>(v.dtype);
    out.shape.assign(v.dims, v.dims + v.rank);
    out.data.assign(v.bytes, 0);
    tfcc_status_t status =
        getVariable_(context_, name.c_str(), out.data.data(), out.data.size());
    if (status != TFCC_OK) {
      error = statusMessage(status);
      return false;
    }
    return true;
  }
  error = "no variable '" + name + "' in the compiled model";
  return false;
}

bool CompiledModel::setVariable(const std::string &name, const NpyArray &value,
                                std::string &error) {
  if (!setVariable_ || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  tfcc_status_t status = setVariable_(context_, name.c_str(), value.data.data(),
                                      value.data.size());
  if (status != TFCC_OK) {
    error = statusMessage(status);
    return false;
  }
  return true;
}

bool CompiledModel::resetState(std::string &error) {
  if (!resetState_ || !context_) {
    error = "the model has no state memory (or no context yet)";
    return false;
  }
  tfcc_status_t status = resetState_(context_);
  if (status != TFCC_OK) {
    error = statusMessage(status);
    return false;
  }
  return true;
}

void CompiledModel::setThreads(int32_t numThreads) {
  if (numThreads == numThreads_)
    return;
  numThreads_ = numThreads;
  if (context_)
    destroy_(context_);
  context_ = nullptr;
  contextBatch_ = 0;
}

CompiledModel::~CompiledModel() {
  if (context_)
    destroy_(context_);
  if (handle_)
    dlclose(handle_);
}

int CompiledModel::findEntry(const std::string &name) const {
  for (int i = 0; i < info_->num_entries; ++i)
    if (name.empty() || name == info_->entries[i].name)
      return i;
  return -1;
}

bool CompiledModel::reserve(int64_t maxBatch, std::string &error) {
  maxBatch = std::max<int64_t>(maxBatch, 1);
  if (context_ && contextBatch_ >= maxBatch)
    return true;
  if (context_)
    destroy_(context_);
  context_ = nullptr;
  tfcc_status_t status = create_(maxBatch, numThreads_, &context_);
  if (status != TFCC_OK) {
    error = std::string("creating a context with ") +
            std::to_string(numThreads_) + " thread" +
            (numThreads_ == 1 ? "" : "s") +
            " failed: " + statusString_(status);
    return false;
  }
  contextBatch_ = maxBatch;
  return true;
}

bool CompiledModel::run(int entry, int64_t batch,
                        const std::vector<NpyArray> &inputs,
                        std::vector<NpyArray> &outputs, std::string &error) {
  const tfcc_entry_info &e = info_->entries[entry];
  if (inputs.size() != size_t(e.num_inputs)) {
    error = std::string(e.name) + " takes " + std::to_string(e.num_inputs) +
            " inputs, got " + std::to_string(inputs.size());
    return false;
  }
  // dims[0] the batch, dims[k] named dimension k: from the inputs' shapes.
  std::vector<int64_t> dims(1 + info_->num_dims, 0);
  dims[0] = batch;
  for (int i = 0; i < e.num_inputs; ++i) {
    const tfcc_arg_info &arg = e.inputs[i];
    if (!fitsArgument(inputs[i], arg, batch)) {
      error = "input '" + std::string(arg.name) + "' has the wrong dtype or shape";
      return false;
    }
    for (int d = 0; d < arg.rank; ++d) {
      if (arg.dims[d] >= TFCC_DIM_DYNAMIC)
        continue;
      int64_t &value = dims[size_t(-1 - arg.dims[d])];
      if (value != 0 && value != inputs[i].shape[d]) {
        error = "input '" + std::string(arg.name) + "' has " +
                std::to_string(inputs[i].shape[d]) + " for dimension " +
                info_->dim_names[-2 - arg.dims[d]] + ", another input " +
                std::to_string(value);
        return false;
      }
      value = inputs[i].shape[d];
    }
  }
  if (!reserve(batch, error))
    return false;
  // The derived dimensions (output sizes computed from the inputs').
  if (tfcc_status_t status = resolve_(entry, context_, dims.data())) {
    error = std::string(statusString_(status)) + ": " + context_->message;
    return false;
  }
  std::vector<int64_t> named(dims.begin() + 1, dims.end());
  outputs.assign(e.num_outputs, NpyArray());
  std::vector<const void *> in;
  std::vector<void *> out;
  // An empty input has no bytes, but the C API takes no NULL buffer.
  static const uint64_t emptyInput = 0;
  for (const NpyArray &a : inputs)
    in.push_back(a.data.empty() ? static_cast<const void *>(&emptyInput)
                                : a.data.data());
  for (int i = 0; i < e.num_outputs; ++i) {
    const tfcc_arg_info &arg = e.outputs[i];
    NpyArray &o = outputs[i];
    o.dtype = DType(arg.dtype);
    o.shape = argShape(arg, batch, named);
    o.data.assign(std::max<int64_t>(o.numElements(), 1) * byteSize(o.dtype), 0);
    out.push_back(o.data.data());
  }
  tfcc_status_t status =
      invoke_(entry, context_, dims.data(), in.data(), out.data());
  if (status != TFCC_OK) {
    error = std::string(statusString_(status)) + ": " + context_->message;
    return false;
  }
  // An empty output got one element of storage (no NULL buffers); it holds
  // none.
  for (NpyArray &o : outputs)
    o.data.resize(o.numElements() * byteSize(o.dtype));
  return true;
}

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

std::vector<int64_t> argShape(const tfcc_arg_info &arg, int64_t batch,
                              const std::vector<int64_t> &named) {
  std::vector<int64_t> shape;
  for (int d = 0; d < arg.rank; ++d) {
    int64_t dim = arg.dims[d];
    size_t k = size_t(-1 - dim);
    shape.push_back(dim >= 0                 ? dim
                    : dim == TFCC_DIM_DYNAMIC || k > named.size() ? batch
                                                                  : named[k - 1]);
  }
  return shape;
}

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

bool fitsArgument(const NpyArray &array, const tfcc_arg_info &arg,
                  int64_t batch) {
  if (int(array.dtype) != arg.dtype || int(array.shape.size()) != arg.rank)
    return false;
  for (int d = 0; d < arg.rank; ++d)
    if (arg.dims[d] == TFCC_DIM_DYNAMIC
            ? batch >= 0 && array.shape[d] != batch
            : arg.dims[d] < 0 ? array.shape[d] < 1
                              : array.shape[d] != arg.dims[d])
      return false;
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i] == TFCC_DIM_DYNAMIC
                                ? std::string("batch")
                                : std::to_string(shape[i]));
  return s + "]";
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

bool isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
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
