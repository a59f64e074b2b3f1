//===- RunReports.h - tfcc-run's profile table and NaN hunt -----*- C++ -*-===//
//
// Kept apart from tfcc-run.cpp, and free of MLIR: both work on a compiled
// model and the files it writes.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_TOOLS_TFCC_RUN_RUNREPORTS_H
#define TFCC_TOOLS_TFCC_RUN_RUNREPORTS_H

#include "compiler/CompiledModel.h"
#include "compiler/Npy.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tfcc {

/// Reads the Chrome trace at `tracePath` (<prefix>_profile_stop's) and prints
/// the `top` op names by total time: calls, total and mean time, share of the
/// entry calls' time, and the kernels. False with `error` when the file is
/// not such a trace.
bool printProfileSummary(const std::string &tracePath, size_t top,
                         llvm::raw_ostream &os, std::string &error);

/// After a --check-numerics failure of `entry` on `inputs` (named by
/// `sources`: a file, or "random"): says which inputs already hold NaN or
/// infinities (the first at which index) and, for a batch of several rows,
/// which row alone makes the model fail (running each row; batch as dim 0).
/// With `outputDir`, writes that row's inputs as DIR/nonfinite_input_<i>.npy.
void reportNonFiniteInputs(CompiledModel &model, int entry, int64_t batch,
                           const std::vector<NpyArray> &inputs,
                           const std::vector<std::string> &sources,
                           const std::string &outputDir, llvm::raw_ostream &os);

} // namespace tfcc

#endif // TFCC_TOOLS_TFCC_RUN_RUNREPORTS_H
