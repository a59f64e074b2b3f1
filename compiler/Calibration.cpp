//===- Calibration.cpp - activation ranges for int8 quantization ----------===//

#include "compiler/Calibration.h"

#include "compiler/Runner.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace tfcc {
namespace {

/// Samples per calibration run.
constexpr int64_t kCalibrationBatch = 256;

std::string argString(const tfcc_arg_info &arg) {
  return shapeString(std::vector<int64_t>(arg.dims, arg.dims + arg.rank)) +
         " " + dtypeName(static_cast<DType>(arg.dtype));
}

std::string arrayString(const NpyArray &a) {
  return shapeString(a.shape) + " " + dtypeName(a.dtype);
}

/// Counts of values in 2048 equal bins over [low, high].
class Histogram {
public:
  static constexpr int kBins = 2048;
  Histogram(float low, float high)
      : low_(low), width_((high - low) / kBins), counts_(kBins, 0) {}

  void add(float value) {
    int bin = width_ > 0.0f ? static_cast<int>((value - low_) / width_) : 0;
    ++counts_[std::clamp(bin, 0, kBins - 1)];
    ++total_;
  }

  /// The edge of the bin where the cumulative count reaches `fraction` of
  /// all values: its upper edge for an upper bound, its lower edge else.
  float quantile(double fraction, bool upperEdge) const {
    double target = fraction * static_cast<double>(total_), seen = 0.0;
    int bin = 0;
    for (; bin < kBins - 1; ++bin) {
      seen += static_cast<double>(counts_[bin]);
      if (seen >= target)
        break;
    }
    return low_ + width_ * static_cast<float>(bin + (upperEdge ? 1 : 0));
  }

  /// TensorRT's entropy calibration on a histogram of |x| from 0: the
  /// clipping threshold whose `levels`-level quantization of the clipped
  /// distribution (the clipped mass in its last bin) is closest to it in
  /// Kullback-Leibler divergence. Thresholds that clip more than 1% of the
  /// values are not candidates: data far from 0 (all in [0.5, 2], say) would
  /// otherwise pick the threshold that leaves one non-empty bin, whose
  /// divergence is 0.
  float entropyThreshold(int levels) const {
    int best = kBins;
    double bestDivergence = std::numeric_limits<double>::infinity();
    std::vector<double> clipped(kBins + 1, 0.0); // mass from bin i on
    for (int i = kBins - 1; i >= 0; --i)
      clipped[i] = clipped[i + 1] + static_cast<double>(counts_[i]);
    for (int end = levels; end <= kBins; ++end) {
      if (clipped[end] > 0.01 * static_cast<double>(total_))
        continue;
      std::vector<double> p(counts_.begin(), counts_.begin() + end);
      p[end - 1] += clipped[end];
      std::vector<double> q(end, 0.0);
      for (int level = 0; level < levels; ++level) {
        int first = static_cast<int>(int64_t(level) * end / levels);
        int last = static_cast<int>(int64_t(level + 1) * end / levels);
        double mass = 0.0;
        int used = 0;
        for (int i = first; i < last; ++i) {
          mass += static_cast<double>(counts_[i]);
          used += counts_[i] != 0;
        }
        for (int i = first; i < last; ++i)
          if (counts_[i] != 0)
            q[i] = mass / used;
      }
      double pSum = 0.0, qSum = 0.0;
      for (int i = 0; i < end; ++i) {
        pSum += p[i];
        qSum += q[i];
      }
      if (pSum == 0.0 || qSum == 0.0)
        continue;
      double divergence = 0.0;
      for (int i = 0; i < end; ++i) {
        if (p[i] == 0.0)
          continue;
        // A bin q leaves empty (the clipped mass) is smoothed.
        double qi = std::max(q[i] / qSum, 1e-12);
        divergence += p[i] / pSum * std::log(p[i] / pSum / qi);
      }
      if (divergence < bestDivergence) {
        bestDivergence = divergence;
        best = end;
      }
    }
    return low_ + width_ * static_cast<float>(best);
  }

private:
  float low_, width_;
  std::vector<int64_t> counts_;
  int64_t total_ = 0;
};

/// Rows [begin, end) of `a` along its first dimension.
NpyArray rows(const NpyArray &a, int64_t begin, int64_t end) {
  NpyArray part;
  part.dtype = a.dtype;
  part.shape = a.shape;
  part.shape[0] = end - begin;
  size_t rowBytes = a.shape[0] ? a.data.size() / a.shape[0] : 0;
  part.data.assign(a.data.begin() + begin * rowBytes,
                   a.data.begin() + end * rowBytes);
  return part;
}

} // namespace

bool parseCalibrationMethod(const std::string &text,
                            CalibrationMethod &method, std::string &error) {
  llvm::StringRef spec(text);
  if (spec == "minmax" || spec.empty()) {
    method.kind = CalibrationMethod::MinMax;
    return true;
  }
  if (spec == "entropy") {
    method.kind = CalibrationMethod::Entropy;
    return true;
  }
  double percentile;
  if (spec.consume_front("percentile=") && !spec.getAsDouble(percentile) &&
      percentile > 50.0 && percentile <= 100.0) {
    method.kind = CalibrationMethod::Percentile;
    method.percentile = percentile;
    return true;
  }
  error = "--calibration-method='" + text +
          "' is not minmax, percentile=P (50 < P <= 100) or entropy";
  return false;
}

bool calibrateInt8(ModuleOp module, const CompileOptions &o,
                   llvm::raw_ostream &errors) {
  CalibrationMethod method;
  std::string methodError;
  if (!parseCalibrationMethod(o.calibrationMethod, method, methodError)) {
    errors << "tfcc: error: " << methodError << "\n";
    return false;
  }
  auto functions = module.getOps<func::FuncOp>();
  auto entryIt = llvm::find_if(
      functions, [](func::FuncOp f) { return f.isPublic() && !f.isExternal(); });
  if (entryIt == functions.end()) {
    errors << "tfcc: error: --quantize=int8: the model has no entry point\n";
    return false;
  }
  func::FuncOp entry = *entryIt;
  SmallVector<Operation *> ops = mlir::tfcc::findInt8QuantizableOps(entry);
  if (ops.empty()) {
    errors << "tfcc: error: --quantize=int8 cannot take effect: '"
           << o.inputPath << "' has no convolution, dense layer or matmul "
           << "with constant float weights in '" << entry.getSymName()
           << "'\n";
    return false;
  }

  // The calibration build: the entry also returns each op's input.
  OwningOpRef<ModuleOp> clone = module.clone();
  func::FuncOp cloneEntry = clone->lookupSymbol<func::FuncOp>(entry.getName());
  SmallVector<Operation *> cloneOps =
      mlir::tfcc::findInt8QuantizableOps(cloneEntry);
  auto ret = cast<func::ReturnOp>(cloneEntry.getBody().back().getTerminator());
  unsigned numOutputs = ret.getNumOperands();
  SmallVector<Value> results(ret.getOperands());
  for (Operation *op : cloneOps)
    results.push_back(op->getOperand(0));
  ret->setOperands(results);
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < numOutputs; ++i) {
    DictionaryAttr attrs = cloneEntry.getResultAttrDict(i);
    resultAttrs.push_back(attrs ? attrs
                                : DictionaryAttr::get(module.getContext()));
  }
  Builder b(module.getContext());
  for (size_t k = 0; k < cloneOps.size(); ++k)
    resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        "tfcc.name", b.getStringAttr("calibration_" + std::to_string(k)))));
  cloneEntry.setFunctionType(FunctionType::get(
      module.getContext(), cloneEntry.getArgumentTypes(),
      ValueRange(results).getTypes()));
  cloneEntry.setAllResultAttrs(resultAttrs);
  std::string text;
  llvm::raw_string_ostream os(text);
  clone->print(os);

  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("tfcc-calibration", dir)) {
    errors << "tfcc: error: cannot create a temporary directory: "
           << ec.message() << "\n";
    return false;
  }
  // Removed last, once the files in it are gone.
  struct RemoveDir {
    std::string path;
    ~RemoveDir() { llvm::sys::fs::remove(path); }
  } removeDir{dir.str().str()};
  std::string soPath = (dir + "/calibration.so").str();
  llvm::FileRemover removeSo(soPath);
  llvm::FileRemover removeHeader((dir + "/calibration.h").str());
  CompileOptions calibration;
  calibration.inputPath = o.inputPath + " (calibration build)";
  calibration.inputText = text;
  calibration.outputPath = soPath;
  calibration.prefix = "tfcc_calibration";
  // Built and run on the host, whatever --target the model is for: a cross
  // target's --runtime-lib would not link here.
  if (o.targetTriple.empty())
    calibration.runtimeLibrary = o.runtimeLibrary;
  CompileStatus status = compile(calibration);
  if (!status.ok) {
    errors << status.diagnostics
           << "tfcc: error: --quantize=int8: the calibration build failed\n";
    return false;
  }
  std::string error;
  std::unique_ptr<CompiledModel> model = CompiledModel::open(soPath, error);
  if (!model) {
    errors << "tfcc: error: " << error << "\n";
    return false;
  }
  const tfcc_entry_info &info = model->info().entries[0];

  // One array per input, of the input's dtype and shape, with as many
  // samples along a dynamic batch dimension as wanted.
  if (o.calibrationPaths.size() != static_cast<size_t>(info.num_inputs)) {
    errors << "tfcc: error: --quantize=int8 needs one --calibration file per "
              "input of '"
           << entry.getSymName() << "' (" << info.num_inputs << "), got "
           << o.calibrationPaths.size() << "\n";
    return false;
  }
  std::vector<NpyArray> data(info.num_inputs);
  bool batched = false;
  for (int32_t i = 0; i < info.num_inputs; ++i) {
    const tfcc_arg_info &arg = info.inputs[i];
    if (!readNpy(o.calibrationPaths[i], data[i], error)) {
      errors << "tfcc: error: calibration file '" << o.calibrationPaths[i]
             << "': " << error << "\n";
      return false;
    }
    batched = batched || (arg.rank > 0 && arg.dims[0] == TFCC_DIM_DYNAMIC);
    if (!fitsArgument(data[i], arg, /*batch=*/-1) ||
        (i > 0 && batched && data[i].shape[0] != data[0].shape[0])) {
      errors << "tfcc: error: calibration file '" << o.calibrationPaths[i]
             << "' holds " << arrayString(data[i]) << ", but input " << i
             << " '" << arg.name << "' of '" << entry.getSymName()
             << "' is " << argString(arg)
             << " (samples along the batch dimension)\n";
      return false;
    }
  }
  int64_t samples = batched ? data[0].shape[0] : 1;
  if (samples == 0) {
    errors << "tfcc: error: calibration file '" << o.calibrationPaths[0]
           << "' holds no samples\n";
    return false;
  }

  // Runs the calibration build over all samples, calling visit(k, values,
  // count) with the finite values of op k's input of each call.
  auto runAll = [&](auto visit) {
    int64_t step = batched ? kCalibrationBatch : 1;
    for (int64_t begin = 0; begin < samples; begin += step) {
      int64_t end = std::min(samples, begin + step);
      std::vector<NpyArray> inputs;
      for (const NpyArray &a : data)
        inputs.push_back(batched ? rows(a, begin, end) : a);
      std::vector<NpyArray> outputs;
      if (!model->run(0, end - begin, inputs, outputs, error)) {
        errors << "tfcc: error: the calibration run failed: " << error << "\n";
        return false;
      }
      for (size_t k = 0; k < ops.size(); ++k) {
        const NpyArray &out = outputs[numOutputs + k];
        std::vector<float> values(out.numElements());
        std::memcpy(values.data(), out.data.data(), values.size() * 4);
        llvm::erase_if(values, [](float v) { return !std::isfinite(v); });
        visit(k, values);
      }
    }
    return true;
  };
  std::vector<float> lows(ops.size(), std::numeric_limits<float>::infinity());
  std::vector<float> highs(ops.size(),
                           -std::numeric_limits<float>::infinity());
  if (!runAll([&](size_t k, const std::vector<float> &values) {
        for (float v : values) {
          lows[k] = std::min(lows[k], v);
          highs[k] = std::max(highs[k], v);
        }
      }))
    return false;
  for (size_t k = 0; k < ops.size(); ++k)
    if (!(lows[k] <= highs[k])) // no finite value seen
      lows[k] = highs[k] = 0.0f;

  if (method.kind != CalibrationMethod::MinMax) {
    // A second run fills a histogram per op: of x over [lo, hi] for a
    // percentile, of |x| over [0, max |x|] for the entropy.
    bool absolute = method.kind == CalibrationMethod::Entropy;
    std::vector<Histogram> histograms;
    for (size_t k = 0; k < ops.size(); ++k)
      histograms.push_back(absolute
                               ? Histogram(0.0f, std::max(-lows[k], highs[k]))
                               : Histogram(lows[k], highs[k]));
    if (!runAll([&](size_t k, const std::vector<float> &values) {
          for (float v : values)
            histograms[k].add(absolute ? std::fabs(v) : v);
        }))
      return false;
    for (size_t k = 0; k < ops.size(); ++k) {
      if (method.kind == CalibrationMethod::Percentile) {
        lows[k] = histograms[k].quantile(1.0 - method.percentile / 100.0,
                                         /*upperEdge=*/false);
        highs[k] = histograms[k].quantile(method.percentile / 100.0,
                                          /*upperEdge=*/true);
      } else {
        float threshold = histograms[k].entropyThreshold(
            lows[k] >= 0.0f ? 255 : 127);
        lows[k] = std::max(lows[k], -threshold);
        highs[k] = std::min(highs[k], threshold);
      }
    }
  }
  for (size_t k = 0; k < ops.size(); ++k)
    ops[k]->setAttr("tfcc.input_range",
                    b.getDenseF32ArrayAttr({lows[k], highs[k]}));
  return true;
}

} // namespace tfcc
