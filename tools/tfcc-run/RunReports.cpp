//===- RunReports.cpp - tfcc-run's profile table and NaN hunt -------------===//

#include "tools/tfcc-run/RunReports.h"

#include "compiler/Runner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tfcc {

namespace {

struct OpTotal {
  std::string entry;
  std::string name;
  int64_t calls = 0;
  double totalUs = 0;
  std::set<std::string> kernels;
};

} // namespace

bool printProfileSummary(const std::string &tracePath, size_t top,
                         llvm::raw_ostream &os, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(tracePath);
  if (!buffer) {
    error = "cannot read the profile '" + tracePath +
            "': " + buffer.getError().message();
    return false;
  }
  llvm::Expected<llvm::json::Value> trace =
      llvm::json::parse((*buffer)->getBuffer());
  if (!trace) {
    error = "the profile '" + tracePath +
            "' is not JSON: " + llvm::toString(trace.takeError());
    return false;
  }
  const llvm::json::Object *root = trace->getAsObject();
  const llvm::json::Array *events =
      root ? root->getArray("traceEvents") : nullptr;
  if (!events) {
    error = "the profile '" + tracePath + "' has no traceEvents";
    return false;
  }
  std::map<std::pair<std::string, std::string>, OpTotal> ops;
  std::map<std::string, std::pair<int64_t, double>> entries;
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object *event = value.getAsObject();
    if (!event || event->getString("ph") != "X")
      continue;
    std::string name = event->getString("name").value_or("").str();
    double duration = event->getNumber("dur").value_or(0);
    if (event->getString("cat") == "entry") {
      entries[name].first += 1;
      entries[name].second += duration;
      continue;
    }
    const llvm::json::Object *args = event->getObject("args");
    std::string entry;
    if (args)
      entry = args->getString("entry").value_or("").str();
    OpTotal &op = ops[{entry, name}];
    op.entry = entry;
    op.name = name;
    op.calls += 1;
    op.totalUs += duration;
    // One span's kernels are joined by '+'.
    llvm::StringRef kernels =
        args ? args->getString("kernel").value_or("") : "";
    while (!kernels.empty()) {
      auto [kernel, rest] = kernels.split('+');
      op.kernels.insert(kernel.str());
      kernels = rest;
    }
  }
  double entryUs = 0;
  os << "profile:";
  for (const auto &[name, calls] : entries) {
    os << " " << calls.first << " call" << (calls.first == 1 ? "" : "s")
       << " of " << name << " (" << llvm::format("%.3f", calls.second / 1e3)
       << " ms)";
    entryUs += calls.second;
  }
  if (entries.empty())
    os << " no calls";
  os << "; the ops that took the most time:\n";
  std::vector<OpTotal> sorted;
  for (auto &[name, op] : ops)
    sorted.push_back(op);
  std::sort(
      sorted.begin(), sorted.end(),
      [](const OpTotal &a, const OpTotal &b) { return a.totalUs > b.totalUs; });
  // The entry column only for a model with several.
  bool byEntry = entries.size() > 1;
  size_t width = 4, entryWidth = 5;
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    width = std::max(width, std::min<size_t>(sorted[i].name.size(), 40));
    entryWidth = std::max(entryWidth, sorted[i].entry.size());
  }
  auto padded = [](const std::string &text, size_t width) {
    return text +
           std::string(width > text.size() ? width - text.size() : 0, ' ');
  };
  os << "  " << (byEntry ? padded("entry", entryWidth + 1) : "")
     << llvm::left_justify("node", width)
     << "   calls   total ms    mean us  share  kernels\n";
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    const OpTotal &op = sorted[i];
    std::string kernels;
    for (const std::string &kernel : op.kernels)
      kernels += (kernels.empty() ? "" : ", ") + kernel;
    os << "  " << (byEntry ? padded(op.entry, entryWidth + 1) : "")
       << llvm::left_justify(op.name, width) << " "
       << llvm::format("%7lld", (long long)op.calls) << " "
       << llvm::format("%10.3f", op.totalUs / 1e3) << " "
       << llvm::format("%10.1f", op.totalUs / double(op.calls)) << " "
       << llvm::format("%5.1f%%",
                       entryUs > 0 ? 100.0 * op.totalUs / entryUs : 0.0)
       << "  " << kernels << "\n";
  }
  if (sorted.size() > top)
    os << "  (" << sorted.size() - top << " more in the trace)\n";
  return true;
}

namespace {

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}

/// "[2, 0, 5]" for flat index `flat` of `shape`.
std::string indexString(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

/// Row `row` of `array` along dim 0 (a batch of one).
NpyArray rowOf(const NpyArray &array, int64_t row) {
  NpyArray out;
  out.dtype = array.dtype;
  out.shape = array.shape;
  out.shape[0] = 1;
  size_t rowBytes = array.data.size() / size_t(array.shape[0]);
  out.data.assign(array.data.begin() + row * rowBytes,
                  array.data.begin() + (row + 1) * rowBytes);
  return out;
}

} // namespace

void reportNonFiniteInputs(CompiledModel &model, int entry, int64_t batch,
                           const std::vector<NpyArray> &inputs,
                           const std::vector<std::string> &sources,
                           const std::string &outputDir,
                           llvm::raw_ostream &os) {
  const tfcc_entry_info &e = model.info().entries[entry];
  bool anyBad = false;
  for (size_t i = 0; i < inputs.size() && int(i) < e.num_inputs; ++i) {
    const NpyArray &input = inputs[i];
    if (!isFloat(input.dtype))
      continue;
    int64_t count = 0, first = -1;
    for (int64_t k = 0; k < input.numElements(); ++k)
      if (!std::isfinite(elementAsDouble(input, k)) && count++ == 0)
        first = k;
    if (count == 0)
      continue;
    anyBad = true;
    os << "input '" << e.inputs[i].name << "' (" << sources[i] << ") holds "
       << count << " NaN or infinite value" << (count == 1 ? "" : "s")
       << ", the first at " << indexString(input.shape, first) << "\n";
  }
  if (!anyBad)
    os << "no input holds a NaN or an infinity: the model made it from "
          "finite values\n";

  // The row that fails alone: every input with a dynamic dim has it first.
  bool batched = batch > 1;
  for (int i = 0; i < e.num_inputs && batched; ++i)
    for (int d = 0; d < e.inputs[i].rank; ++d)
      if (e.inputs[i].dims[d] == TFCC_DIM_DYNAMIC && d != 0)
        batched = false;
  if (!batched)
    return;
  for (int64_t row = 0; row < batch; ++row) {
    std::vector<NpyArray> rowInputs;
    for (int i = 0; i < e.num_inputs; ++i)
      rowInputs.push_back(e.inputs[i].rank > 0 &&
                                  e.inputs[i].dims[0] == TFCC_DIM_DYNAMIC
                              ? rowOf(inputs[i], row)
                              : inputs[i]);
    std::vector<NpyArray> outputs;
    std::string error;
    if (model.run(entry, 1, rowInputs, outputs, error) ||
        !model.lastRunFoundNonFinite())
      continue;
    os << "row " << row << " of the batch of " << batch
       << " fails alone: " << error << "\n";
    if (!outputDir.empty()) {
      llvm::sys::fs::create_directories(outputDir);
      for (size_t i = 0; i < rowInputs.size(); ++i) {
        llvm::SmallString<128> path(outputDir);
        llvm::sys::path::append(path, "nonfinite_input_" + std::to_string(i) +
                                          ".npy");
        if (!writeNpy(path.str().str(), rowInputs[i], error))
          os << "cannot write " << path << ": " << error << "\n";
        else
          os << "wrote " << path << "\n";
      }
    }
    return;
  }
  os << "no row fails alone: the batch as a whole makes it\n";
}

} // namespace tfcc
