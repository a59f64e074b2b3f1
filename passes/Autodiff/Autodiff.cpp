//===- Autodiff.cpp - tfcc-autodiff: graph.train_step to a function -------===//
//
// For each graph.train_step: clones the loss function (calls inlined) into a
// public function of the step's name, puts dropout and batch_norm in training
// mode, differentiates the loss with respect to every trainable variable it
// reads (reverse mode over the SSA graph), clips the gradients by their
// global norm, applies the optimizer with slot variables, assigns every
// updated variable and the step counter, and returns the loss. The formulas
// are in docs/autodiff.md.
//
//===----------------------------------------------------------------------===//

#include "passes/Autodiff/Autodiff.h"
#include "passes/Passes.h"

#include "dialects/graph/IR/DimNames.h"
#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/TrainStepNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::tfcc::autodiff;

namespace {

/// Deepest chain of calls inlined into a train step (catches recursion).
constexpr unsigned kMaxInlineDepth = 64;

/// A batch-norm moving statistic a step updates:
/// variable <- variable * momentum + batch * (1 - momentum).
struct MovingStatistic {
  StringAttr variable;
  Value batch; // [C]: the batch's mean or biased variance
  double momentum;
  Location loc; // the batch_norm's
};

/// What the forward and backward pass of a function hand to the update.
struct StepValues {
  Value step;             // the step counter's read
  Value scale, goodSteps; // dynamic loss scaling's reads; null without it
  /// The loss's gradient with respect to each trainable variable it depends
  /// on, in module order (divided by the loss scale where there is one).
  llvm::MapVector<StringAttr, Value> gradients;
  SmallVector<MovingStatistic> moving;
  /// A read of each variable the update uses.
  llvm::DenseMap<StringAttr, Value> reads;
};

/// Builds the functions of one graph.train_step: the train step and, when
/// split, its two halves.
class TrainStepGenerator {
public:
  TrainStepGenerator(ModuleOp module, SymbolTable &symbols,
                     bool dynamicLossScale)
      : module(module), symbols(symbols), dynamicLossScale(dynamicLossScale) {}

  LogicalResult generate(TrainStepOp step, bool split);

private:
  /// The non-trainable variable this generator created under `name` (made
  /// unique when taken), every element `initial`; created on first use, so
  /// that a step and its halves share their state.
  StringAttr createVariable(StringRef name, RankedTensorType type,
                            double initial = 0.0);
  /// A public copy of the loss function named `name`, inserted at `where`.
  func::FuncOp cloneLossFunction(func::FuncOp lossFn, StringRef name,
                                 Block *moduleBody, Block::iterator where,
                                 Location loc);
  LogicalResult inlineCalls(func::FuncOp func);
  LogicalResult enterTrainingMode(func::FuncOp func, Value step,
                                  SmallVectorImpl<MovingStatistic> &moving);
  /// The gradient of the loss with respect to every trainable variable
  /// read in `func`, in the module's variable order; with `seed`, of the
  /// loss times `seed` (a 0-D tensor of the loss's type).
  FailureOr<llvm::MapVector<StringAttr, Value>>
  differentiate(func::FuncOp func, Value loss, Value seed = {});
  /// Turns `func` (a copy of the loss function) into the forward and
  /// backward pass of the train step `stepSymbol`: fills `values`.
  LogicalResult forwardAndBackward(func::FuncOp func, StringRef stepSymbol,
                                   StepValues &values);
  /// Emits at `b` the update of a step from `values`: moving statistics,
  /// loss scale, clipping, the optimizer and every graph.assign. Returns the
  /// step counter's new value.
  FailureOr<Value> emitUpdate(OpBuilder &b, Location loc, StringRef stepSymbol,
                              Attribute optimizer,
                              std::optional<double> clipNorm,
                              StepValues &values);
  /// Makes `compute` (from forwardAndBackward) return the loss, the
  /// gradients in one flat vector and the batch statistics in another, and
  /// builds `applyName`, which takes both and updates the state.
  LogicalResult split(func::FuncOp compute, StepValues &computed,
                      StringRef applyName, StringRef stepSymbol,
                      Attribute optimizer, std::optional<double> clipNorm);

  ModuleOp module;
  SymbolTable &symbols;
  bool dynamicLossScale;
  /// The variables created so far, by requested name.
  llvm::StringMap<StringAttr> created;
};

StringAttr TrainStepGenerator::createVariable(StringRef name,
                                              RankedTensorType type,
                                              double initial) {
  if (StringAttr known = created.lookup(name))
    return known;
  OpBuilder b(module.getContext());
  // After the last variable, so that declarations stay together.
  Operation *last = nullptr;
  for (VariableOp v : module.getOps<VariableOp>())
    last = v;
  Block &body = module.getBodyRegion().front();
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(&body);
  Attribute value =
      isa<FloatType>(type.getElementType())
          ? Attribute(b.getFloatAttr(type.getElementType(), initial))
          : Attribute(b.getIntegerAttr(type.getElementType(),
                                       static_cast<int64_t>(initial)));
  auto variable = b.create<VariableOp>(
      module.getLoc(), b.getStringAttr(name), TypeAttr::get(type),
      DenseElementsAttr::get(type, value), b.getBoolAttr(false));
  // Makes the name unique if it is taken.
  StringAttr symbol = symbols.insert(variable);
  created[name] = symbol;
  return symbol;
}

func::FuncOp TrainStepGenerator::cloneLossFunction(func::FuncOp lossFn,
                                                   StringRef name,
                                                   Block *moduleBody,
                                                   Block::iterator where,
                                                   Location loc) {
  auto func = func::FuncOp::create(loc, name, lossFn.getFunctionType());
  for (NamedAttribute attr : lossFn->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName() &&
        attr.getName() != SymbolTable::getVisibilityAttrName() &&
        attr.getName() != lossFn.getFunctionTypeAttrName())
      func->setAttr(attr.getName(), attr.getValue());
  moduleBody->getOperations().insert(where, func);
  symbols.insert(func);
  IRMapping mapping;
  lossFn.getBody().cloneInto(&func.getBody(), mapping);
  return func;
}

LogicalResult TrainStepGenerator::inlineCalls(func::FuncOp func) {
  for (unsigned depth = 0;; ++depth) {
    SmallVector<func::CallOp> calls;
    func.walk([&](func::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    if (depth == kMaxInlineDepth)
      return calls.front().emitError()
             << "calls nested deeper than " << kMaxInlineDepth
             << " in the loss function";
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock())
        return call.emitError() << "cannot inline call to '"
                                << call.getCallee()
                                << "': not a function with one block";
      Block &body = callee.getBody().front();
      IRMapping mapping;
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), call.getOperands()))
        mapping.map(arg, operand);
      OpBuilder b(call);
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      for (auto [result, returned] : llvm::zip(
               call.getResults(), body.getTerminator()->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
      call.erase();
    }
  }
}

/// Reads of a variable, for batch-norm statistics.
StringAttr readVariable(Value v) {
  if (auto read = v.getDefiningOp<ReadOp>())
    return read.getVariableAttr().getAttr();
  return {};
}

LogicalResult TrainStepGenerator::enterTrainingMode(
    func::FuncOp func, Value step, SmallVectorImpl<MovingStatistic> &moving) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<DropoutOp, BatchNormOp, LayerNormOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    GraphBuilder g(b, op->getLoc());
    Value replacement;
    if (auto dropout = dyn_cast<DropoutOp>(op)) {
      // y = x * mask, mask in {0, 1 / (1 - rate)} from (seed, step).
      replacement = dropout.getX();
      if (!dropout.getRate().isZero()) {
        Value mask = b.create<DropoutMaskOp>(
            op->getLoc(), dropout.getX().getType(), dropout.getX(), step,
            dropout.getRateAttr(), dropout.getSeedAttr());
        replacement = g.mul(dropout.getX(), mask);
      }
    } else if (auto bn = dyn_cast<BatchNormOp>(op)) {
      // Batch statistics over every axis but the last (biased variance):
      // graph.moments, then graph.batch_norm_train on them, whose gradient
      // rule is the whole batch-norm gradient in two passes over x and dy
      // (graph.batch_norm_grad_sums, graph.batch_norm_train_grad) instead
      // of the chain rule through each primitive of the formula.
      Value x = bn.getX();
      Type element = GraphBuilder::elementOf(x);
      int64_t channels = GraphBuilder::typeOf(x).getShape().back();
      auto vectorType = RankedTensorType::get({channels}, element);
      auto momentsType = RankedTensorType::get({2, channels}, element);
      Value moments = b.create<MomentsOp>(op->getLoc(), momentsType, x);
      Value gamma = g.reshape(bn.getGamma(), vectorType);
      Value beta = g.reshape(bn.getBeta(), vectorType);
      replacement = b.create<BatchNormTrainOp>(op->getLoc(), x.getType(), x,
                                               moments, gamma, beta,
                                               bn.getEpsilonAttr());
      Value mean =
          g.reshape(g.slice(moments, {0, 0}, {1, channels}, {1, 1}), vectorType);
      Value variance =
          g.reshape(g.slice(moments, {1, 0}, {2, channels}, {1, 1}), vectorType);
      // Updated by the step's update (emitUpdate).
      double momentum = bn.getMomentum().convertToFloat();
      for (auto [movingValue, batch] : {std::pair(bn.getMean(), mean),
                                        std::pair(bn.getVariance(), variance)})
        if (StringAttr name = readVariable(movingValue))
          moving.push_back({name, batch, momentum, op->getLoc()});
    } else if (auto ln = dyn_cast<LayerNormOp>(op)) {
      Value x = ln.getX();
      int64_t rank = GraphBuilder::typeOf(x).getRank();
      int64_t axis = static_cast<int64_t>(ln.getAxis());
      if (axis < 0)
        axis += rank;
      SmallVector<int64_t> axes;
      for (int64_t i = axis; i < rank; ++i)
        axes.push_back(i);
      Type element = GraphBuilder::elementOf(x);
      Value centered = g.sub(x, g.reduceMean(x, axes, true));
      Value variance = g.reduceMean(g.square(centered), axes, true);
      double epsilon = ln.getEpsilon().convertToFloat();
      Value normalized = g.mul(
          centered, g.rsqrt(g.add(variance, g.scalar(epsilon, element))));
      replacement = g.add(g.mul(normalized, ln.getGamma()), ln.getBeta());
    }
    if (g.failed())
      return failure();
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  return success();
}

FailureOr<llvm::MapVector<StringAttr, Value>>
TrainStepGenerator::differentiate(func::FuncOp func, Value loss, Value seed) {
  Block &body = func.getBody().front();
  // Forward: values that depend on a trainable variable.
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, StringAttr> trainableReads;
  for (Operation &op : body.without_terminator()) {
    if (auto read = dyn_cast<ReadOp>(op)) {
      auto variable = symbols.lookup<VariableOp>(read.getVariable());
      if (variable && variable.getTrainable() &&
          isa<FloatType>(variable.getTensorType().getElementType())) {
        active.insert(read.getValue());
        trainableReads[read.getValue()] = read.getVariableAttr().getAttr();
      }
      continue;
    }
    if (propagatesGradient(&op) &&
        llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op.getResult(0));
  }

  llvm::MapVector<StringAttr, Value> gradients;
  if (!active.contains(loss))
    return gradients;

  OpBuilder b(body.getTerminator());
  GraphBuilder g(b, func.getLoc());
  llvm::DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value grad) {
    auto [it, inserted] = grads.try_emplace(v, grad);
    if (!inserted)
      it->second = g.add(it->second, grad);
  };
  accumulate(loss, seed ? seed : g.scalar(1.0, GraphBuilder::elementOf(loss)));

  // Backward, in reverse program order: each op's result gradient is
  // complete once every later user has been processed.
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    if (op->getNumResults() != 1 || isa<ReadOp>(op))
      continue;
    auto it = grads.find(op->getResult(0));
    if (it == grads.end() || !active.contains(op->getResult(0)))
      continue;
    SmallVector<bool> wanted;
    for (Value operand : op->getOperands())
      wanted.push_back(active.contains(operand));
    SmallVector<Value> operandGrads;
    if (failed(emitOperandGradients(op, it->second, wanted, g, operandGrads)))
      return failure();
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads))
      if (grad)
        accumulate(operand, grad);
    if (g.failed())
      return failure();
  }

  // Sum the gradients of every read of a variable, in module order.
  for (VariableOp variable : module.getOps<VariableOp>()) {
    Value total;
    for (Operation &op : body.without_terminator()) {
      auto read = dyn_cast<ReadOp>(op);
      if (!read || read.getVariable() != variable.getSymName())
        continue;
      auto it = grads.find(read.getValue());
      if (it == grads.end())
        continue;
      total = total ? g.add(total, it->second) : it->second;
    }
    if (total)
      gradients[variable.getSymNameAttr()] =
          g.reshape(total, variable.getTensorType());
  }
  if (g.failed())
    return failure();
  return gradients;
}

LogicalResult TrainStepGenerator::forwardAndBackward(func::FuncOp func,
                                                     StringRef stepSymbol,
                                                     StepValues &values) {
  if (failed(inlineCalls(func)))
    return failure();
  Location loc = func.getLoc();
  Block &body = func.getBody().front();
  Value loss = body.getTerminator()->getOperand(0);
  auto i64Scalar =
      RankedTensorType::get({}, IntegerType::get(module.getContext(), 64));
  auto f32Scalar =
      RankedTensorType::get({}, Float32Type::get(module.getContext()));
  StringAttr stepVariable =
      createVariable(stepSymbol.str() + "/step", i64Scalar);
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  values.step =
      b.create<ReadOp>(loc, i64Scalar, FlatSymbolRefAttr::get(stepVariable));
  if (failed(enterTrainingMode(func, values.step, values.moving)))
    return failure();
  for (Operation &op : body)
    if (auto read = dyn_cast<ReadOp>(op))
      values.reads.try_emplace(read.getVariableAttr().getAttr(),
                               read.getValue());

  // Dynamic loss scaling: the gradients of loss * S, divided by S.
  if (dynamicLossScale) {
    StringAttr scaleName =
        createVariable(stepSymbol.str() + "/loss_scale", f32Scalar, 32768.0);
    StringAttr goodStepsName =
        createVariable(stepSymbol.str() + "/good_steps", i64Scalar);
    b.setInsertionPointAfterValue(values.step);
    values.scale =
        b.create<ReadOp>(loc, f32Scalar, FlatSymbolRefAttr::get(scaleName));
    values.goodSteps =
        b.create<ReadOp>(loc, i64Scalar, FlatSymbolRefAttr::get(goodStepsName));
    values.reads.try_emplace(scaleName, values.scale);
    values.reads.try_emplace(goodStepsName, values.goodSteps);
  }
  FailureOr<llvm::MapVector<StringAttr, Value>> gradients =
      differentiate(func, loss, values.scale);
  if (failed(gradients))
    return failure();
  values.gradients = std::move(*gradients);
  if (dynamicLossScale) {
    b.setInsertionPoint(body.getTerminator());
    GraphBuilder g(b, loc);
    Value inverse = g.div(g.scalar(1.0, b.getF32Type()), values.scale);
    for (auto &[var, grad] : values.gradients)
      grad = g.mul(grad, g.cast(inverse, GraphBuilder::elementOf(grad)));
    if (g.failed())
      return failure();
  }
  return success();
}

FailureOr<Value> TrainStepGenerator::emitUpdate(OpBuilder &b, Location loc,
                                                StringRef stepSymbol,
                                                Attribute optimizer,
                                                std::optional<double> clipNorm,
                                                StepValues &values) {
  GraphBuilder g(b, loc);
  auto i64Scalar = RankedTensorType::get({}, b.getI64Type());
  auto f32Scalar = RankedTensorType::get({}, b.getF32Type());
  /// graph.assign ops to emit at the end: (variable, new value).
  SmallVector<std::pair<StringAttr, Value>> pendingAssigns;

  // Batch-norm moving statistics (updated even when a non-finite gradient
  // skips the rest: Keras updates them in the forward pass).
  for (const MovingStatistic &m : values.moving) {
    g.setLocation(m.loc);
    Value current = values.reads.lookup(m.variable);
    Type element = GraphBuilder::elementOf(m.batch);
    Value updated = g.add(g.mul(current, g.scalar(m.momentum, element)),
                          g.mul(m.batch, g.scalar(1.0 - m.momentum, element)));
    pendingAssigns.push_back(
        {m.variable, g.reshape(updated, GraphBuilder::typeOf(current))});
  }
  g.setLocation(loc);

  Value stepValue = values.step;
  Value nextStep = g.add(stepValue, g.scalar(1.0, i64Scalar.getElementType()));
  auto &gradients = values.gradients;
  // Whether every unscaled gradient is finite: the sum of g * 0 over all of
  // them is 0, or NaN when any is infinite or NaN.
  Value finite;
  if (dynamicLossScale) {
    Value scale = values.scale, goodSteps = values.goodSteps;
    Value zeros;
    for (auto &[var, grad] : gradients) {
      int64_t rank = GraphBuilder::typeOf(grad).getRank();
      SmallVector<int64_t> axes;
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
      Value sum =
          g.cast(g.reduceSum(g.mul(grad, g.scalarLike(0.0, grad)), axes, false),
                 b.getF32Type());
      zeros = zeros ? g.add(zeros, sum) : sum;
    }
    finite = zeros ? g.compare(zeros, g.scalar(0.0, b.getF32Type()), "eq")
                   : g.compare(scale, scale, "eq");
    // Finite: count the step, doubling S after 2000 in a row; else halve S
    // (to no less than 1) and start counting again.
    Value counted = g.add(goodSteps, g.scalar(1.0, i64Scalar.getElementType()));
    Value grow =
        g.compare(counted, g.scalar(2000.0, i64Scalar.getElementType()), "ge");
    Value zeroSteps = g.scalar(0.0, i64Scalar.getElementType());
    Value two = g.scalar(2.0, b.getF32Type());
    Value newScale =
        g.select(finite, g.select(grow, g.mul(scale, two), scale),
                 g.maximum(g.div(scale, two), g.scalar(1.0, b.getF32Type())));
    Value newGoodSteps =
        g.select(finite, g.select(grow, zeroSteps, counted), zeroSteps);
    pendingAssigns.push_back({readVariable(scale), newScale});
    pendingAssigns.push_back({readVariable(goodSteps), newGoodSteps});
  }
  // An update that a non-finite gradient skips keeps the current value.
  auto unlessSkipped = [&](Value updated, Value current) {
    return finite ? g.select(finite, updated, current) : updated;
  };

  // tf.clip_by_global_norm: g * clip_norm / max(global_norm, clip_norm).
  if (clipNorm && !gradients.empty()) {
    Type normType = GraphBuilder::elementOf(gradients.front().second);
    Value total;
    for (auto &[var, grad] : gradients) {
      int64_t rank = GraphBuilder::typeOf(grad).getRank();
      SmallVector<int64_t> axes;
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
      Value sum = g.cast(g.reduceSum(g.square(grad), axes, false), normType);
      total = total ? g.add(total, sum) : sum;
    }
    Value clip = g.scalar(*clipNorm, normType);
    Value factor = g.div(clip, g.maximum(g.sqrt(total), clip));
    for (auto &[var, grad] : gradients)
      grad = g.mul(grad, g.cast(factor, GraphBuilder::elementOf(grad)));
  }

  // The learning rate lives in the state, as Keras' optimizer.learning_rate
  // is a variable: a caller may change it between steps (a schedule, through
  // <prefix>_set_variable) and tfcc-train logs it.
  double initialRate =
      isa<SgdAttr>(optimizer)
          ? cast<SgdAttr>(optimizer).getLearningRate().convertToDouble()
          : cast<AdamAttr>(optimizer).getLearningRate().convertToDouble();
  // f32 as Keras', f64 where a variable is f64: each update then rounds the
  // rate once, as a constant of its type did.
  Type rateElement = f32Scalar.getElementType();
  for (auto &entry : gradients)
    if (GraphBuilder::elementOf(entry.second).isF64())
      rateElement = b.getF64Type();
  auto rateType = RankedTensorType::get({}, rateElement);
  StringAttr rateName = createVariable(stepSymbol.str() + "/learning_rate",
                                       rateType, initialRate);
  Value rate = b.create<ReadOp>(
      NameLoc::get(b.getStringAttr("optimizer/learning_rate"), loc), rateType,
      FlatSymbolRefAttr::get(rateName));
  llvm::DenseMap<Type, Value> rates; // the rate in each element type
  rates[rateElement] = rate;

  // The optimizer update of each variable, with its slots.
  llvm::DenseMap<Type, Value> adamStepSizes;
  for (auto &entry : gradients) {
    StringAttr var = entry.first;
    Value grad = entry.second;
    // Named as TensorFlow scopes them, for profiles and graph views.
    g.setLocation(NameLoc::get(b.getStringAttr("optimizer/" + var.str()), loc));
    Value current = values.reads.lookup(var);
    auto type = GraphBuilder::typeOf(current);
    Type element = type.getElementType();
    auto slot = [&](StringRef suffix) {
      StringAttr slotName = createVariable(var.str() + "/" + suffix.str(), type);
      Value value =
          b.create<ReadOp>(loc, type, FlatSymbolRefAttr::get(slotName));
      return std::make_pair(slotName, value);
    };
    auto constant = [&](double v) { return g.scalar(v, element); };
    Value &lr = rates[element];
    if (!lr)
      lr = g.cast(rate, element);
    Value updated;
    if (auto sgd = dyn_cast<SgdAttr>(optimizer)) {
      double momentum = sgd.getMomentum().convertToDouble();
      Value scaled = g.mul(lr, grad);
      if (momentum == 0.0) {
        updated = g.sub(current, scaled);
      } else {
        // m = momentum * m - lr * g; var += m (nesterov: momentum * m - lr * g)
        auto [mName, m] = slot("momentum");
        Value mNew = g.sub(g.mul(constant(momentum), m), scaled);
        pendingAssigns.push_back({mName, unlessSkipped(mNew, m)});
        updated = sgd.getNesterov()
                      ? g.add(current, g.sub(g.mul(constant(momentum), mNew),
                                             scaled))
                      : g.add(current, mNew);
      }
    } else {
      auto adam = cast<AdamAttr>(optimizer);
      double beta1 = adam.getBeta1().convertToDouble();
      double beta2 = adam.getBeta2().convertToDouble();
      double epsilon = adam.getEpsilon().convertToDouble();
      auto [mName, m] = slot("adam_m");
      auto [vName, v] = slot("adam_v");
      Value mNew = g.add(g.mul(constant(beta1), m),
                         g.mul(constant(1.0 - beta1), grad));
      Value vNew = g.add(g.mul(constant(beta2), v),
                         g.mul(constant(1.0 - beta2), g.square(grad)));
      // lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), t = step + 1; once
      // per element type.
      Value &lrT = adamStepSizes[element];
      if (!lrT) {
        Value t = g.cast(nextStep, element);
        lrT = g.div(
            g.mul(lr, g.sqrt(g.sub(constant(1.0), g.pow(constant(beta2), t)))),
            g.sub(constant(1.0), g.pow(constant(beta1), t)));
      }
      updated = g.sub(current, g.div(g.mul(lrT, mNew),
                                     g.add(g.sqrt(vNew), constant(epsilon))));
      pendingAssigns.push_back({mName, unlessSkipped(mNew, m)});
      pendingAssigns.push_back({vName, unlessSkipped(vNew, v)});
    }
    pendingAssigns.push_back(
        {var, unlessSkipped(g.reshape(updated, type), current)});
  }
  g.setLocation(loc);
  Value newStep = unlessSkipped(nextStep, stepValue);
  pendingAssigns.push_back({readVariable(stepValue), newStep});
  if (g.failed())
    return failure();
  for (auto &[var, value] : pendingAssigns)
    b.create<AssignOp>(
        NameLoc::get(b.getStringAttr("optimizer/" + var.str()), loc),
        FlatSymbolRefAttr::get(var), value);
  return newStep;
}

LogicalResult
TrainStepGenerator::split(func::FuncOp compute, StepValues &computed,
                          StringRef applyName, StringRef stepSymbol,
                          Attribute optimizer, std::optional<double> clipNorm) {
  Location loc = compute.getLoc();
  MLIRContext *context = module.getContext();
  if (computed.gradients.empty())
    return emitError(loc) << "cannot split the train step into "
                          << compute.getSymName() << " and " << applyName
                          << ": its loss depends on no trainable variable";
  // One flat vector per kind, f64 where a gradient is f64 (f32 otherwise:
  // 16-bit gradients widen exactly).
  Type flatElement = Float32Type::get(context);
  for (auto &entry : computed.gradients)
    if (GraphBuilder::elementOf(entry.second).isF64())
      flatElement = Float64Type::get(context);
  auto countOf = [](Value v) {
    return GraphBuilder::typeOf(v).getNumElements();
  };
  int64_t gradientCount = 0, statisticCount = 0;
  for (auto &entry : computed.gradients)
    gradientCount += countOf(entry.second);
  for (const MovingStatistic &m : computed.moving)
    statisticCount += countOf(m.batch);
  auto vectorOf = [&](int64_t n) {
    return RankedTensorType::get({n}, flatElement);
  };

  // compute_gradients returns (loss, gradients[, batch statistics]).
  Block &body = compute.getBody().front();
  Operation *terminator = body.getTerminator();
  OpBuilder b(terminator);
  GraphBuilder g(b, loc);
  auto flatten = [&](Value v) {
    return g.reshape(g.cast(v, flatElement), vectorOf(countOf(v)));
  };
  SmallVector<Value> pieces;
  for (auto &entry : computed.gradients)
    pieces.push_back(flatten(entry.second));
  SmallVector<Value> results = {terminator->getOperand(0), g.concat(pieces, 0)};
  pieces.clear();
  for (const MovingStatistic &m : computed.moving)
    pieces.push_back(flatten(m.batch));
  if (!pieces.empty())
    results.push_back(g.concat(pieces, 0));
  if (g.failed())
    return failure();
  b.create<func::ReturnOp>(loc, results);
  terminator->erase();
  SmallVector<Type> resultTypes;
  for (Value v : results)
    resultTypes.push_back(v.getType());
  compute.setFunctionType(
      FunctionType::get(context, compute.getArgumentTypes(), resultTypes));
  auto named = [&](StringRef name) {
    return b.getDictionaryAttr(
        b.getNamedAttr(kArgNameAttr, b.getStringAttr(name)));
  };
  DictionaryAttr lossAttrs = compute.getResultAttrDict(0);
  SmallVector<DictionaryAttr> resultAttrs = {
      lossAttrs && lossAttrs.get(kArgNameAttr) ? lossAttrs : named("loss")};
  resultAttrs.push_back(named("gradients"));
  if (results.size() == 3)
    resultAttrs.push_back(named("batch_statistics"));
  compute.setAllResultAttrs(resultAttrs);

  // apply_gradients(gradients[, batch statistics]) -> the new step counter.
  SmallVector<Type> argTypes = {vectorOf(gradientCount)};
  SmallVector<DictionaryAttr> argAttrs = {named("gradients")};
  if (statisticCount) {
    argTypes.push_back(vectorOf(statisticCount));
    argAttrs.push_back(named("batch_statistics"));
  }
  auto i64Scalar = RankedTensorType::get({}, b.getI64Type());
  auto apply = func::FuncOp::create(
      loc, applyName, FunctionType::get(context, argTypes, {i64Scalar}));
  apply.setAllArgAttrs(argAttrs);
  apply.setAllResultAttrs(ArrayRef<DictionaryAttr>{named("step")});
  module.getBody()->getOperations().insert(std::next(Block::iterator(compute)),
                                           apply);
  symbols.insert(apply);
  Block *entry = apply.addEntryBlock();
  b.setInsertionPointToStart(entry);
  StepValues values;
  auto readOf = [&](StringAttr variable) {
    Value &read = values.reads[variable];
    if (!read) {
      auto type = symbols.lookup<VariableOp>(variable).getTensorType();
      read = b.create<ReadOp>(loc, type, FlatSymbolRefAttr::get(variable));
    }
    return read;
  };
  values.step = readOf(readVariable(computed.step));
  if (dynamicLossScale) {
    values.scale = readOf(readVariable(computed.scale));
    values.goodSteps = readOf(readVariable(computed.goodSteps));
  }
  // Each piece back in its variable's shape and element type.
  auto unflatten = [&](Value flat, int64_t &offset, Value like) {
    int64_t n = countOf(like);
    Value piece = g.slice(flat, {offset}, {offset + n}, {1});
    offset += n;
    return g.cast(g.reshape(piece, RankedTensorType::get(
                                       GraphBuilder::typeOf(like).getShape(),
                                       flatElement)),
                  GraphBuilder::elementOf(like));
  };
  int64_t offset = 0;
  for (auto &[variable, grad] : computed.gradients) {
    readOf(variable);
    values.gradients[variable] = unflatten(entry->getArgument(0), offset, grad);
  }
  offset = 0;
  for (const MovingStatistic &m : computed.moving) {
    readOf(m.variable);
    values.moving.push_back({m.variable,
                             unflatten(entry->getArgument(1), offset, m.batch),
                             m.momentum, m.loc});
  }
  if (g.failed())
    return failure();
  FailureOr<Value> newStep =
      emitUpdate(b, loc, stepSymbol, optimizer, clipNorm, values);
  if (failed(newStep))
    return failure();
  b.create<func::ReturnOp>(loc, *newStep);
  return success();
}

LogicalResult TrainStepGenerator::generate(TrainStepOp step, bool splitStep) {
  auto lossFn = symbols.lookup<func::FuncOp>(step.getLoss());
  if (!lossFn || lossFn.isExternal() || !lossFn.getBody().hasOneBlock())
    return step.emitOpError() << "loss " << step.getLossAttr()
                              << " must be a func.func with one block";
  FunctionType lossType = lossFn.getFunctionType();
  if (dynamicLossScale && lossType.getNumResults() &&
      !getElementTypeOrSelf(lossType.getResult(0)).isF32())
    return step.emitOpError() << "dynamic loss scaling needs an f32 loss, not "
                              << lossType.getResult(0);
  std::string name = step.getSymName().str();
  std::string computeName = computeGradientsName(name);
  std::string applyName = applyGradientsName(name);
  if (splitStep)
    for (const std::string &half : {computeName, applyName})
      if (symbols.lookup(half))
        return step.emitOpError()
               << "cannot be split into @" << computeName << " and @"
               << applyName << ": the module already has a symbol @" << half;
  Attribute optimizer = step.getOptimizer();
  std::optional<double> clipNorm;
  if (std::optional<APFloat> clip = step.getClipNorm())
    clipNorm = clip->convertToDouble();
  Location loc = step.getLoc();

  // The function takes the place of the train_step op.
  Block::iterator where = std::next(Block::iterator(step));
  Block *moduleBody = step->getBlock();
  symbols.erase(step);
  func::FuncOp func = cloneLossFunction(lossFn, name, moduleBody, where, loc);
  StepValues values;
  if (failed(forwardAndBackward(func, name, values)))
    return failure();
  OpBuilder b(func.getBody().front().getTerminator());
  if (failed(emitUpdate(b, loc, name, optimizer, clipNorm, values)))
    return failure();
  if (!splitStep)
    return success();

  // Its two halves, after it, sharing its state.
  func::FuncOp compute = cloneLossFunction(
      lossFn, computeName, moduleBody, std::next(Block::iterator(func)), loc);
  StepValues computed;
  if (failed(forwardAndBackward(compute, name, computed)))
    return failure();
  return split(compute, computed, applyName, name, optimizer, clipNorm);
}

struct AutodiffPass : mlir::tfcc::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<TrainStepOp> steps(module.getOps<TrainStepOp>());
    for (TrainStepOp step : steps) {
      TrainStepGenerator generator(module, symbols, dynamicLossScale);
      if (failed(generator.generate(step, splitStep)))
        return signalPassFailure();
    }
  }
};

} // namespace
