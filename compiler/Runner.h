//===- Runner.h - drive compiled models and the interpreter -----*- C++ -*-===//
//
// What tfcc-run and the end-to-end tests share: loading a compiled model
// through its reflective table, random inputs, running the reference
// interpreter on host tensors, and the spec's "numerical agreement" check.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_RUNNER_H
#define TFCC_COMPILER_RUNNER_H

#include "compiler/CompiledModel.h"
#include "compiler/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "runtime/include/tfcc/tfcc_types.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace tfcc {

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

/// Element i of an array as a double.
double elementAsDouble(const NpyArray &array, int64_t i);

/// `array`'s values as `dtype` (rounded to nearest even where it is
/// narrower).
NpyArray convertElements(const NpyArray &array, DType dtype);

} // namespace tfcc

#endif // TFCC_COMPILER_RUNNER_H
