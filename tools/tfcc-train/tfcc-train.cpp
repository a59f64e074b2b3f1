//===- tfcc-train.cpp - train any model built by tfcc, like Keras' fit ----===//
//
// tfcc-train MODEL.so --input X.npy --input Y.npy [--epochs N]
//   [--batch-size B] [--validation-split F] [--seed S | --no-shuffle]
//   [--threads N] [--logdir DIR] [--graph G.pb] [--load-checkpoint F]
//   [--save-checkpoint F] [--learning-rate LR] [--mpi]
//
// Drives the model's train step (tfcc_model_info.train_entry) over the
// samples of its inputs (.npy files, or IDX files of images and labels,
// converted to the inputs' dtypes), epoch by epoch like Keras' model.fit:
// a Keras-like line per epoch, the validation loss through the entry that
// computes the loss without training, accuracy where the model has an entry
// of class scores, TensorBoard event files (docs/tensorboard.md; the
// learning rate, and the loss scale of a mixed_f16 build) and checkpoints.
// With --mpi, under mpirun, one replica per rank: each global batch is split
// across the ranks, and the gradients of the step's halves
// (<step>_compute_gradients, tfcc --split-train-step) are averaged over them
// before <step>_apply_gradients (docs/distributed.md). No MLIR: the model
// loader, the summary writer and MPI only.
//
//===----------------------------------------------------------------------===//

#include "compiler/BoundedFile.h"
#include "compiler/CompiledModel.h"
#include "dialects/graph/IR/Limits.h"
#include "dialects/graph/IR/TrainStepNames.h"

#include "runtime/include/tfcc/tfcc_summary.h"
#include "tools/ThreadsOption.h"
#include "tools/tfcc-train/Replicas.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

namespace cl = llvm::cl;
using namespace tfcc;

static cl::OptionCategory category("tfcc-train options");
static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("MODEL.so (built by tfcc with "
                                               "its graph.train_step)"),
                                      cl::cat(category));
static cl::list<std::string> inputFiles(
    "input",
    cl::desc("The train step's inputs, in argument order: .npy files whose "
             "first dimension counts the samples"),
    cl::value_desc("FILE.npy"), cl::cat(category));
static cl::opt<std::string> idxImages(
    "idx-images",
    cl::desc("An IDX file of images (MNIST's format) as the first input, "
             "scaled to [0, 1] for a float input"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    idxLabels("idx-labels",
              cl::desc("An IDX file of labels as the second input"),
              cl::value_desc("FILE"), cl::cat(category));
static cl::opt<unsigned> limit("limit",
                               cl::desc("Use only the first N samples"),
                               cl::init(0), cl::cat(category));
static cl::opt<unsigned> epochs("epochs", cl::desc("Epochs (default 1)"),
                                cl::init(1), cl::cat(category));
static cl::opt<unsigned> batchSize("batch-size",
                                   cl::desc("Samples per step (default 32)"),
                                   cl::init(32), cl::cat(category));
static cl::opt<double> learningRate(
    "learning-rate",
    cl::desc("Train at this learning rate instead of the one the model was "
             "compiled with (the train step's <step>/learning_rate variable; "
             "after --load-checkpoint)"),
    cl::value_desc("LR"), cl::cat(category));
static cl::opt<double> validationSplit(
    "validation-split",
    cl::desc("The last fraction of the samples, held out before shuffling, "
             "as Keras' validation_split (default 0)"),
    cl::init(0), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the per-epoch shuffle"),
                              cl::init(1), cl::cat(category));
static cl::opt<bool> noShuffle("no-shuffle",
                               cl::desc("Feed the samples in order"),
                               cl::cat(category));
static cl::opt<std::string>
    logdir("logdir",
           cl::desc("Write TensorBoard event files to DIR/train and "
                    "DIR/validation"),
           cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> graphFile(
    "graph",
    cl::desc("The model's GraphDef (tfcc --emit=graphdef) for --logdir's "
             "Graphs tab"),
    cl::value_desc("G.pb"), cl::cat(category));
static cl::opt<std::string>
    loadCheckpoint("load-checkpoint", cl::desc("Start from this checkpoint"),
                   cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    saveCheckpoint("save-checkpoint",
                   cl::desc("Save the trained state to this checkpoint"),
                   cl::value_desc("FILE"), cl::cat(category));

static cl::opt<bool>
    mpi("mpi",
        cl::desc("Data-parallel training under mpirun, one replica per rank, "
                 "of a model built with tfcc --split-train-step: each global "
                 "batch of --batch-size samples is split across the ranks and "
                 "the gradients are averaged over them; rank 0 prints, writes "
                 "--logdir and saves the checkpoint (docs/distributed.md)"),
        cl::cat(category));

namespace {

/// The replicas of an --mpi run; null otherwise.
Replicas *replicas = nullptr;

/// Reports a failure; in an --mpi run of several ranks, names the rank and
/// ends every replica (the others would wait for this one forever).
int fail(const std::string &message) {
  if (replicas && replicas->size() > 1) {
    llvm::errs() << "tfcc-train: rank " << replicas->rank() << ": " << message
                 << "\n";
    llvm::errs().flush();
    replicas->abort(1);
  }
  llvm::errs() << "tfcc-train: " << message << "\n";
  return 1;
}

/// Rows [begin, end) of `count` rows from `first` on that replica `rank` of
/// `ranks` takes: the rank-th of consecutive shares, sizes differing by at
/// most one.
std::pair<uint32_t, uint32_t> shareOf(uint32_t first, uint32_t count, int rank,
                                      int ranks) {
  return {first + uint32_t(uint64_t(count) * rank / ranks),
          first + uint32_t(uint64_t(count) * (rank + 1) / ranks)};
}

/// An array of `arg`'s dtype and static shape, every element 0.
NpyArray zerosLike(const tfcc_arg_info &arg) {
  NpyArray out;
  out.dtype = DType(arg.dtype);
  out.shape.assign(arg.dims, arg.dims + arg.rank);
  out.data.assign(size_t(out.numElements()) * byteSize(out.dtype), 0);
  return out;
}

/// Replaces each array's values x (of type T) by
/// (sum over the replicas of x * weight) / total.
template <typename T>
bool averageOverReplicas(const std::vector<NpyArray *> &arrays, double weight,
                         double total, std::string &error) {
  size_t count = 0;
  for (const NpyArray *a : arrays)
    count += a->data.size() / sizeof(T);
  std::vector<T> buffer(count);
  size_t k = 0;
  for (const NpyArray *a : arrays) {
    const T *x = reinterpret_cast<const T *>(a->data.data());
    for (size_t i = 0; i < a->data.size() / sizeof(T); ++i)
      buffer[k++] = x[i] * T(weight);
  }
  if (!replicas->sum(buffer.data(), count, error))
    return false;
  k = 0;
  for (NpyArray *a : arrays) {
    T *x = reinterpret_cast<T *>(a->data.data());
    for (size_t i = 0; i < a->data.size() / sizeof(T); ++i)
      x[i] = buffer[k++] / T(total);
  }
  return true;
}

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Reads an IDX file (big-endian dims, unsigned bytes) as `dtype`: floats
/// scaled to [0, 1] (images), integers as they are (labels); images of rank
/// 3 get a channel dimension when `rank` asks for 4 (NHWC).
bool readIdx(const std::string &path, DType dtype, int rank, NpyArray &out,
             std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readBoundedFile(path, mlir::graph::kMaxTensorBytes, "IDX file", bytes,
                       error))
    return false;
  if (bytes.size() < 4 || bytes[0] != 0 || bytes[1] != 0 || bytes[2] != 0x08 ||
      bytes[3] < 1 || bytes[3] > 4) {
    error = "'" + path + "' is not an IDX file of unsigned bytes";
    return false;
  }
  size_t dims = bytes[3], offset = 4 + 4 * dims;
  if (bytes.size() < offset) {
    error = "'" + path + "' is truncated";
    return false;
  }
  out = NpyArray();
  out.dtype = dtype;
  uint64_t count = 1;
  for (size_t d = 0; d < dims; ++d) {
    uint32_t n = uint32_t(bytes[4 + 4 * d]) << 24 |
                 uint32_t(bytes[5 + 4 * d]) << 16 |
                 uint32_t(bytes[6 + 4 * d]) << 8 | bytes[7 + 4 * d];
    out.shape.push_back(n);
    if (__builtin_mul_overflow(count, uint64_t(n), &count)) {
      error = "'" + path + "' declares more elements than fit in 64 bits";
      return false;
    }
  }
  if (count != bytes.size() - offset) {
    error = "'" + path + "' holds " + std::to_string(bytes.size() - offset) +
            " bytes of data, its dims say " + std::to_string(count);
    return false;
  }
  if (int(out.shape.size()) + 1 == rank)
    out.shape.push_back(1);
  out.data.resize(count * byteSize(dtype));
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t v = bytes[offset + i];
    switch (dtype) {
    case DType::F32: {
      float f = v / 255.0f;
      std::memcpy(&out.data[4 * i], &f, 4);
      break;
    }
    case DType::I32: {
      int32_t x = v;
      std::memcpy(&out.data[4 * i], &x, 4);
      break;
    }
    case DType::I64: {
      int64_t x = v;
      std::memcpy(&out.data[8 * i], &x, 8);
      break;
    }
    default:
      error = "IDX data for an input of dtype " +
              std::string(dtypeName(dtype)) + " (f32, i32 or i64 are read)";
      return false;
    }
  }
  return true;
}

/// Rows `rows` of `a` (along its first dimension), gathered.
NpyArray gatherRows(const NpyArray &a, const uint32_t *rows, size_t count) {
  NpyArray out;
  out.dtype = a.dtype;
  out.shape = a.shape;
  out.shape[0] = int64_t(count);
  size_t rowBytes = a.shape[0] ? a.data.size() / size_t(a.shape[0]) : 0;
  out.data.resize(rowBytes * count);
  for (size_t k = 0; k < count; ++k)
    std::memcpy(out.data.data() + k * rowBytes,
                a.data.data() + size_t(rows[k]) * rowBytes, rowBytes);
  return out;
}

/// The dtype of the model's float scalar variable `name` (F32 or F64), if it
/// has one: the train step's learning rate and loss scale.
std::optional<DType> floatScalarVariable(const tfcc_model_info &info,
                                         const std::string &name) {
  for (int32_t v = 0; v < info.num_variables; ++v) {
    const tfcc_variable_info &variable = info.variables[v];
    if (name == variable.name && variable.rank == 0 &&
        (variable.dtype == TFCC_DTYPE_F32 || variable.dtype == TFCC_DTYPE_F64))
      return DType(variable.dtype);
  }
  return std::nullopt;
}

double scalarOf(const NpyArray &a) {
  if (a.dtype == DType::F32) {
    float f;
    std::memcpy(&f, a.data.data(), 4);
    return f;
  }
  double d;
  std::memcpy(&d, a.data.data(), 8);
  return d;
}

/// Fraction of rows of `scores` ([n, classes] float32) whose largest score
/// is at `labels`' (integer) class.
double accuracyOf(const NpyArray &scores, const NpyArray &labels) {
  int64_t n = scores.shape[0], classes = scores.shape[1], correct = 0;
  const float *s = reinterpret_cast<const float *>(scores.data.data());
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = std::max_element(s + i * classes, s + (i + 1) * classes) -
                   (s + i * classes);
    int64_t label =
        labels.dtype == DType::I64
            ? reinterpret_cast<const int64_t *>(labels.data.data())[i]
            : reinterpret_cast<const int32_t *>(labels.data.data())[i];
    correct += best == label;
  }
  return n ? double(correct) / double(n) : 0;
}

bool sameArgs(const tfcc_arg_info *a, const tfcc_arg_info *b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i].dtype != b[i].dtype || a[i].rank != b[i].rank ||
        !std::equal(a[i].dims, a[i].dims + a[i].rank, b[i].dims))
      return false;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::opt<int> &threads = threadsOption(
      category, "Threads of each step: the calling thread plus N - 1 pool "
                "workers (default 1)");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfcc-train: trains a model built by tfcc with its train step, like "
      "Keras' fit\n");
  std::string error;
  std::unique_ptr<Replicas> mpiReplicas;
  if (mpi) {
    mpiReplicas = Replicas::start(argc, argv, error);
    if (!mpiReplicas)
      return fail(error);
    replicas = mpiReplicas.get();
  }
  const int rank = replicas ? replicas->rank() : 0;
  const int ranks = replicas ? replicas->size() : 1;
  // Rank 0 prints, writes the event files and saves the checkpoint.
  const bool leader = rank == 0;
  std::unique_ptr<CompiledModel> model = CompiledModel::open(modelPath, error);
  if (!model)
    return fail(error);
  const tfcc_model_info &info = model->info();
  if (info.train_entry <= 0)
    return fail("'" + modelPath +
                "' has no train step (built from a model without "
                "graph.train_step, or with --no-train)");
  int train = info.train_entry - 1;
  const tfcc_entry_info &step = info.entries[train];
  if (epochs < 1 || batchSize < 1 || threads < 1)
    return fail("--epochs, --batch-size and --threads must be at least 1");
  if (!(validationSplit >= 0 && validationSplit < 1))
    return fail("--validation-split " + std::to_string(validationSplit) +
                " is not in [0, 1)");
  if (!graphFile.empty() && logdir.empty())
    return fail("--graph cannot take effect without --logdir");
  // --mpi: the step's halves.
  int computeEntry = -1, applyEntry = -1;
  if (mpi) {
    std::string computeName = mlir::graph::computeGradientsName(step.name),
                applyName = mlir::graph::applyGradientsName(step.name);
    for (int e = 0; e < info.num_entries; ++e) {
      if (info.entries[e].name == computeName)
        computeEntry = e;
      if (info.entries[e].name == applyName)
        applyEntry = e;
    }
    if (computeEntry < 0 || applyEntry < 0)
      return fail("--mpi needs the train step's halves: '" + modelPath +
                  "' has no entries " + computeName + " and " + applyName +
                  " (build it with tfcc --split-train-step)");
  }

  // The samples: one array per input of the train step.
  std::vector<NpyArray> data;
  bool idx = !idxImages.empty() || !idxLabels.empty();
  if (idx && !inputFiles.empty())
    return fail("give the inputs as --input .npy files or as --idx-images "
                "and --idx-labels, not both");
  if (idx) {
    if (idxImages.empty() || idxLabels.empty() || step.num_inputs != 2)
      return fail("--idx-images and --idx-labels feed a train step of two "
                  "inputs (images, labels); this one has " +
                  std::to_string(step.num_inputs));
    data.resize(2);
    if (!readIdx(idxImages, DType(step.inputs[0].dtype), step.inputs[0].rank,
                 data[0], error) ||
        !readIdx(idxLabels, DType(step.inputs[1].dtype), step.inputs[1].rank,
                 data[1], error))
      return fail(error);
  } else {
    if (int(inputFiles.size()) != step.num_inputs)
      return fail(std::string(step.name) + " takes " +
                  std::to_string(step.num_inputs) + " inputs, " +
                  std::to_string(inputFiles.size()) + " --input given");
    for (const std::string &path : inputFiles) {
      data.emplace_back();
      if (!readNpy(path, data.back(), error))
        return fail(error);
    }
  }
  int64_t samples = -1;
  for (int i = 0; i < step.num_inputs; ++i) {
    const NpyArray &a = data[i];
    const tfcc_arg_info &arg = step.inputs[i];
    if (a.shape.empty() || arg.rank < 1 || arg.dims[0] != TFCC_DIM_DYNAMIC)
      return fail("input '" + std::string(arg.name) +
                  "' has no batch dimension to draw samples from");
    if (samples >= 0 && a.shape[0] != samples)
      return fail("input '" + std::string(arg.name) + "' has " +
                  std::to_string(a.shape[0]) + " samples, the first " +
                  std::to_string(samples));
    samples = a.shape[0];
    // One sample must fit the argument (its batch dimension aside).
    NpyArray one = gatherRows(a, std::vector<uint32_t>{0}.data(), 1);
    if (samples < 1 || !fitsArgument(one, arg, 1))
      return fail(
          "input '" + std::string(arg.name) + "' of " + step.name +
          " expects " + dtypeName(DType(arg.dtype)) + " " +
          shapeString(std::vector<int64_t>(arg.dims, arg.dims + arg.rank)) +
          ", the data is " + dtypeName(a.dtype) + " " + shapeString(a.shape));
  }
  if (limit > 0 && samples > int64_t(limit)) {
    for (NpyArray &a : data) {
      std::vector<uint32_t> rows(limit);
      std::iota(rows.begin(), rows.end(), 0);
      a = gatherRows(a, rows.data(), rows.size());
    }
    samples = limit;
  }
  uint32_t validation = uint32_t(double(samples) * validationSplit);
  uint32_t fit = uint32_t(samples) - validation;
  if (fit == 0)
    return fail("no samples left to train on");

  // The entry computing the loss without training (the train step's inputs
  // and a scalar output): validation loss; one taking the first input alone
  // with [batch, classes] float scores and integer labels: accuracy.
  int lossEntry = -1, scoreEntry = -1;
  for (int e = 0; e < info.num_entries; ++e) {
    const tfcc_entry_info &c = info.entries[e];
    if (e == train)
      continue;
    if (lossEntry < 0 && c.num_inputs == step.num_inputs &&
        sameArgs(c.inputs, step.inputs, step.num_inputs) &&
        c.num_outputs == 1 && c.outputs[0].rank == 0)
      lossEntry = e;
    if (scoreEntry < 0 && step.num_inputs == 2 && c.num_inputs == 1 &&
        sameArgs(c.inputs, step.inputs, 1) && c.num_outputs == 1 &&
        c.outputs[0].rank == 2 && c.outputs[0].dtype == TFCC_DTYPE_F32 &&
        step.inputs[1].rank == 1 &&
        (step.inputs[1].dtype == TFCC_DTYPE_I32 ||
         step.inputs[1].dtype == TFCC_DTYPE_I64))
      scoreEntry = e;
  }

  model->setThreads(int32_t(threads));
  if (!model->reserve(batchSize, error))
    return fail(error);
  if (!loadCheckpoint.empty() && !model->loadCheckpoint(loadCheckpoint, error))
    return fail("--load-checkpoint '" + loadCheckpoint + "': " + error);
  // The learning rate: a variable of the state (tfcc-autodiff), logged per
  // epoch; a model built before it has none.
  const std::string rateName = std::string(step.name) + "/learning_rate";
  // f64 in a model of f64 variables.
  std::optional<DType> rateDtype = floatScalarVariable(info, rateName);
  bool hasRate = rateDtype.has_value();
  if (learningRate.getNumOccurrences()) {
    if (!hasRate)
      return fail("--learning-rate cannot take effect: '" + modelPath +
                  "' has no variable " + rateName +
                  " (built by an older tfcc)");
    if (!(learningRate > 0) || !std::isfinite(learningRate))
      return fail("--learning-rate must be a positive number");
    NpyArray rate;
    rate.dtype = *rateDtype;
    float single = float(learningRate);
    double value = learningRate;
    if (*rateDtype == DType::F32)
      rate.data.assign(reinterpret_cast<const uint8_t *>(&single),
                       reinterpret_cast<const uint8_t *>(&single + 1));
    else
      rate.data.assign(reinterpret_cast<const uint8_t *>(&value),
                       reinterpret_cast<const uint8_t *>(&value + 1));
    if (!model->setVariable(rateName, rate, error))
      return fail("--learning-rate: " + error);
  }

  if (!leader) {
    logdir.setValue("");
    graphFile.setValue("");
  }
  struct Writer {
    tfcc_summary_writer *w = nullptr;
    ~Writer() { tfcc_summary_close(w); }
  } trainLog, validationLog;
  if (!logdir.empty()) {
    char message[512] = "";
    trainLog.w =
        tfcc_summary_open((logdir + "/train").c_str(), message, sizeof message);
    if (trainLog.w && validation)
      validationLog.w = tfcc_summary_open((logdir + "/validation").c_str(),
                                          message, sizeof message);
    if (!trainLog.w || (validation && !validationLog.w))
      return fail(std::string("--logdir: ") + message);
    if (!graphFile.empty()) {
      std::vector<uint8_t> graph;
      if (!readBoundedFile(graphFile, mlir::graph::kMaxMetadataBytes, "graph",
                           graph, error))
        return fail("--graph: " + error);
      if (tfcc_summary_graph(trainLog.w, graph.data(), graph.size()) != 0)
        return fail("cannot write the graph to " + logdir);
    }
  }

  if (leader)
    llvm::outs() << llvm::formatv(
        "{0}: {1} training, {2} validation samples; batch {3}{7}, {4} "
        "thread{5}{8}, {6}\n",
        info.name, fit, validation, unsigned(batchSize), int(threads),
        threads == 1 ? "" : "s",
        noShuffle ? std::string("in order")
                  : "shuffled with seed " + std::to_string(seed),
        replicas ? " split across " + std::to_string(ranks) + " replicas"
                 : std::string(),
        replicas ? " each" : "");
  // Runs the loss and score entries over rows [begin, end) of the data in
  // batches: the mean loss and the accuracy (with --mpi, each replica
  // evaluates its share of the rows and the sums are added).
  auto evaluate = [&](uint32_t begin, uint32_t end, double &loss,
                      double &accuracy) {
    uint32_t rows = end - begin;
    std::tie(begin, end) = shareOf(begin, rows, rank, ranks);
    double lossSum = 0, correct = 0;
    for (uint32_t start = begin; start < end; start += batchSize) {
      uint32_t n = std::min<uint32_t>(batchSize, end - start);
      std::vector<uint32_t> rows(n);
      std::iota(rows.begin(), rows.end(), start);
      std::vector<NpyArray> batch, outputs;
      for (const NpyArray &a : data)
        batch.push_back(gatherRows(a, rows.data(), n));
      if (lossEntry >= 0) {
        if (!model->run(lossEntry, n, batch, outputs, error))
          return false;
        lossSum += scalarOf(outputs[0]) * n;
      }
      if (scoreEntry >= 0) {
        if (!model->run(scoreEntry, n, {batch[0]}, outputs, error))
          return false;
        correct += accuracyOf(outputs[0], batch[1]) * n;
      }
    }
    double sums[2] = {lossSum, correct};
    if (replicas && !replicas->sum(sums, 2, error))
      return false;
    loss = sums[0] / rows;
    accuracy = sums[1] / rows;
    return true;
  };

  // Dynamic loss scaling (--precision=mixed_f16): its scale, logged per epoch.
  std::string lossScale = std::string(step.name) + "/loss_scale";
  bool hasLossScale =
      floatScalarVariable(info, lossScale) == std::optional(DType::F32);

  std::vector<uint32_t> order(fit);
  std::iota(order.begin(), order.end(), 0);
  for (unsigned epoch = 1; epoch <= epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    if (!noShuffle) {
      uint64_t state = seed * 0x100000001B3ull + epoch;
      for (uint32_t i = fit - 1; i > 0; --i)
        std::swap(order[i], order[splitmix64(state) % (i + 1)]);
    }
    double lossSum = 0, correct = 0, stepSeconds = 0;
    unsigned steps = 0;
    for (uint32_t first = 0; first < fit; first += batchSize) {
      uint32_t global = std::min<uint32_t>(batchSize, fit - first);
      // This replica's share of the global batch (all of it without --mpi).
      auto [share, shareEnd] = shareOf(first, global, rank, ranks);
      uint32_t n = shareEnd - share;
      std::vector<NpyArray> batch, outputs;
      for (const NpyArray &a : data)
        batch.push_back(gatherRows(a, order.data() + share, n));
      // Training accuracy on the weights before the step (Keras' running
      // metric), in inference mode.
      // Where a call of this step failed; for a --check-numerics build,
      // which samples the batch held.
      auto stepFailure = [&](const char *entry) {
        std::string message = llvm::formatv("epoch {0}, step {1}: {2}: {3}",
                                            epoch, steps + 1, entry, error)
                                  .str();
        if (model->lastRunFoundNonFinite()) {
          message += "; the batch held samples (rows of the input files)";
          for (uint32_t k = 0; k < n && k < 16; ++k)
            message += (k ? ", " : " ") + std::to_string(order[share + k]);
          if (n > 16)
            message += ", ... (" + std::to_string(n) + " in all)";
        }
        return fail(message);
      };
      if (scoreEntry >= 0 && n) {
        if (!model->run(scoreEntry, n, {batch[0]}, outputs, error))
          return stepFailure(info.entries[scoreEntry].name);
        correct += accuracyOf(outputs[0], batch[1]) * n;
      }
      auto t0 = std::chrono::steady_clock::now();
      double loss;
      if (!replicas) {
        if (!model->run(train, n, batch, outputs, error))
          return stepFailure(step.name);
        loss = scalarOf(outputs[0]);
      } else {
        // The halves, the gradients and batch statistics averaged over the
        // global batch in between (weighted by each share's size).
        const tfcc_entry_info &compute = info.entries[computeEntry];
        if (n) {
          if (!model->run(computeEntry, n, batch, outputs, error))
            return stepFailure(compute.name);
        } else {
          outputs.clear();
          for (int k = 0; k < compute.num_outputs; ++k)
            outputs.push_back(zerosLike(compute.outputs[k]));
        }
        double shareLoss = n ? scalarOf(outputs[0]) * n : 0;
        std::vector<NpyArray *> vectors;
        for (size_t k = 1; k < outputs.size(); ++k)
          vectors.push_back(&outputs[k]);
        bool averaged =
            outputs[1].dtype == DType::F64
                ? averageOverReplicas<double>(vectors, n, global, error)
                : averageOverReplicas<float>(vectors, n, global, error);
        if (!averaged || !replicas->sum(&shareLoss, 1, error))
          return fail(
              llvm::formatv("epoch {0}, step {1}: {2}", epoch, steps + 1, error)
                  .str());
        loss = shareLoss / global;
        std::vector<NpyArray> update(outputs.begin() + 1, outputs.end()),
            counter;
        if (!model->run(applyEntry, 1, update, counter, error))
          return stepFailure(info.entries[applyEntry].name);
      }
      stepSeconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
      if (!std::isfinite(loss))
        return fail(llvm::formatv("epoch {0}, step {1}: the loss is {2}", epoch,
                                  steps + 1, loss)
                        .str());
      lossSum += loss * global;
      ++steps;
    }
    if (replicas && !replicas->sum(&correct, 1, error))
      return fail(error);
    double loss = lossSum / fit, accuracy = correct / fit, valLoss = 0,
           valAccuracy = 0;
    if (validation && !evaluate(fit, uint32_t(samples), valLoss, valAccuracy))
      return fail(error);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::string line = llvm::formatv("epoch {0}/{1}: {2} steps - loss {3:f4}",
                                     epoch, unsigned(epochs), steps, loss);
    if (scoreEntry >= 0)
      line += llvm::formatv(" - accuracy {0:f4}", accuracy).str();
    if (validation && lossEntry >= 0)
      line += llvm::formatv(" - val_loss {0:f4}", valLoss).str();
    if (validation && scoreEntry >= 0)
      line += llvm::formatv(" - val_accuracy {0:f4}", valAccuracy).str();
    line += llvm::formatv(" - {0:f2} ms/step - {1:f1} s",
                          1e3 * stepSeconds / steps, seconds)
                .str();
    if (leader) {
      llvm::outs() << line << "\n";
      llvm::outs().flush();
    }
    // Keras' TensorBoard callback: steps count epochs from 0.
    auto scalar = [&](tfcc_summary_writer *w, const char *tag, double value) {
      return !w || tfcc_summary_scalar(w, tag, epoch - 1, value) == 0;
    };
    NpyArray scale, rate;
    if (trainLog.w && hasLossScale &&
        !model->getVariable(lossScale, scale, error))
      return fail(error);
    if (trainLog.w && hasRate && !model->getVariable(rateName, rate, error))
      return fail(error);
    bool logged =
        (!trainLog.w || !hasLossScale ||
         scalar(trainLog.w, "loss_scale", scalarOf(scale))) &&
        (!trainLog.w || !hasRate ||
         scalar(trainLog.w, "epoch_learning_rate", scalarOf(rate))) &&
        scalar(trainLog.w, "epoch_loss", loss) &&
        (scoreEntry < 0 || scalar(trainLog.w, "epoch_accuracy", accuracy)) &&
        (lossEntry < 0 || scalar(validationLog.w, "epoch_loss", valLoss)) &&
        (scoreEntry < 0 ||
         scalar(validationLog.w, "epoch_accuracy", valAccuracy)) &&
        (!trainLog.w || tfcc_summary_flush(trainLog.w) == 0) &&
        (!validationLog.w || tfcc_summary_flush(validationLog.w) == 0);
    if (!logged)
      return fail("cannot write the event files in " + logdir);
  }
  if (leader && !saveCheckpoint.empty() &&
      !model->saveCheckpoint(saveCheckpoint, error))
    return fail("--save-checkpoint '" + saveCheckpoint + "': " + error);
  return 0;
}
