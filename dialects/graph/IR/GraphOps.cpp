//===- GraphOps.cpp - graph op verifiers, folders, custom forms -----------===//

#include "dialects/graph/IR/GraphOps.h"

#include "dialects/graph/IR/Initializers.h"
#include "dialects/graph/IR/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;

//===----------------------------------------------------------------------===//
// Result type checking shared by every op printed with a functional type
//===----------------------------------------------------------------------===//

/// Accepts the written result type when each dimension equals the inferred
/// one or is written `?` (the spec's rule).
static LogicalResult verifyInferredResultType(Operation *op) {
  FailureOr<RankedTensorType> inferred = inferResultType(op);
  if (failed(inferred))
    return failure();
  auto written = cast<RankedTensorType>(op->getResult(0).getType());
  if (written.getElementType() != inferred->getElementType())
    return op->emitOpError() << "result element type "
                             << written.getElementType()
                             << " differs from the inferred "
                             << inferred->getElementType();
  bool compatible = written.getRank() == inferred->getRank();
  for (int64_t i = 0; compatible && i < written.getRank(); ++i)
    compatible = written.isDynamicDim(i) ||
                 written.getDimSize(i) == inferred->getDimSize(i);
  if (!compatible)
    return op->emitOpError() << "result type " << written
                             << " does not match the inferred type "
                             << *inferred;
  return success();
}

#define TFCC_INFERRED_VERIFIER(OP)                                             \
  LogicalResult OP::verify() { return verifyInferredResultType(*this); }
TFCC_INFERRED_VERIFIER(AddOp)
TFCC_INFERRED_VERIFIER(SubOp)
TFCC_INFERRED_VERIFIER(MulOp)
TFCC_INFERRED_VERIFIER(DivOp)
TFCC_INFERRED_VERIFIER(MaximumOp)
TFCC_INFERRED_VERIFIER(MinimumOp)
TFCC_INFERRED_VERIFIER(PowOp)
TFCC_INFERRED_VERIFIER(CastOp)
TFCC_INFERRED_VERIFIER(QuantizeOp)
TFCC_INFERRED_VERIFIER(DequantizeOp)
TFCC_INFERRED_VERIFIER(CompareOp)
TFCC_INFERRED_VERIFIER(SelectOp)
TFCC_INFERRED_VERIFIER(MatmulOp)
TFCC_INFERRED_VERIFIER(DenseOp)
TFCC_INFERRED_VERIFIER(Conv2DOp)
TFCC_INFERRED_VERIFIER(DepthwiseConv2DOp)
TFCC_INFERRED_VERIFIER(MaxPool2DOp)
TFCC_INFERRED_VERIFIER(AvgPool2DOp)
TFCC_INFERRED_VERIFIER(GlobalAvgPool2DOp)
TFCC_INFERRED_VERIFIER(GlobalMaxPool2DOp)
TFCC_INFERRED_VERIFIER(BatchNormOp)
TFCC_INFERRED_VERIFIER(LayerNormOp)
TFCC_INFERRED_VERIFIER(ReshapeOp)
TFCC_INFERRED_VERIFIER(TransposeOp)
TFCC_INFERRED_VERIFIER(ConcatOp)
TFCC_INFERRED_VERIFIER(SliceOp)
TFCC_INFERRED_VERIFIER(PadOp)
TFCC_INFERRED_VERIFIER(ResizeOp)
TFCC_INFERRED_VERIFIER(GatherOp)
TFCC_INFERRED_VERIFIER(GatherElementsOp)
TFCC_INFERRED_VERIFIER(TopKIndicesOp)
TFCC_INFERRED_VERIFIER(NonMaxSuppressionOp)
TFCC_INFERRED_VERIFIER(ReduceSumOp)
TFCC_INFERRED_VERIFIER(ReduceMeanOp)
TFCC_INFERRED_VERIFIER(ReduceMaxOp)
TFCC_INFERRED_VERIFIER(ReduceMinOp)
TFCC_INFERRED_VERIFIER(ArgmaxOp)
TFCC_INFERRED_VERIFIER(SparseSoftmaxCrossEntropyOp)
TFCC_INFERRED_VERIFIER(SoftmaxCrossEntropyOp)
TFCC_INFERRED_VERIFIER(MeanSquaredErrorOp)
#undef TFCC_INFERRED_VERIFIER

//===----------------------------------------------------------------------===//
// Unary ops with attributes
//===----------------------------------------------------------------------===//

std::optional<MathFunction> mlir::graph::mathFunctionNamed(StringRef name) {
#define TFCC_MATH_FUNCTION(Name, fn, onnx, reference, lowering)                \
  if (name == fn)                                                              \
    return MathFunction::Name;
#include "dialects/graph/IR/MathFunctions.def"
  return std::nullopt;
}

float mlir::graph::getMaxPoolPadValue(Type element) {
  if (!element.isInteger(8))
    return -std::numeric_limits<float>::infinity();
  return element.isUnsignedInteger() ? 0.0f : -128.0f;
}

StringRef mlir::graph::mathFunctionName(MathFunction function) {
  switch (function) {
#define TFCC_MATH_FUNCTION(Name, fn, onnx, reference, lowering)                \
  case MathFunction::Name:                                                     \
    return fn;
#include "dialects/graph/IR/MathFunctions.def"
  }
  llvm_unreachable("every MathFunction has a row in MathFunctions.def");
}

MathFunction MathOp::getFunction() { return *mathFunctionNamed(getFn()); }

LogicalResult MathOp::verify() {
  if (!mathFunctionNamed(getFn()))
    return emitOpError() << "unknown function \"" << getFn()
                         << "\" (see MathFunctions.def)";
  return success();
}

LogicalResult ModOp::verify() {
  Type element = cast<RankedTensorType>(getLhs().getType()).getElementType();
  if (isa<FloatType>(element) && !getFmod())
    return emitOpError() << "of " << element
                         << " needs fmod = true (the sign of the dividend)";
  if (element.isInteger(1))
    return emitOpError() << "of i1 operands";
  return verifyInferredResultType(*this);
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError() << "attribute 'approximate' must be \"none\" or "
                            "\"tanh\", got \""
                         << getApproximate() << "\"";
  return success();
}

LogicalResult ClipOp::verify() {
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError() << "attribute 'min' = " << getMin().convertToFloat()
                         << " is greater than 'max' = "
                         << getMax().convertToFloat();
  return success();
}

LogicalResult DropoutOp::verify() {
  float rate = getRate().convertToFloat();
  if (!(rate >= 0.0f && rate < 1.0f))
    return emitOpError() << "attribute 'rate' = " << rate
                         << " must be in [0, 1)";
  return success();
}

template <typename SoftmaxLike>
static LogicalResult verifySoftmaxAxis(SoftmaxLike op) {
  int64_t rank = op.getX().getType().getRank();
  if (!normalizeAxis(op.getAxis(), rank))
    return op.emitOpError() << "attribute 'axis' = " << static_cast<int64_t>(op.getAxis())
                            << " is out of range for " << op.getX().getType();
  return success();
}
LogicalResult SoftmaxOp::verify() { return verifySoftmaxAxis(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxAxis(*this); }

//===----------------------------------------------------------------------===//
// Folders and canonicalizations
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

// Inference entry points never run in training mode, so dropout is identity.
OpFoldResult DropoutOp::fold(FoldAdaptor) { return getX(); }

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getX().getType() == getY().getType())
    return getX();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getY().getType() &&
      getY().getType().getNumDynamicDims() == 0)
    return getX();
  if (auto value = llvm::dyn_cast_if_present<DenseElementsAttr>(adaptor.getX()))
    if (getY().getType().hasStaticShape())
      return value.reshape(getY().getType());
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x): the intermediate shape does not matter.
struct FoldReshapeOfReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getX().getDefiningOp<ReshapeOp>();
    if (!producer)
      return rewriter.notifyMatchFailure(op, "operand is not a reshape");
    rewriter.modifyOpInPlace(
        op, [&] { op.getXMutable().assign(producer.getX()); });
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldReshapeOfReshape>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (cast<IntegerAttr>(p).getInt() != (int64_t)i)
      return {};
  if (getX().getType() != getY().getType())
    return {};
  return getX();
}

//===----------------------------------------------------------------------===//
// graph.variable / graph.read
//===----------------------------------------------------------------------===//

ParseResult VariableOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  Type type;
  Attribute init;
  if (parser.parseSymbolName(name, SymbolTable::getSymbolAttrName(),
                             result.attributes) ||
      parser.parseColonType(type) || parser.parseEqual())
    return failure();
  if (parser.parseAttribute(init, type))
    return failure();
  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (Attribute trainable = result.attributes.get("trainable");
      trainable && !isa<BoolAttr>(trainable))
    return parser.emitError(attrLoc)
           << "attribute 'trainable' must be true or false, got " << trainable;
  result.addAttribute("type", TypeAttr::get(type));
  result.addAttribute("init", init);
  return success();
}

void VariableOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " : " << getType() << " = ";
  p.printAttributeWithoutType(getInit());
  SmallVector<StringRef> elided = {SymbolTable::getSymbolAttrName(), "type",
                                   "init"};
  if (getTrainable())
    elided.push_back("trainable");
  p.printOptionalAttrDict((*this)->getAttrs(), elided);
}

LogicalResult VariableOp::verify() {
  RankedTensorType type = getTensorType();
  if (failed(verifyTensorSize([this] { return emitOpError(); }, type,
                              "variable @" + getSymName() + " of type")))
    return failure();
  if (!type.hasStaticShape())
    return emitOpError() << "variable @" << getSymName()
                         << " must have a static type, got " << type;
  Attribute init = getInit();
  if (auto elements = dyn_cast<ElementsAttr>(init)) {
    if (elements.getShapedType() != type)
      return emitOpError() << "initial value of type "
                           << elements.getShapedType()
                           << " does not match the variable type " << type;
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob)
        return emitOpError() << "dense_resource blob '"
                             << resource.getRawHandle().getKey()
                             << "' of variable @" << getSymName()
                             << " is missing from dialect_resources";
      unsigned bits = type.getElementTypeBitWidth();
      int64_t expected = type.getNumElements() * (bits < 8 ? 1 : bits / 8);
      if ((int64_t)blob->getData().size() != expected)
        return emitOpError() << "dense_resource blob '"
                             << resource.getRawHandle().getKey() << "' holds "
                             << blob->getData().size() << " bytes but " << type
                             << " needs " << expected;
    }
    return success();
  }
  if (auto initAttr = dyn_cast<InitAttr>(init)) {
    StringRef kind = initAttr.getKind();
    if (kind != "zeros" && kind != "ones" &&
        !isa<FloatType>(type.getElementType()))
      return emitOpError() << "initializer \"" << kind
                           << "\" needs a floating-point variable, got " << type;
    return success();
  }
  return emitOpError() << "initial value must be dense<...>, "
                          "dense_resource<...> or #graph.init<...>, got "
                       << init;
}

/// graph.read / graph.assign: `variable` names a graph.variable of `type`
/// (`what`: which of the op's types, for the message).
static LogicalResult verifyVariableUse(Operation *op,
                                       FlatSymbolRefAttr variable, Type type,
                                       StringRef what,
                                       SymbolTableCollection &symbolTable) {
  auto decl = symbolTable.lookupNearestSymbolFrom<VariableOp>(op, variable);
  if (!decl)
    return op->emitOpError() << "'" << variable.getValue()
                             << "' does not name a graph.variable";
  if (decl.getType() != type)
    return op->emitOpError() << what << " type " << type
                             << " differs from the type " << decl.getType()
                             << " of variable @" << variable.getValue();
  return success();
}

LogicalResult ReadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyVariableUse(*this, getVariableAttr(), getValue().getType(),
                           "result", symbolTable);
}

//===----------------------------------------------------------------------===//
// graph.train_step @name {loss = @f, optimizer = #graph.adam<...>, clip_norm = C : f32}
//===----------------------------------------------------------------------===//

ParseResult TrainStepOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, SymbolTable::getSymbolAttrName(),
                             result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return success();
}

void TrainStepOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << ' ';
  // The spec's key order (loss, optimizer, clip_norm) when those are all;
  // otherwise the generic sorted dictionary.
  size_t known = 3 + (getClipNormAttr() ? 1 : 0);
  if ((*this)->getAttrs().size() != known) {
    p.printOptionalAttrDict((*this)->getAttrs(),
                            {SymbolTable::getSymbolAttrName()});
    return;
  }
  p << "{loss = ";
  p.printAttribute(getLossAttr());
  p << ", optimizer = ";
  p.printAttribute(getOptimizer());
  if (FloatAttr clipNorm = getClipNormAttr()) {
    p << ", clip_norm = ";
    p.printAttribute(clipNorm);
  }
  p << '}';
}

LogicalResult TrainStepOp::verify() {
  if (!isa<SgdAttr, AdamAttr>(getOptimizer()))
    return emitOpError() << "optimizer must be #graph.sgd<...> or "
                            "#graph.adam<...>, got "
                         << getOptimizer();
  if (std::optional<APFloat> clipNorm = getClipNorm();
      clipNorm && !(clipNorm->convertToDouble() > 0.0))
    return emitOpError() << "'clip_norm' must be positive, got "
                         << getClipNormAttr();
  return success();
}

LogicalResult
TrainStepOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto loss =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getLossAttr());
  if (!loss)
    return emitOpError() << "loss " << getLossAttr()
                         << " does not name a func.func";
  TypeRange results = loss.getFunctionType().getResults();
  auto scalarF32 = RankedTensorType::get({}, Float32Type::get(getContext()));
  if (results.size() != 1 || results[0] != scalarF32) {
    std::string written;
    llvm::raw_string_ostream os(written);
    llvm::interleaveComma(results, os);
    return emitOpError() << "loss function @" << getLoss()
                         << " must return exactly one tensor<f32>, got ("
                         << written << ")";
  }
  return success();
}

#define GET_OP_CLASSES
#include "dialects/graph/IR/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Compiler-internal fused ops
//===----------------------------------------------------------------------===//

static SmallVector<int64_t> getI64Values(ArrayAttr array) {
  SmallVector<int64_t> values;
  for (Attribute a : array)
    values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

/// The checks both fused ops share: a known activation, a bias of the
/// result's channel count and a residual of the result's type.
static LogicalResult verifyEpilogue(Operation *op, StringRef activation,
                                    Value bias, Value residual,
                                    RankedTensorType resultType) {
  static constexpr StringLiteral kActivations[] = {
      "none", "relu", "clip", "leaky_relu", "hard_swish", "sigmoid"};
  if (!llvm::is_contained(kActivations, activation))
    return op->emitOpError() << "unknown activation \"" << activation << "\"";
  int64_t channels = resultType.getShape().back();
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != channels)
      return op->emitOpError() << "bias " << biasType << " must be tensor<"
                               << channels << "xf32>";
  }
  if (residual && residual.getType() != resultType)
    return op->emitOpError() << "residual " << residual.getType()
                             << " must have the result type " << resultType;
  return success();
}

/// `round_to` of the float fused ops: a 16-bit float type, on an f32 result.
static LogicalResult verifyRoundTo(Operation *op, std::optional<Type> roundTo,
                                   RankedTensorType resultType) {
  if (!roundTo)
    return success();
  if (!roundTo->isBF16() && !roundTo->isF16())
    return op->emitOpError()
           << "round_to must be bf16 or f16, not " << *roundTo;
  if (!resultType.getElementType().isF32())
    return op->emitOpError("round_to needs an f32 result");
  return success();
}

/// The geometry checks of both convolution ops: NHWC input and result, a
/// static kernel, 2 strides and dilations, 4 pads, and sizes that agree
/// (the result's H and W divided by `pool`'s windows, rounded down, when
/// given).
static LogicalResult verifyConvGeometry(
    Operation *op, RankedTensorType xType, RankedTensorType kernelType,
    RankedTensorType resultType, ArrayAttr stridesAttr, ArrayAttr dilationsAttr,
    ArrayAttr padsAttr, bool depthwise, ArrayRef<int64_t> pool = {1, 1}) {
  if (xType.getRank() != 4 || kernelType.getRank() != 4 ||
      resultType.getRank() != 4 || !kernelType.hasStaticShape())
    return op->emitOpError(
        "expected NHWC input and result and a static 4-D kernel");
  SmallVector<int64_t> strides = getI64Values(stridesAttr);
  SmallVector<int64_t> dilations = getI64Values(dilationsAttr);
  SmallVector<int64_t> pads = getI64Values(padsAttr);
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return op->emitOpError(
        "expected 2 strides and dilations >= 1 and 4 pads >= 0");
  int64_t inChannels = kernelType.getDimSize(2);
  int64_t outChannels = depthwise ? inChannels * kernelType.getDimSize(3)
                                  : kernelType.getDimSize(3);
  if (xType.getDimSize(3) != inChannels ||
      resultType.getDimSize(3) != outChannels)
    return op->emitOpError() << "kernel " << kernelType << " does not map "
                             << xType << " to " << resultType;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t in = xType.getDimSize(1 + i), out = resultType.getDimSize(1 + i);
    // A dynamic H or W is computed at run time (the lowering reports an
    // input smaller than the window).
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out))
      continue;
    int64_t span = dilations[i] * (kernelType.getDimSize(i) - 1) + 1;
    int64_t padded = in + pads[2 * i] + pads[2 * i + 1];
    int64_t expected =
        windowedOutputSize(padded, kernelType.getDimSize(i), strides[i],
                           dilations[i], /*samePadding=*/false) /
        pool[i];
    if (padded < span || expected != out)
      return op->emitOpError() << "spatial dim " << i << " of the result is "
                               << out << ", expected " << expected;
  }
  if (xType.getDimSize(0) != resultType.getDimSize(0))
    return op->emitOpError("input and result batch differ");
  return success();
}

LogicalResult FusedConv2DOp::verify() {
  if (failed(verifyConvGeometry(*this, getX().getType(),
                                getKernel().getType(), getType(), getStrides(),
                                getDilations(), getPads(), getDepthwise())))
    return failure();
  if (failed(verifyRoundTo(*this, getRoundTo(), getType())))
    return failure();
  return verifyEpilogue(*this, getActivation(), getBias(), getResidual(),
                        getType());
}

/// The shape checks of both dense ops: x [..., k], a static kernel [k, n],
/// result [..., n].
static LogicalResult verifyDenseShapes(Operation *op, RankedTensorType xType,
                                       RankedTensorType kernelType,
                                       RankedTensorType resultType) {
  if (kernelType.getRank() != 2 || !kernelType.hasStaticShape() ||
      xType.getRank() < 1 || resultType.getRank() != xType.getRank())
    return op->emitOpError("expected x [..., k], a static kernel [k, n] and a "
                           "result [..., n]");
  if (xType.getShape().back() != kernelType.getDimSize(0) ||
      resultType.getShape().back() != kernelType.getDimSize(1) ||
      xType.getShape().drop_back() != resultType.getShape().drop_back())
    return op->emitOpError() << "kernel " << kernelType << " does not map "
                             << xType << " to " << resultType;
  return success();
}

LogicalResult FusedDenseOp::verify() {
  if (failed(verifyDenseShapes(*this, getX().getType(), getKernel().getType(),
                               getType())))
    return failure();
  if (failed(verifyRoundTo(*this, getRoundTo(), getType())))
    return failure();
  return verifyEpilogue(*this, getActivation(), getBias(), getResidual(),
                        getType());
}

/// What both int8 ops add to the float ops' checks: zero points in [0, 255],
/// one scale per output channel, `out_scale` (positive, finite) exactly when
/// the result is ui8, and the float epilogue's checks against the f32 form
/// of the result.
template <typename OpTy>
static LogicalResult verifyInt8Epilogue(OpTy op) {
  RankedTensorType resultType = op.getType();
  int64_t channels = resultType.getShape().back();
  auto scalesType = op.getScales().getType();
  if (scalesType.getRank() != 1 || scalesType.getDimSize(0) != channels)
    return op.emitOpError() << "scales " << scalesType << " must be tensor<"
                            << channels << "xf32>";
  auto inRange = [](int64_t v) { return v >= 0 && v <= 255; };
  if (!inRange(op.getXZeroPoint()) || !inRange(op.getOutZeroPoint()))
    return op.emitOpError("zero points must be in [0, 255]");
  bool quantized = !resultType.getElementType().isF32();
  std::optional<APFloat> outScale = op.getOutScale();
  if (quantized != outScale.has_value())
    return op.emitOpError("out_scale must be given exactly when the result "
                          "is ui8");
  if (outScale && !(outScale->convertToFloat() > 0.0f &&
                    std::isfinite(outScale->convertToFloat())))
    return op.emitOpError("out_scale must be positive and finite");
  auto floatType = RankedTensorType::get(
      resultType.getShape(), Float32Type::get(op.getContext()));
  return verifyEpilogue(op, op.getActivation(), op.getBias(), op.getResidual(),
                        floatType);
}

LogicalResult FusedConv2DInt8Op::verify() {
  SmallVector<int64_t> pool = {1, 1};
  if (std::optional<ArrayAttr> maxPool = getMaxPool()) {
    pool = getI64Values(*maxPool);
    if (pool.size() != 2 || !isInt8ConvPoolWindow(pool[0], pool[1]))
      return emitOpError("max_pool must be [ph, pw], windows of more than "
                         "one pixel whose ph divides ")
             << kInt8ConvPoolTileRows << " and whose pw divides "
             << kInt8ConvPoolTileRows << " / ph";
    if (getDepthwise() || getResidual())
      return emitOpError("max_pool needs groups 1 and no residual");
  }
  if (failed(verifyConvGeometry(*this, getX().getType(), getKernel().getType(),
                                getType(), getStrides(), getDilations(),
                                getPads(), getDepthwise(), pool)))
    return failure();
  if (getDepthwise()) {
    ArrayRef<int64_t> kernel = getKernel().getType().getShape();
    if (kernel[3] != 1)
      return emitOpError("a depthwise int8 kernel must have one output "
                         "channel per input channel ([kh, kw, c, 1])");
    if (getResidual())
      return emitOpError("a depthwise int8 convolution takes no residual");
    if (kernel[0] * kernel[1] > kMaxInt8DepthwiseTaps)
      return emitOpError() << "a depthwise int8 window has at most "
                           << kMaxInt8DepthwiseTaps << " taps, not "
                           << kernel[0] * kernel[1];
  }
  return verifyInt8Epilogue(*this);
}

LogicalResult FusedDenseInt8Op::verify() {
  if (failed(verifyDenseShapes(*this, getX().getType(), getKernel().getType(),
                               getType())))
    return failure();
  return verifyInt8Epilogue(*this);
}

//===----------------------------------------------------------------------===//
// Compiler-internal training ops (made by tfcc-autodiff)
//===----------------------------------------------------------------------===//

LogicalResult AssignOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyVariableUse(*this, getVariableAttr(), getValue().getType(),
                           "value", symbolTable);
}

LogicalResult DropoutMaskOp::verify() {
  float rate = getRate().convertToFloat();
  if (!(rate >= 0.0f && rate < 1.0f))
    return emitOpError() << "attribute 'rate' = " << rate
                         << " must be in [0, 1)";
  if (getX().getType() != getMask().getType())
    return emitOpError() << "result type " << getMask().getType()
                         << " differs from the input type " << getX().getType();
  return success();
}

/// Whether dimension `a` (of a written type) agrees with `b`: equal or
/// either dynamic.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks that `written` has the rank of `expected` and that each dimension
/// agrees (dynamic dimensions agree with anything).
static LogicalResult verifyShapeAgrees(Operation *op, RankedTensorType written,
                                       ArrayRef<int64_t> expected,
                                       StringRef what) {
  bool ok = written.getRank() == (int64_t)expected.size();
  for (int64_t i = 0; ok && i < written.getRank(); ++i)
    ok = dimsCompatible(written.getDimSize(i), expected[i]);
  if (ok)
    return success();
  std::string shape;
  llvm::raw_string_ostream os(shape);
  llvm::interleave(
      expected, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return op->emitOpError() << what << " " << written << " does not match the "
                           << "expected shape [" << shape << "]";
}

/// A training batch-norm operand: `stats` [2, C] (moments or sums) or, with
/// rows == 0, `stats` [C] (gamma, beta), of x's element type, C being x's
/// last dimension.
static LogicalResult verifyChannelOperand(Operation *op, RankedTensorType x,
                                          Value stats, int64_t rows,
                                          StringRef name) {
  auto type = cast<RankedTensorType>(stats.getType());
  int64_t channels = x.getRank() > 0 ? x.getShape().back() : 1;
  SmallVector<int64_t> want;
  if (rows > 0)
    want.push_back(rows);
  want.push_back(channels);
  bool ok = x.getRank() >= 1 && type.getElementType() == x.getElementType() &&
            type.getRank() == static_cast<int64_t>(want.size());
  for (size_t i = 0; ok && i < want.size(); ++i)
    ok = dimsCompatible(type.getDimSize(i), want[i]);
  if (!ok)
    return op->emitOpError()
           << name << " must be " << (rows > 0 ? "tensor<2xC>" : "tensor<C>")
           << " of the input's element type with C its last dimension ("
           << x << "), got " << type;
  return success();
}

LogicalResult MomentsOp::verify() {
  auto x = getX().getType();
  if (x.getRank() < 1)
    return emitOpError() << "input must have rank >= 1";
  return verifyChannelOperand(*this, x, getMoments(), 2, "result");
}

LogicalResult BatchNormTrainOp::verify() {
  auto x = getX().getType();
  if (failed(verifyChannelOperand(*this, x, getMoments(), 2, "moments")) ||
      failed(verifyChannelOperand(*this, x, getGamma(), 0, "gamma")) ||
      failed(verifyChannelOperand(*this, x, getBeta(), 0, "beta")))
    return failure();
  return verifyShapeAgrees(*this, getY().getType(), x.getShape(), "result");
}

LogicalResult BatchNormGradSumsOp::verify() {
  auto x = getX().getType();
  if (failed(verifyShapeAgrees(*this, getDy().getType(), x.getShape(), "dy")))
    return failure();
  if (failed(verifyChannelOperand(*this, x, getMoments(), 2, "moments")))
    return failure();
  return verifyChannelOperand(*this, x, getSums(), 2, "result");
}

LogicalResult BatchNormTrainGradOp::verify() {
  auto x = getX().getType();
  if (failed(verifyShapeAgrees(*this, getDy().getType(), x.getShape(), "dy")) ||
      failed(verifyChannelOperand(*this, x, getMoments(), 2, "moments")) ||
      failed(verifyChannelOperand(*this, x, getGamma(), 0, "gamma")) ||
      failed(verifyChannelOperand(*this, x, getSums(), 2, "sums")))
    return failure();
  return verifyShapeAgrees(*this, getDx().getType(), x.getShape(), "result");
}

LogicalResult BroadcastLikeOp::verify() {
  auto value = getValue().getType(), like = getLike().getType();
  auto result = getResult().getType();
  if (result.getElementType() != value.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " differs from the value's "
                         << value.getElementType();
  if (value.getRank() > like.getRank())
    return emitOpError() << "value " << value << " has a higher rank than "
                         << like;
  int64_t lead = like.getRank() - value.getRank();
  for (int64_t i = 0; i < value.getRank(); ++i)
    if (value.getDimSize(i) != 1 &&
        !dimsCompatible(value.getDimSize(i), like.getDimSize(lead + i)))
      return emitOpError() << "value " << value << " does not broadcast to "
                           << like;
  return verifyShapeAgrees(*this, result, like.getShape(), "result");
}

LogicalResult ElementCountOp::verify() {
  int64_t rank = getX().getType().getRank();
  for (int64_t axis : getI64Values(getAxes()))
    if (axis < 0 || axis >= rank)
      return emitOpError() << "axis " << axis << " is out of range for "
                           << getX().getType();
  return success();
}

/// Checks a 2-element attribute of positive integers.
static LogicalResult verifyPair(Operation *op, ArrayAttr attr, StringRef name,
                                int64_t minimum) {
  SmallVector<int64_t> values = getI64Values(attr);
  if (values.size() != 2 || values[0] < minimum || values[1] < minimum)
    return op->emitOpError() << "attribute '" << name << "' must hold 2 "
                             << "integers >= " << minimum;
  return success();
}

static LogicalResult verifyPadding(Operation *op, StringRef padding) {
  if (padding != "valid" && padding != "same")
    return op->emitOpError() << "attribute 'padding' must be \"valid\" or "
                                "\"same\", got \""
                             << padding << "\"";
  return success();
}

/// The spatial output sizes of a window op over `inputSize` (dynamic stays
/// dynamic).
static SmallVector<int64_t> windowedSizes(ArrayRef<int64_t> inputSize,
                                          ArrayRef<int64_t> window,
                                          ArrayRef<int64_t> strides,
                                          ArrayRef<int64_t> dilations,
                                          bool same) {
  SmallVector<int64_t> sizes;
  for (int i = 0; i < 2; ++i)
    sizes.push_back(ShapedType::isDynamic(inputSize[i])
                        ? ShapedType::kDynamic
                        : windowedOutputSize(inputSize[i], window[i],
                                             strides[i], dilations[i], same));
  return sizes;
}

/// The common checks of the convolution gradients: attributes, ranks and
/// that `dy` has the size a conv2d of `x` (spatial `inputSize`) by a kernel
/// of `kernelSize` produces.
static LogicalResult verifyConvGradient(Operation *op, RankedTensorType dy,
                                        ArrayRef<int64_t> inputSize,
                                        ArrayRef<int64_t> kernelSize,
                                        ArrayAttr strides, ArrayAttr dilations,
                                        StringRef padding) {
  if (failed(verifyPair(op, strides, "strides", 1)) ||
      failed(verifyPair(op, dilations, "dilations", 1)) ||
      failed(verifyPadding(op, padding)))
    return failure();
  if (dy.getRank() != 4)
    return op->emitOpError() << "output gradient " << dy << " must be NHWC";
  SmallVector<int64_t> out =
      windowedSizes(inputSize, kernelSize, getI64Values(strides),
                    getI64Values(dilations), padding == "same");
  for (int i = 0; i < 2; ++i)
    if (!dimsCompatible(dy.getDimSize(1 + i), out[i]))
      return op->emitOpError() << "output gradient " << dy
                               << " does not match the forward output size "
                               << out[i] << " of spatial dim " << i;
  return success();
}

LogicalResult Conv2DBackpropInputOp::verify() {
  if (failed(verifyPair(*this, getInputSize(), "input_size", 0)))
    return failure();
  auto kernel = getKernel().getType();
  if (kernel.getRank() != 4 || !kernel.hasStaticShape())
    return emitOpError() << "kernel " << kernel << " must be a static HWIO";
  int64_t groups = getGroups();
  if (groups < 1 || kernel.getDimSize(3) % groups != 0)
    return emitOpError() << "groups = " << groups << " does not divide "
                         << kernel;
  SmallVector<int64_t> inputSize = getI64Values(getInputSize());
  if (failed(verifyConvGradient(*this, getDy().getType(), inputSize,
                                kernel.getShape().take_front(2), getStrides(),
                                getDilations(), getPadding())))
    return failure();
  if (!dimsCompatible(getDy().getType().getDimSize(3), kernel.getDimSize(3)))
    return emitOpError() << "output gradient " << getDy().getType()
                         << " does not match kernel " << kernel;
  return verifyShapeAgrees(*this, getDx().getType(),
                           {getDy().getType().getDimSize(0), inputSize[0],
                            inputSize[1], kernel.getDimSize(2) * groups},
                           "result");
}

LogicalResult Conv2DBackpropFilterOp::verify() {
  if (failed(verifyPair(*this, getKernelSize(), "kernel_size", 1)))
    return failure();
  auto x = getX().getType();
  if (x.getRank() != 4)
    return emitOpError() << "input " << x << " must be NHWC";
  int64_t groups = getGroups();
  int64_t in = x.getDimSize(3), out = getDy().getType().getRank() == 4
                                          ? getDy().getType().getDimSize(3)
                                          : 0;
  if (groups < 1 || ShapedType::isDynamic(in) || in % groups != 0 ||
      ShapedType::isDynamic(out) || out % groups != 0)
    return emitOpError() << "groups = " << groups << " must divide the static "
                         << "channel counts of " << x << " and "
                         << getDy().getType();
  SmallVector<int64_t> kernelSize = getI64Values(getKernelSize());
  if (failed(verifyConvGradient(*this, getDy().getType(),
                                x.getShape().slice(1, 2), kernelSize,
                                getStrides(), getDilations(), getPadding())))
    return failure();
  return verifyShapeAgrees(*this, getDkernel().getType(),
                           {kernelSize[0], kernelSize[1], in / groups, out},
                           "result");
}

LogicalResult MaxPool2DGradOp::verify() {
  if (failed(verifyPair(*this, getWindow(), "window", 1)) ||
      failed(verifyPair(*this, getStrides(), "strides", 1)))
    return failure();
  auto x = getX().getType();
  if (x.getRank() != 4 || getDx().getType() != x)
    return emitOpError() << "input " << x << " must be NHWC and equal the "
                         << "result type " << getDx().getType();
  if (failed(verifyConvGradient(*this, getDy().getType(),
                                x.getShape().slice(1, 2),
                                getI64Values(getWindow()), getStrides(),
                                Builder(getContext()).getI64ArrayAttr({1, 1}),
                                getPadding())))
    return failure();
  return success();
}

LogicalResult MaxPool2DWithIndicesOp::verify() {
  if (failed(verifyPair(*this, getWindow(), "window", 1)) ||
      failed(verifyPair(*this, getStrides(), "strides", 1)))
    return failure();
  auto x = getX().getType();
  auto y = getY().getType();
  if (x.getRank() != 4 || y.getRank() != 4 ||
      y.getElementType() != x.getElementType())
    return emitOpError() << "input " << x << " and values " << y
                         << " must be NHWC of one element type";
  if (failed(verifyShapeAgrees(*this, getTaps().getType(), y.getShape(),
                               "taps")))
    return failure();
  return verifyConvGradient(*this, y, x.getShape().slice(1, 2),
                            getI64Values(getWindow()), getStrides(),
                            Builder(getContext()).getI64ArrayAttr({1, 1}),
                            getPadding());
}

LogicalResult MaxPool2DGradIndicesOp::verify() {
  if (failed(verifyPair(*this, getInputSize(), "input_size", 0)) ||
      failed(verifyPair(*this, getWindow(), "window", 1)) ||
      failed(verifyPair(*this, getStrides(), "strides", 1)))
    return failure();
  auto dy = getDy().getType();
  if (dy.getRank() != 4)
    return emitOpError() << "output gradient " << dy << " must be NHWC";
  if (failed(verifyShapeAgrees(*this, getTaps().getType(), dy.getShape(),
                               "taps")))
    return failure();
  SmallVector<int64_t> inputSize = getI64Values(getInputSize());
  if (failed(verifyConvGradient(*this, dy, inputSize, getI64Values(getWindow()),
                                getStrides(),
                                Builder(getContext()).getI64ArrayAttr({1, 1}),
                                getPadding())))
    return failure();
  return verifyShapeAgrees(*this, getDx().getType(),
                           {dy.getDimSize(0), inputSize[0], inputSize[1],
                            dy.getDimSize(3)},
                           "result");
}

LogicalResult AvgPool2DGradOp::verify() {
  if (failed(verifyPair(*this, getInputSize(), "input_size", 0)) ||
      failed(verifyPair(*this, getWindow(), "window", 1)))
    return failure();
  SmallVector<int64_t> inputSize = getI64Values(getInputSize());
  if (failed(verifyConvGradient(*this, getDy().getType(), inputSize,
                                getI64Values(getWindow()), getStrides(),
                                Builder(getContext()).getI64ArrayAttr({1, 1}),
                                getPadding())))
    return failure();
  auto dy = getDy().getType();
  return verifyShapeAgrees(*this, getDx().getType(),
                           {dy.getDimSize(0), inputSize[0], inputSize[1],
                            dy.getDimSize(3)},
                           "result");
}

LogicalResult ResizeGradOp::verify() {
  if (failed(verifyPair(*this, getInputSize(), "input_size", 1)))
    return failure();
  if (getMode() != "nearest" && getMode() != "bilinear")
    return emitOpError() << "attribute 'mode' must be \"nearest\" or "
                            "\"bilinear\", got \""
                         << getMode() << "\"";
  auto dy = getDy().getType();
  if (dy.getRank() != 4)
    return emitOpError() << "output gradient " << dy << " must be NHWC";
  SmallVector<int64_t> inputSize = getI64Values(getInputSize());
  return verifyShapeAgrees(*this, getDx().getType(),
                           {dy.getDimSize(0), inputSize[0], inputSize[1],
                            dy.getDimSize(3)},
                           "result");
}

LogicalResult GatherGradOp::verify() {
  auto dy = getDy().getType(), indices = getIndices().getType();
  auto table = getDtable().getType();
  int64_t axis = getAxis(), size = getSize();
  if (axis < 0 || axis >= table.getRank() || size < 0)
    return emitOpError() << "axis = " << axis << " and size = " << size
                         << " must be valid for " << table;
  if (table.getDimSize(axis) != size)
    return emitOpError() << "result " << table << " must have " << size
                         << " elements along axis " << axis;
  if (dy.getRank() != table.getRank() - 1 + indices.getRank())
    return emitOpError() << "output gradient " << dy << " does not match "
                         << table << " gathered by " << indices;
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < axis; ++i)
    expected.push_back(dy.getDimSize(i));
  expected.push_back(size);
  for (int64_t i = axis + indices.getRank(); i < dy.getRank(); ++i)
    expected.push_back(dy.getDimSize(i));
  return verifyShapeAgrees(*this, table, expected, "result");
}
