//===- Calibration.cpp - activation ranges for int8 quantization ----------===//

#include "compiler/Calibration.h"

#include "compiler/Runner.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"

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

/// Whether `a` can feed `arg` with its first dimension as the samples (when
/// that dimension is the batch) or as it is.
bool fits(const NpyArray &a, const tfcc_arg_info &arg) {
  if (static_cast<int32_t>(a.dtype) != arg.dtype ||
      static_cast<int32_t>(a.shape.size()) != arg.rank)
    return false;
  for (int32_t d = 0; d < arg.rank; ++d)
    if (arg.dims[d] != TFCC_DIM_DYNAMIC && arg.dims[d] != a.shape[d])
      return false;
  return true;
}

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

bool calibrateInt8(ModuleOp module, const CompileOptions &o,
                   llvm::raw_ostream &errors) {
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
    if (!fits(data[i], arg) ||
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

  std::vector<float> lows(ops.size(), std::numeric_limits<float>::infinity());
  std::vector<float> highs(ops.size(),
                           -std::numeric_limits<float>::infinity());
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
      const float *values = reinterpret_cast<const float *>(out.data.data());
      for (int64_t j = 0; j < out.numElements(); ++j) {
        if (std::isnan(values[j]))
          continue;
        lows[k] = std::min(lows[k], values[j]);
        highs[k] = std::max(highs[k], values[j]);
      }
    }
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!(lows[k] <= highs[k])) // no finite value seen
      lows[k] = highs[k] = 0.0f;
    ops[k]->setAttr("tfcc.input_range",
                    b.getDenseF32ArrayAttr({lows[k], highs[k]}));
  }
  return true;
}

} // namespace tfcc
