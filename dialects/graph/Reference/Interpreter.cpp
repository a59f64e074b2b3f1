//===- Interpreter.cpp - reference interpreter of the graph IR ------------===//
//
// Walks a function's ops in order, keeping one Tensor per SSA value, and
// hands each graph op to its evaluator (Evaluators.h). After every op the
// result is checked against the op's type and its elements are rounded to
// the element kind (f32: to float; f64: kept; integers: wrapped to their
// width).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Reference/Interpreter.h"
#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/HalfFloat.h"
#include "dialects/graph/IR/Initializers.h"
#include "dialects/graph/Reference/Evaluators.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::graph;

namespace tfcc::ref {
namespace {

/// Deepest chain of func.call the interpreter follows (catches recursion).
constexpr unsigned kMaxCallDepth = 64;

std::string locationOf(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->getLoc().print(os);
  return text;
}

std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The values of a dense or dense_resource elements attribute. Resource
/// blobs hold little-endian data (one byte per i1), read on a little-endian
/// host.
FailureOr<Tensor> tensorFromAttr(Attribute attr, std::string &why) {
  auto shaped = llvm::dyn_cast<ElementsAttr>(attr);
  if (!shaped) {
    why = "unsupported constant attribute";
    return failure();
  }
  RankedTensorType type =
      llvm::dyn_cast<RankedTensorType>(shaped.getShapedType());
  std::optional<ElementKind> kind =
      type ? elementKindOf(type.getElementType()) : std::nullopt;
  if (!kind || !type.hasStaticShape()) {
    why = "unsupported constant type " + typeToString(shaped.getType());
    return failure();
  }
  Tensor tensor = Tensor::zeros(*kind, type.getShape().vec());

  if (auto dense = llvm::dyn_cast<DenseElementsAttr>(attr)) {
    size_t i = 0;
    if (*kind == ElementKind::F32) {
      for (float value : dense.getValues<float>())
        tensor.data[i++] = value;
    } else if (*kind == ElementKind::F64) {
      for (double value : dense.getValues<double>())
        tensor.data[i++] = value;
    } else if (*kind == ElementKind::F16 || *kind == ElementKind::BF16) {
      for (const APFloat &value : dense.getValues<APFloat>())
        tensor.data[i++] = value.convertToDouble();
    } else {
      for (const APInt &value : dense.getValues<APInt>())
        tensor.data[i++] =
            *kind == ElementKind::I1 ? static_cast<double>(value.getBoolValue())
            : *kind == ElementKind::UI8
                ? static_cast<double>(value.getZExtValue())
                : static_cast<double>(value.getSExtValue());
    }
    return tensor;
  }

  if (auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      why = "dense_resource blob '" + resource.getRawHandle().getKey().str() +
            "' is not loaded";
      return failure();
    }
    ArrayRef<char> bytes = blob->getData();
    size_t width = *kind == ElementKind::I1 || *kind == ElementKind::I8 ||
                           *kind == ElementKind::UI8
                       ? 1
                   : *kind == ElementKind::F16 || *kind == ElementKind::BF16 ? 2
                   : *kind == ElementKind::I64 || *kind == ElementKind::F64  ? 8
                                                                            : 4;
    if (bytes.size() != width * tensor.data.size()) {
      why = "dense_resource blob '" + resource.getRawHandle().getKey().str() +
            "' has " + std::to_string(bytes.size()) + " bytes, expected " +
            std::to_string(width * tensor.data.size());
      return failure();
    }
    for (size_t i = 0; i < tensor.data.size(); ++i) {
      const char *at = bytes.data() + i * width;
      switch (*kind) {
      case ElementKind::F32: {
        float value;
        std::memcpy(&value, at, 4);
        tensor.data[i] = value;
        break;
      }
      case ElementKind::F64: {
        double value;
        std::memcpy(&value, at, 8);
        tensor.data[i] = value;
        break;
      }
      case ElementKind::I32: {
        int32_t value;
        std::memcpy(&value, at, 4);
        tensor.data[i] = value;
        break;
      }
      case ElementKind::I64: {
        int64_t value;
        std::memcpy(&value, at, 8);
        tensor.data[i] = static_cast<double>(value);
        break;
      }
      case ElementKind::I1:
        tensor.data[i] = *at != 0 ? 1.0 : 0.0;
        break;
      case ElementKind::I8:
        tensor.data[i] = static_cast<int8_t>(*at);
        break;
      case ElementKind::UI8:
        tensor.data[i] = static_cast<uint8_t>(*at);
        break;
      case ElementKind::F16:
      case ElementKind::BF16: {
        uint16_t bits;
        std::memcpy(&bits, at, 2);
        tensor.data[i] =
            halfValue(halfSemantics(*kind == ElementKind::BF16), bits);
        break;
      }
      }
    }
    return tensor;
  }

  why = "unsupported constant attribute";
  return failure();
}

/// Runs the evaluator of graph op `op`; std::nullopt if it is not one the
/// interpreter knows.
std::optional<FailureOr<Tensor>>
dispatch(Operation *op, detail::Operands operands, detail::Report &report) {
  using Result = std::optional<FailureOr<Tensor>>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case<AddOp, SubOp, MulOp, DivOp, ModOp, MaximumOp, MinimumOp, PowOp,
            NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, SquareOp, TanhOp,
            SigmoidOp, ReluOp, Relu6Op, ErfOp, FloorOp, CeilOp, MathOp,
            HardSigmoidOp, HardSwishOp, GeluOp, LeakyReluOp, ClipOp, DropoutOp,
            CastOp, QuantizeOp, DequantizeOp, CompareOp, SelectOp,
            // Convolution.cpp
            MatmulOp, DenseOp, Conv2DOp, DepthwiseConv2DOp, MaxPool2DOp,
            AvgPool2DOp, GlobalAvgPool2DOp, GlobalMaxPool2DOp,
            // Reductions.cpp
            ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ArgmaxOp,
            SoftmaxOp, LogSoftmaxOp, BatchNormOp, LayerNormOp,
            SparseSoftmaxCrossEntropyOp, SoftmaxCrossEntropyOp,
            MeanSquaredErrorOp,
            // Shape.cpp
            ReshapeOp, TransposeOp, ConcatOp, SliceOp, PadOp, ResizeOp,
            GatherOp, GatherElementsOp, TopKIndicesOp, NonMaxSuppressionOp,
            // Training.cpp
            DropoutMaskOp, BroadcastLikeOp, ElementCountOp, MomentsOp,
            BatchNormTrainOp, BatchNormGradSumsOp, BatchNormTrainGradOp,
            Conv2DBackpropInputOp, Conv2DBackpropFilterOp, MaxPool2DGradOp,
            AvgPool2DGradOp, ResizeGradOp, GatherGradOp>(
          [&](auto typedOp) -> Result {
            return detail::evaluate(typedOp, operands, report);
          })
      .Default([](Operation *) -> Result { return std::nullopt; });
}

/// Checks that `tensor` fits `type` (kind and static dimensions).
bool fitsType(const Tensor &tensor, RankedTensorType type) {
  if (elementKindOf(type.getElementType()) != tensor.kind ||
      type.getRank() != tensor.rank())
    return false;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d) && type.getDimSize(d) != tensor.shape[d])
      return false;
  return true;
}

} // namespace

Interpreter::Interpreter(ModuleOp module) : module_(module) {
  for (VariableOp variable : module.getOps<VariableOp>()) {
    Variable &entry = variables_[variable.getSymName()];
    FailureOr<DenseElementsAttr> init = getVariableInitialValue(variable);
    if (failed(init)) {
      entry.error =
          "cannot initialize variable @" + variable.getSymName().str();
      continue;
    }
    FailureOr<Tensor> value = tensorFromAttr(*init, entry.error);
    if (failed(value)) {
      entry.error =
          "variable @" + variable.getSymName().str() + ": " + entry.error;
      continue;
    }
    entry.value = std::move(*value);
    entry.initial = entry.value;
  }
}

void Interpreter::resetVariables() {
  for (auto &entry : variables_)
    entry.second.value = entry.second.initial;
}

std::vector<std::string> Interpreter::variableNames() const {
  std::vector<std::string> names;
  ModuleOp module = module_;
  for (VariableOp variable : module.getOps<VariableOp>())
    names.push_back(variable.getSymName().str());
  return names;
}

FailureOr<Tensor> Interpreter::variable(StringRef name) {
  error_.clear();
  auto it = variables_.find(name);
  if (it == variables_.end()) {
    (void)fail("unknown variable @" + name);
    return failure();
  }
  if (!it->second.value) {
    (void)fail(it->second.error);
    return failure();
  }
  return *it->second.value;
}

LogicalResult Interpreter::setVariable(StringRef name, Tensor value) {
  error_.clear();
  auto it = variables_.find(name);
  if (it == variables_.end())
    return fail("unknown variable @" + name);
  auto variable = module_.lookupSymbol<VariableOp>(name);
  if (!variable || !fitsType(value, variable.getTensorType()) ||
      static_cast<int64_t>(value.data.size()) != value.numElements())
    return fail("value " + llvm::Twine(toString(value.kind)) + " " +
                shapeToString(value.shape) + " does not fit variable @" +
                name);
  for (double &element : value.data)
    element = detail::normalizeElement(element, value.kind);
  it->second.value = std::move(value);
  it->second.error.clear();
  return success();
}

FailureOr<std::vector<Tensor>> Interpreter::runSteps(StringRef entry,
                                                     ArrayRef<Tensor> inputs,
                                                     unsigned steps) {
  std::vector<Tensor> firstResults;
  for (unsigned i = 0; i < steps; ++i) {
    FailureOr<std::vector<Tensor>> results = run(entry, inputs);
    if (failed(results))
      return failure();
    if (results->empty())
      return fail("'" + entry + "' returns nothing");
    firstResults.push_back(std::move(results->front()));
  }
  return firstResults;
}

LogicalResult Interpreter::fail(const llvm::Twine &message) {
  error_ = message.str();
  return failure();
}

FailureOr<std::vector<Tensor>> Interpreter::run(StringRef entry,
                                                ArrayRef<Tensor> inputs) {
  error_.clear();
  auto func = module_.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isPrivate() || func.isExternal())
    return fail("no public function '" + entry + "' in the module");
  FunctionType type = func.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return fail("'" + entry + "' takes " + llvm::Twine(type.getNumInputs()) +
                " inputs, got " + llvm::Twine(inputs.size()));

  std::vector<Tensor> arguments;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    std::string name =
        "input " + std::to_string(i) + " of '" + entry.str() + "'";
    auto argType = llvm::dyn_cast<RankedTensorType>(type.getInput(i));
    std::optional<ElementKind> kind =
        argType ? elementKindOf(argType.getElementType()) : std::nullopt;
    if (!kind)
      return fail(name + " has unsupported type " +
                  typeToString(type.getInput(i)));
    if (input.kind != *kind)
      return fail(name + " has element type " + toString(input.kind) +
                  ", expected " + toString(*kind));
    if (input.rank() != argType.getRank() || !fitsType(input, argType))
      return fail(name + " has shape " + shapeToString(input.shape) +
                  ", expected " + shapeToString(argType.getShape()));
    if (static_cast<int64_t>(input.data.size()) != input.numElements())
      return fail(name + " has " + llvm::Twine(input.data.size()) +
                  " values for shape " + shapeToString(input.shape));
    Tensor argument = input;
    for (double &value : argument.data) {
      double normalized = detail::normalizeElement(value, *kind);
      // f32 inputs are rounded to float; integers must already be exact.
      if (!isFloatKind(*kind) && normalized != value)
        return fail(name + " holds " + std::to_string(value) + ", not a " +
                    toString(*kind) + " value");
      value = normalized;
    }
    arguments.push_back(std::move(argument));
  }
  FailureOr<std::vector<Tensor>> results = call(func, std::move(arguments), 0);
  if (failed(results))
    return failure();
  return results;
}

FailureOr<std::vector<Tensor>> Interpreter::call(func::FuncOp func,
                                                 std::vector<Tensor> arguments,
                                                 unsigned depth) {
  if (depth > kMaxCallDepth)
    return fail("calls nested deeper than " + llvm::Twine(kMaxCallDepth) +
                " in '" + func.getSymName() + "'");
  if (!func.getBody().hasOneBlock())
    return fail("function '" + func.getSymName() +
                "' must have exactly one block");
  Block &body = func.getBody().front();

  llvm::DenseMap<Value, Tensor> values;
  for (auto [argument, tensor] : llvm::zip(body.getArguments(), arguments))
    values[argument] = std::move(tensor);

  for (Operation &operation : body) {
    Operation *op = &operation;
    SmallVector<const Tensor *> operands;
    for (Value operand : op->getOperands()) {
      auto it = values.find(operand);
      if (it == values.end())
        return fail("operand of '" + op->getName().getStringRef() +
                    "' has no value at " + locationOf(op));
      operands.push_back(&it->second);
    }

    if (auto ret = llvm::dyn_cast<func::ReturnOp>(op)) {
      std::vector<Tensor> results;
      for (const Tensor *operand : operands)
        results.push_back(*operand);
      return results;
    }

    if (auto callOp = llvm::dyn_cast<func::CallOp>(op)) {
      auto callee = module_.lookupSymbol<func::FuncOp>(callOp.getCallee());
      if (!callee || callee.isExternal())
        return fail("call to unknown function '" + callOp.getCallee() +
                    "' at " + locationOf(op));
      std::vector<Tensor> calleeArguments;
      for (const Tensor *operand : operands)
        calleeArguments.push_back(*operand);
      FailureOr<std::vector<Tensor>> results =
          call(callee, std::move(calleeArguments), depth + 1);
      if (failed(results))
        return failure();
      for (auto [result, tensor] : llvm::zip(op->getResults(), *results))
        values[result] = std::move(tensor);
      continue;
    }

    if (auto assign = llvm::dyn_cast<AssignOp>(op)) {
      auto it = variables_.find(assign.getVariable());
      auto variable = module_.lookupSymbol<VariableOp>(assign.getVariable());
      if (it == variables_.end() || !variable)
        return fail("unknown variable @" + assign.getVariable() + " at " +
                    locationOf(op));
      if (!fitsType(*operands[0], variable.getTensorType()))
        return fail("value assigned to @" + assign.getVariable() +
                    " does not fit its type at " + locationOf(op));
      it->second.value = *operands[0];
      it->second.error.clear();
      continue;
    }

    // Every other op is a graph op with one ranked tensor result.
    auto resultType =
        op->getNumResults() == 1
            ? llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType())
            : RankedTensorType();
    if (!resultType)
      return fail("unsupported op '" + op->getName().getStringRef() + "' at " +
                  locationOf(op));
    if (!elementKindOf(resultType.getElementType()))
      return fail("unsupported result type " + typeToString(resultType) +
                  " of '" + op->getName().getStringRef() + "' at " +
                  locationOf(op));
    FailureOr<Tensor> result = failure();
    if (auto read = llvm::dyn_cast<ReadOp>(op)) {
      auto it = variables_.find(read.getVariable());
      if (it == variables_.end())
        return fail("unknown variable @" + read.getVariable() + " at " +
                    locationOf(op));
      if (!it->second.value)
        return fail(it->second.error + " at " + locationOf(op));
      result = *it->second.value;
    } else if (auto constant = llvm::dyn_cast<ConstantOp>(op)) {
      std::string why;
      result = tensorFromAttr(constant.getValue(), why);
      if (failed(result))
        return fail(why + " at " + locationOf(op));
    } else {
      detail::Report report;
      std::optional<FailureOr<Tensor>> evaluated =
          dispatch(op, operands, report);
      if (!evaluated)
        return fail("unsupported op '" + op->getName().getStringRef() +
                    "' at " + locationOf(op));
      if (failed(*evaluated))
        return fail(report.message + " at " + locationOf(op));
      result = std::move(**evaluated);
    }

    if (!fitsType(*result, resultType))
      return fail("result of '" + op->getName().getStringRef() + "' is " +
                  toString(result->kind) + " " + shapeToString(result->shape) +
                  ", which does not fit its type " + typeToString(resultType) +
                  " at " + locationOf(op));
    for (double &value : result->data)
      value = detail::normalizeElement(value, result->kind);
    values[op->getResult(0)] = std::move(*result);
  }
  return fail("function '" + func.getSymName() + "' has no return");
}

} // namespace tfcc::ref
