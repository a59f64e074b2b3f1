//===- tfcc-run.cpp - run a model: compiled, interpreted, or both ---------===//

#include "compiler/Compiler.h"
#include "compiler/Frontend.h"
#include "compiler/Pipeline.h"
#include "compiler/Registration.h"
#include "compiler/Runner.h"
#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/TensorSize.h"
#include "tools/ThreadsOption.h"
#include "tools/tfcc-run/RunReports.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace cl = llvm::cl;
using namespace tfcc;

static cl::OptionCategory category("tfcc-run options");
static cl::opt<std::string>
    modelPath(cl::Positional, cl::Required,
              cl::desc("MODEL (.mlir, .onnx, .tflite, or a .so built by tfcc)"),
              cl::cat(category));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("Entry point to run (default: the first)"),
                                      cl::value_desc("NAME"), cl::cat(category));
static cl::list<std::string> inputFiles(
    "input", cl::desc("Input .npy files, in argument order (default: random)"),
    cl::value_desc("FILE.npy"), cl::cat(category));
static cl::opt<std::string> outputDir(
    "output-dir", cl::desc("Write outputs as DIR/output_0.npy, output_1.npy, ... "
                           "(with --train-steps: the variables after training, "
                           "DIR/variable_0.npy, ...)"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> interpretOnly("interpret",
                                   cl::desc("Run the reference interpreter instead"),
                                   cl::cat(category));
static cl::opt<bool> compareFlag(
    "compare",
    cl::desc("Run the compiled code and the reference interpreter on the same "
             "graph IR and inputs and compare every output. This checks the "
             "lowering, not the import: for an .onnx model both run the graph "
             "tfcc imported, so an import bug gives the same wrong answer in "
             "both (compare with ONNX Runtime for that)"),
    cl::cat(category));
static cl::opt<std::string> referencePath(
    "reference",
    cl::desc("Also run REF.so, another tfcc build of the same model (a float32 "
             "build for a quantized one, say), on the same inputs, and print "
             "for each output: top-1 agreement (argmax over the last axis), "
             "max and mean absolute error, and SQNR with REF.so's outputs as "
             "the signal"),
    cl::value_desc("REF.so"), cl::cat(category));
static cl::opt<unsigned> trainSteps(
    "train-steps",
    cl::desc("Run the model's graph.train_step N times on the same random "
             "inputs (compiled; with --compare also interpreted, comparing the "
             "loss of every step, every variable at the end and the --entry "
             "(default: the first other entry) before and after training)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<bool> noTrain(
    "no-train",
    cl::desc("Compile without the model's graph.train_step (as tfcc --no-train)"),
    cl::init(false), cl::cat(category));
static cl::opt<double> rtol("rtol",
                            cl::desc("Largest relative error --compare accepts"),
                            cl::init(1e-5), cl::cat(category));
static cl::opt<unsigned> benchRuns("bench",
                                   cl::desc("Print the median latency over N runs"),
                                   cl::value_desc("N"), cl::init(0),
                                   cl::cat(category));
static cl::opt<int64_t> batchSize("batch",
                                  cl::desc("Batch size of random inputs (default 1)"),
                                  cl::init(1), cl::cat(category));
static cl::opt<bool> printValues("print",
                                 cl::desc("Print the output values"),
                                 cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(1), cl::cat(category));
static cl::list<std::string> inputShapeSpecs(
    "input-shape",
    cl::desc("Pin the dims of an ONNX graph input, e.g. x=1x3x48x192 ('?' "
             "keeps a dim dynamic); repeatable"),
    cl::value_desc("NAME=DIMS"), cl::cat(category));
static cl::list<std::string> inputValueSpecs(
    "input-value",
    cl::desc("Fix an ONNX graph input of static shape to a value, as tfcc "
             "--input-value (it leaves the entry's arguments); repeatable"),
    cl::value_desc("NAME=NUMBER"), cl::cat(category));
static cl::list<std::string> dimBoundSpecs(
    "dim-bound",
    cl::desc("Compile the named dynamic dimension NAME as a dimension of its "
             "own of at most N, as tfcc --dim-bound; repeatable"),
    cl::value_desc("NAME=N"), cl::cat(category));
static cl::list<std::string> dimValueSpecs(
    "dim",
    cl::desc("Value of named dimension NAME in random inputs (default: its "
             "bound); repeatable"),
    cl::value_desc("NAME=N"), cl::cat(category));
static cl::opt<std::string> profilePath(
    "profile",
    cl::desc("Profile the compiled calls (all of them: --bench, "
             "--train-steps) and print the ops that took the most time; "
             "=FILE also keeps the Chrome trace (chrome://tracing, Perfetto)"),
    cl::value_desc("FILE"), cl::ValueOptional, cl::cat(category));
static cl::opt<bool> checkNumerics(
    "check-numerics",
    cl::desc("Compile as tfcc --check-numerics: a call stops being valid at "
             "the first node whose output holds NaN or Inf, and tfcc-run "
             "names the node and the input (and batch row) that made it"),
    cl::cat(category));
static cl::opt<std::string> runtimeLib("runtime-lib",
                                       cl::desc("Runtime archive for compiling"),
                                       cl::value_desc("PATH"), cl::cat(category));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("Compile for this CPU, as tfcc --cpu (default: the host's); "
                 "on x86-64 the model then carries only the kernels of the "
                 "CPU's ISA level"),
        cl::value_desc("NAME"), cl::cat(category));
static cl::opt<std::string>
    targetOption("target",
                 cl::desc("Compile for this target, as tfcc --target: only "
                          "'cuda' (the model's code on the GPU; --compare "
                          "then checks the GPU build against the "
                          "interpreter), since the other targets cannot run "
                          "here"),
                 cl::value_desc("cuda"), cl::cat(category));

static cl::opt<bool> gpuLoopsOnHost(
    "gpu-loops-on-host",
    cl::desc("Tests: compile with the CUDA target's graph passes, lowering and "
             "loop nests, but for this CPU (--compare then checks them without "
             "a GPU)"),
    cl::Hidden, cl::cat(category));

namespace {

using Clock = std::chrono::steady_clock;

double millisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int fail(const std::string &message) {
  llvm::errs() << "tfcc-run: error: " << message << "\n";
  return 1;
}

/// Whether every argument and result of the entry (its function, else its
/// reflective table) stays within the largest tensor at `batch`.
bool batchFits(mlir::func::FuncOp func, const tfcc_entry_info *table,
               int64_t batch, std::string &error) {
  auto check = [&](llvm::ArrayRef<int64_t> dims, int64_t elementBytes,
                   const std::string &what) {
    std::optional<int64_t> perSample = elementBytes;
    bool dynamic = false;
    for (int64_t d : dims) {
      if (d < 0)
        dynamic = true;
      else if (perSample)
        perSample = mlir::graph::checkedBytesProduct(*perSample, d);
    }
    if (perSample &&
        (!dynamic || mlir::graph::checkedBytesProduct(*perSample, batch)))
      return true;
    error = "--batch " + std::to_string(batch) + " makes " + what +
            " larger than " +
            std::to_string(mlir::graph::kMaxTensorBytes >> 30) +
            " GiB, the largest tensor tfcc accepts";
    return false;
  };
  if (func) {
    auto types = [&](mlir::TypeRange list, const char *what) {
      for (auto [i, t] : llvm::enumerate(list)) {
        auto type = llvm::cast<mlir::ShapedType>(t);
        llvm::SmallVector<int64_t> dims(type.getShape());
        for (int64_t &d : dims)
          d = mlir::ShapedType::isDynamic(d) ? -1 : d;
        if (!check(dims, mlir::graph::elementBytes(type.getElementType()),
                   std::string(what) + " #" + std::to_string(i)))
          return false;
      }
      return true;
    };
    return types(func.getFunctionType().getInputs(), "input") &&
           types(func.getFunctionType().getResults(), "output");
  }
  if (!table)
    return true;
  auto args = [&](const tfcc_arg_info *list, int n, const char *what) {
    for (int i = 0; i < n; ++i) {
      llvm::SmallVector<int64_t> dims(list[i].dims, list[i].dims + list[i].rank);
      if (!check(dims, int64_t(byteSize(DType(list[i].dtype))),
                 std::string(what) + " '" + list[i].name + "'"))
        return false;
    }
    return true;
  };
  return args(table->inputs, table->num_inputs, "input") &&
         args(table->outputs, table->num_outputs, "output");
}

/// Random inputs from the reflective table (a .so given without its .mlir).
std::vector<NpyArray> randomInputsFromTable(const tfcc_entry_info &e,
                                            int64_t batch,
                                            const std::vector<int64_t> &named,
                                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-1, 1);
  std::vector<NpyArray> inputs;
  for (int i = 0; i < e.num_inputs; ++i) {
    NpyArray a;
    a.dtype = DType(e.inputs[i].dtype);
    a.shape = argShape(e.inputs[i], batch, named);
    a.data.assign(a.numElements() * byteSize(a.dtype), 0);
    if (a.dtype == DType::F32)
      for (int64_t k = 0; k < a.numElements(); ++k) {
        float v = real(rng);
        std::memcpy(a.data.data() + 4 * k, &v, 4);
      }
    if (a.dtype == DType::F64)
      for (int64_t k = 0; k < a.numElements(); ++k) {
        double v = real(rng);
        std::memcpy(a.data.data() + 8 * k, &v, 8);
      }
    inputs.push_back(std::move(a));
  }
  return inputs;
}

/// --train-steps: a training session, compiled and (with --compare)
/// interpreted on a module that already went through tfcc-autodiff.
int runTrainingSession(mlir::ModuleOp module, CompiledModel &compiled,
                       const std::string &trainEntry, std::string probeEntry,
                       int64_t batch, uint64_t seed, bool compare, double rtol,
                       unsigned steps, const std::string &outputDir) {
  auto fail = [](const std::string &message) {
    llvm::errs() << "tfcc-run: error: " << message << "\n";
    return 1;
  };
  auto trainFunc = module.lookupSymbol<mlir::func::FuncOp>(trainEntry);
  if (!trainFunc)
    return fail("no train step '" + trainEntry + "'");
  mlir::func::FuncOp probeFunc;
  for (auto f : module.getOps<mlir::func::FuncOp>())
    if (!f.isExternal() && f.isPublic() && f.getSymName() != trainEntry &&
        (probeEntry.empty() || f.getSymName() == probeEntry)) {
      probeFunc = f;
      break;
    }
  if (!probeEntry.empty() && !probeFunc)
    return fail("no entry point '" + probeEntry + "'");
  probeEntry = probeFunc ? probeFunc.getSymName().str() : "";
  std::vector<NpyArray> inputs = makeRandomInputs(trainFunc, batch, seed);
  std::vector<NpyArray> probeInputs;
  if (probeFunc)
    probeInputs = makeRandomInputs(probeFunc, batch, seed + 1);

  std::string error;
  if (!compiled.reserve(batch, error))
    return fail(error);
  int trainIndex = compiled.findEntry(trainEntry);
  int probeIndex = probeFunc ? compiled.findEntry(probeEntry) : -1;
  if (trainIndex < 0)
    return fail("the compiled model has no entry '" + trainEntry + "'");
  std::vector<std::string> names;
  for (int32_t i = 0; i < compiled.info().num_variables; ++i)
    names.push_back(compiled.info().variables[i].name);
  llvm::outs() << "state: " << compiled.info().state_bytes << " bytes, "
               << names.size() << " variables\n";

  std::vector<NpyArray> before, after, outputs;
  if (probeIndex >= 0 &&
      !compiled.run(probeIndex, batch, probeInputs, before, error))
    return fail(error);
  std::vector<double> losses;
  for (unsigned step = 0; step < steps; ++step) {
    if (!compiled.run(trainIndex, batch, inputs, outputs, error))
      return fail("train step " + std::to_string(step + 1) + " of " +
                  std::to_string(steps) + " (random inputs, --seed " +
                  std::to_string(seed) + "): " + error);
    losses.push_back(elementAsDouble(outputs.at(0), 0));
  }
  if (probeIndex >= 0 &&
      !compiled.run(probeIndex, batch, probeInputs, after, error))
    return fail(error);
  std::vector<NpyArray> variables(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    if (!compiled.getVariable(names[i], variables[i], error))
      return fail(error);
  if (!outputDir.empty()) {
    llvm::sys::fs::create_directories(outputDir);
    for (size_t i = 0; i < variables.size(); ++i) {
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "variable_" + std::to_string(i) + ".npy");
      if (!writeNpy(path.str().str(),
                    variables[i].dtype == DType::BF16
                        ? f32FromBf16(variables[i])
                        : variables[i],
                    error))
        return fail(error);
    }
  }

  InterpretedTraining reference;
  if (compare && !interpretTraining(module, trainEntry, inputs, steps,
                                    probeEntry, probeInputs, names, reference,
                                    error))
    return fail("interpreter: " + error);

  bool agree = true;
  double maxLoss = 0, maxVariable = 0;
  for (unsigned step = 0; step < steps; ++step) {
    llvm::outs() << "step " << step << ": loss "
                 << llvm::format("%.7g", losses[step]);
    if (compare) {
      double ref = reference.losses[step];
      double rel = std::abs(losses[step] - ref) /
                   std::max(std::abs(ref), 1e-30);
      if (!(rel <= rtol))
        agree = false;
      maxLoss = std::max(maxLoss, rel);
      llvm::outs() << ", interpreted " << llvm::format("%.7g", ref)
                   << ", relative difference " << llvm::format("%.3g", rel)
                   << (rel <= rtol ? " ok" : " FAIL");
    }
    llvm::outs() << "\n";
  }
  for (size_t i = 0; i < names.size(); ++i) {
    llvm::outs() << "variable " << names[i] << " "
                 << shapeString(variables[i].shape) << " "
                 << dtypeName(variables[i].dtype)
                 << (compiled.info().variables[i].trainable ? " trainable"
                                                            : "");
    if (compare) {
      Agreement a = compareArrays(variables[i], reference.variables[i]);
      bool ok = a.passes(rtol);
      agree &= ok;
      maxVariable = std::max(maxVariable, a.relError);
      llvm::outs() << ": relative difference "
                   << llvm::format("%.3g", a.relError) << (ok ? " ok" : " FAIL");
    }
    llvm::outs() << "\n";
  }
  if (probeIndex >= 0) {
    double change = 0;
    for (size_t o = 0; o < before.size(); ++o)
      for (int64_t k = 0; k < before[o].numElements(); ++k)
        change = std::max(change, std::abs(elementAsDouble(after[o], k) -
                                           elementAsDouble(before[o], k)));
    llvm::outs() << "entry " << probeEntry
                 << " after training: max change "
                 << llvm::format("%.3g", change)
                 << (change > 0 ? " (reads the trained state)" : " (unchanged)");
    if (compare) {
      for (size_t o = 0; o < after.size(); ++o) {
        Agreement b = compareArrays(before[o], reference.probeBefore.at(o));
        Agreement a = compareArrays(after[o], reference.probeAfter.at(o));
        bool ok = a.passes(rtol) && b.passes(rtol);
        agree &= ok;
        llvm::outs() << ", output " << o << " vs interpreter: before "
                     << llvm::format("%.3g", b.relError) << ", after "
                     << llvm::format("%.3g", a.relError)
                     << (ok ? " ok" : " FAIL");
      }
    }
    llvm::outs() << "\n";
  }
  if (compare) {
    llvm::outs() << "max relative difference over " << steps
                 << " steps: loss " << llvm::format("%.3g", maxLoss)
                 << ", variables " << llvm::format("%.3g", maxVariable)
                 << (agree ? " ok" : " FAIL") << "\n";
    if (!agree) {
      llvm::errs() << "tfcc-run: training disagrees beyond rtol "
                   << llvm::format("%g", rtol) << "\n";
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::opt<int> &numThreadsOption = threadsOption(
      category,
      "Threads of the compiled model's context: the calling thread plus N - 1 "
      "pool workers, created once (default 1: no pool)");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfcc-run: run a model compiled by tfcc or interpreted, on .npy or random "
      "inputs\n");
  // lld's driver (called by compile()) resets every cl::opt: keep copies.
  const bool interpretOnly = ::interpretOnly, compareFlag = ::compareFlag,
             printValues = ::printValues, noTrain = ::noTrain,
             checkNumerics = ::checkNumerics,
             profiling = ::profilePath.getNumOccurrences() > 0;
  const std::string profilePath = ::profilePath;
  const std::string referencePath = ::referencePath;
  const double rtol = ::rtol;
  const unsigned benchRuns = ::benchRuns, trainSteps = ::trainSteps;
  const int numThreads = numThreadsOption;
  const int64_t batchSize = ::batchSize;
  const uint64_t seed = ::seed;
  const std::string modelPath = ::modelPath, entryName = ::entryName,
                    outputDir = ::outputDir, runtimeLib = ::runtimeLib,
                    cpu = ::cpu;
  const std::vector<std::string> inputFiles(::inputFiles.begin(),
                                            ::inputFiles.end());
  std::map<std::string, std::vector<int64_t>> inputShapes;
  for (const std::string &spec : inputShapeSpecs) {
    std::string error;
    if (!parseInputShape(spec, inputShapes, error))
      return fail(error);
  }
  std::map<std::string, std::string> inputValues;
  for (const std::string &spec : inputValueSpecs) {
    std::string error;
    if (!parseInputValue(spec, inputValues, error))
      return fail(error);
  }
  std::map<std::string, int64_t> dimBounds, dimValues;
  for (const std::string &spec : dimBoundSpecs) {
    std::string error;
    if (!parseDimBound(spec, dimBounds, error))
      return fail(error);
  }
  for (const std::string &spec : dimValueSpecs) {
    std::string error;
    if (!parseDimBound(spec, dimValues, error, "--dim"))
      return fail(error);
  }
  if (!dimValues.empty() && !inputFiles.empty())
    return fail("--dim sets dimensions of random inputs: the --input files "
                "have theirs");
  // A model the tools can parse or import (else a tfcc-built .so).
  bool isOnnx = isOnnxPath(modelPath);
  bool isImported = isImportedModelPath(modelPath);
  bool isMlir = llvm::StringRef(modelPath).ends_with(".mlir") || isImported;
  if (!isMlir && (interpretOnly || compareFlag))
    return fail("--interpret and --compare need the model's .mlir, .onnx or "
                ".tflite file");
  if (batchSize < 1)
    return fail("--batch must be at least 1");
  // Options that cannot take effect are refused, not ignored.
  if (!inputFiles.empty() && trainSteps > 0)
    return fail("--input does not apply to --train-steps, which trains on "
                "random batches (--batch, --seed)");

  if (numThreads < 1)
    return fail("--threads must be at least 1");
  // Options that only some runs use are refused where they could not take
  // effect (docs/reliability.md, "Options that cannot take effect").
  bool compiles = isMlir && !interpretOnly;
  if (::rtol.getNumOccurrences() && !compareFlag)
    return fail("--rtol cannot take effect without --compare");
  if (::seed.getNumOccurrences() && !inputFiles.empty())
    return fail("--seed cannot take effect with --input (it seeds the random "
                "inputs the files replace)");
  if (targetOption.getNumOccurrences() && targetOption != "cuda")
    return fail("--target '" + targetOption +
                "' cannot take effect: tfcc-run runs the model here, so it "
                "compiles for the host or, with --target=cuda, its GPU");
  if (gpuLoopsOnHost && targetOption.getNumOccurrences())
    return fail("--gpu-loops-on-host and --target cannot both take effect "
                "(it compiles the GPU's loops for this CPU)");
  if (profiling && interpretOnly)
    return fail("--profile cannot take effect with --interpret (it profiles "
                "the compiled code)");
  if (numThreadsOption.getNumOccurrences() && interpretOnly)
    return fail("--threads cannot take effect with --interpret (the "
                "interpreter runs on one thread)");
  for (auto [flag, given] :
       {std::pair<const char *, bool>{"--cpu", ::cpu.getNumOccurrences() > 0},
        {"--target", targetOption.getNumOccurrences() > 0},
        {"--gpu-loops-on-host", gpuLoopsOnHost.getValue()},
        {"--runtime-lib", ::runtimeLib.getNumOccurrences() > 0},
        {"--no-train", ::noTrain.getNumOccurrences() > 0},
        {"--check-numerics", checkNumerics}})
    if (given && !compiles)
      return fail(std::string(flag) +
                  " cannot take effect: tfcc-run compiles only a .mlir, "
                  ".onnx or .tflite model, and not with --interpret");
  if (!referencePath.empty()) {
    for (auto [flag, given] :
         {std::pair<const char *, bool>{"--interpret", interpretOnly},
          {"--compare", compareFlag},
          {"--train-steps", trainSteps > 0}})
      if (given)
        return fail(std::string("--reference cannot take effect with ") +
                    flag + " (it compares two compiled builds' outputs)");
    if (llvm::StringRef(referencePath).ends_with(".mlir") ||
        isImportedModelPath(referencePath))
      return fail("--reference takes a .so built by tfcc, not a model file: "
                  "compile " + referencePath + " with tfcc first");
  }
  if (!inputShapeSpecs.empty() && !isOnnx)
    return fail("--input-shape cannot take effect: it pins the inputs of an "
                ".onnx model");
  if (!inputValueSpecs.empty() && !isOnnx)
    return fail("--input-value cannot take effect: it fixes the inputs of an "
                ".onnx model");

  // The model is parsed with its own dialects only (registerModelDialects).
  mlir::DialectRegistry registry;
  registerModelDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  ModelDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (isMlir) {
    module =
        loadModelFile(modelPath, sourceMgr, context, inputShapes, inputValues);
    if (!module)
      return 1;
  }
  addCompilerDialects(context);

  // --train-steps: the train step's name, and the interpreter's copy of the
  // module through tfcc-autodiff as the compiler does it.
  std::string trainEntry;
  if (trainSteps > 0) {
    if (!module || interpretOnly)
      return fail("--train-steps needs the model's .mlir file and a compiled run");
    for (auto step : module->getOps<mlir::graph::TrainStepOp>()) {
      trainEntry = step.getSymName().str();
      break;
    }
    if (trainEntry.empty())
      return fail("--train-steps: " + modelPath + " has no graph.train_step");
    registerCompilerPasses();
    if (mlir::failed(runTrainingPasses(*module)))
      return 1;
  }

  // Compile (or open) the model unless only the interpreter is wanted.
  std::unique_ptr<CompiledModel> compiled;
  llvm::SmallString<128> tempDir;
  if (!interpretOnly) {
    std::string soPath = modelPath;
    if (isMlir) {
      if (llvm::sys::fs::createUniqueDirectory("tfcc-run", tempDir))
        return fail("cannot create a temporary directory");
      llvm::SmallString<128> so(tempDir);
      llvm::sys::path::append(so, "model.so");
      CompileOptions options;
      options.inputPath = modelPath;
      options.outputPath = so.str().str();
      options.runtimeLibrary = runtimeLib;
      options.cpu = cpu;
      options.cuda = targetOption == "cuda";
      options.gpuLoopsOnHost = gpuLoopsOnHost;
      options.inputShapes = inputShapes;
      options.inputValues = inputValues;
      options.dimBounds = dimBounds;
      options.train = !noTrain;
      options.checkNumerics = checkNumerics;
      auto start = Clock::now();
      CompileStatus status = compile(options);
      llvm::errs() << status.diagnostics;
      if (!status.ok)
        return 1;
      llvm::outs() << "compiled in " << llvm::format("%.1f", millisSince(start))
                   << " ms\n";
      soPath = options.outputPath;
    }
    std::string error;
    compiled = CompiledModel::open(soPath, error);
    if (!compiled)
      return fail(error);
    compiled->setThreads(numThreads);
    if (profiling) {
      std::string error;
      if (!compiled->startProfile(error))
        return fail(error);
    }
  }
  // --profile: the trace of every compiled call, then the table.
  auto finishProfile = [&]() -> bool {
    if (!profiling)
      return true;
    std::string path = profilePath, error;
    llvm::SmallString<128> temporary;
    if (path.empty()) {
      if (llvm::sys::fs::createTemporaryFile("tfcc-profile", "json",
                                             temporary)) {
        fail("cannot create a temporary file");
        return false;
      }
      path = temporary.str().str();
    }
    bool ok = compiled->stopProfile(path, error) &&
              printProfileSummary(path, 15, llvm::outs(), error);
    if (ok && !profilePath.empty())
      llvm::outs() << "Chrome trace: " << path << "\n";
    if (!temporary.empty())
      llvm::sys::fs::remove(temporary);
    if (!ok)
      fail(error);
    return ok;
  };

  if (trainSteps > 0) {
    int status =
        runTrainingSession(*module, *compiled, trainEntry, entryName, batchSize,
                           seed, compareFlag, rtol, trainSteps, outputDir);
    if (!finishProfile())
      return 1;
    return status;
  }

  // Pick the entry.
  mlir::func::FuncOp func;
  if (module) {
    for (auto f : module->getOps<mlir::func::FuncOp>())
      if (!f.isExternal() && f.isPublic() &&
          (entryName.empty() || f.getSymName() == entryName)) {
        func = f;
        break;
      }
    if (!func)
      return fail("no entry point '" + entryName + "' in " + modelPath);
  }
  std::string entry = func ? func.getSymName().str() : entryName;
  int entryIndex = compiled ? compiled->findEntry(entry) : 0;
  if (entryIndex < 0)
    return fail("no entry point '" + entry + "' in " + modelPath);
  if (compiled)
    entry = compiled->info().entries[entryIndex].name;

  // Inputs.
  std::vector<NpyArray> inputs;
  int64_t batch = batchSize;
  if (inputFiles.empty()) {
    std::string error;
    if (!batchFits(func, compiled ? &compiled->info().entries[entryIndex]
                                  : nullptr,
                   batch, error))
      return fail(error);
  }
  if (!inputFiles.empty()) {
    for (const std::string &path : inputFiles) {
      NpyArray a;
      std::string error;
      if (!readNpy(path, a, error))
        return fail(error);
      inputs.push_back(std::move(a));
    }
    // bf16 arguments read '<f4' files (bf16 has no .npy dtype), rounded.
    for (size_t i = 0; i < inputs.size(); ++i) {
      bool bf16Argument = false;
      if (compiled) {
        const tfcc_entry_info &e = compiled->info().entries[entryIndex];
        bf16Argument =
            int(i) < e.num_inputs && e.inputs[i].dtype == int(DType::BF16);
      } else if (func && i < func.getNumArguments()) {
        bf16Argument =
            llvm::cast<mlir::RankedTensorType>(func.getArgumentTypes()[i])
                .getElementType()
                .isBF16();
      }
      if (bf16Argument && inputs[i].dtype == DType::F32)
        inputs[i] = bf16FromF32(inputs[i]);
    }
    // The batch is the size of the first dynamic input dimension.
    if (func && !compiled) {
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
        auto tensor = llvm::cast<mlir::RankedTensorType>(type);
        for (int64_t d = 0; d < tensor.getRank() && i < inputs.size(); ++d)
          if (tensor.isDynamicDim(d) && d < int64_t(inputs[i].shape.size())) {
            batch = inputs[i].shape[d];
            goto batchFound;
          }
      }
    } else {
      const tfcc_entry_info &e = compiled->info().entries[entryIndex];
      for (int i = 0; i < e.num_inputs && i < int(inputs.size()); ++i)
        for (int d = 0; d < e.inputs[i].rank; ++d)
          if (e.inputs[i].dims[d] == TFCC_DIM_DYNAMIC &&
              d < int(inputs[i].shape.size())) {
            batch = inputs[i].shape[d];
            goto batchFound;
          }
    }
  batchFound:;
    if (::batchSize.getNumOccurrences() > 0 && batch != batchSize)
      return fail("--batch " + std::to_string(batchSize) +
                  " differs from the batch of the --input files (" +
                  std::to_string(batch) + ")");
  } else if (compiled) {
    // Shapes from the compiled table: named dimensions at --dim or their
    // bounds.
    const tfcc_model_info &info = compiled->info();
    std::vector<int64_t> named;
    for (int k = 0; k < info.num_dims; ++k) {
      auto it = dimValues.find(info.dim_names[k]);
      named.push_back(it != dimValues.end() ? it->second : info.dim_bounds[k]);
    }
    for (const auto &[name, value] : dimValues) {
      (void)value;
      bool known = false;
      for (int k = 0; k < info.num_dims; ++k)
        known |= name == info.dim_names[k];
      if (!known)
        return fail("--dim " + name + " cannot take effect: the model has no "
                    "named dimension '" + name + "' (--dim-bound makes one)");
    }
    const tfcc_entry_info &e = info.entries[entryIndex];
    if (func) {
      std::vector<std::vector<int64_t>> shapes;
      for (int i = 0; i < e.num_inputs; ++i)
        shapes.push_back(argShape(e.inputs[i], batch, named));
      inputs = makeRandomInputs(func, shapes, seed);
    } else {
      inputs = randomInputsFromTable(e, batch, named, seed);
    }
  } else {
    if (!dimValues.empty())
      return fail("--dim applies to compiled runs (with --dim-bound)");
    inputs = makeRandomInputs(func, batch, seed);
  }

  // --reference: the other build, on the same entry's signature.
  std::unique_ptr<CompiledModel> referenceModel;
  int referenceEntry = -1;
  if (!referencePath.empty()) {
    std::string error;
    referenceModel = CompiledModel::open(referencePath, error);
    if (!referenceModel)
      return fail("--reference " + referencePath + ": " + error);
    referenceEntry = referenceModel->findEntry(entry);
    if (referenceEntry < 0)
      return fail("--reference " + referencePath + " has no entry '" + entry +
                  "'");
    if (!sameEntrySignature(compiled->info().entries[entryIndex],
                            referenceModel->info().entries[referenceEntry],
                            error))
      return fail("--reference " + referencePath + ": " + error);
    referenceModel->setThreads(numThreads);
  }

  // Run.
  std::vector<NpyArray> outputs, reference, referenceOutputs;
  double compiledMs = 0, interpretedMs = 0;
  std::string error;
  if (compiled) {
    if (!compiled->reserve(batch, error))
      return fail(error);
    auto start = Clock::now();
    if (!compiled->run(entryIndex, batch, inputs, outputs, error)) {
      fail(error);
      if (compiled->lastRunFoundNonFinite()) {
        std::vector<std::string> sources = inputFiles;
        sources.resize(inputs.size(), "random, --seed " + std::to_string(seed));
        reportNonFiniteInputs(*compiled, entryIndex, batch, inputs, sources,
                              outputDir, llvm::errs());
      }
      return 1;
    }
    compiledMs = millisSince(start);
  }
  if (interpretOnly || compareFlag) {
    auto start = Clock::now();
    if (!interpret(*module, entry, inputs, reference, error))
      return fail("interpreter: " + error);
    interpretedMs = millisSince(start);
    if (interpretOnly)
      outputs = reference;
  }
  if (referenceModel) {
    // The same values in the reference's dtypes (a 16-bit interface build
    // against its f32 one: exact).
    const tfcc_entry_info &refInfo =
        referenceModel->info().entries[referenceEntry];
    std::vector<NpyArray> referenceInputs;
    for (size_t i = 0; i < inputs.size(); ++i)
      referenceInputs.push_back(
          convertElements(inputs[i], DType(refInfo.inputs[i].dtype)));
    if (!referenceModel->run(referenceEntry, batch, referenceInputs,
                             referenceOutputs, error))
      return fail("--reference " + referencePath + ": " + error);
  }

  bool agree = true;
  if (compareFlag)
    llvm::outs() << "compare: compiled code vs the reference interpreter on "
                    "the same "
                 << (isImported ? "imported " : "") << "graph IR"
                 << (isImported ? " (checks the lowering, not the import)" : "")
                 << "\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NpyArray &o = outputs[i];
    llvm::outs() << "output " << i << " " << shapeString(o.shape) << " "
                 << dtypeName(o.dtype);
    if (compareFlag) {
      Agreement a = compareArrays(o, reference[i]);
      bool ok = a.passes(rtol);
      agree &= ok;
      llvm::outs() << ": max abs error " << llvm::format("%.3g", a.maxAbsError)
                   << ", relative error " << llvm::format("%.3g", a.relError)
                   << (a.exact ? " (exact)" : "")
                   << (a.nan ? " NaN" : "")
                   << (a.shapeMismatch ? " SHAPE MISMATCH" : "")
                   << (ok ? " ok" : " FAILED");
    }
    if (referenceModel) {
      Deviation d = measureDeviation(o, referenceOutputs[i]);
      llvm::outs() << ": vs reference: top-1 agreement "
                   << llvm::format("%.2f", d.rows ? 100.0 *
                                                        double(d.top1Agreeing) /
                                                        double(d.rows)
                                                  : 100.0)
                   << "% (" << d.top1Agreeing << " of " << d.rows
                   << " rows), max abs error "
                   << llvm::format("%.6g", d.maxAbsError) << ", mean abs error "
                   << llvm::format("%.6g", d.meanAbsError) << ", SQNR "
                   << (std::isinf(d.sqnrDb)
                           ? std::string("inf")
                           : llvm::formatv("{0:F2}", d.sqnrDb).str())
                   << " dB" << (d.nan ? " (NaN present)" : "")
                   << (d.shapeMismatch ? " SHAPE MISMATCH" : "");
      if (d.roundedEqual >= 0)
        llvm::outs() << ", equal to the reference rounded to "
                     << dtypeName(o.dtype) << " in " << d.roundedEqual << " of "
                     << o.numElements();
    }
    llvm::outs() << "\n";
    if (printValues) {
      llvm::outs() << "  [";
      for (int64_t k = 0; k < o.numElements(); ++k)
        llvm::outs() << (k ? ", " : "")
                     << llvm::format("%.9g", elementAsDouble(o, k));
      llvm::outs() << "]\n";
    }
  }
  if (compareFlag)
    llvm::outs() << "time: compiled " << llvm::format("%.3f", compiledMs)
                 << " ms, interpreted " << llvm::format("%.3f", interpretedMs)
                 << " ms (batch " << batch << ", entry " << entry << ")\n";

  if (!outputDir.empty()) {
    llvm::sys::fs::create_directories(outputDir);
    for (size_t i = 0; i < outputs.size(); ++i) {
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "output_" + std::to_string(i) + ".npy");
      // bf16 outputs as '<f4' files, exactly.
      if (!writeNpy(path.str().str(),
                    outputs[i].dtype == DType::BF16 ? f32FromBf16(outputs[i])
                                                    : outputs[i],
                    error))
        return fail(error);
    }
  }

  if (benchRuns > 0) {
    std::vector<double> times;
    for (unsigned r = 0; r < benchRuns; ++r) {
      std::vector<NpyArray> scratch;
      auto start = Clock::now();
      bool ok = compiled ? compiled->run(entryIndex, batch, inputs, scratch, error)
                         : interpret(*module, entry, inputs, scratch, error);
      if (!ok)
        return fail(error);
      times.push_back(millisSince(start));
    }
    std::sort(times.begin(), times.end());
    llvm::outs() << "median latency over " << benchRuns << " runs: "
                 << llvm::format("%.4f", times[times.size() / 2]) << " ms ("
                 << (compiled ? "compiled" : "interpreted") << ", batch " << batch;
    if (compiled && numThreads > 1)
      llvm::outs() << ", " << numThreads << " threads";
    llvm::outs() << ")\n";
  }
  if (compiled && !finishProfile())
    return 1;
  if (!tempDir.empty())
    llvm::sys::fs::remove_directories(tempDir);
  if (!agree) {
    llvm::outs().flush();
    llvm::errs() << "tfcc-run: outputs disagree beyond rtol "
                 << llvm::format("%g", rtol) << "\n";
    return 2;
  }
  return 0;
}
