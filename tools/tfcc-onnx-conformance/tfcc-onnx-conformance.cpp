//===- tfcc-onnx-conformance.cpp - ONNX's test data through tfcc ----------===//
//
// For every test directory of Debian's libonnx-testdata (<suite>/<test>/
// model.onnx and test_data_set_*/{input,output}_N.pb): compile model.onnx with
// tfcc::compile, run the .so on each data set's inputs through its reflective
// table and compare every output with the reference (compareArrays, the spec's
// relative error, after NaNs of the reference matched by NaNs at the same
// positions are set aside, as ONNX's own runner does). Each test runs in a forked child with a timeout, so a crash
// or a hang of one model is that test's FAIL, not the runner's end.
//
// Outcomes: PASS; FAIL (wrong values, a compile error that is not an
// unsupported feature, a runtime error, a crash, a timeout); SKIP (an
// unsupported op, type or attribute as diagnosed by the compiler, data the
// runner cannot feed, or a line in the skip list).
//
// Many node tests feed what models hold as constants (Slice's starts and
// ends, Reshape's shape, ...) as graph inputs. When the compiler reports such
// an input as non-constant, the test is compiled again per data set with its
// integer inputs turned into initializers of that data set's values.
//
// --check-shapes: the output-shape guard. Every model is imported (not
// compiled) and the static dims of each output the importer gives are
// compared with the shape of ONNX's reference output, so that an import bug
// that yields an empty or misshaped tensor cannot pass unseen: --compare and
// the interpreter run the same imported graph and would agree with it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"
#include "compiler/Npy.h"
#include "compiler/Registration.h"
#include "compiler/Runner.h"
#include "compiler/onnx/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cl = llvm::cl;
using namespace tfcc;

static cl::OptionCategory category("tfcc-onnx-conformance options");
static cl::opt<std::string>
    dataDir("data", cl::desc("libonnx-testdata's data directory"),
            cl::value_desc("DIR"), cl::init("/usr/share/libonnx-testdata/data"),
            cl::cat(category));
static cl::list<std::string> suites(
    "suite",
    cl::desc("Suites to run: node, pytorch-converted, pytorch-operator, simple "
             "or all (repeatable, or comma-separated; default all)"),
    cl::value_desc("NAME"), cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    filters("filter",
            cl::desc("Run only tests whose <suite>/<test> contains SUBSTRING "
                     "(repeatable: any of them)"),
            cl::value_desc("SUBSTRING"), cl::cat(category));
static cl::opt<std::string>
    skipListPath("skip-list",
                 cl::desc("File of '<suite>/<test> <reason>' lines: tests not "
                          "run, reported as SKIP with that reason"),
                 cl::value_desc("FILE"), cl::cat(category));
static cl::opt<bool> runListed(
    "run-listed",
    cl::desc("Run the tests of the skip list too (their failures stay skips; "
             "a listed test that passes is reported so it can be unlisted)"),
    cl::cat(category));
static cl::opt<bool> strict(
    "strict",
    cl::desc("Every skip must be in the skip list: a test skipped for a "
             "reason of its own (an unsupported op, say) that the list does "
             "not name is a failure. Implies --run-listed"),
    cl::cat(category));
static cl::opt<std::string> writeSkipList(
    "write-skip-list",
    cl::desc("Write a skip list: the entries of --skip-list (but those that "
             "passed now) plus every test that failed or skipped, with its "
             "reason"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<double>
    rtol("rtol", cl::desc("Largest relative error of a float output"),
         cl::init(1e-4), cl::cat(category));
static cl::opt<unsigned> jobs("jobs", cl::desc("Tests run in parallel"),
                              cl::value_desc("N"), cl::init(1),
                              cl::cat(category));
static cl::opt<unsigned>
    timeoutSeconds("timeout",
                   cl::desc("Seconds one test (compile and run) may take"),
                   cl::value_desc("S"), cl::init(120), cl::cat(category));
static cl::opt<std::string>
    workDir("work-dir",
            cl::desc("Where compiled models go (default: a new temporary "
                     "directory, removed at the end)"),
            cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string>
    runtimeLib("runtime-lib", cl::desc("Runtime archive for compiling"),
               cl::value_desc("PATH"), cl::cat(category));
static cl::opt<bool> summary(
    "summary",
    cl::desc("End with the reasons of skips and failures, grouped (node "
             "names left out) and counted"),
    cl::cat(category));
static cl::opt<bool> checkShapes(
    "check-shapes",
    cl::desc("Import each model (no compile) and compare the static dims of "
             "every output with the reference output's shape; the skip list "
             "does not apply"),
    cl::cat(category));
static cl::opt<bool> verbose(
    "verbose",
    cl::desc("Print each test's time, and the compiler's diagnostics of "
             "failures"),
    cl::cat(category));

namespace {

const char *const kAllSuites[] = {"node", "pytorch-converted",
                                  "pytorch-operator", "simple"};

enum class Kind { Pass, Fail, Skip };

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Pass:
    return "PASS";
  case Kind::Fail:
    return "FAIL";
  case Kind::Skip:
    return "SKIP";
  }
  return "?";
}

struct Outcome {
  Kind kind = Kind::Fail;
  std::string reason;
};

struct TestCase {
  std::string suite, name, dir;
  std::string id() const { return suite + "/" + name; }
  const std::string *listedReason = nullptr; // in the skip list
};

//===----------------------------------------------------------------------===//
// Test data: onnx.TensorProto files -> NpyArray
//===----------------------------------------------------------------------===//

std::string typeString(const NpyArray &a) {
  std::string s = std::string(dtypeName(a.dtype)) + "[";
  for (size_t i = 0; i < a.shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(a.shape[i]);
  return s + "]";
}

enum class ReadResult { Ok, Unsupported, Error };

/// Reads a serialized onnx.TensorProto. Element types other than float,
/// double, int32, int64, bool, int8 and uint8 are Unsupported (error names
/// the type).
ReadResult readTensor(const std::string &path, NpyArray &out,
                      std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read '" + path + "': " + file.getError().message();
    return ReadResult::Error;
  }
  onnx::TensorProto tensor;
  if (!tensor.ParseFromArray((*file)->getBufferStart(),
                             int((*file)->getBufferSize()))) {
    error = "'" + path + "' is not an onnx.TensorProto";
    return ReadResult::Error;
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "external tensor data";
    return ReadResult::Unsupported;
  }
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    out.dtype = DType::F32;
    break;
  case onnx::TensorProto::DOUBLE:
    out.dtype = DType::F64;
    break;
  case onnx::TensorProto::INT32:
    out.dtype = DType::I32;
    break;
  case onnx::TensorProto::INT64:
    out.dtype = DType::I64;
    break;
  case onnx::TensorProto::BOOL:
    out.dtype = DType::BOOL;
    break;
  case onnx::TensorProto::INT8:
    out.dtype = DType::I8;
    break;
  case onnx::TensorProto::UINT8:
    out.dtype = DType::U8;
    break;
  default:
    error = "unsupported dtype " +
            onnx::TensorProto::DataType_Name(
                onnx::TensorProto::DataType(tensor.data_type()));
    return ReadResult::Unsupported;
  }
  out.shape.assign(tensor.dims().begin(), tensor.dims().end());
  int64_t n = out.numElements();
  size_t bytes = size_t(n) * byteSize(out.dtype);
  out.data.assign(bytes, 0);
  // An empty tensor's buffers may be null, which memcpy may not see even for
  // 0 bytes (UBSan).
  auto copy = [&](const void *from) {
    if (bytes)
      std::memcpy(out.data.data(), from, bytes);
  };
  auto wrongCount = [&](int64_t count) {
    error = "'" + path + "' holds " + std::to_string(count) +
            " elements for shape " + typeString(out);
    return ReadResult::Error;
  };
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != bytes)
      return wrongCount(
          int64_t(tensor.raw_data().size() / byteSize(out.dtype)));
    copy(tensor.raw_data().data());
    return ReadResult::Ok;
  }
  switch (out.dtype) {
  case DType::F32:
    if (tensor.float_data_size() != n)
      return wrongCount(tensor.float_data_size());
    copy(tensor.float_data().data());
    break;
  case DType::F64:
    if (tensor.double_data_size() != n)
      return wrongCount(tensor.double_data_size());
    copy(tensor.double_data().data());
    break;
  case DType::I32:
    if (tensor.int32_data_size() != n)
      return wrongCount(tensor.int32_data_size());
    copy(tensor.int32_data().data());
    break;
  case DType::I64:
    if (tensor.int64_data_size() != n)
      return wrongCount(tensor.int64_data_size());
    copy(tensor.int64_data().data());
    break;
  case DType::BOOL: // one int32 per element
    if (tensor.int32_data_size() != n)
      return wrongCount(tensor.int32_data_size());
    for (int64_t i = 0; i < n; ++i)
      out.data[i] = tensor.int32_data(int(i)) != 0;
    break;
  case DType::I8: // one int32 per element, as for bool
  case DType::U8:
    if (tensor.int32_data_size() != n)
      return wrongCount(tensor.int32_data_size());
    for (int64_t i = 0; i < n; ++i)
      out.data[i] = uint8_t(tensor.int32_data(int(i)));
    break;
  default:
    break;
  }
  return ReadResult::Ok;
}

/// input_0.pb, input_1.pb, ... (or output_*) of a data set, in index order.
std::vector<std::string> numberedFiles(const std::string &dir,
                                       const std::string &stem) {
  std::vector<std::string> paths;
  for (int i = 0;; ++i) {
    std::string path = dir + "/" + stem + "_" + std::to_string(i) + ".pb";
    if (!llvm::sys::fs::exists(path))
      return paths;
    paths.push_back(path);
  }
}

std::vector<std::string> subdirectories(const std::string &dir,
                                        llvm::StringRef prefix) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.starts_with(prefix) && llvm::sys::fs::is_directory(it->path()))
      names.push_back(name.str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool hasNaN(const NpyArray &a) {
  if (a.dtype != DType::F32 && a.dtype != DType::F64)
    return false;
  for (int64_t i = 0; i < a.numElements(); ++i)
    if (std::isnan(elementAsDouble(a, i)))
      return true;
  return false;
}

/// ONNX's own backend test runner compares with NaN == NaN (numpy
/// assert_allclose, equal_nan=True), so a reference NaN is matched by a NaN at
/// the same position (docs/onnx-conformance.md). When `expected` is an f32 or
/// f64 array with NaNs and `actual` has its shape and type, replaces the NaNs of
/// both by 0 where they coincide, so that compareArrays (which never matches a
/// NaN) checks the other elements; a NaN on one side only is left for
/// compareArrays to report. Returns whether anything was replaced.
bool maskCoincidingNaNs(NpyArray &actual, NpyArray &expected) {
  if (expected.dtype != actual.dtype || actual.shape != expected.shape ||
      !hasNaN(expected))
    return false;
  bool masked = false;
  // Zero bits are 0.0 in f32 and f64 alike.
  size_t width = byteSize(expected.dtype);
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    if (!std::isnan(elementAsDouble(expected, i)) ||
        !std::isnan(elementAsDouble(actual, i)))
      continue;
    std::memset(expected.data.data() + width * i, 0, width);
    std::memset(actual.data.data() + width * i, 0, width);
    masked = true;
  }
  return masked;
}

std::string formatDouble(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

//===----------------------------------------------------------------------===//
// One test, in the child process
//===----------------------------------------------------------------------===//

/// The child reports to the parent over a pipe: "stage <what>\n" lines as it
/// goes (so a crash can say where), then "result <P|F|S> <reason>\n".
class Reporter {
public:
  explicit Reporter(int fd) : fd_(fd) {}
  void stage(const std::string &what) { write("stage " + what + "\n"); }
  [[noreturn]] void finish(Kind kind, std::string reason) {
    // Keep the message within the pipe's buffer: the parent reads after exit.
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    if (reason.size() > 1000)
      reason = reason.substr(0, 1000) + "...";
    write(std::string("result ") + "PFS"[int(kind)] + " " + reason + "\n");
    _exit(0);
  }

private:
  void write(const std::string &s) {
    size_t done = 0;
    while (done < s.size()) {
      ssize_t n = ::write(fd_, s.data() + done, s.size() - done);
      if (n <= 0)
        return;
      done += size_t(n);
    }
  }
  int fd_;
};

/// The line of a compiler diagnostic that says what is wrong: the first
/// "error:" line without its location (nor the "node 'X': " tfcc puts before
/// a message that names the node already), or the first non-empty line.
std::string firstDiagnostic(const std::string &text,
                            const std::string &testDir) {
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    size_t pos = line.find("error: ");
    if (pos == llvm::StringRef::npos)
      continue;
    llvm::StringRef message = line.substr(pos + 7).trim();
    llvm::StringRef rest = message;
    if (rest.consume_front("node '")) {
      auto [name, tail] = rest.split("': ");
      if (tail.contains("'" + name.str() + "'"))
        message = tail;
    }
    std::string result = message.str();
    // Paths of the test data say nothing the test's name does not.
    for (size_t at; (at = result.find(testDir + "/")) != std::string::npos;)
      result.erase(at, testDir.size() + 1);
    return result;
  }
  for (llvm::StringRef line : lines)
    if (!line.trim().empty())
      return line.trim().str();
  return "";
}

/// A compile error that reports a feature tfcc lacks, not a defect: an
/// unsupported op, opset, attribute or element type, a graph input that is a
/// sequence, optional or map, or a model of another domain only.
bool isUnsupportedFeature(llvm::StringRef message) {
  std::string lower = message.lower();
  llvm::StringRef m(lower);
  return m.contains("unsupported") || m.contains("not supported") ||
         m.contains("is not a tensor") ||
         m.contains("imports no version of the default onnx domain");
}

/// Whether a compile error asks for an input to be known at import time
/// ("non-constant 'starts' input in Slice node ..."): the test feeds as data
/// what models hold as constants.
bool needsConstantInputs(llvm::StringRef message) {
  return message.contains("non-constant '") ||
         message.contains("that are not constant");
}

/// Which fed inputs a rebuilt test holds as constants: none; the integer and
/// boolean ones (shapes, axes, indices, a Loop's trip count and condition);
/// or every one but the first (the data), for the float parameters that also
/// arrive as tensors in the node tests (Resize's scales, Pad's value).
enum class Constants { None, Integers, AllButFirst };

/// How a report names the level, e.g. "PASS <test> (integer inputs as
/// constants)".
const char *constantsLabel(Constants level) {
  return level == Constants::Integers      ? "integer inputs as constants"
         : level == Constants::AllButFirst ? "inputs but the first as constants"
                                           : "";
}

/// The note of a PASS at `level`: "" or "(integer inputs as constants)".
std::string passNote(Constants level) {
  return level == Constants::None
             ? std::string()
             : "(" + std::string(constantsLabel(level)) + ")";
}

/// Writes `modelPath` to `outPath` with the graph inputs `level` names turned
/// into initializers holding the data set's values (`inputFiles`, in the
/// graph's input order) and dropped from the inputs. `kept[i]` says whether
/// input i is still an input. False (with `error`) when the files cannot be
/// read.
bool writeWithConstantInputs(const std::string &modelPath,
                             const std::vector<std::string> &inputFiles,
                             const std::string &outPath, Constants level,
                             std::vector<bool> &kept, std::string &error) {
  auto readProto = [&](const std::string &path,
                       google::protobuf::MessageLite &proto) {
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (file && proto.ParseFromArray((*file)->getBufferStart(),
                                     int((*file)->getBufferSize())))
      return true;
    error = "cannot read '" + path + "'";
    return false;
  };
  onnx::ModelProto model;
  if (!readProto(modelPath, model))
    return false;
  onnx::GraphProto *graph = model.mutable_graph();
  std::set<std::string> initialized;
  for (const onnx::TensorProto &init : graph->initializer())
    initialized.insert(init.name());
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  kept.clear();
  size_t fed = 0; // data-set files are numbered over the fed inputs
  for (const onnx::ValueInfoProto &input : graph->input()) {
    if (initialized.count(input.name())) {
      *inputs.Add() = input;
      continue;
    }
    size_t file = fed++;
    int32_t type = input.type().tensor_type().elem_type();
    // Booleans too: Loop's condition is one.
    bool isInt =
        input.type().has_tensor_type() &&
        (type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 ||
         type == onnx::TensorProto::BOOL);
    bool constant = level == Constants::AllButFirst ? file > 0 : isInt;
    if (!constant || file >= inputFiles.size()) {
      *inputs.Add() = input;
      kept.push_back(true);
      continue;
    }
    onnx::TensorProto value;
    if (!readProto(inputFiles[file], value))
      return false;
    value.set_name(input.name());
    *graph->add_initializer() = value;
    kept.push_back(false);
  }
  graph->mutable_input()->Swap(&inputs);
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    error = "cannot serialize the model";
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(outPath, ec);
  if (ec) {
    error = "cannot write '" + outPath + "': " + ec.message();
    return false;
  }
  os << bytes;
  return true;
}

/// "f32[?,3]" for a graph-IR type.
std::string typeString(mlir::RankedTensorType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.getElementType().print(os);
  os << "[";
  for (int64_t i = 0; i < type.getRank(); ++i)
    os << (i ? "," : "")
       << (type.isDynamicDim(i) ? std::string("?")
                                : std::to_string(type.getDimSize(i)));
  os << "]";
  return os.str();
}

/// The output types of `path`'s import, or an empty vector with `error` (the
/// first diagnostic) when it does not import.
std::vector<mlir::RankedTensorType>
importedOutputTypes(mlir::MLIRContext &context, const std::string &path,
                    const std::string &testDir, std::string &error) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += "error: " + d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importOnnxModel(path, context, "model");
  std::vector<mlir::RankedTensorType> types;
  auto predict =
      module ? module->lookupSymbol<mlir::func::FuncOp>("predict") : nullptr;
  if (!predict) {
    error = firstDiagnostic(diagnostics, testDir);
    if (error.empty())
      error = "the import gives no entry 'predict'";
    return types;
  }
  for (mlir::Type t : predict.getFunctionType().getResults()) {
    auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(t);
    if (!ranked) {
      error = "an output is not a ranked tensor";
      return {};
    }
    types.push_back(ranked);
  }
  // NonMaxSuppression's padded rows (cutPaddedRows): the count output goes,
  // and the padded dimension 0 matches any reference row count.
  unsigned last = predict.getNumResults();
  auto name = last ? predict.getResultAttrOfType<mlir::StringAttr>(last - 1,
                                                                   "tfcc.name")
                   : mlir::StringAttr();
  if (name && name.getValue().ends_with("_count") &&
      types.back().getRank() == 0) {
    types.pop_back();
    int64_t bound = 0;
    for (mlir::RankedTensorType t : types)
      if (t.getRank() > 0 && !t.isDynamicDim(0))
        bound = std::max(bound, t.getDimSize(0));
    for (mlir::RankedTensorType &t : types)
      if (t.getRank() > 0 && t.getDimSize(0) == bound) {
        llvm::SmallVector<int64_t> shape(t.getShape());
        shape[0] = mlir::ShapedType::kDynamic;
        t = mlir::RankedTensorType::get(shape, t.getElementType());
      }
  }
  return types;
}

/// --check-shapes: imports the model (again with its integer inputs as
/// constants when it needs them, per data set) and compares every output's
/// static dims and rank with the reference outputs.
[[noreturn]] void checkShapesTest(const TestCase &test,
                                  const std::string &testWorkDir,
                                  Reporter &report) {
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  report.stage("import");
  std::string error;
  std::string modelPath = test.dir + "/model.onnx";
  std::vector<mlir::RankedTensorType> plain =
      importedOutputTypes(context, modelPath, test.dir, error);
  Constants level = plain.empty() && needsConstantInputs(error)
                        ? Constants::Integers
                        : Constants::None;
  if (plain.empty() && level == Constants::None)
    report.finish(Kind::Skip, "does not import: " + error);
  std::vector<std::string> dataSets =
      subdirectories(test.dir, "test_data_set_");
  if (dataSets.empty())
    report.finish(Kind::Skip, "no test_data_set_*");
  int checked = 0;
  for (const std::string &dataSet : dataSets) {
    std::string dir = test.dir + "/" + dataSet;
    std::string where = dataSets.size() > 1 ? dataSet + ": " : "";
    std::vector<mlir::RankedTensorType> types = plain;
    while (level != Constants::None) {
      std::vector<bool> kept;
      std::string path = testWorkDir + "/model.onnx";
      if (!writeWithConstantInputs(modelPath, numberedFiles(dir, "input"), path,
                                   level, kept, error))
        report.finish(Kind::Fail, where + error);
      types = importedOutputTypes(context, path, test.dir, error);
      if (!types.empty())
        break;
      if (level == Constants::Integers && needsConstantInputs(error)) {
        level = Constants::AllButFirst;
        continue;
      }
      report.finish(Kind::Skip, where + "does not import with its " +
                                    constantsLabel(level) + ": " + error);
    }
    std::vector<std::string> outputs = numberedFiles(dir, "output");
    if (outputs.size() != types.size())
      report.finish(Kind::Fail, where + std::to_string(types.size()) +
                                    " outputs, expected " +
                                    std::to_string(outputs.size()));
    for (size_t i = 0; i < outputs.size(); ++i) {
      NpyArray expected;
      if (readTensor(outputs[i], expected, error) != ReadResult::Ok)
        continue; // an element type tfcc lacks: nothing to compare
      mlir::RankedTensorType type = types[i];
      bool agree = type.getRank() == int64_t(expected.shape.size());
      for (int64_t d = 0; agree && d < type.getRank(); ++d)
        agree = type.isDynamicDim(d) || type.getDimSize(d) == expected.shape[d];
      if (!agree)
        report.finish(Kind::Fail, where + "output " + std::to_string(i) +
                                      ": imported as " + typeString(type) +
                                      ", reference " + typeString(expected));
      ++checked;
    }
  }
  if (checked == 0)
    report.finish(Kind::Skip, "no output of a supported element type");
  report.finish(Kind::Pass, passNote(level));
}

/// NonMaxSuppression's data-dependent row count: tfcc pads the rows to a
/// static bound and adds an output `<name>_count` (docs/onnx.md). With one
/// such output after the `numExpected` the test has, the outputs whose
/// dimension 0 is the bound are cut to the count and the count dropped, so
/// that they compare with the reference as they are.
void cutPaddedRows(const tfcc_entry_info &info, size_t numExpected,
                   std::vector<NpyArray> &actual) {
  if (actual.size() != numExpected + 1 ||
      !llvm::StringRef(info.outputs[numExpected].name).ends_with("_count") ||
      actual.back().dtype != DType::I64 || actual.back().data.size() != 8)
    return;
  int64_t count;
  std::memcpy(&count, actual.back().data.data(), sizeof count);
  actual.pop_back();
  int64_t bound = 0;
  for (const NpyArray &a : actual)
    if (!a.shape.empty())
      bound = std::max(bound, a.shape[0]);
  for (NpyArray &a : actual) {
    if (a.shape.empty() || a.shape[0] != bound || count < 0 || count > bound)
      continue;
    size_t rowBytes = bound ? a.data.size() / size_t(bound) : 0;
    a.shape[0] = count;
    a.data.resize(rowBytes * size_t(count));
  }
}

[[noreturn]] void runTest(const TestCase &test, const std::string &testWorkDir,
                          Reporter &report) {
  std::string soPath = testWorkDir + "/model.so";

  // Compiles `modelPath` (built with `level`'s constants) to soPath; fails
  // the test unless it compiles, or unless it asks for constant inputs and
  // a further level remains (false).
  auto compileModel = [&](const std::string &modelPath, Constants level) {
    report.stage("compile");
    CompileOptions options;
    options.inputPath = modelPath;
    options.outputPath = soPath;
    options.runtimeLibrary = runtimeLib;
    CompileStatus status = compile(options);
    // Kept in diagnostics.txt with the rest of the test's output.
    llvm::errs() << status.diagnostics;
    if (status.ok)
      return true;
    std::string message = firstDiagnostic(status.diagnostics, test.dir);
    if (message.empty())
      message = "no diagnostic";
    if (level != Constants::AllButFirst && needsConstantInputs(message))
      return false;
    if (level != Constants::None)
      message =
          "with its " + std::string(constantsLabel(level)) + ": " + message;
    if (isUnsupportedFeature(message))
      report.finish(Kind::Skip, message);
    report.finish(Kind::Fail, "compile failed: " + message);
  };
  std::string error;
  std::unique_ptr<CompiledModel> model;
  int entry = -1;
  auto load = [&] {
    report.stage("load");
    model = CompiledModel::open(soPath, error);
    if (!model)
      report.finish(Kind::Fail, "cannot load the model: " + error);
    entry = model->findEntry("predict");
    if (entry < 0)
      report.finish(Kind::Fail, "the model has no entry 'predict'");
  };
  std::string modelPath = test.dir + "/model.onnx";
  Constants level = compileModel(modelPath, Constants::None)
                        ? Constants::None
                        : Constants::Integers;
  if (level == Constants::None)
    load();

  std::vector<std::string> dataSets =
      subdirectories(test.dir, "test_data_set_");
  if (dataSets.empty())
    report.finish(Kind::Skip, "no test_data_set_*");
  for (const std::string &dataSet : dataSets) {
    std::string dir = test.dir + "/" + dataSet;
    std::string where = dataSets.size() > 1 ? dataSet + ": " : "";
    // Constants differ per data set: one build each, fed the other inputs.
    std::vector<bool> kept;
    if (level != Constants::None) {
      std::string constantPath = testWorkDir + "/model.onnx";
      for (;;) {
        if (!writeWithConstantInputs(modelPath, numberedFiles(dir, "input"),
                                     constantPath, level, kept, error))
          report.finish(Kind::Fail, where + error);
        if (compileModel(constantPath, level))
          break;
        level = Constants::AllButFirst; // the integers were not enough
      }
      load();
    }
    const tfcc_entry_info &info = model->info().entries[entry];
    std::vector<NpyArray> inputs, expected;
    for (auto [stem, arrays] :
         {std::pair{"input", &inputs}, std::pair{"output", &expected}}) {
      std::vector<std::string> files = numberedFiles(dir, stem);
      for (size_t i = 0; i < files.size(); ++i) {
        const std::string &path = files[i];
        if (arrays == &inputs && i < kept.size() && !kept[i])
          continue; // a constant now, not fed
        arrays->emplace_back();
        switch (readTensor(path, arrays->back(), error)) {
        case ReadResult::Ok:
          break;
        case ReadResult::Unsupported:
          report.finish(Kind::Skip, where + error);
        case ReadResult::Error:
          report.finish(Kind::Fail, where + error);
        }
      }
    }
    // Every dynamic dim takes the run's batch: that of the first one.
    int64_t batch = -1;
    for (int i = 0; i < info.num_inputs && i < int(inputs.size()); ++i) {
      const tfcc_arg_info &arg = info.inputs[i];
      if (arg.rank != int(inputs[i].shape.size()))
        continue; // run() reports it
      for (int d = 0; d < arg.rank; ++d) {
        if (arg.dims[d] != TFCC_DIM_DYNAMIC)
          continue;
        int64_t size = inputs[i].shape[d];
        if (batch < 0)
          batch = size;
        else if (size != batch)
          report.finish(Kind::Skip,
                        where + "dynamic dims of different sizes (" +
                            std::to_string(batch) + " and " +
                            std::to_string(size) +
                            "); the C interface has one batch value");
      }
    }
    if (batch < 0)
      batch = 1;

    report.stage("run " + dataSet);
    std::vector<NpyArray> actual;
    if (!model->run(entry, batch, inputs, actual, error))
      report.finish(Kind::Fail, where + "run failed: " + error);
    cutPaddedRows(info, expected.size(), actual);
    if (actual.size() != expected.size())
      report.finish(Kind::Fail, where + std::to_string(actual.size()) +
                                    " outputs, expected " +
                                    std::to_string(expected.size()));
    for (size_t i = 0; i < actual.size(); ++i) {
      maskCoincidingNaNs(actual[i], expected[i]);
      Agreement agreement = compareArrays(actual[i], expected[i]);
      if (agreement.passes(rtol))
        continue;
      std::string output = where + "output " + std::to_string(i) + " '" +
                           info.outputs[i].name + "': ";
      if (agreement.shapeMismatch)
        report.finish(Kind::Fail, output + typeString(actual[i]) +
                                      ", expected " + typeString(expected[i]));
      if (agreement.nan)
        report.finish(Kind::Fail,
                      output + "NaN in the result or the reference where the "
                               "other has a number");
      if (agreement.exact)
        report.finish(Kind::Fail, output + "values differ (max abs error " +
                                      formatDouble(agreement.maxAbsError) +
                                      ")");
      report.finish(Kind::Fail, output + "relative error " +
                                    formatDouble(agreement.relError) + " > " +
                                    formatDouble(rtol) + " (max abs error " +
                                    formatDouble(agreement.maxAbsError) + ")");
    }
  }
  report.finish(Kind::Pass, passNote(level));
}

//===----------------------------------------------------------------------===//
// The parent: children, outcomes, counts
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

struct Child {
  size_t index;
  int pipeFd;
  std::string workDir;
  Clock::time_point start;
};

std::string readAll(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0)
    text.append(buffer, size_t(n));
  return text;
}

/// What a child's exit status and messages say about its test.
Outcome interpret(int status, const std::string &messages) {
  Outcome outcome;
  std::string stage = "start";
  bool hasResult = false;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(messages).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    if (line.consume_front("stage ")) {
      stage = line.str();
    } else if (line.consume_front("result ") && !line.empty()) {
      hasResult = true;
      outcome.kind = line[0] == 'P'   ? Kind::Pass
                     : line[0] == 'S' ? Kind::Skip
                                      : Kind::Fail;
      outcome.reason = line.drop_front(1).trim().str();
    }
  }
  if (hasResult && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return outcome;
  outcome.kind = Kind::Fail;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    outcome.reason = "timed out after " + std::to_string(timeoutSeconds) +
                     " s (in " + stage + ")";
  else if (WIFSIGNALED(status))
    outcome.reason = "crashed with signal " + std::to_string(WTERMSIG(status)) +
                     " (" + strsignal(WTERMSIG(status)) + ") in " + stage;
  else
    outcome.reason = "exited with status " +
                     std::to_string(WEXITSTATUS(status)) +
                     " without a result (in " + stage + ")";
  return outcome;
}

/// Forks a child that runs `test` with its output in `testWorkDir`. Returns
/// the child's pid (in the parent only), or -1.
pid_t startChild(const TestCase &test, size_t index,
                 const std::string &testWorkDir, Child &child) {
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    // A child's output (the compile diagnostics among it) goes to a file
    // kept for reading; nothing of a child reaches the runner's output.
    int diag = open((testWorkDir + "/diagnostics.txt").c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (diag >= 0) {
      dup2(diag, STDOUT_FILENO);
      dup2(diag, STDERR_FILENO);
      close(diag);
    }
    alarm(timeoutSeconds);
    Reporter report(fds[1]);
    if (checkShapes)
      checkShapesTest(test, testWorkDir, report);
    runTest(test, testWorkDir, report);
  }
  close(fds[1]);
  child = Child{index, fds[0], testWorkDir, Clock::now()};
  return pid;
}

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
  void add(Kind kind) {
    (kind == Kind::Pass ? passed : kind == Kind::Fail ? failed : skipped)++;
  }
  std::string str() const {
    return std::to_string(passed) + " passed, " + std::to_string(failed) +
           " failed, " + std::to_string(skipped) + " skipped";
  }
};

/// Parses the skip list: "<suite>/<test> <reason>" lines; '#' starts a
/// comment line. Returns false on a malformed line.
bool readSkipList(const std::string &path,
                  std::map<std::string, std::string> &skips,
                  std::string &header) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    llvm::errs() << "tfcc-onnx-conformance: error: cannot read '" << path
                 << "': " << file.getError().message() << "\n";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i].trim();
    if (line.starts_with("#") && skips.empty())
      header += line.str() + "\n";
    if (line.empty() || line.starts_with("#"))
      continue;
    auto [id, reason] = line.split(' ');
    reason = reason.trim();
    if (!id.contains('/') || reason.empty()) {
      llvm::errs() << path << ":" << i + 1
                   << ": error: expected '<suite>/<test> <reason>'\n";
      return false;
    }
    skips[id.str()] = reason.str();
  }
  return true;
}

/// A reason without the node it names, so that equal gaps group together:
/// "unsupported op 'Det' in node 'Det_0' (opset 11)" -> "unsupported op 'Det'
/// (opset 11)".
std::string groupKey(llvm::StringRef reason) {
  std::string key = reason.str();
  // "node 'X': " (tfcc's prefix), " in node 'X'", " in Op node 'X'" -> " in
  // Op". "graph input 'x' has ..." -> "graph input has ...".
  for (const char *pattern : {"node '[^']*': ", " in node '[^']*'",
                              " node '[^']*'", " '[^']*' (has|is not)"}) {
    llvm::Regex regex(pattern);
    for (int i = 0; i < 8 && regex.match(key); ++i)
      key =
          regex.sub(llvm::StringRef(pattern).ends_with(")") ? " \\1" : "", key);
  }
  return key;
}

/// Compiler output as printable text (a model file quoted in a parse error
/// is binary).
std::string printable(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    out += (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) ? c : '?';
  return out;
}

std::string oneLine(Kind kind, const std::string &id,
                    const std::string &reason) {
  std::string line = std::string(kindName(kind)) + " " + id;
  if (!reason.empty())
    line += " " + reason;
  return line;
}

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfcc-onnx-conformance: compile and run ONNX's conformance models "
      "(libonnx-testdata) with tfcc\n");
  if (jobs == 0)
    jobs = 1;

  std::vector<std::string> suiteNames;
  for (const std::string &s :
       suites.empty()
           ? std::vector<std::string>{"all"}
           : std::vector<std::string>(suites.begin(), suites.end())) {
    if (s == "all") {
      suiteNames.insert(suiteNames.end(), std::begin(kAllSuites),
                        std::end(kAllSuites));
      continue;
    }
    if (std::find(std::begin(kAllSuites), std::end(kAllSuites), s) ==
        std::end(kAllSuites)) {
      llvm::errs() << "tfcc-onnx-conformance: error: unknown suite '" << s
                   << "' (node, pytorch-converted, pytorch-operator, simple, "
                      "all)\n";
      return 2;
    }
    suiteNames.push_back(s);
  }

  std::map<std::string, std::string> skips;
  std::string skipListHeader;
  if (!skipListPath.empty() &&
      !readSkipList(skipListPath, skips, skipListHeader))
    return 2;
  if (strict)
    runListed = true;
  if (checkShapes) { // every model, whatever the value runner's list says
    skips.clear();
    skipListHeader.clear();
    runListed = true;
    strict = false;
  }

  std::vector<TestCase> tests;
  std::set<std::string> seen;
  for (const std::string &suite : suiteNames) {
    std::string suiteDir = dataDir + "/" + suite;
    if (!llvm::sys::fs::is_directory(suiteDir)) {
      llvm::errs() << "tfcc-onnx-conformance: error: no directory '" << suiteDir
                   << "' (install libonnx-testdata or pass --data)\n";
      return 2;
    }
    for (const std::string &name : subdirectories(suiteDir, "test_")) {
      TestCase test{suite, name, suiteDir + "/" + name};
      std::string id = test.id();
      if (!seen.insert(id).second)
        continue;
      if (!filters.empty() &&
          std::none_of(filters.begin(), filters.end(),
                       [&](const std::string &f) {
                         return llvm::StringRef(id).contains(f);
                       }))
        continue;
      auto it = skips.find(id);
      if (it != skips.end())
        test.listedReason = &it->second;
      tests.push_back(test);
    }
  }
  for (const auto &[id, reason] : skips) {
    auto [suite, name] = llvm::StringRef(id).split('/');
    if (!llvm::sys::fs::exists(dataDir + "/" + id) &&
        std::find(suiteNames.begin(), suiteNames.end(), suite) !=
            suiteNames.end())
      llvm::outs() << "note: skip list entry '" << id << "' names no test\n";
  }
  llvm::outs().flush();

  std::string root = workDir;
  bool removeRoot = false;
  if (root.empty()) {
    llvm::SmallString<128> dir;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
            "tfcc-onnx-conformance", dir)) {
      llvm::errs() << "tfcc-onnx-conformance: error: cannot create a temporary "
                      "directory: "
                   << ec.message() << "\n";
      return 2;
    }
    root = dir.str().str();
    removeRoot = true;
  } else if (std::error_code ec = llvm::sys::fs::create_directories(root)) {
    llvm::errs() << "tfcc-onnx-conformance: error: cannot create '" << root
                 << "': " << ec.message() << "\n";
    return 2;
  }

  Clock::time_point startAll = Clock::now();
  // What each test did, and what is reported (the skip list applied).
  std::vector<std::optional<Outcome>> actual(tests.size()),
      outcomes(tests.size());
  std::vector<double> seconds(tests.size(), 0);
  std::vector<std::string> diagnostics(tests.size());
  std::map<pid_t, Child> running;
  size_t next = 0, printed = 0;
  std::map<std::string, Counts> suiteCounts;
  Counts total;
  int unlistedFailures = 0;

  auto printReady = [&] {
    for (; printed < tests.size() && outcomes[printed]; ++printed) {
      const TestCase &test = tests[printed];
      Outcome &o = *outcomes[printed];
      std::string line = oneLine(o.kind, test.id(), o.reason);
      if (verbose && seconds[printed] > 0)
        line += " [" + formatDouble(seconds[printed]) + " s]";
      llvm::outs() << line << "\n";
      if (verbose && o.kind == Kind::Fail && !diagnostics[printed].empty()) {
        llvm::SmallVector<llvm::StringRef> lines;
        std::string text = printable(diagnostics[printed]);
        llvm::StringRef(text).split(lines, '\n', 20, false);
        for (llvm::StringRef l : lines)
          llvm::outs() << "    | " << l << "\n";
      }
      llvm::outs().flush();
      suiteCounts[test.suite].add(o.kind);
      total.add(o.kind);
      if (o.kind == Kind::Fail)
        ++unlistedFailures;
    }
  };

  while (next < tests.size() || !running.empty()) {
    while (next < tests.size() && running.size() < jobs) {
      size_t index = next++;
      const TestCase &test = tests[index];
      if (test.listedReason && !runListed) {
        outcomes[index] = Outcome{Kind::Skip, *test.listedReason};
        actual[index] = outcomes[index];
        continue;
      }
      std::string dir = root + "/" + std::to_string(index);
      Child child;
      pid_t pid = llvm::sys::fs::create_directories(dir)
                      ? -1
                      : startChild(test, index, dir, child);
      if (pid < 0) {
        outcomes[index] = Outcome{Kind::Fail, "cannot start a process"};
        actual[index] = outcomes[index];
        continue;
      }
      running.emplace(pid, child);
    }
    printReady();
    if (running.empty())
      continue;
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0)
      break;
    auto it = running.find(pid);
    if (it == running.end())
      continue;
    Child child = it->second;
    running.erase(it);
    std::string messages = readAll(child.pipeFd);
    close(child.pipeFd);
    Outcome outcome = interpret(status, messages);
    const TestCase &test = tests[child.index];
    if (outcome.kind == Kind::Fail) {
      auto text =
          llvm::MemoryBuffer::getFile(child.workDir + "/diagnostics.txt");
      if (text)
        diagnostics[child.index] = (*text)->getBuffer().str();
    }
    actual[child.index] = outcome;
    if (test.listedReason) { // --run-listed
      if (outcome.kind == Kind::Pass)
        outcome.reason = "(listed in the skip list: remove it)";
      else if (outcome.kind == Kind::Skip)
        outcome.reason = *test.listedReason;
      else
        outcome = Outcome{Kind::Skip, *test.listedReason +
                                          " [fails: " + outcome.reason + "]"};
    } else if (strict && outcome.kind == Kind::Skip) {
      outcome = Outcome{Kind::Fail, "(not in the skip list) " + outcome.reason};
    }
    seconds[child.index] =
        std::chrono::duration<double>(Clock::now() - child.start).count();
    outcomes[child.index] = outcome;
    llvm::sys::fs::remove_directories(child.workDir);
  }
  printReady();

  double wall = std::chrono::duration<double>(Clock::now() - startAll).count();
  if (summary) {
    for (Kind kind : {Kind::Fail, Kind::Skip}) {
      std::map<std::string, int> groups;
      for (const std::optional<Outcome> &o : actual)
        if (o && o->kind == kind)
          ++groups[groupKey(o->reason)];
      std::vector<std::pair<int, std::string>> sorted;
      for (const auto &[key, count] : groups)
        sorted.push_back({-count, key});
      std::sort(sorted.begin(), sorted.end());
      llvm::outs() << "\n"
                   << (kind == Kind::Fail ? "Failures" : "Skips")
                   << " by reason (before the skip list):\n";
      for (const auto &[count, key] : sorted)
        llvm::outs() << llvm::format("%6d  ", -count) << key << "\n";
    }
  }
  llvm::outs() << "\n";
  for (const std::string &suite : suiteNames)
    if (suiteCounts.count(suite))
      llvm::outs() << suite << ": " << suiteCounts[suite].str() << "\n";
  llvm::outs() << total.str() << "\n";
  llvm::outs() << "(" << formatDouble(wall) << " s, " << jobs << " jobs)\n";
  if (removeRoot)
    llvm::sys::fs::remove_directories(root);

  if (!writeSkipList.empty()) {
    std::map<std::string, std::string> list = skips;
    for (size_t i = 0; i < tests.size(); ++i) {
      if (!actual[i])
        continue;
      if (actual[i]->kind == Kind::Pass)
        list.erase(tests[i].id());
      else if (!tests[i].listedReason)
        list[tests[i].id()] = actual[i]->reason;
    }
    std::string text = skipListHeader;
    for (const auto &[id, reason] : list)
      text += id + " " + reason + "\n";
    std::error_code ec;
    llvm::raw_fd_ostream os(writeSkipList, ec);
    if (ec) {
      llvm::errs() << "tfcc-onnx-conformance: error: cannot write '"
                   << writeSkipList << "': " << ec.message() << "\n";
      return 2;
    }
    os << text;
  }
  return unlistedFailures ? 1 : 0;
}
