//===- QuantizeInt8.cpp - post-training int8 quantization of the graph ----===//
//
// Each convolution, dense layer and matmul that carries a calibrated input
// range (`tfcc.input_range`, written by tfcc --quantize=int8 from its
// calibration run, or by hand in tests) and has constant weights gets:
//   - its input quantized to ui8 per tensor, asymmetric: scale = (hi - lo) /
//     255 and zero point round(-lo / scale) over the range widened to hold 0,
//     then dequantized (graph.quantize + graph.dequantize);
//   - its weights stored as an i8 variable, symmetric per output channel:
//     scale[c] = max|w[..., c]| / 127, w_q = round_half_even(w / scale[c])
//     in [-127, 127] (with weight-bits=7: / 63, in [-63, 63], which the
//     AVX2 int8 kernel's vpmaddubsw form takes exactly), dequantized where
//     the op reads them.
// The model then computes what an int8 kernel would (the rounding of inputs
// and weights), in f32; its weights take a quarter of the bytes. Kernels
// that consume the dequantize / op pattern directly come later
// (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/Initializers.h"
#include "passes/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <map>

namespace mlir::tfcc {
#define GEN_PASS_DEF_QUANTIZEINT8
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

constexpr llvm::StringLiteral kInputRange = "tfcc.input_range";

/// The weight operand of a quantizable op and the axis of its output
/// channels, or nullopt for ops that are not quantized.
std::optional<std::pair<OpOperand *, int64_t>> weightOf(Operation *op) {
  auto lastAxis = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank() - 1;
  };
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return std::make_pair(&conv.getKernelMutable(), lastAxis(conv.getKernel()));
  if (auto depthwise = dyn_cast<DepthwiseConv2DOp>(op))
    return std::make_pair(&depthwise.getKernelMutable(), int64_t(2));
  if (auto dense = dyn_cast<DenseOp>(op))
    return std::make_pair(&dense.getKernelMutable(),
                          lastAxis(dense.getKernel()));
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return std::make_pair(&matmul.getRhsMutable(), lastAxis(matmul.getRhs()));
  return std::nullopt;
}

/// The value of a constant weight: a graph.constant or a read of a variable
/// with a known initial value.
FailureOr<DenseElementsAttr> constantWeight(Value weight) {
  if (auto constant = weight.getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      return dense;
  if (auto read = weight.getDefiningOp<ReadOp>())
    if (auto variable = SymbolTable::lookupNearestSymbolFrom<VariableOp>(
            read, read.getVariableAttr()))
      return getVariableInitialValue(variable);
  return failure();
}

Value scalarOrVector(OpBuilder &b, Location loc, ArrayRef<float> values,
                     bool scalar) {
  auto type = scalar ? RankedTensorType::get({}, b.getF32Type())
                     : RankedTensorType::get(
                           {static_cast<int64_t>(values.size())},
                           b.getF32Type());
  return b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, values));
}

/// x -> dequantize(quantize(x)) with the ui8 parameters of range [lo, hi].
Value fakeQuantizeInput(OpBuilder &b, Location loc, Value x, float lo,
                        float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  float scale = (hi - lo) / 255.0f;
  if (!(scale > 0.0f) || !std::isfinite(scale))
    scale = 1.0f;
  float zeroPoint =
      std::min(255.0f, std::max(0.0f, std::nearbyint(-lo / scale)));
  Type u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  auto zeroPointType = RankedTensorType::get({}, u8);
  Value scaleValue = scalarOrVector(b, loc, {scale}, /*scalar=*/true);
  Value zeroPointValue = b.create<ConstantOp>(
      loc, zeroPointType,
      DenseElementsAttr::get(zeroPointType,
                             {APInt(8, static_cast<uint64_t>(zeroPoint))}));
  auto xType = cast<RankedTensorType>(x.getType());
  Value q = b.create<QuantizeOp>(
      loc, RankedTensorType::get(xType.getShape(), u8), x, scaleValue,
      zeroPointValue, b.getI64IntegerAttr(1));
  return b.create<DequantizeOp>(loc, xType, q, scaleValue, zeroPointValue,
                                b.getI64IntegerAttr(1));
}

/// The i8 values in [-qmax, qmax] and per-channel scales of `weights` along
/// `axis`.
std::pair<DenseElementsAttr, std::vector<float>>
quantizeWeights(DenseElementsAttr weights, int64_t axis, float qmax) {
  auto type = cast<RankedTensorType>(weights.getType());
  auto range = weights.getValues<float>();
  std::vector<float> values(range.begin(), range.end());
  int64_t channels = type.getDimSize(axis), inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  auto channelOf = [&](size_t i) {
    return static_cast<int64_t>(i / inner) % channels;
  };
  std::vector<float> scales(channels, 0.0f);
  for (size_t i = 0; i < values.size(); ++i)
    scales[channelOf(i)] = std::max(scales[channelOf(i)], std::fabs(values[i]));
  for (float &scale : scales)
    scale = scale > 0.0f && std::isfinite(scale) ? scale / qmax : 1.0f;
  std::vector<int8_t> quantized(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    float q = std::nearbyint(values[i] / scales[channelOf(i)]);
    quantized[i] = static_cast<int8_t>(std::min(qmax, std::max(-qmax, q)));
  }
  auto i8Type = RankedTensorType::get(
      type.getShape(), IntegerType::get(type.getContext(), 8));
  return {DenseElementsAttr::get(i8Type, ArrayRef<int8_t>(quantized)),
          std::move(scales)};
}

} // namespace

SmallVector<Operation *> mlir::tfcc::findInt8QuantizableOps(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    std::optional<std::pair<OpOperand *, int64_t>> weight = weightOf(op);
    if (!weight)
      return;
    FailureOr<DenseElementsAttr> weights = constantWeight(weight->first->get());
    if (succeeded(weights) && weights->getElementType().isF32() &&
        cast<RankedTensorType>(op->getOperand(0).getType())
            .getElementType()
            .isF32())
      ops.push_back(op);
  });
  return ops;
}

namespace {

/// An int8 copy of a float weight: its variable and per-channel scales.
struct QuantizedWeight {
  VariableOp variable;
  std::vector<float> scales;
};

struct QuantizeInt8Pass : tfcc::impl::QuantizeInt8Base<QuantizeInt8Pass> {
  using QuantizeInt8Base::QuantizeInt8Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (weightBits != 7 && weightBits != 8) {
      mlir::emitError(module.getLoc(), "tfcc-quantize-int8: weight-bits=")
          << static_cast<int64_t>(weightBits) << " is not 7 or 8";
      return signalPassFailure();
    }
    const float qmax = weightBits == 7 ? 63.0f : 127.0f;
    SymbolTable symbols(module);
    OpBuilder b(module.getContext());
    WalkResult malformed = module.walk([&](Operation *op) {
      Attribute range = op->getAttr(kInputRange);
      if (!range)
        return WalkResult::advance();
      auto values = dyn_cast<DenseF32ArrayAttr>(range);
      if (values && values.size() == 2)
        return WalkResult::advance();
      op->emitOpError("has a malformed '")
          << kInputRange << "' (expected array<f32: lo, hi>)";
      return WalkResult::interrupt();
    });
    if (malformed.wasInterrupted())
      return signalPassFailure();

    // One int8 copy per float variable and channel axis, however many ops
    // read it.
    std::map<std::pair<std::string, int64_t>, QuantizedWeight> copies;
    llvm::SetVector<VariableOp> replaced;
    for (Operation *op : tfcc::findInt8QuantizableOps(module)) {
      auto range = op->getAttrOfType<DenseF32ArrayAttr>(kInputRange);
      op->removeAttr(kInputRange);
      if (!range && !allWeights)
        continue;
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      if (range) // the input: operand 0 of every quantizable op
        op->setOperand(0, fakeQuantizeInput(b, loc, op->getOperand(0),
                                            range[0], range[1]));
      auto [operand, axis] = *weightOf(op);
      DenseElementsAttr weights = *constantWeight(operand->get());
      auto read = operand->get().getDefiningOp<ReadOp>();
      std::pair<std::string, int64_t> key = {
          read ? read.getVariable().str() : std::string(), axis};
      QuantizedWeight *copy = read && copies.count(key) ? &copies[key] : nullptr;
      QuantizedWeight fresh;
      if (!copy) {
        auto [values, scales] = quantizeWeights(weights, axis, qmax);
        std::string name =
            read ? read.getVariable().str() + "_int8" : "int8_weights";
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(module.getBody());
        fresh.variable = b.create<VariableOp>(
            loc, b.getStringAttr(name), TypeAttr::get(values.getType()),
            values, b.getBoolAttr(false));
        symbols.insert(fresh.variable); // renames on a clash
        fresh.scales = std::move(scales);
        copy = read ? &(copies[key] = fresh) : &fresh;
        if (read)
          replaced.insert(symbols.lookup<VariableOp>(read.getVariable()));
      }
      Type i8Type = copy->variable.getType();
      Value quantized =
          b.create<ReadOp>(loc, i8Type, copy->variable.getSymName());
      Value scaleValue = scalarOrVector(b, loc, copy->scales, /*scalar=*/false);
      auto zeroPointType = RankedTensorType::get(
          {static_cast<int64_t>(copy->scales.size())}, b.getI8Type());
      Value zeroPoint = b.create<ConstantOp>(
          loc, zeroPointType, DenseElementsAttr::get(zeroPointType, int8_t(0)));
      Operation *floatWeight = operand->get().getDefiningOp();
      operand->set(b.create<DequantizeOp>(
          loc, cast<RankedTensorType>(weights.getType()), quantized,
          scaleValue, zeroPoint, b.getI64IntegerAttr(axis)));
      if (floatWeight->use_empty())
        floatWeight->erase();
    }
    // Ranges on ops that are not quantized (weights computed at run time).
    module.walk([](Operation *op) { op->removeAttr(kInputRange); });
    // The float weights no one reads any more go (their int8 copies stay).
    for (VariableOp variable : replaced)
      if (variable && SymbolTable::symbolKnownUseEmpty(variable, module))
        variable.erase();
  }
};

} // namespace
