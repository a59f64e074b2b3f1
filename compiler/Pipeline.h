//===- Pipeline.h - the pass pipelines of the CPU target --------*- C++ -*-===//

#ifndef TFCC_COMPILER_PIPELINE_H
#define TFCC_COMPILER_PIPELINE_H

#include "compiler/GpuCodeOptions.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
class DefaultTimingManager;
class TimingScope;
} // namespace mlir

namespace tfcc {

/// Before the C interface is read from the model: result types refined to
/// what inference knows.
extern const char *const kNormalizePipeline;
/// For a model with a graph.train_step, after normalizing: tfcc-autodiff,
/// then every variable placed in the state memory.
extern const char *const kTrainingPipeline;
/// Graph-level passes: inlining, cleanup, layout (textual form, for tfcc-opt
/// and tests).
extern const char *const kGraphPipeline;
/// Lowering to linalg and bufferization.
extern const char *const kToBuffersPipeline;
/// Output buffers as arguments and arena placement.
extern const char *const kToArenaPipeline;
/// Loops and the LLVM dialect.
extern const char *const kToLLVMPipeline;

/// Registers each pipeline above as a pass pipeline (tfcc-normalize-pipeline,
/// tfcc-training-pipeline, tfcc-graph-pipeline, tfcc-to-buffers-pipeline,
/// tfcc-to-arena-pipeline, tfcc-to-llvm-pipeline), so `tfcc-opt
/// --tfcc-graph-pipeline` replays what tfcc runs. Called by
/// registerCompilerPasses.
void registerPipelines();

/// Registers MLIR's pass-manager and timing options (--mlir-timing,
/// --mlir-print-ir-after-all, --mlir-pass-pipeline-crash-reproducer, ...);
/// once registered (before the command line is parsed), every pipeline below
/// applies them. Tools that do not call it run the pipelines plainly.
void registerPipelineCLOptions();
/// Applies the registered timing options (--mlir-timing,
/// --mlir-timing-display) to `manager`; nothing when they are not registered.
void applyPipelineTimingOptions(mlir::DefaultTimingManager &manager);

/// Runs kTrainingPipeline when `module` has a graph.train_step (the compiler
/// and the tools that interpret the same model both call it); does nothing
/// otherwise.
///
/// Each run* function times its passes under `timing` when given (a nested
/// scope per pipeline, for tfcc --mlir-timing).
/// `dynamicLossScale`: tfcc-autodiff's Keras loss scaling (mixed_f16);
/// `splitTrainStep`: its two halves too (tfcc --split-train-step).
mlir::LogicalResult runTrainingPasses(mlir::ModuleOp module,
                                      mlir::TimingScope *timing = nullptr,
                                      bool dynamicLossScale = false,
                                      bool splitTrainStep = false);
/// tfcc-apply-checkpoint of the checkpoint at `path` (tfcc --weights).
mlir::LogicalResult runApplyCheckpoint(mlir::ModuleOp module,
                                       const std::string &path,
                                       const std::string &modelName,
                                       mlir::TimingScope *timing = nullptr);
/// tfcc-drop-train-steps (tfcc --no-train).
/// The start of the graph pipeline (inlining, folding): the ops to calibrate
/// are then in the entry itself.
mlir::LogicalResult runInlinePipeline(mlir::ModuleOp module,
                                      mlir::TimingScope *timing = nullptr);

/// tfcc-quantize-int8 (the ops carrying calibrated input ranges), weights of
/// `weightBits` (8 or 7) bits.
mlir::LogicalResult runQuantizeInt8(mlir::ModuleOp module, int weightBits,
                                    mlir::TimingScope *timing = nullptr);

/// tfcc-precision-policy with `policy` ("mixed_bf16" or "mixed_f16").
mlir::LogicalResult runPrecisionPolicy(mlir::ModuleOp module,
                                       const std::string &policy,
                                       mlir::TimingScope *timing = nullptr);

/// tfcc-retype-interface with `dtype` ("bf16" or "f16").
mlir::LogicalResult runRetypeInterface(mlir::ModuleOp module,
                                       const std::string &dtype,
                                       mlir::TimingScope *timing = nullptr);

/// tfcc-widen-low-precision-ops, then canonicalize: a mixed-precision
/// training build's ops in f32 before the graph pipeline, so that its
/// convolutions and dense layers fuse into kernel calls as float32 ones do.
mlir::LogicalResult runWidenLowPrecision(mlir::ModuleOp module,
                                         mlir::TimingScope *timing = nullptr);

mlir::LogicalResult runDropTrainSteps(mlir::ModuleOp module,
                                      mlir::TimingScope *timing = nullptr);
mlir::LogicalResult runNormalizePipeline(mlir::ModuleOp module,
                                         mlir::TimingScope *timing = nullptr);
/// kGraphPipeline; with `gpu`, gpuGraphPipeline().
mlir::LogicalResult runGraphPipeline(mlir::ModuleOp module,
                                     mlir::TimingScope *timing = nullptr,
                                     bool gpu = false);
/// kToBuffersPipeline (with `gpu`, gpuToBuffersPipeline()), then
/// kToArenaPipeline.
mlir::LogicalResult runToArenaPipeline(mlir::ModuleOp module,
                                       mlir::TimingScope *timing = nullptr,
                                       bool gpu = false);

/// The CUDA target's pipelines: the CPU's graph pipeline without the fusion
/// into CPU kernels' ops, its to-buffers pipeline without kernel calls, and
/// the lowering of the buffers, loops and host code (docs/cuda.md).
std::string gpuGraphPipeline();
std::string gpuToBuffersPipeline();
std::string gpuToLLVMPipeline(const GpuCodeOptions &gpu);
/// Tests only: kToLLVMPipeline with tfcc-gpu-map-loops in place of the CPU's
/// loops and threads (CompileOptions::gpuLoopsOnHost).
mlir::LogicalResult runGpuLoopsOnHostPipeline(mlir::ModuleOp module,
                                              mlir::TimingScope *timing);
mlir::LogicalResult runGpuToLLVMPipeline(mlir::ModuleOp module,
                                         mlir::TimingScope *timing,
                                         const GpuCodeOptions &gpu);
/// kToLLVMPipeline; without its first pass, tfcc-profile-spans, when
/// `profileSpans` is false (bare-metal targets: no profiler in the runtime).
mlir::LogicalResult runToLLVMPipeline(mlir::ModuleOp module,
                                      mlir::TimingScope *timing = nullptr,
                                      bool profileSpans = true);
/// tfcc-check-numerics (tfcc --check-numerics), before the graph pipeline.
mlir::LogicalResult runCheckNumerics(mlir::ModuleOp module,
                                     mlir::TimingScope *timing = nullptr);

} // namespace tfcc

#endif // TFCC_COMPILER_PIPELINE_H
