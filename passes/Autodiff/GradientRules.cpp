//===- GradientRules.cpp - the gradient of each differentiable graph op ---===//
//
// Each rule maps the gradient dy of an op's result to the gradients of the
// operands it is asked for, with spec ops where they suffice (matmuls with
// transposes, broadcasts, selects) and the compiler-internal gradient ops
// otherwise (convolution, pooling, resize, gather). docs/autodiff.md lists
// the formulas.
//
//===----------------------------------------------------------------------===//

#include "passes/Autodiff/Autodiff.h"
#include "passes/NodeNames.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::tfcc::autodiff;

namespace {

SmallVector<int64_t> intsOf(ArrayAttr array) {
  SmallVector<int64_t> values;
  for (Attribute a : array)
    values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

SmallVector<int64_t> range(int64_t begin, int64_t end) {
  SmallVector<int64_t> values;
  for (int64_t i = begin; i < end; ++i)
    values.push_back(i);
  return values;
}

int64_t normalized(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Applies the rules; `set(i, value)` records operand i's gradient when it
/// is wanted.
class Rules {
public:
  Rules(Operation *op, Value dy, ArrayRef<bool> wanted, GraphBuilder &g,
        SmallVectorImpl<Value> &grads)
      : op(op), dy(dy), wanted(wanted), g(g), grads(grads) {}

  LogicalResult run();

private:
  bool want(unsigned i) const { return i < wanted.size() && wanted[i]; }
  /// Records the gradient of operand i, brought to the operand's type
  /// (summed over broadcast dimensions).
  void set(unsigned i, llvm::function_ref<Value()> compute) {
    if (!want(i))
      return;
    Value value = compute();
    grads[i] = g.unbroadcast(value, GraphBuilder::typeOf(op->getOperand(i)));
  }
  LogicalResult noRule(const Twine &why = "") {
    InFlightDiagnostic diag = op->emitError()
                              << "no gradient rule for '" << op->getName()
                              << "'";
    if (!why.isTriviallyEmpty())
      diag << ": " << why;
    return failure();
  }
  Value x(unsigned i = 0) { return op->getOperand(i); }
  Value y() { return op->getResult(0); }
  Value zero() { return g.scalarLike(0.0, dy); }
  Value c(double v) { return g.scalarLike(v, dy); }
  /// dy where lo < x < hi, else 0 (strict bounds, as TF's relu6 gradient).
  Value between(Value input, double lo, double hi, Value inside) {
    return g.select(g.compare(input, c(lo), "gt"),
                    g.select(g.compare(input, c(hi), "lt"), inside, zero()),
                    zero());
  }
  /// `value` (the shape of a reduction's result) reshaped with the reduced
  /// axes kept as size 1.
  Value keepDims(Value value, Value input, ArrayRef<int64_t> axes,
                 bool alreadyKept) {
    if (alreadyKept)
      return value;
    SmallVector<int64_t> shape(GraphBuilder::typeOf(input).getShape());
    for (int64_t axis : axes)
      shape[axis] = 1;
    return g.reshape(value, RankedTensorType::get(
                                shape, GraphBuilder::elementOf(value)));
  }
  SmallVector<int64_t> reductionAxes(ArrayAttr axesAttr, Value input) {
    int64_t rank = GraphBuilder::typeOf(input).getRank();
    SmallVector<int64_t> axes;
    for (int64_t a : intsOf(axesAttr))
      axes.push_back(normalized(a, rank));
    llvm::sort(axes);
    return axes;
  }
  /// Spreads dy over the elements equal to the reduction's result, shared
  /// equally among ties (TF's reduce_max/min gradient).
  void extremumGradient(Value input, Value result, ArrayRef<int64_t> axes,
                        bool kept) {
    set(0, [&] {
      Value yk = keepDims(result, input, axes, kept);
      Value dyk = keepDims(dy, input, axes, kept);
      Value hits = g.cast(g.compare(input, yk, "eq"),
                          GraphBuilder::elementOf(input));
      Value count = g.reduceSum(hits, axes, /*keepDims=*/true);
      return g.mul(g.div(hits, count), dyk);
    });
  }

  LogicalResult matmul(MatmulOp op);
  LogicalResult dense(DenseOp op);
  LogicalResult convolution(Operation *op, Value input, Value kernel,
                            bool hasBias, ArrayAttr strides,
                            ArrayAttr dilations, StringRef padding,
                            int64_t groups, bool depthwise);
  LogicalResult sliceGradient(SliceOp op);
  LogicalResult losses(Operation *op);

  Operation *op;
  Value dy;
  ArrayRef<bool> wanted;
  GraphBuilder &g;
  SmallVectorImpl<Value> &grads;
};

LogicalResult Rules::matmul(MatmulOp mm) {
  Value a = mm.getLhs(), b = mm.getRhs();
  bool ta = mm.getTransposeA(), tb = mm.getTransposeB();
  // Y = op(A) op(B): the four transpose cases of dA and dB.
  set(0, [&] {
    if (!ta)
      return g.matmul(dy, b, false, !tb);
    return tb ? g.matmul(b, dy, true, true) : g.matmul(b, dy, false, true);
  });
  set(1, [&] {
    if (!tb)
      return g.matmul(a, dy, !ta, false);
    return ta ? g.matmul(dy, a, true, true) : g.matmul(dy, a, true, false);
  });
  return success();
}

LogicalResult Rules::dense(DenseOp d) {
  Value input = d.getX(), kernel = d.getKernel();
  RankedTensorType inputType = GraphBuilder::typeOf(input);
  RankedTensorType dyType = GraphBuilder::typeOf(dy);
  set(0, [&] { return g.matmul(dy, kernel, false, true); });
  set(1, [&] {
    if (inputType.getRank() == 2)
      return g.matmul(input, dy, true, false);
    // Flatten the leading dimensions: dK = x2^T dy2.
    auto flat = [&](Value v, RankedTensorType type) {
      int64_t rows = 1;
      for (int64_t d : type.getShape().drop_back())
        rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows)
                   ? ShapedType::kDynamic
                   : rows * d;
      return g.reshape(v, RankedTensorType::get({rows, type.getShape().back()},
                                                type.getElementType()));
    };
    return g.matmul(flat(input, inputType), flat(dy, dyType), true, false);
  });
  if (d.getBias())
    set(2, [&] { return g.reduceSum(dy, range(0, dyType.getRank() - 1), false); });
  return success();
}

LogicalResult Rules::convolution(Operation *conv, Value input, Value kernel,
                                 bool hasBias, ArrayAttr strides,
                                 ArrayAttr dilations, StringRef padding,
                                 int64_t groups, bool depthwise) {
  (void)conv;
  OpBuilder &b = g.builder();
  RankedTensorType inputType = GraphBuilder::typeOf(input);
  RankedTensorType kernelType = GraphBuilder::typeOf(kernel);
  if (ShapedType::isDynamic(inputType.getDimSize(1)) ||
      ShapedType::isDynamic(inputType.getDimSize(2)) ||
      ShapedType::isDynamic(inputType.getDimSize(3)) ||
      !kernelType.hasStaticShape())
    return noRule("the input's spatial and channel sizes and the kernel "
                  "must be static");
  // depthwise_conv2d is conv2d with groups = channels and the kernel
  // [kh, kw, c, m] read as [kh, kw, 1, c * m] (output channel c * m + mi).
  RankedTensorType convKernelType = kernelType;
  if (depthwise) {
    groups = kernelType.getDimSize(2);
    convKernelType = RankedTensorType::get(
        {kernelType.getDimSize(0), kernelType.getDimSize(1), 1,
         kernelType.getDimSize(2) * kernelType.getDimSize(3)},
        kernelType.getElementType());
  }
  Location loc = g.location();
  set(0, [&] {
    Value convKernel = g.reshape(kernel, convKernelType);
    return b.create<Conv2DBackpropInputOp>(
        loc, inputType, dy, convKernel,
        b.getI64ArrayAttr({inputType.getDimSize(1), inputType.getDimSize(2)}),
        strides, dilations, b.getStringAttr(padding),
        b.getI64IntegerAttr(groups));
  });
  set(1, [&] {
    Value dk = b.create<Conv2DBackpropFilterOp>(
        loc, convKernelType, input, dy,
        b.getI64ArrayAttr({kernelType.getDimSize(0), kernelType.getDimSize(1)}),
        strides, dilations, b.getStringAttr(padding),
        b.getI64IntegerAttr(groups));
    return g.reshape(dk, kernelType);
  });
  if (hasBias)
    set(2, [&] { return g.reduceSum(dy, {0, 1, 2}, false); });
  return success();
}

LogicalResult Rules::sliceGradient(SliceOp s) {
  RankedTensorType inputType = GraphBuilder::typeOf(s.getX());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> starts = intsOf(s.getStarts()),
                       limits = intsOf(s.getLimits());
  SmallVector<int64_t> strides = s.getStrides() ? intsOf(*s.getStrides())
                                                : SmallVector<int64_t>(rank, 1);
  // Per dimension: spread the elements `stride` apart (reshape to [k, 1],
  // pad to [k, stride], merge), then pad to the input's size.
  Value current = dy;
  SmallVector<int64_t> pads;
  bool trim = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = inputType.getDimSize(d);
    bool whole = starts[d] == 0 && (limits[d] == -1 || limits[d] == dim) &&
                 strides[d] == 1;
    if (whole) {
      pads.append({0, 0});
      continue;
    }
    if (ShapedType::isDynamic(dim))
      return noRule("dimension " + llvm::Twine(d) +
                    " is dynamic and only partly sliced");
    int64_t limit = limits[d] == -1 ? dim : limits[d];
    int64_t count = (limit - starts[d] + strides[d] - 1) / strides[d];
    int64_t length = count;
    if (strides[d] > 1 && count > 0) {
      RankedTensorType type = GraphBuilder::typeOf(current);
      SmallVector<int64_t> split(type.getShape());
      split.insert(split.begin() + d + 1, 1);
      if (llvm::count_if(split, ShapedType::isDynamic) > 1)
        return noRule("strided slices need at most one dynamic dimension");
      current = g.reshape(current, RankedTensorType::get(
                                       split, type.getElementType()));
      SmallVector<int64_t> spread(2 * (rank + 1), 0);
      spread[2 * (d + 1) + 1] = strides[d] - 1;
      current = g.pad(current, spread);
      SmallVector<int64_t> merged(type.getShape());
      merged[d] = count * strides[d];
      current = g.reshape(current, RankedTensorType::get(
                                       merged, type.getElementType()));
      length = count * strides[d];
    }
    int64_t high = dim - starts[d] - length;
    trim |= high < 0;
    pads.append({starts[d], std::max<int64_t>(high, 0)});
  }
  current = g.pad(current, pads);
  if (trim) {
    SmallVector<int64_t> limitsAll(rank, -1);
    for (int64_t d = 0; d < rank; ++d)
      if (!inputType.isDynamicDim(d))
        limitsAll[d] = inputType.getDimSize(d);
    current = g.slice(current, SmallVector<int64_t>(rank, 0), limitsAll,
                      SmallVector<int64_t>(rank, 1));
  }
  set(0, [&] { return current; });
  return success();
}

LogicalResult Rules::losses(Operation *lossOp) {
  // Every loss is a mean; dL arrives as tensor<f32>.
  return llvm::TypeSwitch<Operation *, LogicalResult>(lossOp)
      .Case([&](SparseSoftmaxCrossEntropyOp l) -> LogicalResult {
        Value logits = l.getLogits(), labels = l.getLabels();
        RankedTensorType logitsType = GraphBuilder::typeOf(logits);
        Type element = logitsType.getElementType();
        int64_t classes = logitsType.getDimSize(1);
        if (ShapedType::isDynamic(classes))
          return noRule("the class count must be static");
        set(0, [&] {
          // (softmax(logits) - onehot(labels)) * dL / n
          Value scale = g.div(g.cast(dy, element),
                              g.elementCount(logits, {0}, element));
          RankedTensorType labelsType = GraphBuilder::typeOf(labels);
          Value column = g.reshape(
              labels, RankedTensorType::get({labelsType.getDimSize(0), 1},
                                            labelsType.getElementType()));
          SmallVector<double> iota;
          for (int64_t i = 0; i < classes; ++i)
            iota.push_back(double(i));
          Value classIds = g.constant(
              RankedTensorType::get({classes}, labelsType.getElementType()),
              iota);
          Value onehot =
              g.cast(g.compare(column, classIds, "eq"), element);
          return g.mul(g.sub(g.softmax(logits, -1), onehot), scale);
        });
        return success();
      })
      .Case([&](SoftmaxCrossEntropyOp l) -> LogicalResult {
        Value logits = l.getLogits(), targets = l.getTargets();
        Type element = GraphBuilder::elementOf(logits);
        Value scale = g.div(g.cast(dy, element),
                            g.elementCount(logits, {0}, element));
        // dlogits = (softmax * sum(p) - p) / n, dp = -log_softmax / n.
        set(0, [&] {
          Value total = g.reduceSum(targets, {1}, true);
          return g.mul(g.sub(g.mul(g.softmax(logits, -1), total), targets),
                       scale);
        });
        set(1, [&] { return g.mul(g.neg(g.logSoftmax(logits, -1)), scale); });
        return success();
      })
      .Case([&](MeanSquaredErrorOp l) -> LogicalResult {
        Value a = l.getPrediction(), b = l.getTarget();
        Type element = GraphBuilder::elementOf(a);
        Value diff = g.sub(a, b);
        int64_t rank = GraphBuilder::typeOf(diff).getRank();
        Value scale = g.div(g.mul(g.cast(dy, element), g.scalar(2.0, element)),
                            g.elementCount(diff, range(0, rank), element));
        Value grad = g.mul(diff, scale);
        set(0, [&] { return grad; });
        set(1, [&] { return g.neg(grad); });
        return success();
      })
      .Default([&](Operation *) { return noRule(); });
}

LogicalResult Rules::run() {
  grads.assign(op->getNumOperands(), Value());
  auto unary = [&](llvm::function_ref<Value()> compute) {
    set(0, compute);
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // Training batch norm: %moments are the statistics of %x, so %x gets
      // the whole gradient and %moments none.
      .Case([&](BatchNormTrainOp bn) {
        OpBuilder &b = g.builder();
        Location loc = g.location();
        Value moments = bn.getMoments();
        auto momentsType = GraphBuilder::typeOf(moments);
        int64_t channels = momentsType.getShape().back();
        auto vectorType =
            RankedTensorType::get({channels}, momentsType.getElementType());
        Value sums = b.create<BatchNormGradSumsOp>(loc, momentsType, x(0), dy,
                                                   moments);
        auto row = [&](Value rows, int64_t r) {
          return g.reshape(g.slice(rows, {r, 0}, {r + 1, channels}, {1, 1}),
                           vectorType);
        };
        set(0, [&] {
          return b.create<BatchNormTrainGradOp>(loc, x(0).getType(), x(0), dy,
                                                moments, bn.getGamma(), sums,
                                                bn.getEpsilonAttr());
        });
        set(2, [&] {
          Value epsilon = c(bn.getEpsilon().convertToFloat());
          return g.mul(row(sums, 1), g.rsqrt(g.add(row(moments, 1), epsilon)));
        });
        set(3, [&] { return row(sums, 0); });
        return success();
      })
      // Broadcasting binaries.
      .Case([&](AddOp) {
        set(0, [&] { return dy; });
        set(1, [&] { return dy; });
        return success();
      })
      .Case([&](SubOp) {
        set(0, [&] { return dy; });
        set(1, [&] { return g.neg(dy); });
        return success();
      })
      .Case([&](MulOp) {
        set(0, [&] { return g.mul(dy, x(1)); });
        set(1, [&] { return g.mul(dy, x(0)); });
        return success();
      })
      .Case([&](DivOp) {
        set(0, [&] { return g.div(dy, x(1)); });
        set(1, [&] { return g.neg(g.div(g.mul(dy, y()), x(1))); });
        return success();
      })
      .Case<MaximumOp, MinimumOp>([&](auto) {
        // The first operand takes the gradient where it is >= (<=) the
        // second, as TF does.
        StringRef predicate = isa<MaximumOp>(op) ? "ge" : "le";
        set(0, [&] {
          return g.select(g.compare(x(0), x(1), predicate), dy, zero());
        });
        set(1, [&] {
          return g.select(g.compare(x(0), x(1), predicate), zero(), dy);
        });
        return success();
      })
      .Case([&](PowOp) {
        // d/da = b a^(b-1); d/db = y log(a) where a > 0, else 0.
        set(0, [&] {
          return g.mul(dy, g.mul(x(1), g.pow(x(0), g.sub(x(1), c(1.0)))));
        });
        set(1, [&] {
          Value logA = g.select(g.compare(x(0), c(0.0), "gt"), g.log(x(0)),
                                zero());
          return g.mul(dy, g.mul(y(), logA));
        });
        return success();
      })
      // Unary ops.
      .Case([&](NegOp) { return unary([&] { return g.neg(dy); }); })
      .Case([&](AbsOp) {
        return unary([&] {
          return g.select(g.compare(x(), c(0.0), "gt"), dy,
                          g.select(g.compare(x(), c(0.0), "lt"), g.neg(dy),
                                   zero()));
        });
      })
      .Case([&](ExpOp) { return unary([&] { return g.mul(dy, y()); }); })
      .Case([&](LogOp) { return unary([&] { return g.div(dy, x()); }); })
      .Case([&](SqrtOp) {
        return unary([&] { return g.div(g.mul(dy, c(0.5)), y()); });
      })
      .Case([&](RsqrtOp) {
        // -0.5 x^(-3/2) = -0.5 y^3
        return unary([&] {
          return g.mul(dy, g.mul(c(-0.5), g.mul(y(), g.square(y()))));
        });
      })
      .Case([&](SquareOp) {
        return unary([&] { return g.mul(dy, g.mul(x(), c(2.0))); });
      })
      .Case([&](TanhOp) {
        return unary(
            [&] { return g.mul(dy, g.sub(c(1.0), g.square(y()))); });
      })
      .Case([&](SigmoidOp) {
        return unary(
            [&] { return g.mul(dy, g.mul(y(), g.sub(c(1.0), y()))); });
      })
      .Case([&](ReluOp) {
        return unary([&] {
          return g.select(g.compare(x(), c(0.0), "gt"), dy, zero());
        });
      })
      .Case([&](Relu6Op) {
        return unary([&] { return between(x(), 0.0, 6.0, dy); });
      })
      .Case([&](ErfOp) {
        return unary([&] {
          return g.mul(dy, g.mul(c(2.0 / std::sqrt(M_PI)),
                                 g.exp(g.neg(g.square(x())))));
        });
      })
      .Case([&](HardSigmoidOp) {
        return unary(
            [&] { return between(x(), -3.0, 3.0, g.mul(dy, c(1.0 / 6.0))); });
      })
      .Case([&](HardSwishOp) {
        // hard_sigmoid(x) + x / 6 on (-3, 3)
        return unary([&] {
          Value slope = between(x(), -3.0, 3.0, g.mul(x(), c(1.0 / 6.0)));
          return g.mul(dy, g.add(g.hardSigmoid(x()), slope));
        });
      })
      .Case([&](GeluOp gelu) {
        return unary([&] {
          Value in = x();
          if (gelu.getApproximate() == "tanh") {
            // u = k (x + a x^3), t = tanh(u):
            // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 a x^2)
            double k = std::sqrt(2.0 / M_PI), a = 0.044715;
            Value x2 = g.square(in);
            Value u = g.mul(c(k), g.add(in, g.mul(c(a), g.mul(x2, in))));
            Value t = g.tanh(u);
            Value left = g.mul(c(0.5), g.add(c(1.0), t));
            Value right = g.mul(
                g.mul(g.mul(c(0.5 * k), in), g.sub(c(1.0), g.square(t))),
                g.add(c(1.0), g.mul(c(3.0 * a), x2)));
            return g.mul(dy, g.add(left, right));
          }
          // Phi(x) + x phi(x)
          Value cdf = g.mul(c(0.5),
                            g.add(c(1.0), g.erf(g.mul(in, c(M_SQRT1_2)))));
          Value pdf = g.mul(c(1.0 / std::sqrt(2.0 * M_PI)),
                            g.exp(g.mul(g.square(in), c(-0.5))));
          return g.mul(dy, g.add(cdf, g.mul(in, pdf)));
        });
      })
      .Case([&](LeakyReluOp leaky) {
        double alpha = leaky.getAlpha().convertToFloat();
        return unary([&] {
          return g.select(g.compare(x(), c(0.0), "gt"), dy,
                          g.mul(dy, c(alpha)));
        });
      })
      .Case([&](ClipOp clip) {
        // TF: the gradient passes where min <= x <= max.
        double lo = clip.getMin().convertToFloat(),
               hi = clip.getMax().convertToFloat();
        return unary([&] {
          return g.select(g.compare(x(), c(lo), "lt"), zero(),
                          g.select(g.compare(x(), c(hi), "gt"), zero(), dy));
        });
      })
      .Case([&](SoftmaxOp s) {
        int64_t axis = normalized(s.getAxis(), GraphBuilder::typeOf(dy).getRank());
        return unary([&] {
          Value dot = g.reduceSum(g.mul(dy, y()), {axis}, true);
          return g.mul(y(), g.sub(dy, dot));
        });
      })
      .Case([&](LogSoftmaxOp s) {
        int64_t axis = normalized(s.getAxis(), GraphBuilder::typeOf(dy).getRank());
        return unary([&] {
          Value total = g.reduceSum(dy, {axis}, true);
          return g.sub(dy, g.mul(g.exp(y()), total));
        });
      })
      .Case([&](CastOp) {
        return unary([&] { return g.cast(dy, GraphBuilder::elementOf(x())); });
      })
      .Case([&](SelectOp) {
        set(1, [&] { return g.select(x(0), dy, zero()); });
        set(2, [&] { return g.select(x(0), zero(), dy); });
        return success();
      })
      // Products and convolutions.
      .Case([&](MatmulOp mm) { return matmul(mm); })
      .Case([&](DenseOp d) { return dense(d); })
      .Case([&](Conv2DOp conv) {
        return convolution(conv, conv.getX(), conv.getKernel(),
                           bool(conv.getBias()), conv.getStrides(),
                           conv.getDilations(), conv.getPadding(),
                           conv.getGroups(), false);
      })
      .Case([&](DepthwiseConv2DOp conv) {
        return convolution(conv, conv.getX(), conv.getKernel(),
                           bool(conv.getBias()), conv.getStrides(),
                           conv.getDilations(), conv.getPadding(), 1, true);
      })
      // Pooling.
      .Case([&](MaxPool2DOp pool) {
        OpBuilder &b = g.builder();
        return unary([&] {
          return b.create<MaxPool2DGradOp>(
              g.location(), x().getType(), x(), dy, pool.getWindow(),
              pool.getEffectiveStrides(), pool.getPaddingAttr());
        });
      })
      .Case([&](AvgPool2DOp pool) -> LogicalResult {
        RankedTensorType type = GraphBuilder::typeOf(x());
        if (type.isDynamicDim(1) || type.isDynamicDim(2))
          return noRule("the input's spatial dimensions must be static");
        OpBuilder &b = g.builder();
        return unary([&] {
          return b.create<AvgPool2DGradOp>(
              g.location(), type, dy,
              b.getI64ArrayAttr({type.getDimSize(1), type.getDimSize(2)}),
              pool.getWindow(), pool.getEffectiveStrides(),
              pool.getPaddingAttr());
        });
      })
      .Case([&](GlobalAvgPool2DOp) {
        return unary([&] {
          Value kept = keepDims(dy, x(), {1, 2}, false);
          return g.broadcastLike(
              g.div(kept, g.elementCount(x(), {1, 2}, g.elementOf(dy))), x());
        });
      })
      .Case([&](GlobalMaxPool2DOp) {
        extremumGradient(x(), y(), {1, 2}, false);
        return success();
      })
      // Reductions.
      .Case<ReduceSumOp, ReduceMeanOp>([&](auto reduce) {
        SmallVector<int64_t> axes = reductionAxes(reduce.getAxes(), x());
        bool mean = isa<ReduceMeanOp>(op);
        return unary([&] {
          Value kept = keepDims(dy, x(), axes, reduce.getKeepDims());
          if (mean)
            kept = g.div(kept, g.elementCount(x(), axes, g.elementOf(dy)));
          return g.broadcastLike(kept, x());
        });
      })
      .Case<ReduceMaxOp, ReduceMinOp>([&](auto reduce) {
        SmallVector<int64_t> axes = reductionAxes(reduce.getAxes(), x());
        extremumGradient(x(), y(), axes, reduce.getKeepDims());
        return success();
      })
      .Case<SparseSoftmaxCrossEntropyOp, SoftmaxCrossEntropyOp,
            MeanSquaredErrorOp>([&](auto) { return losses(op); })
      // Data movement.
      .Case([&](ReshapeOp) {
        return unary(
            [&] { return g.reshape(dy, GraphBuilder::typeOf(x())); });
      })
      .Case([&](TransposeOp t) {
        SmallVector<int64_t> perm = intsOf(t.getPerm()), inverse(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          inverse[p] = i;
        return unary([&] { return g.transpose(dy, inverse); });
      })
      .Case([&](ConcatOp concat) -> LogicalResult {
        int64_t rank = GraphBuilder::typeOf(dy).getRank();
        int64_t axis = normalized(concat.getAxis(), rank);
        int64_t offset = 0;
        for (unsigned i = 0; i < op->getNumOperands(); ++i) {
          int64_t size = GraphBuilder::typeOf(x(i)).getDimSize(axis);
          if (ShapedType::isDynamic(size))
            return noRule("operand sizes along the axis must be static");
          SmallVector<int64_t> starts(rank, 0), limits(rank, -1);
          starts[axis] = offset;
          limits[axis] = offset + size;
          set(i, [&] {
            return g.slice(dy, starts, limits, SmallVector<int64_t>(rank, 1));
          });
          offset += size;
        }
        return success();
      })
      .Case([&](SliceOp s) { return sliceGradient(s); })
      .Case([&](PadOp p) -> LogicalResult {
        if (p.getMode() != "constant")
          return noRule("mode \"" + p.getMode() + "\" is not differentiated");
        RankedTensorType type = GraphBuilder::typeOf(x());
        SmallVector<int64_t> pads = intsOf(p.getPads());
        int64_t rank = type.getRank();
        SmallVector<int64_t> starts, limits;
        for (int64_t d = 0; d < rank; ++d) {
          starts.push_back(pads[2 * d]);
          if (pads[2 * d + 1] == 0) {
            limits.push_back(-1);
            continue;
          }
          if (type.isDynamicDim(d))
            return noRule("dynamic dimension " + llvm::Twine(d) +
                          " is padded at its end");
          limits.push_back(pads[2 * d] + type.getDimSize(d));
        }
        return unary([&] {
          return g.slice(dy, starts, limits, SmallVector<int64_t>(rank, 1));
        });
      })
      .Case([&](ResizeOp r) -> LogicalResult {
        RankedTensorType type = GraphBuilder::typeOf(x());
        if (type.isDynamicDim(1) || type.isDynamicDim(2))
          return noRule("the input's spatial dimensions must be static");
        OpBuilder &b = g.builder();
        return unary([&] {
          return b.create<ResizeGradOp>(
              g.location(), type, dy,
              b.getI64ArrayAttr({type.getDimSize(1), type.getDimSize(2)}),
              r.getModeAttr(), r.getHalfPixelCentersAttr());
        });
      })
      .Case([&](GatherOp gather) -> LogicalResult {
        RankedTensorType type = GraphBuilder::typeOf(gather.getTable());
        int64_t axis = normalized(gather.getAxis(), type.getRank());
        if (type.isDynamicDim(axis))
          return noRule("the table's size along the axis must be static");
        OpBuilder &b = g.builder();
        set(0, [&] {
          return b.create<GatherGradOp>(
              g.location(), type, dy, gather.getIndices(),
              b.getI64IntegerAttr(axis),
              b.getI64IntegerAttr(type.getDimSize(axis)));
        });
        return success();
      })
      .Default([&](Operation *) { return noRule(); });
}

} // namespace

bool mlir::tfcc::autodiff::propagatesGradient(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return false;
  if (isa<FloorOp, CeilOp, ArgmaxOp, CompareOp, ConstantOp, ReadOp,
          DropoutMaskOp, ElementCountOp>(op))
    return false;
  if (auto castOp = dyn_cast<CastOp>(op))
    return isa<FloatType>(GraphBuilder::elementOf(castOp.getX()));
  return true;
}

/// Where the gradient ops of a node at `loc` go: named "gradients/<node>"
/// (TensorFlow's name scope for them), so that profiles and graph views tell
/// the backward pass from the forward one, at the node's place in its file.
static Location gradientLocation(Location loc) {
  std::vector<std::string> names = tfcc::locationNames(loc);
  if (names.empty())
    return loc;
  Location where = UnknownLoc::get(loc->getContext());
  loc->walk([&](Location l) {
    if (isa<FileLineColLoc>(l)) {
      where = l;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return NameLoc::get(
      StringAttr::get(loc->getContext(), "gradients/" + names.front()), where);
}

LogicalResult mlir::tfcc::autodiff::emitOperandGradients(
    Operation *op, Value dy, ArrayRef<bool> wanted, GraphBuilder &g,
    SmallVectorImpl<Value> &grads) {
  Location saved = g.location();
  g.setLocation(gradientLocation(op->getLoc()));
  LogicalResult result = Rules(op, dy, wanted, g, grads).run();
  g.setLocation(saved);
  if (failed(result) || g.failed())
    return failure();
  return success();
}
