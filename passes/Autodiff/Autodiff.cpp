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

#include "dialects/graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

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

/// Builds one train step function.
class TrainStepGenerator {
public:
  TrainStepGenerator(ModuleOp module, SymbolTable &symbols,
                     bool dynamicLossScale)
      : module(module), symbols(symbols), dynamicLossScale(dynamicLossScale) {}

  LogicalResult generate(TrainStepOp step);

private:
  /// A new non-trainable variable named `name` (made unique), every element
  /// `initial`; returns its symbol.
  StringAttr createVariable(StringRef name, RankedTensorType type,
                            double initial = 0.0);
  LogicalResult inlineCalls(func::FuncOp func);
  LogicalResult enterTrainingMode(func::FuncOp func, Value step);
  /// The gradient of the loss with respect to every trainable variable
  /// read in `func`, in the module's variable order; with `seed`, of the
  /// loss times `seed` (a 0-D tensor of the loss's type).
  FailureOr<llvm::MapVector<StringAttr, Value>>
  differentiate(func::FuncOp func, Value loss, Value seed = {});

  ModuleOp module;
  SymbolTable &symbols;
  bool dynamicLossScale;
  /// graph.assign ops to emit at the end: (variable, new value).
  SmallVector<std::pair<StringAttr, Value>> pendingAssigns;
  /// The first read of each variable in the function.
  llvm::DenseMap<StringAttr, Value> reads;
};

StringAttr TrainStepGenerator::createVariable(StringRef name,
                                              RankedTensorType type,
                                              double initial) {
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
  return symbols.insert(variable);
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

LogicalResult TrainStepGenerator::enterTrainingMode(func::FuncOp func,
                                                    Value step) {
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
      // moving = moving * momentum + batch * (1 - momentum)
      double momentum = bn.getMomentum().convertToFloat();
      for (auto [moving, batch] : {std::pair(bn.getMean(), mean),
                                   std::pair(bn.getVariance(), variance)}) {
        StringAttr name = readVariable(moving);
        if (!name)
          continue;
        Value updated = g.add(g.mul(moving, g.scalar(momentum, element)),
                              g.mul(batch, g.scalar(1.0 - momentum, element)));
        pendingAssigns.push_back(
            {name, g.reshape(updated, GraphBuilder::typeOf(moving))});
      }
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

LogicalResult TrainStepGenerator::generate(TrainStepOp step) {
  auto lossFn = symbols.lookup<func::FuncOp>(step.getLoss());
  if (!lossFn || lossFn.isExternal() || !lossFn.getBody().hasOneBlock())
    return step.emitOpError() << "loss " << step.getLossAttr()
                              << " must be a func.func with one block";
  std::string name = step.getSymName().str();
  Attribute optimizer = step.getOptimizer();
  std::optional<double> clipNorm;
  if (std::optional<APFloat> clip = step.getClipNorm())
    clipNorm = clip->convertToDouble();
  Location loc = step.getLoc();

  // The function takes the place of the train_step op.
  Block::iterator where = std::next(Block::iterator(step));
  Block *moduleBody = step->getBlock();
  symbols.erase(step);
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
  if (failed(inlineCalls(func)))
    return failure();
  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();
  Value loss = terminator->getOperand(0);

  auto i64Scalar =
      RankedTensorType::get({}, IntegerType::get(module.getContext(), 64));
  StringAttr stepName = createVariable(name + "/step", i64Scalar);
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Value stepValue = b.create<ReadOp>(
      loc, i64Scalar, FlatSymbolRefAttr::get(stepName));
  if (failed(enterTrainingMode(func, stepValue)))
    return failure();
  for (Operation &op : body)
    if (auto read = dyn_cast<ReadOp>(op))
      reads.try_emplace(read.getVariableAttr().getAttr(), read.getValue());

  // Dynamic loss scaling: the gradients of loss * S, divided by S.
  auto f32Scalar = RankedTensorType::get({}, b.getF32Type());
  StringAttr scaleName, goodStepsName;
  Value scale, goodSteps;
  if (dynamicLossScale) {
    if (GraphBuilder::elementOf(loss) != f32Scalar.getElementType())
      return step.emitOpError()
             << "dynamic loss scaling needs an f32 loss, not "
             << GraphBuilder::typeOf(loss);
    scaleName = createVariable(name + "/loss_scale", f32Scalar, 32768.0);
    goodStepsName = createVariable(name + "/good_steps", i64Scalar);
    b.setInsertionPointAfterValue(stepValue);
    scale = b.create<ReadOp>(loc, f32Scalar, FlatSymbolRefAttr::get(scaleName));
    goodSteps =
        b.create<ReadOp>(loc, i64Scalar, FlatSymbolRefAttr::get(goodStepsName));
  }
  FailureOr<llvm::MapVector<StringAttr, Value>> gradients =
      differentiate(func, loss, scale);
  if (failed(gradients))
    return failure();

  b.setInsertionPoint(terminator);
  GraphBuilder g(b, loc);
  Value nextStep = g.add(stepValue, g.scalar(1.0, i64Scalar.getElementType()));
  // Whether every unscaled gradient is finite: the sum of g * 0 over all of
  // them is 0, or NaN when any is infinite or NaN.
  Value finite;
  if (dynamicLossScale) {
    Value inverse = g.div(g.scalar(1.0, b.getF32Type()), scale);
    Value zeros;
    for (auto &[var, grad] : *gradients) {
      grad = g.mul(grad, g.cast(inverse, GraphBuilder::elementOf(grad)));
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
    pendingAssigns.push_back({scaleName, newScale});
    pendingAssigns.push_back({goodStepsName, newGoodSteps});
  }
  // An update that a non-finite gradient skips keeps the current value.
  auto unlessSkipped = [&](Value updated, Value current) {
    return finite ? g.select(finite, updated, current) : updated;
  };

  // tf.clip_by_global_norm: g * clip_norm / max(global_norm, clip_norm).
  if (clipNorm && !gradients->empty()) {
    Type normType = GraphBuilder::elementOf(gradients->front().second);
    Value total;
    for (auto &[var, grad] : *gradients) {
      int64_t rank = GraphBuilder::typeOf(grad).getRank();
      SmallVector<int64_t> axes;
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
      Value sum = g.cast(g.reduceSum(g.square(grad), axes, false), normType);
      total = total ? g.add(total, sum) : sum;
    }
    Value clip = g.scalar(*clipNorm, normType);
    Value factor = g.div(clip, g.maximum(g.sqrt(total), clip));
    for (auto &[var, grad] : *gradients)
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
  for (auto &entry : *gradients)
    if (GraphBuilder::elementOf(entry.second).isF64())
      rateElement = b.getF64Type();
  auto rateType = RankedTensorType::get({}, rateElement);
  StringAttr rateName =
      createVariable(name + "/learning_rate", rateType, initialRate);
  Value rate = b.create<ReadOp>(
      NameLoc::get(b.getStringAttr("optimizer/learning_rate"), loc), rateType,
      FlatSymbolRefAttr::get(rateName));
  llvm::DenseMap<Type, Value> rates; // the rate in each element type
  rates[rateElement] = rate;

  // The optimizer update of each variable, with its slots.
  llvm::DenseMap<Type, Value> adamStepSizes;
  for (auto &entry : *gradients) {
    StringAttr var = entry.first;
    Value grad = entry.second;
    // Named as TensorFlow scopes them, for profiles and graph views.
    g.setLocation(NameLoc::get(b.getStringAttr("optimizer/" + var.str()), loc));
    Value current = reads.lookup(var);
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
  pendingAssigns.push_back({stepName, unlessSkipped(nextStep, stepValue)});
  if (g.failed())
    return failure();
  for (auto &[var, value] : pendingAssigns)
    b.create<AssignOp>(
        NameLoc::get(b.getStringAttr("optimizer/" + var.str()), loc),
        FlatSymbolRefAttr::get(var), value);
  return success();
}

struct AutodiffPass : mlir::tfcc::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<TrainStepOp> steps(module.getOps<TrainStepOp>());
    for (TrainStepOp step : steps) {
      TrainStepGenerator generator(module, symbols, dynamicLossScale);
      if (failed(generator.generate(step)))
        return signalPassFailure();
    }
  }
};

} // namespace
