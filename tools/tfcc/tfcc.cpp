//===- tfcc.cpp - compile a graph-IR model to a shared library + header ---===//

#include "compiler/Compiler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

namespace cl = llvm::cl;

static cl::OptionCategory category("tfcc options");

static cl::opt<std::string>
    inputPath(cl::Positional,
              cl::desc("MODEL.mlir, MODEL.onnx or MODEL.tflite"), cl::Required,
              cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::desc("Output file (OUT.so; OUT.h is written beside it)"),
               cl::value_desc("OUT"), cl::cat(category));
static cl::opt<tfcc::EmitKind> emitKind(
    "emit", cl::desc("What to produce"),
    cl::init(tfcc::EmitKind::SharedLibrary),
    cl::values(
        clEnumValN(tfcc::EmitKind::SharedLibrary, "so",
                   "shared library OUT.so and its header OUT.h (default)"),
        clEnumValN(
            tfcc::EmitKind::Object, "obj",
            "relocatable object OUT.o with the runtime inside, and OUT.h"),
        clEnumValN(tfcc::EmitKind::StaticArchive, "static",
                   "static library OUT.a holding that object, and OUT.h"),
        clEnumValN(tfcc::EmitKind::Header, "header", "the C header only"),
        clEnumValN(tfcc::EmitKind::Graph, "graph",
                   "the graph IR after inlining and layout propagation"),
        clEnumValN(tfcc::EmitKind::GraphDef, "graphdef",
                   "that graph as a TensorFlow GraphDef (binary; TensorBoard's "
                   "Graphs tab, docs/tensorboard.md)"),
        clEnumValN(tfcc::EmitKind::Dot, "dot",
                   "that graph in Graphviz DOT (fused ops boxed, shapes on the "
                   "edges)"),
        clEnumValN(tfcc::EmitKind::Html, "html",
                   "that graph drawn in a self-contained HTML page"),
        clEnumValN(tfcc::EmitKind::Mlir, "mlir",
                   "the MLIR after the whole pipeline (LLVM dialect)"),
        clEnumValN(tfcc::EmitKind::LlvmIr, "llvm",
                   "optimized LLVM IR including the C interface")),
    cl::cat(category));
static cl::opt<std::string>
    prefix("name",
           cl::desc("C symbol prefix of the exported functions (default: the "
                    "module's name)"),
           cl::value_desc("PREFIX"), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Target triple (default: the host), or 'cuda': the "
                    "model's code on an NVIDIA GPU, host code for the host "
                    "(docs/cuda.md)"),
           cl::value_desc("TRIPLE"), cl::cat(category));
static cl::opt<std::string>
    cudaArch("cuda-arch",
             cl::desc("With --target=cuda: the GPU architecture of the "
                      "embedded binary (default sm_90; its PTX is embedded "
                      "too, for newer GPUs)"),
             cl::value_desc("sm_NN"), cl::init("sm_90"), cl::cat(category));
static cl::opt<std::string> cudaToolkit(
    "cuda-toolkit",
    cl::desc("With --target=cuda: the CUDA toolkit whose ptxas and fatbinary "
             "build the binary (default: $CUDA_HOME, else /usr/local/cuda)"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("Target CPU (default: the host CPU for the host triple, "
                 "'generic' otherwise). On x86-64 an explicit CPU also links "
                 "only the runtime kernels of its ISA level (no AVX-512 code "
                 "for x86-64-v3 / AVX2 CPUs)"),
        cl::value_desc("NAME"), cl::cat(category));
static cl::opt<std::string> runtimeLib(
    "runtime-lib",
    cl::desc("The runtime archive to link (default: ../lib/libtfcc_runtime.a "
             "next to tfcc)"),
    cl::value_desc("PATH"), cl::cat(category));
static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Pin the dims of an ONNX graph input, e.g. x=1x3x48x192 ('?' "
             "keeps a dim dynamic); repeatable"),
    cl::value_desc("NAME=DIMS"), cl::cat(category));
static cl::list<std::string> inputValues(
    "input-value",
    cl::desc("Fix an ONNX graph input of static shape to a value, e.g. "
             "sr=16000: it becomes a constant and leaves the entry's "
             "arguments; repeatable"),
    cl::value_desc("NAME=NUMBER"), cl::cat(category));
static cl::list<std::string> dimBounds(
    "dim-bound",
    cl::desc("Make the named dynamic dimension NAME of the inputs (an ONNX "
             "dim_param beyond the batch, or a name in the graph IR's "
             "tfcc.dim_names) a dimension of its own, given per call, of at "
             "most N (the arena is planned for N); without it, a named "
             "dimension takes the batch's value; repeatable"),
    cl::value_desc("NAME=N"), cl::cat(category));
static cl::opt<std::string> report(
    "report",
    cl::desc("Print the weight bytes by dtype (the model's variables, before "
             "packing) and each entry's memory plan: every buffer's arena offset, "
             "size and live range, the planned arena, the liveness bound and "
             "the sum without reuse (to stdout, or to FILE with --report=FILE)"),
    cl::value_desc("FILE"), cl::ValueOptional, cl::cat(category));
static cl::opt<bool> verbose(
    "v",
    cl::desc("Print the time of each stage (loading, each pass pipeline, "
             "LLVM's phases, linking) at the end (--mlir-timing: every pass)"),
    cl::cat(category));
static cl::opt<bool> noProfileHooks(
    "no-profile-hooks",
    cl::desc("Leave out the profiler's hooks (one load and branch per op; "
             "TFCC_PROFILE and <prefix>_profile_start then record only the "
             "calls)"),
    cl::cat(category));
static cl::opt<bool> checkNumerics(
    "check-numerics",
    cl::desc("Build a model that reports the first node whose float output "
             "holds a NaN or an infinity: the call returns "
             "TFCC_INVALID_ARGUMENT naming the node and op (slower: for "
             "debugging)"),
    cl::cat(category));
static cl::opt<bool> noTrain(
    "no-train",
    cl::desc("Drop graph.train_step: variables stay compile-time constants "
             "(inference only)"),
    cl::init(false));
static cl::opt<bool> splitTrainStep(
    "split-train-step",
    cl::desc(
        "Also build the train step's two halves, <prefix>_compute_gradients "
        "(forward and backward: the loss, the gradients in one flat vector "
        "and the batch statistics) and <prefix>_apply_gradients (the "
        "update), for data-parallel training with an all-reduce between "
        "them (tfcc-train --mpi, docs/distributed.md)"),
    cl::cat(category));
static cl::opt<std::string> weights(
    "weights",
    cl::desc("Bake a checkpoint (written by a trained model's "
             "<prefix>_save_checkpoint) into the build: its values replace the "
             "variables' initial values"),
    cl::value_desc("CKPT"), cl::cat(category));
static cl::opt<std::string> quantize(
    "quantize",
    cl::desc("Post-training quantization: 'int8' quantizes the inputs of "
             "convolutions, dense layers and matmuls per tensor (ui8) and "
             "their weights per output channel (i8), calibrated on "
             "--calibration (docs/quantization.md)"),
    cl::value_desc("int8"), cl::cat(category));
static cl::list<std::string> calibration(
    "calibration",
    cl::desc("Calibration data for --quantize: one .npy per input of the "
             "first entry, in argument order, samples along the batch "
             "dimension (repeatable)"),
    cl::value_desc("X.npy"), cl::cat(category));
static cl::opt<std::string> calibrationMethod(
    "calibration-method",
    cl::desc("How --quantize picks each input's range from the calibration "
             "data: minmax (default), percentile=P (the (100-P)th and Pth "
             "percentiles, e.g. 99.99) or entropy (TensorRT's KL threshold)"),
    cl::value_desc("METHOD"), cl::init("minmax"), cl::cat(category));
static cl::opt<int> quantizeWeightBits(
    "quantize-weight-bits",
    cl::desc("Bits of --quantize's int8 weights: 8 (default, [-127, 127]) or "
             "7 ([-63, 63]: on CPUs without VNNI the AVX2 int8 kernel runs "
             "its faster vpmaddubsw form, exact for such weights)"),
    cl::value_desc("7|8"), cl::init(8), cl::cat(category));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("Mixed precision as Keras' policies: 'mixed_bf16' or "
             "'mixed_f16' computes dense layers, convolutions, pooling and "
             "elementwise ops in bfloat16 / float16 (accumulating in f32), "
             "softmax, losses, normalization and reductions in float32; "
             "variables and the interface stay float32 (see --io-dtype) "
             "(docs/mixed-precision.md)"),
    cl::value_desc("mixed_bf16|mixed_f16"), cl::cat(category));
static cl::opt<std::string> ioDtype(
    "io-dtype",
    cl::desc("The entry points' float32 tensor arguments and results in "
             "'bf16' or 'f16' (raw bits in uint16_t in the C header; a train "
             "step's loss stays float32), or 'f32' (default: as the model)"),
    cl::value_desc("f32|bf16|f16"), cl::cat(category));
static cl::opt<std::string> maxArena(
    "max-arena",
    cl::desc("Fail when an entry's planned arena exceeds BYTES (evaluated at "
             "batch 1 for entries with a dynamic batch)"),
    cl::value_desc("BYTES"), cl::cat(category));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level 0-3 (default 2)"),
                                  cl::init(2), cl::Prefix, cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tfcc::registerCompilerCLOptions();
  // MLIR's pass-manager options (registered above) are listed under their own
  // heading; every other library option stays hidden.
  static cl::OptionCategory mlirCategory(
      "MLIR pass-manager options (applied to tfcc's pass pipelines)");
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.getKey().starts_with("mlir-"))
      entry.getValue()->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&category, &mlirCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfcc: ahead-of-time compiler for graph-IR models\n\n"
      "  tfcc MODEL.mlir -o OUT.so   writes OUT.so and OUT.h\n"
      "  tfcc MODEL.onnx -o OUT.so   imports an ONNX model, then the same\n"
      "  tfcc MODEL.tflite -o OUT.so imports a TFLite model, then the same\n"
      "  tfcc MODEL.mlir --mlir-timing   also prints each pass's and LLVM's "
      "time\n");
  tfcc::CompileOptions options;
  options.inputPath = inputPath;
  options.emit = emitKind;
  options.outputPath = outputPath;
  if (options.outputPath.empty()) {
    bool textual = emitKind == tfcc::EmitKind::Mlir ||
                   emitKind == tfcc::EmitKind::Graph ||
                   emitKind == tfcc::EmitKind::LlvmIr;
    llvm::SmallString<128> stem(llvm::sys::path::stem(inputPath.getValue()));
    const char *ext = emitKind == tfcc::EmitKind::Object          ? ".o"
                      : emitKind == tfcc::EmitKind::StaticArchive ? ".a"
                      : emitKind == tfcc::EmitKind::Header        ? ".h"
                      : emitKind == tfcc::EmitKind::GraphDef      ? ".pb"
                      : emitKind == tfcc::EmitKind::Dot           ? ".dot"
                      : emitKind == tfcc::EmitKind::Html          ? ".html"
                                                                  : ".so";
    options.outputPath = textual ? "-" : (stem + ext).str();
  }
  options.prefix = prefix;
  options.targetTriple = target;
  if (target == "cuda") {
    options.cuda = true;
    options.targetTriple.clear(); // the host code's
  }
  for (auto *cudaOption : {&cudaArch, &cudaToolkit})
    if (cudaOption->getNumOccurrences() && !options.cuda) {
      llvm::errs() << "tfcc: error: --" << cudaOption->ArgStr
                   << " cannot take effect without --target=cuda\n";
      return 1;
    }
  if (options.cuda) {
    llvm::StringRef arch = cudaArch;
    unsigned version = 0;
    if (!arch.consume_front("sm_") || arch.getAsInteger(10, version) ||
        version < 50) {
      llvm::errs() << "tfcc: error: --cuda-arch '" << cudaArch
                   << "' is not a GPU architecture sm_NN (50 or later, e.g. "
                      "sm_90)\n";
      return 1;
    }
    options.gpu.arch = cudaArch;
    options.gpu.toolkit = cudaToolkit;
  }
  options.cpu = cpu;
  options.runtimeLibrary = runtimeLib;
  if (optLevel > 3) {
    llvm::errs() << "tfcc: error: -O" << optLevel << " is not 0, 1, 2 or 3\n";
    return 1;
  }
  options.optLevel = optLevel;
  if (report.getNumOccurrences())
    options.reportPath = report.empty() ? "-" : report.getValue();
  options.train = !noTrain;
  options.splitTrainStep = splitTrainStep;
  options.checkNumerics = checkNumerics;
  options.profileHooks = !noProfileHooks;
  options.verbose = verbose;
  options.weightsPath = weights;
  if (quantize.getNumOccurrences()) {
    if (quantize != "int8") {
      llvm::errs() << "tfcc: error: --quantize='" << quantize
                   << "' is not a quantization tfcc knows (int8)\n";
      return 1;
    }
    if (calibration.empty()) {
      llvm::errs() << "tfcc: error: --quantize=int8 needs calibration data: "
                      "--calibration X.npy, one per input of the model\n";
      return 1;
    }
    options.quantize = quantize;
    tfcc::CalibrationMethod method;
    std::string error;
    if (!tfcc::parseCalibrationMethod(calibrationMethod, method, error)) {
      llvm::errs() << "tfcc: error: " << error << "\n";
      return 1;
    }
    options.calibrationMethod = calibrationMethod;
    if (quantizeWeightBits != 7 && quantizeWeightBits != 8) {
      llvm::errs() << "tfcc: error: --quantize-weight-bits=" << quantizeWeightBits
                   << " is not 7 or 8\n";
      return 1;
    }
    options.quantizeWeightBits = quantizeWeightBits;
  } else if (!calibration.empty() || calibrationMethod.getNumOccurrences() ||
             quantizeWeightBits.getNumOccurrences()) {
    llvm::errs() << "tfcc: error: "
                 << (!calibration.empty() ? "--calibration"
                     : calibrationMethod.getNumOccurrences()
                         ? "--calibration-method"
                         : "--quantize-weight-bits")
                 << " cannot take effect without --quantize=int8\n";
    return 1;
  }
  options.calibrationPaths = calibration;
  if (precision.getNumOccurrences()) {
    if (precision != "mixed_bf16" && precision != "mixed_f16") {
      llvm::errs() << "tfcc: error: --precision='" << precision
                   << "' is not a policy tfcc knows (mixed_bf16, mixed_f16)\n";
      return 1;
    }
    options.precision = precision;
  }
  if (ioDtype.getNumOccurrences()) {
    if (ioDtype != "f32" && ioDtype != "bf16" && ioDtype != "f16") {
      llvm::errs() << "tfcc: error: --io-dtype='" << ioDtype
                   << "' is not f32, bf16 or f16\n";
      return 1;
    }
    if (ioDtype != "f32")
      options.ioDtype = ioDtype;
  }
  if (maxArena.getNumOccurrences()) {
    long long bytes;
    if (llvm::StringRef(maxArena).getAsInteger(10, bytes) || bytes < 0) {
      llvm::errs() << "tfcc: error: --max-arena '" << maxArena
                   << "' is not a non-negative number of bytes\n";
      return 1;
    }
    options.maxArenaBytes = bytes;
  }
  // Options that only some outputs use: given with another, they could not
  // take effect, so they are refused (docs/reliability.md has this table).
  using tfcc::EmitKind;
  const EmitKind codegen[] = {EmitKind::SharedLibrary, EmitKind::Object,
                              EmitKind::StaticArchive, EmitKind::LlvmIr};
  const EmitKind linked[] = {EmitKind::SharedLibrary, EmitKind::Object,
                             EmitKind::StaticArchive};
  const EmitKind lowered[] = {EmitKind::SharedLibrary, EmitKind::Object,
                              EmitKind::StaticArchive, EmitKind::Mlir,
                              EmitKind::LlvmIr};
  const EmitKind named[] = {EmitKind::SharedLibrary, EmitKind::Object,
                            EmitKind::StaticArchive, EmitKind::Header,
                            EmitKind::LlvmIr};
  const EmitKind valued[] = {EmitKind::SharedLibrary, EmitKind::Object,
                             EmitKind::StaticArchive, EmitKind::Graph,
                             EmitKind::Mlir, EmitKind::LlvmIr};
  const EmitKind planned[] = {EmitKind::SharedLibrary, EmitKind::Object,
                              EmitKind::StaticArchive, EmitKind::Header,
                              EmitKind::Mlir, EmitKind::LlvmIr};
  // --target=cuda also changes the graph passes, the lowering and the
  // memory plan (the header's arena sizes).
  const EmitKind cudaTarget[] = {EmitKind::SharedLibrary, EmitKind::Object,
                                 EmitKind::StaticArchive, EmitKind::Header,
                                 EmitKind::Graph,         EmitKind::Mlir,
                                 EmitKind::LlvmIr};
  struct OutputOption {
    const char *flag;
    bool given;
    llvm::ArrayRef<EmitKind> appliesTo;
  } outputOptions[] = {
      {"-O", optLevel.getNumOccurrences() > 0, codegen},
      {"--target", target.getNumOccurrences() > 0,
       target == "cuda" ? llvm::ArrayRef<EmitKind>(cudaTarget) : codegen},
      {"--cpu", cpu.getNumOccurrences() > 0, codegen},
      {"--runtime-lib", runtimeLib.getNumOccurrences() > 0, linked},
      {"--name", prefix.getNumOccurrences() > 0, named},
      {"--weights", weights.getNumOccurrences() > 0, valued},
      {"--quantize", quantize.getNumOccurrences() > 0, valued},
      {"--precision", precision.getNumOccurrences() > 0, valued},
      {"--check-numerics", checkNumerics.getNumOccurrences() > 0, valued},
      {"--no-profile-hooks", noProfileHooks.getNumOccurrences() > 0, lowered},
      {"--report", report.getNumOccurrences() > 0, planned},
      {"--max-arena", maxArena.getNumOccurrences() > 0, planned},
  };
  auto emitName = [](EmitKind kind) {
    switch (kind) {
    case EmitKind::SharedLibrary: return "so";
    case EmitKind::Object: return "obj";
    case EmitKind::StaticArchive: return "static";
    case EmitKind::Header: return "header";
    case EmitKind::Graph: return "graph";
    case EmitKind::GraphDef:
      return "graphdef";
    case EmitKind::Dot:
      return "dot";
    case EmitKind::Html:
      return "html";
    case EmitKind::Mlir: return "mlir";
    case EmitKind::LlvmIr: return "llvm";
    }
    return "?";
  };
  for (const OutputOption &option : outputOptions) {
    if (!option.given || llvm::is_contained(option.appliesTo, emitKind))
      continue;
    llvm::errs() << "tfcc: error: " << option.flag
                 << " cannot take effect with --emit=" << emitName(emitKind)
                 << " (it applies to --emit=";
    for (auto [i, kind] : llvm::enumerate(option.appliesTo))
      llvm::errs() << (i ? ", " : "") << emitName(kind);
    llvm::errs() << ")\n";
    return 1;
  }
  for (const std::string &spec : inputShapes) {
    std::string error;
    if (!tfcc::parseInputShape(spec, options.inputShapes, error)) {
      llvm::errs() << "tfcc: error: " << error << "\n";
      return 1;
    }
  }
  for (const std::string &spec : inputValues) {
    std::string error;
    if (!tfcc::parseInputValue(spec, options.inputValues, error)) {
      llvm::errs() << "tfcc: error: " << error << "\n";
      return 1;
    }
  }
  for (const std::string &spec : dimBounds) {
    std::string error;
    if (!tfcc::parseDimBound(spec, options.dimBounds, error)) {
      llvm::errs() << "tfcc: error: " << error << "\n";
      return 1;
    }
  }
  tfcc::CompileStatus status = tfcc::compile(options);
  llvm::errs() << status.diagnostics;
  return status.ok ? 0 : 1;
}
