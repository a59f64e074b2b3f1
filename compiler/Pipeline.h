//===- Pipeline.h - the pass pipelines of the CPU target --------*- C++ -*-===//

#ifndef TFCC_COMPILER_PIPELINE_H
#define TFCC_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"

namespace tfcc {

/// Before the C interface is read from the model: result types refined to
/// what inference knows.
extern const char *const kNormalizePipeline;
/// Graph-level passes: inlining, cleanup, layout (textual form, for tfcc-opt
/// and tests).
extern const char *const kGraphPipeline;
/// Lowering to linalg and bufferization.
extern const char *const kToBuffersPipeline;
/// Output buffers as arguments and arena placement.
extern const char *const kToArenaPipeline;
/// Loops and the LLVM dialect.
extern const char *const kToLLVMPipeline;

/// Runs tfcc-autodiff when `module` has a graph.train_step (the compiler and
/// the tools that interpret the same model both call it); does nothing
/// otherwise. Defined in Compiler.cpp.
mlir::LogicalResult runTrainingPasses(mlir::ModuleOp module);

mlir::LogicalResult runNormalizePipeline(mlir::ModuleOp module);
mlir::LogicalResult runGraphPipeline(mlir::ModuleOp module);
/// kToBuffersPipeline and kToArenaPipeline, with the fix between them.
mlir::LogicalResult runToArenaPipeline(mlir::ModuleOp module);
mlir::LogicalResult runToLLVMPipeline(mlir::ModuleOp module);

} // namespace tfcc

#endif // TFCC_COMPILER_PIPELINE_H
