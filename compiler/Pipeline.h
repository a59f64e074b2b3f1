//===- Pipeline.h - the pass pipelines of the CPU target --------*- C++ -*-===//

#ifndef TFCC_COMPILER_PIPELINE_H
#define TFCC_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"

namespace tfcc {

/// Graph-level cleanup, lowering to linalg and bufferization (textual form,
/// for tfcc-opt and tests).
extern const char *const kToBuffersPipeline;
/// Output buffers as arguments and arena placement.
extern const char *const kToArenaPipeline;
/// Loops and the LLVM dialect.
extern const char *const kToLLVMPipeline;

/// Both pipelines above, with the fixes that run between them.
mlir::LogicalResult runToArenaPipeline(mlir::ModuleOp module);
mlir::LogicalResult runToLLVMPipeline(mlir::ModuleOp module);

} // namespace tfcc

#endif // TFCC_COMPILER_PIPELINE_H
