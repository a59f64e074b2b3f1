//===- Pipeline.cpp - the pass pipelines of the CPU target ----------------===//

#include "compiler/Pipeline.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;

namespace tfcc {

// No `builtin.module(...)` wrapper: on a module-level PassManager it would
// nest the pipeline and silently run nothing.
const char *const kNormalizePipeline = "func.func(tfcc-refine-result-types)";

const char *const kTrainingPipeline = "tfcc-autodiff,tfcc-layout-state";

const char *const kInlinePipeline = "inline,symbol-dce,canonicalize,cse";

const char *const kGraphPipeline =
    "inline,symbol-dce,canonicalize,cse,"
    "func.func(tfcc-layout-propagation),canonicalize,cse,"
    "func.func(tfcc-sink-pads-through-transposes,"
    "tfcc-fuse-relu-pool-gradients,tfcc-fuse-ops,tfcc-fuse-int8-ops),"
    "canonicalize,cse";

const char *const kToBuffersPipeline =
    "tfcc-lower-state-access,tfcc-rename-entries,tfcc-widen-low-precision-ops,"
    "tfcc-fuse-epilogue-rounding,tfcc-mark-bf16-operands,"
    "tfcc-convert-graph-to-linalg,"
    "tfcc-strip-signedness,canonicalize,cse,"
    "tfcc-fuse-elementwise,canonicalize,tfcc-collapse-inner-loops,canonicalize,"
    "tfcc-split-empty-tensors,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "tfcc-order-constant-globals,canonicalize";

const char *const kToArenaPipeline =
    "tfcc-copy-returned-arguments,"
    "buffer-results-to-out-params{hoist-static-allocs=true},"
    "canonicalize,tfcc-arena-allocation";

// The profiler's hooks first, while each node's ops are still linalg ops and
// kernel calls (tfcc leaves them out for bare-metal targets).
const char *const kProfileSpansPass = "tfcc-profile-spans,";

const char *const kToLLVMPipeline =
    "tfcc-profile-spans,tfcc-return-on-numerics-report,"
    "tfcc-lower-linalg-to-parallel-loops,tfcc-parallelize-loops,lower-affine,"
    "canonicalize,convert-scf-to-cf,"
    "tfcc-expand-strided-metadata,lower-affine,"
    // f16 and bf16 arithmetic in f32, rounded after each op; bf16 <-> f32 as
    // integer bit operations (round to nearest even), not libcalls.
    "math-legalize-to-f32,"
    "arith-emulate-unsupported-floats{source-types=bf16,f16 target-type=f32},"
    "tfcc-expand-f16-casts,arith-expand{include-bf16=true},"
    "convert-math-to-libm,"
    "convert-math-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,"
    "convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
    "convert-openmp-to-llvm,reconcile-unrealized-casts";

// The CUDA target (--target=cuda): the CPU pipelines with these changes.
// No fusion into the ops that lower only to CPU kernel calls: graph.fused_*,
// and a train step's graph.max_pool2d_with_indices.
static const char *const kCpuKernelFusion =
    "tfcc-fuse-relu-pool-gradients,tfcc-fuse-ops,tfcc-fuse-int8-ops";
static const char *const kConvertToLinalg = "tfcc-convert-graph-to-linalg,";

/// `pipeline` with the first occurrence of `from` replaced by `to`.
static std::string replaced(const char *pipeline, StringRef from,
                            StringRef to) {
  std::string text = pipeline;
  size_t at = text.find(from.str());
  if (at == std::string::npos)
    llvm::report_fatal_error(llvm::Twine("pipeline without ") + from);
  return text.replace(at, from.size(), to.str());
}

std::string gpuGraphPipeline() {
  // The func.func(...) group keeps its other passes.
  return replaced(kGraphPipeline, std::string(",") + kCpuKernelFusion, "");
}

std::string gpuToBuffersPipeline() {
  return replaced(kToBuffersPipeline, kConvertToLinalg,
                  "tfcc-convert-graph-to-linalg{kernel-calls=false},");
}

std::string gpuToLLVMPipeline(const GpuCodeOptions &gpu) {
  // kToLLVMPipeline, where the GPU's passes take the place of the profiling
  // hooks, the numerics report, the CPU's loops and threads and OpenMP.
  std::string pipeline = replaced(
      kToLLVMPipeline,
      "tfcc-profile-spans,tfcc-return-on-numerics-report,"
      "tfcc-lower-linalg-to-parallel-loops,tfcc-parallelize-loops,",
      // Mapped before any canonicalization, which would merge the tiles'
      // loop into the elements' one.
      "tfcc-gpu-device-buffers,tfcc-gpu-map-loops{block-size=" +
          std::to_string(gpu.blockSize) +
          "},func.func(gpu-map-parallel-loops),convert-parallel-loops-to-gpu,"
          "tfcc-check-gpu-placement,");
  pipeline = replaced(pipeline.c_str(), "canonicalize,convert-scf-to-cf,",
                      "canonicalize,gpu-kernel-outlining,"
                      "func.func(gpu-async-region),nvvm-attach-target{chip=" +
                          gpu.arch + " O=3},convert-scf-to-cf,");
  // Device code: math through libdevice's __nv_* functions.
  pipeline = replaced(pipeline.c_str(), "convert-math-to-libm,",
                      "gpu.module(convert-gpu-to-nvvm,canonicalize,cse),"
                      "convert-math-to-libm,");
  pipeline =
      replaced(pipeline.c_str(), "convert-openmp-to-llvm,", "gpu-to-llvm,");
  return pipeline + ",gpu-module-to-binary{" +
         (gpu.ptxOnly ? "format=isa" : "format=fatbin toolkit=" + gpu.toolkit) +
         "}";
}

namespace {
/// The pipelines by name, in the order tfcc runs them: one table for the
/// registration and the documentation of each.
struct NamedPipeline {
  const char *name;
  const char *description;
  std::function<std::string()> pipeline;
};
const NamedPipeline kNamedPipelines[] = {
    {"tfcc-normalize-pipeline",
     "tfcc's first pipeline: result types refined to what inference knows",
     [] { return std::string(kNormalizePipeline); }},
    {"tfcc-training-pipeline",
     "tfcc's training passes, for a model with a graph.train_step: "
     "autodiff, then the variables placed in the state memory",
     [] { return std::string(kTrainingPipeline); }},
    {"tfcc-graph-pipeline",
     "tfcc's graph-level passes (inlining, clean-up, layout, op fusion); "
     "tfcc --emit=graph prints the IR after it",
     [] { return std::string(kGraphPipeline); }},
    {"tfcc-to-buffers-pipeline",
     "tfcc's lowering to linalg, elementwise fusion and bufferization",
     [] { return std::string(kToBuffersPipeline); }},
    {"tfcc-to-arena-pipeline",
     "tfcc's output buffers as arguments and the arena memory plan",
     [] { return std::string(kToArenaPipeline); }},
    {"tfcc-to-llvm-pipeline",
     "tfcc's profiling hooks, loops, threads and the LLVM dialect; tfcc "
     "--emit=mlir prints "
     "the IR after it",
     [] { return std::string(kToLLVMPipeline); }},
    {"tfcc-gpu-graph-pipeline",
     "tfcc-graph-pipeline for the CUDA target: no fusion into the CPU "
     "kernels' fused ops",
     gpuGraphPipeline},
    {"tfcc-gpu-to-buffers-pipeline",
     "tfcc-to-buffers-pipeline for the CUDA target: no kernel calls",
     gpuToBuffersPipeline},
    {"tfcc-gpu-to-llvm-pipeline",
     "the CUDA target's buffers in GPU memory, loops as GPU kernels (sm_90, "
     "embedded as PTX here; tfcc embeds ptxas' binary), host code in the "
     "LLVM dialect",
     [] {
       GpuCodeOptions ptx;
       ptx.ptxOnly = true;
       return gpuToLLVMPipeline(ptx);
     }},
};
} // namespace

void registerPipelines() {
  for (const NamedPipeline &named : kNamedPipelines)
    PassPipelineRegistration<>(
        named.name, named.description, [&named](OpPassManager &pm) {
          if (failed(parsePassPipeline(named.pipeline(), pm)))
            llvm::report_fatal_error(llvm::Twine("bad pipeline ") + named.name);
        });
}

/// Whether registerPipelineCLOptions ran: MLIR's apply functions fail when
/// their options were never registered (the fuzz harness, the other tools).
static bool pipelineCLOptionsRegistered = false;

void registerPipelineCLOptions() {
  // The printer's options too (--mlir-elide-elementsattrs-if-larger=N keeps
  // the weights out of --mlir-print-ir-* and --emit=mlir output).
  registerAsmPrinterCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  pipelineCLOptionsRegistered = true;
}

void applyPipelineTimingOptions(DefaultTimingManager &manager) {
  if (pipelineCLOptionsRegistered)
    applyDefaultTimingManagerCLOptions(manager);
}

/// Runs the passes `addPasses` adds to a module pass manager, named `name`
/// in timings.
static LogicalResult
runPasses(ModuleOp module, StringRef name, TimingScope *timing,
          llvm::function_ref<LogicalResult(OpPassManager &)> addPasses) {
  PassManager pm(module.getContext());
  // Verified once per pipeline, not after each of its passes: on a large
  // graph that was a quarter of the compile time. tfcc-opt and the lit tests
  // still verify after every pass.
  pm.enableVerifier(false);
  if (failed(addPasses(pm)))
    return failure();
  if (pipelineCLOptionsRegistered && failed(applyPassManagerCLOptions(pm)))
    return failure();
  std::optional<TimingScope> scope;
  if (timing) {
    scope.emplace(timing->nest(name));
    pm.enableTiming(*scope);
  }
  if (failed(pm.run(module)))
    return failure();
  if (failed(verify(module))) {
    module.emitError() << "internal error: the passes of '" << name
                       << "' produced invalid IR";
    return failure();
  }
  return success();
}

static LogicalResult runPipeline(ModuleOp module, const char *pipeline,
                                 StringRef name, TimingScope *timing) {
  return runPasses(module, name, timing, [&](OpPassManager &pm) {
    std::string error;
    llvm::raw_string_ostream errors(error);
    if (succeeded(parsePassPipeline(pipeline, pm, errors)))
      return success();
    module.emitError() << "internal error: bad pass pipeline: " << error;
    return failure();
  });
}

LogicalResult runApplyCheckpoint(ModuleOp module, const std::string &path,
                                 const std::string &modelName,
                                 TimingScope *timing) {
  return runPasses(module, "checkpoint", timing, [&](OpPassManager &pm) {
    // Built, not parsed: a path may hold any character.
    mlir::tfcc::ApplyCheckpointOptions options;
    options.path = path;
    options.modelName = modelName;
    pm.addPass(mlir::tfcc::createApplyCheckpoint(options));
    return success();
  });
}

/// `pipeline` with its inliner replaced by the canonicalization the inliner
/// runs on each function first, where `module` has no call: on a huge graph
/// the inliner took noticeable time to find none (docs/reliability.md).
static std::string withInlinerIfCalls(ModuleOp module, const char *pipeline) {
  bool hasCalls =
      module.walk([](CallOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (hasCalls)
    return pipeline;
  return replaced(pipeline, "inline,", "canonicalize,");
}

LogicalResult runInlinePipeline(ModuleOp module, TimingScope *timing) {
  return runPipeline(module,
                     withInlinerIfCalls(module, kInlinePipeline).c_str(),
                     "inline", timing);
}

LogicalResult runQuantizeInt8(ModuleOp module, int weightBits,
                              TimingScope *timing) {
  return runPasses(module, "quantize-int8", timing, [&](OpPassManager &pm) {
    // Every entry's weights in int8: the entries not calibrated (a loss
    // beside predict) read the same variables.
    mlir::tfcc::QuantizeInt8Options options;
    options.allWeights = true;
    options.weightBits = weightBits;
    pm.addPass(mlir::tfcc::createQuantizeInt8(options));
    return success();
  });
}

LogicalResult runPrecisionPolicy(ModuleOp module, const std::string &policy,
                                 TimingScope *timing) {
  return runPasses(module, "precision-policy", timing, [&](OpPassManager &pm) {
    mlir::tfcc::PrecisionPolicyOptions options;
    options.policy = policy;
    // Nothing after it: in a training build it runs before tfcc-autodiff,
    // and the canonicalizer would drop graph.dropout (the identity outside
    // training).
    pm.addPass(mlir::tfcc::createPrecisionPolicy(options));
    return success();
  });
}

LogicalResult runRetypeInterface(ModuleOp module, const std::string &dtype,
                                 TimingScope *timing) {
  return runPasses(module, "retype-interface", timing, [&](OpPassManager &pm) {
    mlir::tfcc::RetypeInterfaceOptions options;
    options.dtype = dtype;
    pm.addPass(mlir::tfcc::createRetypeInterface(options));
    return success();
  });
}

LogicalResult runWidenLowPrecision(ModuleOp module, TimingScope *timing) {
  return runPipeline(module, "tfcc-widen-low-precision-ops,canonicalize",
                     "widen-low-precision", timing);
}

LogicalResult runDropTrainSteps(ModuleOp module, TimingScope *timing) {
  return runPipeline(module, "tfcc-drop-train-steps", "drop-train-steps",
                     timing);
}

LogicalResult runTrainingPasses(ModuleOp module, TimingScope *timing,
                                bool dynamicLossScale, bool splitTrainStep) {
  if (module.getOps<graph::TrainStepOp>().empty())
    return success();
  if (!dynamicLossScale && !splitTrainStep)
    return runPipeline(module, kTrainingPipeline, "training", timing);
  // The same pipeline, tfcc-autodiff with its options.
  std::string pipeline = kTrainingPipeline;
  const std::string autodiff = "tfcc-autodiff";
  std::string options = dynamicLossScale ? "dynamic-loss-scale=true" : "";
  if (splitTrainStep)
    options += std::string(options.empty() ? "" : " ") + "split=true";
  pipeline.replace(pipeline.find(autodiff), autodiff.size(),
                   autodiff + "{" + options + "}");
  return runPipeline(module, pipeline.c_str(), "training", timing);
}

LogicalResult runNormalizePipeline(ModuleOp module, TimingScope *timing) {
  return runPipeline(module, kNormalizePipeline, "normalize", timing);
}

LogicalResult runGraphPipeline(ModuleOp module, TimingScope *timing, bool gpu) {
  std::string pipeline = gpu ? gpuGraphPipeline() : kGraphPipeline;
  return runPipeline(module,
                     withInlinerIfCalls(module, pipeline.c_str()).c_str(),
                     "graph", timing);
}

LogicalResult runToArenaPipeline(ModuleOp module, TimingScope *timing,
                                 bool gpu) {
  if (failed(runPipeline(
          module, gpu ? gpuToBuffersPipeline().c_str() : kToBuffersPipeline,
          "to-buffers", timing)))
    return failure();
  return runPipeline(module, kToArenaPipeline, "to-arena", timing);
}

LogicalResult runGpuLoopsOnHostPipeline(ModuleOp module, TimingScope *timing) {
  // The CPU's lowering with the GPU's loop nests: one thread's loops where
  // the CPU would split work between threads.
  std::string pipeline =
      replaced(kToLLVMPipeline,
               "tfcc-lower-linalg-to-parallel-loops,tfcc-parallelize-loops,",
               "tfcc-gpu-map-loops,");
  return runPipeline(module, pipeline.c_str(), "to-llvm", timing);
}

LogicalResult runGpuToLLVMPipeline(ModuleOp module, TimingScope *timing,
                                   const GpuCodeOptions &gpu) {
  return runPipeline(module, gpuToLLVMPipeline(gpu).c_str(), "to-llvm", timing);
}

LogicalResult runToLLVMPipeline(ModuleOp module, TimingScope *timing,
                                bool profileSpans) {
  if (profileSpans)
    return runPipeline(module, kToLLVMPipeline, "to-llvm", timing);
  StringRef pipeline(kToLLVMPipeline);
  if (!pipeline.consume_front(kProfileSpansPass))
    llvm::report_fatal_error(
        "kToLLVMPipeline must start with tfcc-profile-spans");
  return runPipeline(module, pipeline.str().c_str(), "to-llvm", timing);
}

LogicalResult runCheckNumerics(ModuleOp module, TimingScope *timing) {
  return runPipeline(module, "tfcc-check-numerics", "check-numerics", timing);
}

} // namespace tfcc
