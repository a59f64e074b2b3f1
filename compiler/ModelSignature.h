//===- ModelSignature.h - Names, dtypes and shapes of a model's entries ---===//
//
// The plain-data description of a compiled model's C interface: what the header
// emitter prints and what the reflective tfcc_model_info table holds. Filled
// from the final entry functions of the IR; no MLIR or LLVM types here, so the
// emitter and its tests stay light.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_MODELSIGNATURE_H
#define TFCC_COMPILER_MODELSIGNATURE_H

#include "runtime/include/tfcc/tfcc_types.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tfcc {

/// Element type of an argument: tfcc_dtype_t's names and numbers (both
/// expanded from TFCC_DTYPES in runtime/include/tfcc/tfcc_types.h).
enum class DType {
#define TFCC_DTYPE_ENUMERATOR(name, number, bytes, ctype) name = number,
  TFCC_DTYPES(TFCC_DTYPE_ENUMERATOR)
#undef TFCC_DTYPE_ENUMERATOR
};

/// A dynamic (batch) dimension in ArgSignature::dims (TFCC_DIM_DYNAMIC).
constexpr int64_t kDynamicDim = TFCC_DIM_DYNAMIC;

/// Named dimension k (1-based; ModelSignature::dims[k - 1]) in
/// ArgSignature::dims (TFCC_DIM_NAMED(k)); 0 is the batch.
constexpr int64_t namedDim(size_t k) { return -1 - static_cast<int64_t>(k); }
/// The k of a dynamic entry of ArgSignature::dims (0: the batch).
constexpr size_t namedDimIndex(int64_t dim) {
  return static_cast<size_t>(-1 - dim);
}

/// One input or output of an entry point.
struct ArgSignature {
  std::string name;
  DType dtype = DType::F32;
  /// Row-major; kDynamicDim = the batch, namedDim(k) = named dimension k.
  std::vector<int64_t> dims;
};

/// A dynamic dimension beyond the batch: its name (ONNX dim_param, or the
/// graph IR's tfcc.dim_names) and its largest value, given at compile time.
struct DimSignature {
  std::string name;
  int64_t bound = 0;
  /// An output dimension computed from the input's (the entry's shape
  /// function gives its value; "<output name>.<dim>").
  bool derived = false;
};

/// One entry point (public function) of the model.
struct EntrySignature {
  std::string name; // the function's name in the model, e.g. "predict"
  std::vector<ArgSignature> inputs, outputs;
  /// Arena bytes needed = fixed + perBatch * batch, rounded up to 64 (perBatch
  /// counts only when hasDynamicBatch()).
  uint64_t arenaBytesFixed = 0, arenaBytesPerBatch = 0;
  /// The same without reuse (the sum of the sizes of the buffers the memory
  /// plan places); zero when unknown.
  uint64_t arenaNaiveFixed = 0, arenaNaivePerBatch = 0;

  /// True when some input or output dimension satisfies `pred`.
  template <typename Pred> bool anyDim(Pred pred) const {
    for (const std::vector<ArgSignature> *args : {&inputs, &outputs})
      for (const ArgSignature &arg : *args)
        for (int64_t dim : arg.dims)
          if (pred(dim))
            return true;
    return false;
  }
  /// True when some input or output dimension is the batch.
  bool hasDynamicBatch() const {
    return anyDim([](int64_t dim) { return dim == kDynamicDim; });
  }
  /// True when some input or output dimension is a named dimension.
  bool hasNamedDims() const {
    return anyDim([](int64_t dim) { return dim < kDynamicDim; });
  }
};

/// One variable in the state memory of a model with a training step.
struct VariableSignature {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims; // all static
  uint64_t offset = 0;       // bytes from the start of the state, 64-aligned
  uint64_t bytes = 0;
  bool trainable = true;
  std::vector<uint8_t> init; // `bytes` bytes: the initial value
};

/// The whole C interface of a compiled model.
struct ModelSignature {
  std::string modelName; // the module's name, e.g. "mnist_cnn"
  std::string prefix;    // C symbol prefix; empty means modelName
  std::vector<EntrySignature> entries;
  /// The named dimensions, k = 1, 2, ... in this order.
  std::vector<DimSignature> dims;
  uint64_t weightBytes = 0;
  /// weightBytes by element type, and the number of variables: what
  /// tfcc --report prints (a quantized build's case against float32).
  std::map<DType, uint64_t> weightBytesByDtype;
  uint64_t numWeights = 0;
  /// Models with a training step keep every variable in state memory
  /// (stateful = true); the kernels then take the state as an argument.
  bool stateful = false;
  uint64_t stateBytes = 0;
  std::vector<VariableSignature> variables;
  /// Name of the training entry (the graph.train_step symbol); "" when none.
  std::string trainEntry;
  /// Built with --target=cuda: the code runs on a CUDA GPU, the runtime
  /// allocates the arena in device memory (TFCC_MODEL_FLAG_CUDA).
  bool cuda = false;
};

/// The C type of one element in generated headers ("float", "int32_t",
/// "double", "uint8_t" for bool, "uint16_t" for the raw bits of f16 and bf16,
/// ...).
inline const char *cTypeName(DType dtype) {
  switch (dtype) {
#define TFCC_DTYPE_CTYPE(name, number, bytes, ctype)                           \
  case DType::name:                                                            \
    return #ctype;
    TFCC_DTYPES(TFCC_DTYPE_CTYPE)
#undef TFCC_DTYPE_CTYPE
  }
  return "void";
}

/// Bytes per element (bool is one byte, 0 or 1).
inline size_t byteSize(DType dtype) {
  switch (dtype) {
#define TFCC_DTYPE_BYTES(name, number, bytes, ctype)                           \
  case DType::name:                                                            \
    return bytes;
    TFCC_DTYPES(TFCC_DTYPE_BYTES)
#undef TFCC_DTYPE_BYTES
  }
  return 0;
}

/// TensorFlow's DataType of a dtype (types.proto): its number and its name,
/// for the GraphDef views and TF Serving's metadata.
struct TfDataType {
  int number;
  const char *name;
};
inline TfDataType tfDataType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return {1, "DT_FLOAT"};
  case DType::F64:
    return {2, "DT_DOUBLE"};
  case DType::I32:
    return {3, "DT_INT32"};
  case DType::U8:
    return {4, "DT_UINT8"};
  case DType::I8:
    return {6, "DT_INT8"};
  case DType::I64:
    return {9, "DT_INT64"};
  case DType::BOOL:
    return {10, "DT_BOOL"};
  case DType::BF16:
    return {14, "DT_BFLOAT16"};
  case DType::F16:
    return {19, "DT_HALF"};
  }
  return {0, "DT_INVALID"};
}

/// f32, f64, f16 or bf16.
inline bool isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}

/// Short name as in the IR and in diagnostics: "f32", "i32", "i64", "bool",
/// "f16", "bf16", "i8", "f64", "ui8".
inline const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::BOOL:
    return "bool";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I8:
    return "i8";
  case DType::F64:
    return "f64";
  case DType::U8:
    return "ui8";
  }
  return "unknown";
}

} // namespace tfcc

#endif // TFCC_COMPILER_MODELSIGNATURE_H
