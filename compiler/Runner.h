//===- Runner.h - drive compiled models and the interpreter -----*- C++ -*-===//
//
// What tfcc-run and the end-to-end tests share: loading a compiled model
// through its reflective table, random inputs, running the reference
// interpreter on host tensors, and the spec's "numerical agreement" check.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_RUNNER_H
#define TFCC_COMPILER_RUNNER_H

#include "compiler/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "runtime/include/tfcc/tfcc_types.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace tfcc {

/// A model .so built by tfcc, opened with dlopen and driven through
/// `<prefix>_info` and `<prefix>_invoke`.
class CompiledModel {
public:
  /// Opens `path`; finds the prefix from its exported symbols.
  static std::unique_ptr<CompiledModel> open(const std::string &path,
                                             std::string &error);
  ~CompiledModel();

  const tfcc_model_info &info() const { return *info_; }
  /// Index of the entry called `name` ("" = the first), or -1.
  int findEntry(const std::string &name) const;

  /// Threads the model's calls use (the calling thread included; default 1,
  /// no pool). Takes effect when the next context is created: call it before
  /// reserve() or run(); a change drops the current context.
  void setThreads(int32_t numThreads);
  int32_t threads() const { return numThreads_; }

  /// Makes sure a context for batches up to `maxBatch` (and the thread count
  /// of setThreads) exists (run() calls it too; call it first to keep context
  /// and thread creation out of timings).
  bool reserve(int64_t maxBatch, std::string &error);

  /// Runs an entry; outputs are allocated from the entry's signature.
  /// Returns false with the runtime's status string and message on failure.
  bool run(int entry, int64_t batch, const std::vector<NpyArray> &inputs,
           std::vector<NpyArray> &outputs, std::string &error);

  /// The state memory of a model with a training step (through
  /// <prefix>_get_variable / _set_variable / _reset_state; reserve() first).
  /// `out` gets the variable's dtype and shape from the variable table.
  bool getVariable(const std::string &name, NpyArray &out, std::string &error);
  bool setVariable(const std::string &name, const NpyArray &value,
                   std::string &error);
  bool resetState(std::string &error);

private:
  CompiledModel() = default;
  std::string statusMessage(tfcc_status_t status) const;
  using GetVarFn = tfcc_status_t (*)(tfcc_context *, const char *, void *,
                                     uint64_t);
  using SetVarFn = tfcc_status_t (*)(tfcc_context *, const char *,
                                     const void *, uint64_t);
  using ResetFn = tfcc_status_t (*)(tfcc_context *);
  GetVarFn getVariable_ = nullptr;
  SetVarFn setVariable_ = nullptr;
  ResetFn resetState_ = nullptr;
  void *handle_ = nullptr;
  const tfcc_model_info *info_ = nullptr;
  using CreateFn = tfcc_status_t (*)(int64_t, int32_t, tfcc_context **);
  using DestroyFn = void (*)(tfcc_context *);
  using InvokeFn = tfcc_status_t (*)(int32_t, tfcc_context *, const int64_t *,
                                     const void *const *, void *const *);
  using StatusStringFn = const char *(*)(tfcc_status_t);
  using ResolveFn = tfcc_status_t (*)(int32_t, tfcc_context *, int64_t *);
  ResolveFn resolve_ = nullptr;
  CreateFn create_ = nullptr;
  DestroyFn destroy_ = nullptr;
  InvokeFn invoke_ = nullptr;
  StatusStringFn statusString_ = nullptr;
  tfcc_context *context_ = nullptr;
  int64_t contextBatch_ = 0;
  int32_t numThreads_ = 1;
};

/// Random inputs for `func` (dynamic dims = batch). Floats are uniform in
/// [-1, 1], or in [0.1, 2] for arguments feeding log/sqrt/rsqrt/pow; integer
/// arguments used as gather indices or labels stay within range.
std::vector<NpyArray> makeRandomInputs(mlir::func::FuncOp func, int64_t batch,
                                       uint64_t seed);
/// Same, of the given shapes (one per argument of `func`).
std::vector<NpyArray>
makeRandomInputs(mlir::func::FuncOp func,
                 const std::vector<std::vector<int64_t>> &shapes,
                 uint64_t seed);

/// The shape of `arg` at `batch`, named dimension k (TFCC_DIM_NAMED(k)) at
/// named[k - 1].
std::vector<int64_t> argShape(const tfcc_arg_info &arg, int64_t batch,
                              const std::vector<int64_t> &named);

/// Runs the reference interpreter on host tensors.
bool interpret(mlir::ModuleOp module, const std::string &entry,
               const std::vector<NpyArray> &inputs,
               std::vector<NpyArray> &outputs, std::string &error);

/// Runs the reference interpreter over a training session on one
/// interpreter instance: `probeEntry` (if not empty) on `probeInputs`, then
/// `trainEntry` `steps` times on `inputs` (the first result of each step is
/// the loss), then `probeEntry` again; finally the values of `variables`.
/// The module must already have gone through tfcc-autodiff.
struct InterpretedTraining {
  std::vector<double> losses;
  std::vector<NpyArray> probeBefore, probeAfter, variables;
};
bool interpretTraining(mlir::ModuleOp module, const std::string &trainEntry,
                       const std::vector<NpyArray> &inputs, unsigned steps,
                       const std::string &probeEntry,
                       const std::vector<NpyArray> &probeInputs,
                       const std::vector<std::string> &variables,
                       InterpretedTraining &result, std::string &error);

/// The spec's agreement check of one output against a reference.
struct Agreement {
  double maxAbsError = 0;
  double relError = 0; // max|a - b| / max|b| (max|a - b| when b is all zero)
  bool exact = true;   // integer/bool outputs compare exactly
  bool nan = false;    // a NaN on either side never matches
  bool shapeMismatch = false;
  // The least tolerance the output's type allows: 4 units in the last place
  // of f16 (2^-8) or bf16 (2^-5), whose roundings of the same exact value
  // by the compiled code (in f32) and the interpreter (in double) can
  // differ and then propagate; 0 for wider types.
  double typeTolerance = 0;
  bool passes(double rtol) const {
    return !shapeMismatch && !nan &&
           (exact ? relError == 0 : relError <= std::max(rtol, typeTolerance));
  }
};
Agreement compareArrays(const NpyArray &actual, const NpyArray &reference);

/// How far one build's output is from another's on the same inputs
/// (tfcc-run --reference): what a user checks before shipping a quantized or
/// otherwise approximate build.
struct Deviation {
  bool shapeMismatch = false;
  bool nan = false; // a NaN on either side (the figures skip it)
  double maxAbsError = 0, meanAbsError = 0;
  /// Signal-to-quantization-noise ratio, 10 log10(sum ref^2 / sum (out -
  /// ref)^2) in dB; +inf when the outputs are equal.
  double sqnrDb = 0;
  /// Rows (all but the last axis; a 0-d or 1-d output is one row) whose
  /// first largest element is at the same index in both.
  int64_t rows = 0, top1Agreeing = 0;
  /// A 16-bit output against a wider reference: the elements equal to the
  /// reference's rounded to the output's type; -1 otherwise.
  int64_t roundedEqual = -1;
};
/// `output` against `reference` of the same shape; float dtypes may differ.
Deviation measureDeviation(const NpyArray &output, const NpyArray &reference);

/// Whether two entries take and give the same arguments (names aside):
/// count, dtype and dims of each, where float dtypes may differ (a
/// --io-dtype=bf16 build against its f32 one); else false with `error`
/// naming the first difference.
bool sameEntrySignature(const tfcc_entry_info &entry,
                        const tfcc_entry_info &reference, std::string &error);

/// Whether `array` can feed argument `arg`: its dtype and rank, each static
/// dim, and each dynamic dim equal to `batch` (any size when `batch` < 0).
bool fitsArgument(const NpyArray &array, const tfcc_arg_info &arg,
                  int64_t batch);

/// "[2, 3]"; a dynamic dim (TFCC_DIM_DYNAMIC) prints as "batch".
std::string shapeString(const std::vector<int64_t> &shape);

/// Element i of an array as a double.
double elementAsDouble(const NpyArray &array, int64_t i);

/// f32, f64, f16 or bf16.
bool isFloatDType(DType dtype);

/// `array`'s values as `dtype` (rounded to nearest even where it is
/// narrower).
NpyArray convertElements(const NpyArray &array, DType dtype);

} // namespace tfcc

#endif // TFCC_COMPILER_RUNNER_H
