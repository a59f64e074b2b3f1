//===- Compiler.h - the library behind the tfcc tool ------------*- C++ -*-===//
//
// No MLIR or LLVM types here: tools include this and stay cheap to build.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_COMPILER_H
#define TFCC_COMPILER_COMPILER_H

#include <cstdint>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/GpuCodeOptions.h"

namespace tfcc {

enum class EmitKind {
  SharedLibrary, // OUT.so + OUT.h
  Object,        // OUT.o (relocatable, runtime included) + OUT.h
  StaticArchive, // OUT.a holding that object + OUT.h
  Header,        // OUT.h only
  Graph,         // the graph IR after the graph-level passes (inlining, layout)
  GraphDef,      // that graph as a TensorFlow GraphDef (TensorBoard)
  Dot,           // that graph in Graphviz DOT
  Html,          // that graph drawn in a self-contained HTML page
  Mlir,          // the IR after the whole MLIR pipeline
  LlvmIr,        // optimized LLVM IR with the C interface glue
};

struct CompileOptions {
  std::string inputPath;
  /// Graph-IR text to compile instead of reading inputPath (which then only
  /// names it in messages): the fuzz harness, fuzz/graph_ir_compile.cpp.
  std::optional<std::string> inputText;
  /// For SharedLibrary/Object the header goes beside it (same stem, ".h");
  /// "-" writes textual output to stdout.
  std::string outputPath;
  EmitKind emit = EmitKind::SharedLibrary;
  std::string prefix;       // C symbol prefix; empty = the module's name
  std::string targetTriple; // empty = host
  /// --target=cuda: the model's code on a CUDA GPU (kernels of `gpu`'s
  /// architecture), the host code for the host.
  bool cuda = false;
  GpuCodeOptions gpu;
  /// Tests only (tfcc-run --gpu-loops-on-host): the CUDA target's graph
  /// passes, lowering and loop nests (tfcc-gpu-map-loops), compiled for the
  /// host CPU, so that --compare checks them on a machine without a GPU.
  bool gpuLoopsOnHost = false;
  std::string cpu;          // empty = host CPU (or "generic" for other triples)
  std::string runtimeLibrary; // libtfcc_runtime.a; empty = next to the tool
  // Not O3: much slower on the loop nests of small CNNs for no gain
  // (docs/performance.md).
  int optLevel = 2;
  /// ONNX graph inputs whose dims to pin (-1 keeps a dim dynamic), from
  /// --input-shape NAME=DIMS.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// ONNX graph inputs fixed to a value (they become constants), from
  /// --input-value NAME=V.
  std::map<std::string, std::string> inputValues;
  /// Largest values of named dynamic dimensions beyond the batch (ONNX
  /// dim_params, the graph IR's tfcc.dim_names), from --dim-bound NAME=N:
  /// each becomes a dimension of its own, given per call; a name without a
  /// bound takes the batch's value.
  std::map<std::string, int64_t> dimBounds;
  /// Where to print the memory plan of every entry (each buffer's offset,
  /// size and live range; the planned arena, the liveness bound and the sum
  /// without reuse): empty = nowhere, "-" = stdout.
  std::string reportPath;
  /// Fail the build when an entry's planned arena at batch 1 exceeds this many
  /// bytes; negative = no limit.
  int64_t maxArenaBytes = -1;
  /// Compile each graph.train_step (tfcc-autodiff first, every variable in
  /// state memory). false drops them: variables stay compile-time constants.
  bool train = true;
  /// Also the train step's halves, compute_gradients and apply_gradients
  /// (tfcc-autodiff's split option, --split-train-step).
  bool splitTrainStep = false;
  /// --check-numerics: the model reports the first node whose float output
  /// holds a NaN or an infinity (tfcc-check-numerics).
  bool checkNumerics = false;
  /// The profiler's hooks around each node's kernels and loop nests
  /// (tfcc-profile-spans); --no-profile-hooks leaves them out. Bare-metal
  /// targets never get them.
  bool profileHooks = true;
  /// -v: the time of each stage (loading, each pass pipeline, LLVM's phases,
  /// linking) on stderr at the end.
  bool verbose = false;
  /// A checkpoint (<prefix>_save_checkpoint) whose values replace the
  /// variables' initial values (--weights); empty = none.
  std::string weightsPath;
  /// "int8": post-training quantization (--quantize=int8) calibrated on
  /// `calibrationPaths` (one .npy per input of the first entry, samples along
  /// the batch dimension); empty = none.
  std::string quantize;
  std::vector<std::string> calibrationPaths;
  /// "minmax" (default), "percentile=P" or "entropy" (Calibration.h).
  std::string calibrationMethod = "minmax";
  /// Bits of the quantized weights: 8 or 7 (tfcc-quantize-int8's
  /// weight-bits).
  int quantizeWeightBits = 8;
  /// "mixed_bf16" or "mixed_f16": Keras' mixed precision policy
  /// (tfcc-precision-policy, --precision); empty = float32 throughout.
  std::string precision;
  /// "bf16" or "f16": the entry points' f32 tensor arguments and results in
  /// that type (tfcc-retype-interface, --io-dtype); empty = as the model.
  std::string ioDtype;
};

/// How an input's range is chosen from the calibration data.
struct CalibrationMethod {
  enum Kind {
    MinMax,     // the smallest and largest value
    Percentile, // the (100 - P)th and Pth percentiles
    Entropy,    // TensorRT's: the |x| threshold of least KL divergence
  } kind = MinMax;
  double percentile = 100.0;
};

/// Parses --calibration-method: "minmax", "percentile=P" (50 < P <= 100) or
/// "entropy". False with `error` set otherwise.
bool parseCalibrationMethod(const std::string &text, CalibrationMethod &method,
                            std::string &error);

/// Parses one --input-shape value, "NAME=1x3x48x192" ('?' for a dim that
/// stays dynamic), into `shapes`. Returns false with `error` set when it is
/// malformed or names an input twice.
bool parseInputShape(const std::string &spec,
                     std::map<std::string, std::vector<int64_t>> &shapes,
                     std::string &error);

/// Parses one --input-value value, "NAME=NUMBER", into `values` (the number
/// kept as text: importOnnxModel reads it in the input's element type).
/// Returns false with `error` set when it is malformed or names an input
/// twice.
bool parseInputValue(const std::string &spec,
                     std::map<std::string, std::string> &values,
                     std::string &error);

/// Parses one `flag` value ("--dim-bound", tfcc-run's "--dim"), "NAME=N"
/// (1 <= N <= 2^31), into `values`. Returns false with `error` set when it is
/// malformed or names a dimension twice.
bool parseDimBound(const std::string &spec,
                   std::map<std::string, int64_t> &values, std::string &error,
                   const std::string &flag = "--dim-bound");

/// What compile() ends with.
struct CompileStatus {
  bool ok = false;
  /// The diagnostics, as tfcc prints them: the model's as
  /// `file:line:col: error: node 'conv1': ...` (with notes), the driver's as
  /// `tfcc: error: ...`; one per line. Empty on a clean success.
  std::string diagnostics;
};

/// Compiles one model file into the outputs `options` names. Prints nothing
/// but what was asked for (--emit=... -o -, --report -, --mlir-timing); the
/// caller prints the status' diagnostics.
CompileStatus compile(const CompileOptions &options);

/// Registers MLIR's pass-manager options (--mlir-timing,
/// --mlir-print-ir-after-all, crash reproducers, ...) for compile(): call it
/// before parsing the command line.
void registerCompilerCLOptions();

/// Where the runtime archive is by default: <dir of the running tool>/../lib.
std::string defaultRuntimeLibrary();

/// The path of the header written beside `outputPath` (stem + ".h").
std::string headerPathFor(const std::string &outputPath);

} // namespace tfcc

#endif // TFCC_COMPILER_COMPILER_H
