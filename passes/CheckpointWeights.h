//===- CheckpointWeights.h - bake a checkpoint into a build ------*- C++
//-*-===//
//
// The reader behind tfcc-apply-checkpoint (`tfcc --weights CKPT`): the values
// of a checkpoint written by a trained model's <prefix>_save_checkpoint
// (runtime/checkpoint.fbs) replace the initial values of the module's
// variables, so an inference build carries the trained weights.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_CHECKPOINTWEIGHTS_H
#define TFCC_PASSES_CHECKPOINTWEIGHTS_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace tfcc {

/// Reads the checkpoint at `path` and sets every graph.variable of `module`
/// to its value there. The whole file is validated first (identifier "TFCK",
/// format version 2, bounds of every offset, each variable's CRC-32C, the
/// model name equal to the module's name or `prefix`, each module variable
/// present with its dtype and shape); entries without a variable in the module
/// (optimizer slots, the step counter of an inference build) are ignored. On
/// failure returns false with `error` set and leaves the module unchanged.
bool applyCheckpointWeights(mlir::ModuleOp module, const std::string &path,
                            const std::string &prefix, std::string &error);

/// applyCheckpointWeights of the checkpoint in `bytes` (borrowed), named
/// `source` in messages.
bool applyCheckpointWeightsFromBuffer(mlir::ModuleOp module,
                                      llvm::ArrayRef<uint8_t> bytes,
                                      const std::string &source,
                                      const std::string &prefix,
                                      std::string &error);

} // namespace tfcc

#endif // TFCC_PASSES_CHECKPOINTWEIGHTS_H
