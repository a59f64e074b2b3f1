//===- Recurrent.cpp - ONNX LSTM, GRU and RNN unrolled into graph ops -----===//
//
// The recurrent layers are unrolled over their (static) sequence length:
// the input projection of every step is one graph.dense over X [T, B, I]
// (the GEMM kernel, biases folded in), then each step adds the recurrent
// graph.dense of the previous hidden state and applies the gates' elementwise
// functions, which tfcc-fuse-elementwise fuses. Directions (forward, reverse,
// bidirectional), both layouts, initial states, sequence_lens (a step past a
// batch entry's length keeps its state and outputs 0), clip, the activations
// ONNX lists (Sigmoid, Tanh, Relu, HardSigmoid, LeakyRelu), LSTM peepholes and
// GRU's linear_before_reset follow the operator definitions.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ComposedOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::onnx_import {
namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The longest sequence unrolled: a model cannot ask for millions of ops.
constexpr int64_t kMaxUnrolledSteps = 4096;

enum class Cell { LSTM, GRU, RNN };

int64_t gateCount(Cell cell) {
  return cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
}

/// One activation function of the `activations` attribute.
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

/// Builds one LSTM, GRU or RNN node as graph ops.
class RecurrentBuilder {
public:
  RecurrentBuilder(ImportContext &ctx, Cell cell)
      : ctx(ctx), b{ctx}, cell(cell), gates(gateCount(cell)) {}

  LogicalResult build();

private:
  LogicalResult readAttributes();
  Value apply(const Activation &f, Value x);
  Value slice(Value x, int64_t axis, int64_t begin, int64_t end);
  /// Rows [d] of a [D, rows, cols] weight as the dense kernel [cols, rows].
  Value kernelOf(int input, int64_t d);
  /// Entry [d] of a [D, n] bias, or null.
  Value biasOf(int64_t d, int64_t begin, int64_t end);
  /// Entry [d] of a [D, B, H] initial state ([B, D, H] for layout 1), or
  /// null when the input is absent.
  Value initialState(int input, int64_t d);
  /// The gate pre-activation `x + h` clipped.
  Value clipped(Value x);
  /// Runs direction `d` (reverse when `reverse`); fills outputs[d], lastH[d]
  /// and lastC[d].
  void runDirection(int64_t d, bool reverse);

  ImportContext &ctx;
  OpChain b;
  Cell cell;
  int64_t gates;

  Value x;       ///< [T, B, I]
  Value seqLens; ///< [B] i32/i64, or null (every entry has T steps)
  int64_t steps = 0, hidden = 0, directions = 1;
  bool batchFirst = false, linearBeforeReset = false;
  std::optional<float> clip;
  std::vector<Activation> activations; ///< per direction: f, g[, h]
  Type floatType;

  std::vector<std::vector<Value>> outputs; ///< [d][t]: [B, H]
  std::vector<Value> lastH, lastC;
};

LogicalResult RecurrentBuilder::readAttributes() {
  std::string direction = ctx.attrString("direction", "forward");
  if (direction == "bidirectional")
    directions = 2;
  else if (direction != "forward" && direction != "reverse")
    return ctx.invalid("attribute 'direction' = \"" + direction + "\"");
  batchFirst = ctx.attrInt("layout", 0) != 0;
  linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
  if (cell == Cell::LSTM && ctx.attrInt("input_forget", 0) != 0)
    return ctx.unsupported("attribute 'input_forget' = 1");
  if (ctx.hasAttr("clip")) {
    clip = ctx.attrFloat("clip", 0);
    if (!(*clip > 0) || !std::isfinite(*clip))
      return ctx.invalid("attribute 'clip' = " + std::to_string(*clip));
  }
  // Defaults: LSTM sigmoid, tanh, tanh; GRU sigmoid, tanh; RNN tanh.
  std::vector<std::string> names;
  if (const onnx::AttributeProto *a = ctx.attr("activations"))
    for (const std::string &s : a->strings())
      names.push_back(s);
  size_t perDirection = cell == Cell::LSTM ? 3 : cell == Cell::GRU ? 2 : 1;
  if (names.empty()) {
    for (int64_t d = 0; d < directions; ++d) {
      if (cell != Cell::RNN)
        names.push_back("Sigmoid");
      names.push_back("Tanh");
      if (cell == Cell::LSTM)
        names.push_back("Tanh");
    }
  }
  if (names.size() != perDirection * directions)
    return ctx.invalid(llvm::formatv("attribute 'activations' of {0} "
                                     "functions ({1} per direction)",
                                     names.size(), perDirection)
                           .str());
  std::vector<float> alphas = ctx.attrFloats("activation_alpha");
  std::vector<float> betas = ctx.attrFloats("activation_beta");
  for (size_t i = 0; i < names.size(); ++i) {
    Activation f{names[i]};
    if (f.name == "HardSigmoid") {
      f.alpha = 0.2f;
      f.beta = 0.5f;
    } else if (f.name == "LeakyRelu") {
      f.alpha = 0.01f;
    } else if (f.name != "Sigmoid" && f.name != "Tanh" && f.name != "Relu") {
      return ctx.unsupported("activation '" + f.name + "'");
    }
    // activation_alpha / beta list the parameters of the functions that
    // take them, in order; absent ones keep the defaults.
    if (i < alphas.size())
      f.alpha = alphas[i];
    if (i < betas.size())
      f.beta = betas[i];
    activations.push_back(f);
  }
  return success();
}

Value RecurrentBuilder::apply(const Activation &f, Value v) {
  if (b.failed)
    return {};
  OpBuilder &ob = ctx.builder();
  if (f.name == "Sigmoid")
    return b.unary<SigmoidOp>(v);
  if (f.name == "Tanh")
    return b.unary<TanhOp>(v);
  if (f.name == "Relu")
    return b.binary<MaximumOp>(v, b.scalar(0.0, floatType));
  if (f.name == "LeakyRelu")
    return ob.create<LeakyReluOp>(ctx.loc(), v, ob.getF32FloatAttr(f.alpha));
  // HardSigmoid: clip(alpha x + beta, 0, 1).
  Value affine =
      b.binary<AddOp>(b.binary<MulOp>(v, b.scalar(f.alpha, floatType)),
                      b.scalar(f.beta, floatType));
  if (b.failed)
    return {};
  return ob.create<ClipOp>(ctx.loc(), affine, ob.getF32FloatAttr(0.0f),
                           ob.getF32FloatAttr(1.0f));
}

Value RecurrentBuilder::slice(Value v, int64_t axis, int64_t begin,
                              int64_t end) {
  if (b.failed)
    return {};
  int64_t rank = typeOf(v).getRank();
  SmallVector<int64_t> starts(rank, 0), limits(rank, -1);
  starts[axis] = begin;
  limits[axis] = end;
  OpBuilder &ob = ctx.builder();
  return b.op<SliceOp>(v, ob.getI64ArrayAttr(starts),
                       ob.getI64ArrayAttr(limits), ArrayAttr());
}

Value RecurrentBuilder::kernelOf(int input, int64_t d) {
  if (const HostTensor *host = ctx.constantInput(input);
      host && host->isFloat()) {
    int64_t rows = host->shape[1], cols = host->shape[2];
    HostTensor kernel = HostTensor::zeros(host->elementType, {cols, rows});
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        kernel.floats[c * rows + r] = host->floats[(d * rows + r) * cols + c];
    return ctx.constant(kernel);
  }
  Value w = b.check(ctx.input(input));
  if (b.failed)
    return {};
  llvm::ArrayRef<int64_t> shape = typeOf(w).getShape();
  Value rows = b.reshape(slice(w, 0, d, d + 1), {shape[1], shape[2]});
  return b.failed ? Value() : ctx.transpose(rows, {1, 0});
}

Value RecurrentBuilder::biasOf(int64_t d, int64_t begin, int64_t end) {
  if (!ctx.hasInput(3))
    return {};
  Value bias = b.check(ctx.input(3));
  return b.reshape(slice(slice(bias, 0, d, d + 1), 1, begin, end),
                   {end - begin});
}

Value RecurrentBuilder::initialState(int input, int64_t d) {
  if (!ctx.hasInput(input))
    return {};
  Value state = b.check(ctx.input(input));
  if (b.failed)
    return {};
  // [D, B, H] (layout 0) or [B, D, H] (layout 1) -> [B, H].
  int64_t axis = batchFirst ? 1 : 0;
  llvm::ArrayRef<int64_t> shape = typeOf(state).getShape();
  if (shape.size() != 3 || shape[axis] != directions || shape[2] != hidden) {
    b.failed = true;
    (void)ctx.invalid("initial state " + typeName(typeOf(state)) + " for " +
                      llvm::Twine(directions) +
                      " direction(s) of hidden size " + llvm::Twine(hidden));
    return {};
  }
  return b.reshape(slice(state, axis, d, d + 1),
                   {shape[batchFirst ? 0 : 1], hidden});
}

Value RecurrentBuilder::clipped(Value v) {
  if (!clip || b.failed)
    return v;
  OpBuilder &ob = ctx.builder();
  return ob.create<ClipOp>(ctx.loc(), v, ob.getF32FloatAttr(-*clip),
                           ob.getF32FloatAttr(*clip));
}

void RecurrentBuilder::runDirection(int64_t d, bool reverse) {
  const Activation *f = &activations[d * (activations.size() / directions)];
  int64_t batch = typeOf(x).getDimSize(1);
  // Input projection of every step: X [T, B, I] @ W^T + (Wb + Rb) for the
  // gates whose recurrent bias adds outside a reset (all but GRU's h gate
  // under linear_before_reset).
  Value kernelW = kernelOf(1, d), kernelR = kernelOf(2, d);
  Value inputBias = biasOf(d, 0, gates * hidden);
  Value recurrentBias = biasOf(d, gates * hidden, 2 * gates * hidden);
  Value projectionBias = inputBias;
  Value resetBias; // GRU linear_before_reset: Rbh, added inside the reset
  if (inputBias && cell == Cell::GRU && linearBeforeReset) {
    resetBias = slice(recurrentBias, 0, 2 * hidden, 3 * hidden);
    Value zrBias = slice(recurrentBias, 0, 0, 2 * hidden);
    Value zeros = ctx.constant(makeFilledFloat(floatType, {hidden}, 0.0));
    Value padded = b.failed
                       ? Value()
                       : b.op<ConcatOp>(ValueRange{zrBias, zeros},
                                        ctx.builder().getI64IntegerAttr(0));
    projectionBias = b.binary<AddOp>(inputBias, padded);
  } else if (inputBias) {
    projectionBias = b.binary<AddOp>(inputBias, recurrentBias);
  }
  if (b.failed)
    return;
  Value projected =
      b.check(projectionBias ? ctx.create<DenseOp>(x, kernelW, projectionBias)
                             : ctx.create<DenseOp>(x, kernelW, Value()));
  Value peephole[3]; // i, o, f
  if (cell == Cell::LSTM && ctx.hasInput(7)) {
    Value p = b.check(ctx.input(7));
    for (int k = 0; k < 3; ++k)
      peephole[k] = b.reshape(
          slice(slice(p, 0, d, d + 1), 1, k * hidden, (k + 1) * hidden),
          {hidden});
  }
  Value h = initialState(5, d);
  Value c = cell == Cell::LSTM ? initialState(6, d) : Value();
  Value zero = b.scalar(0.0, floatType);
  Value one = b.scalar(1.0, floatType);
  std::vector<Value> &ys = outputs[d];
  ys.assign(steps, Value());
  for (int64_t s = 0; s < steps && !b.failed; ++s) {
    int64_t t = reverse ? steps - 1 - s : s;
    Value xt =
        b.reshape(slice(projected, 0, t, t + 1), {batch, gates * hidden});
    Value recurrent;
    if (h)
      recurrent = b.op<DenseOp>(h, kernelR, Value());
    auto gate = [&](int64_t k) {
      return slice(xt, 1, k * hidden, (k + 1) * hidden);
    };
    auto rgate = [&](int64_t k) {
      return recurrent ? slice(recurrent, 1, k * hidden, (k + 1) * hidden)
                       : Value();
    };
    auto plus = [&](Value a, Value r) { return r ? b.binary<AddOp>(a, r) : a; };
    auto times = [&](Value a, Value r) {
      return r && a ? b.binary<MulOp>(a, r) : Value();
    };
    Value hNew, cNew;
    if (cell == Cell::LSTM) {
      // Gates in ONNX order i, o, f, c; peepholes i, o, f.
      Value i = apply(
          f[0], clipped(plus(plus(gate(0), rgate(0)), times(peephole[0], c))));
      Value fg = apply(
          f[0], clipped(plus(plus(gate(2), rgate(2)), times(peephole[2], c))));
      Value g = apply(f[1], clipped(plus(gate(3), rgate(3))));
      cNew = plus(b.binary<MulOp>(i, g), times(fg, c));
      Value o = apply(f[0], clipped(plus(plus(gate(1), rgate(1)),
                                         times(peephole[1], cNew))));
      hNew = b.binary<MulOp>(o, apply(f[2], cNew));
    } else if (cell == Cell::GRU) {
      // Gates z, r, h.
      Value z = apply(f[0], clipped(plus(gate(0), rgate(0))));
      Value r = apply(f[0], clipped(plus(gate(1), rgate(1))));
      Value candidate;
      if (!h) {
        candidate =
            plus(gate(2), resetBias ? b.binary<MulOp>(r, resetBias) : Value());
      } else if (linearBeforeReset) {
        candidate =
            plus(gate(2), b.binary<MulOp>(r, plus(rgate(2), resetBias)));
      } else {
        Value rh = b.binary<MulOp>(r, h);
        Value kernelH = slice(kernelR, 1, 2 * hidden, 3 * hidden);
        candidate = plus(gate(2), b.op<DenseOp>(rh, kernelH, Value()));
      }
      Value hc = apply(f[1], clipped(candidate));
      hNew = plus(b.binary<MulOp>(b.binary<SubOp>(one, z), hc), times(z, h));
    } else {
      hNew = apply(f[0], clipped(plus(gate(0), rgate(0))));
    }
    if (seqLens) {
      // Steps at or past a batch entry's length keep its state and output 0.
      Value step =
          ctx.constant(makeFilled(typeOf(seqLens).getElementType(), {}, t));
      Value active = b.reshape(b.compare(seqLens, step, "gt"), {batch, 1});
      ys[t] = b.select(active, hNew, zero);
      hNew = b.select(active, hNew, h ? h : zero);
      if (cNew)
        cNew = b.select(active, cNew, c ? c : zero);
    } else {
      ys[t] = hNew;
    }
    h = hNew;
    c = cNew;
  }
  lastH[d] = h;
  lastC[d] = c;
}

LogicalResult RecurrentBuilder::build() {
  if (failed(readAttributes()))
    return failure();
  FailureOr<Value> input = ctx.input(0);
  if (failed(input))
    return failure();
  RankedTensorType inputType = typeOf(*input);
  floatType = inputType.getElementType();
  if (!floatType.isF32())
    return ctx.unsupported("input element type " + typeName(floatType));
  if (inputType.getRank() != 3)
    return ctx.invalid("input " + typeName(inputType) +
                       " (it is [T, B, I], "
                       "or [B, T, I] with layout = 1)");
  x = batchFirst ? ctx.transpose(*input, {1, 0, 2}) : *input;
  RankedTensorType xType = typeOf(x);
  steps = xType.getDimSize(0);
  if (ShapedType::isDynamic(steps))
    return ctx.unsupported("dynamic sequence length of " + typeName(inputType) +
                           " (the layer is unrolled over a static one)");
  if (steps < 1)
    return ctx.unsupported("empty sequence of " + typeName(inputType));
  if (steps > kMaxUnrolledSteps)
    return ctx.unsupported("sequence length " + llvm::Twine(steps) +
                           " (more than " + llvm::Twine(kMaxUnrolledSteps) +
                           " steps)");
  if (xType.isDynamicDim(2))
    return ctx.unsupported("dynamic input size of " + typeName(inputType));
  for (int i : {1, 2}) {
    RankedTensorType w = ctx.inputType(i);
    if (!w || !w.hasStaticShape() || w.getRank() != 3 ||
        w.getElementType() != floatType)
      return ctx.unsupported(llvm::formatv("weight input {0} of type {1} (it "
                                           "is a static f32 [D, G*H, I or H])",
                                           i, w)
                                 .str());
  }
  RankedTensorType wType = ctx.inputType(1), rType = ctx.inputType(2);
  hidden = ctx.attrInt("hidden_size", rType.getDimSize(2));
  if (wType.getDimSize(0) != directions || rType.getDimSize(0) != directions ||
      wType.getDimSize(1) != gates * hidden ||
      wType.getDimSize(2) != xType.getDimSize(2) ||
      rType.getDimSize(1) != gates * hidden || rType.getDimSize(2) != hidden)
    return ctx.invalid(llvm::formatv("weights W {0} and R {1} for input {2}, "
                                     "{3} direction(s) and hidden size {4}",
                                     wType, rType, inputType, directions,
                                     hidden)
                           .str());
  if (ctx.hasInput(3)) {
    RankedTensorType biasType = ctx.inputType(3);
    if (!biasType || biasType.getRank() != 2 ||
        biasType.getDimSize(0) != directions ||
        biasType.getDimSize(1) != 2 * gates * hidden)
      return ctx.invalid(llvm::formatv("bias {0} (it is [{1}, {2}])", biasType,
                                       directions, 2 * gates * hidden)
                             .str());
  }
  if (ctx.hasInput(4)) {
    // Constant lengths that all equal T change nothing.
    const HostTensor *lens = ctx.constantInput(4);
    if (!lens ||
        llvm::any_of(lens->ints, [&](int64_t n) { return n != steps; })) {
      FailureOr<Value> v = ctx.input(4);
      if (failed(v))
        return failure();
      seqLens = *v;
    }
  }
  if (cell == Cell::LSTM && ctx.hasInput(7)) {
    RankedTensorType p = ctx.inputType(7);
    if (!p || p.getRank() != 2 || p.getDimSize(0) != directions ||
        p.getDimSize(1) != 3 * hidden)
      return ctx.invalid(llvm::formatv("peepholes {0} (it is [{1}, {2}])", p,
                                       directions, 3 * hidden)
                             .str());
  }

  outputs.resize(directions);
  lastH.resize(directions);
  lastC.resize(directions);
  bool reverse = ctx.attrString("direction", "forward") == "reverse";
  for (int64_t d = 0; d < directions; ++d)
    runDirection(d, reverse || d == 1);
  if (b.failed)
    return failure();

  int64_t batch = xType.getDimSize(1);
  OpBuilder &ob = ctx.builder();
  auto concat = [&](ArrayRef<Value> parts, int64_t axis) {
    if (b.failed)
      return Value();
    if (parts.size() == 1)
      return parts.front();
    return b.op<ConcatOp>(ValueRange(parts), ob.getI64IntegerAttr(axis));
  };
  // A final state of a layer of zero steps never occurs: T >= 1 here.
  auto stacked = [&](std::vector<Value> &states) {
    SmallVector<Value> parts;
    for (Value s : states)
      parts.push_back(b.reshape(s, {1, batch, hidden}));
    Value all = concat(parts, 0); // [D, B, H]
    return batchFirst && !b.failed ? ctx.transpose(all, {1, 0, 2}) : all;
  };
  if (ctx.hasOutput(0)) {
    SmallVector<Value> perStep;
    for (int64_t t = 0; t < steps; ++t) {
      SmallVector<Value> perDirection;
      for (int64_t d = 0; d < directions; ++d)
        perDirection.push_back(b.reshape(outputs[d][t], {1, 1, batch, hidden}));
      perStep.push_back(concat(perDirection, 1));
    }
    Value y = concat(perStep, 0); // [T, D, B, H]
    if (batchFirst && !b.failed)
      y = ctx.transpose(y, {2, 0, 1, 3}); // [B, T, D, H]
    if (b.failed)
      return failure();
    ctx.setOutput(0, y);
  }
  if (ctx.hasOutput(1)) {
    Value yh = stacked(lastH);
    if (b.failed)
      return failure();
    ctx.setOutput(1, yh);
  }
  if (cell == Cell::LSTM && ctx.hasOutput(2)) {
    Value yc = stacked(lastC); // every LSTM step (T >= 1) sets the cell state
    if (b.failed)
      return failure();
    ctx.setOutput(2, yc);
  }
  return success();
}

template <Cell C> LogicalResult convertRecurrent(ImportContext &ctx) {
  return RecurrentBuilder(ctx, C).build();
}

} // namespace

void registerRecurrentConverters(ConverterTable &table) {
  table["LSTM"] = convertRecurrent<Cell::LSTM>;
  table["GRU"] = convertRecurrent<Cell::GRU>;
  table["RNN"] = convertRecurrent<Cell::RNN>;
}

} // namespace tfcc::onnx_import
