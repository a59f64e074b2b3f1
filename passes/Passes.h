//===- Passes.h - tfcc passes -----------------------------------*- C++ -*-===//

#ifndef TFCC_PASSES_PASSES_H
#define TFCC_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfcc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Patterns lowering graph ops to tensor-level upstream ops, and those with
/// a runtime micro-kernel to its calls (at a higher benefit), by family.
/// Without `kernelCalls` (code that does not run on the host CPU: the CUDA
/// target) only the linalg lowerings; ops that have none stay unlowered.
void populateGraphElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateGraphLinalgOpsToLinalgPatterns(RewritePatternSet &patterns,
                                            bool kernelCalls);
void populateGraphConvolutionToLinalgPatterns(RewritePatternSet &patterns,
                                              bool kernelCalls);
void populateGraphPoolingToLinalgPatterns(RewritePatternSet &patterns,
                                          bool kernelCalls);
void populateGraphNormalizationToLinalgPatterns(RewritePatternSet &patterns,
                                                bool kernelCalls);
void populateGraphShapeToLinalgPatterns(RewritePatternSet &patterns);
void populateGraphReductionToLinalgPatterns(RewritePatternSet &patterns,
                                            bool kernelCalls);
void populateGraphLossToLinalgPatterns(RewritePatternSet &patterns);
void populateGraphTrainingToLinalgPatterns(RewritePatternSet &patterns,
                                           bool kernelCalls);
void populateGraphQuantizationToLinalgPatterns(RewritePatternSet &patterns);
void populateGraphInt8KernelsToLinalgPatterns(RewritePatternSet &patterns,
                                              bool kernelCalls);

/// The graph ops under `root` that tfcc-quantize-int8 quantizes when they
/// carry a calibrated input range: f32 convolutions, dense layers and matmuls
/// with constant weights, in walk order.
SmallVector<Operation *> findInt8QuantizableOps(Operation *root);

/// Lowers each tree of single-use elementwise graph ops of one result shape
/// under `root` (2 to 64 ops) to one linalg.generic, as the
/// patterns and tfcc-fuse-elementwise would, in time linear in its size.
void lowerElementwiseGroups(Operation *root);

/// Patterns sinking graph.transpose toward its uses through layout-agnostic
/// ops and composing consecutive transposes (tfcc-layout-propagation).
void populateLayoutPropagationPatterns(RewritePatternSet &patterns);

/// Patterns of tfcc-fuse-ops: spec convolutions and dense layers to fused
/// ops, and the fused ops growing over pads, biases, batch norms, residual
/// adds and activations.
void populateFuseOpsPatterns(RewritePatternSet &patterns);
/// The patterns of tfcc-fuse-int8-ops.
void populateFuseInt8OpsPatterns(RewritePatternSet &patterns);

/// transpose(pad(x)) -> pad(transpose(x)) (tfcc-sink-pads-through-transposes).
void populateSinkPadsThroughTransposesPatterns(RewritePatternSet &patterns);

/// The ReLU gradient's mask on the ReLU's output, the mask folded into a
/// max-pooling gradient, and max-pooling taps recorded for the gradient
/// (tfcc-fuse-relu-pool-gradients).
void populateFuseReluPoolGradientsPatterns(RewritePatternSet &patterns);

/// tfcc-parallelize-loops steps: `parallel` (no reductions) to a serial
/// scf.for nest; to omp.parallel num_threads(numThreads) + omp.wsloop nowait
/// over its first `distributed` dimensions with scf.for loops inside.
void serializeParallelLoop(scf::ParallelOp parallel);
void distributeParallelLoop(scf::ParallelOp parallel, unsigned distributed,
                            Value numThreads);

/// The state memory of a training model (tfcc-layout-state): the module is
/// marked stateful (its variables change, so no pass may fold their values)
/// and records the block's byte size; each graph.variable its byte offset.
inline constexpr const char *kStatefulAttr = "tfcc.stateful";
inline constexpr const char *kStateBytesAttr = "tfcc.state_bytes";
inline constexpr const char *kStateOffsetAttr = "tfcc.state_offset";

/// The prefix tfcc-rename-entries gives the entry functions; the C
/// interface (compiler/AbiEmitter.cpp) calls them by it.
inline constexpr const char *kEntryImplPrefix = "__tfcc_impl_";

/// Name of the external function generated code calls to report a runtime
/// error (e.g. a gather index out of range): void(i32 code).
inline constexpr const char *kReportErrorFunction = "tfcc_rt_report_error";

/// Name of the external function a --check-numerics build calls after a node
/// whose output holds a NaN or an infinity: void(!llvm.ptr node), the node
/// described in a string constant (runtime/src/runtime.c).
inline constexpr const char *kReportNumericsFunction =
    "tfcc_rt_report_numerics";

/// Declares the external function `name` of `type` (a runtime function the
/// generated code calls) at the start of `module`, unless it is there.
inline void declareRuntimeFunction(ModuleOp module, StringRef name,
                                   FunctionType type) {
  if (SymbolTable::lookupSymbolIn(module, name))
    return;
  OpBuilder::atBlockBegin(module.getBody())
      .create<func::FuncOp>(module.getLoc(), name, type)
      .setPrivate();
}

} // namespace mlir::tfcc

#endif // TFCC_PASSES_PASSES_H
