//===- CompiledModel.h - load and call a model .so built by tfcc -*- C++
//-*-===//
//
// Opens a compiled model with dlopen and drives it through its reflective
// table (<prefix>_info) and generic entry (<prefix>_invoke_dims): what
// tfcc-run, tfcc-serve, the calibration of --quantize and the end-to-end tests
// share. No MLIR or LLVM: tfcc-serve links it without the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_COMPILEDMODEL_H
#define TFCC_COMPILER_COMPILEDMODEL_H

#include "compiler/Npy.h"

#include "runtime/include/tfcc/tfcc_types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfcc {

/// The symbol prefix P of the tfcc model in the ELF shared library `path`
/// (it exports P_info, P_create and P_invoke), read from its dynamic symbol
/// table; "" with `error` saying why when there is none.
std::string findModelPrefix(const std::string &path, std::string &error);

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
  /// Reads a checkpoint of <prefix>_save_checkpoint into the state memory.
  bool loadCheckpoint(const std::string &path, std::string &error);
  /// Writes the state memory as a checkpoint (<prefix>_save_checkpoint).
  bool saveCheckpoint(const std::string &path, std::string &error);

  /// Profiling (<prefix>_profile_start / _profile_stop): the current context
  /// and every one created from now on records spans; stopProfile writes
  /// those of the current context to `path` as a Chrome trace and stops.
  bool startProfile(std::string &error);
  bool stopProfile(const std::string &path, std::string &error);

  /// Whether the last run() failed because a model built with
  /// --check-numerics found a NaN or an infinity (the error names the node).
  bool lastRunFoundNonFinite() const { return lastRunNonFinite_; }

private:
  CompiledModel() = default;
  std::string statusMessage(tfcc_status_t status) const;
  using GetVarFn = tfcc_status_t (*)(tfcc_context *, const char *, void *,
                                     uint64_t);
  using SetVarFn = tfcc_status_t (*)(tfcc_context *, const char *, const void *,
                                     uint64_t);
  using ResetFn = tfcc_status_t (*)(tfcc_context *);
  /// <prefix>_load_checkpoint and _save_checkpoint.
  using CheckpointFn = tfcc_status_t (*)(tfcc_context *, const char *);
  CheckpointFn loadCheckpoint_ = nullptr, saveCheckpoint_ = nullptr;
  bool callCheckpoint(CheckpointFn fn, const std::string &path,
                      std::string &error);
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
  ResetFn profileStart_ = nullptr;
  CheckpointFn profileStop_ = nullptr;
  bool profiling_ = false;
  bool lastRunNonFinite_ = false;
  tfcc_context *context_ = nullptr;
  int64_t contextBatch_ = 0;
  int32_t numThreads_ = 1;
};

/// The shape of `arg` at `batch`, named dimension k (TFCC_DIM_NAMED(k)) at
/// named[k - 1].
std::vector<int64_t> argShape(const tfcc_arg_info &arg, int64_t batch,
                              const std::vector<int64_t> &named);

/// Whether `array` can feed argument `arg`: its dtype and rank, each static
/// dim, and each dynamic dim equal to `batch` (any size when `batch` < 0).
bool fitsArgument(const NpyArray &array, const tfcc_arg_info &arg,
                  int64_t batch);

/// "[2, 3]"; a dynamic dim (TFCC_DIM_DYNAMIC) prints as "batch".
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace tfcc

#endif // TFCC_COMPILER_COMPILEDMODEL_H
