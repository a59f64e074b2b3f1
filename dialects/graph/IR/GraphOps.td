//===- GraphOps.td - the tfcc graph dialect ----------------*- tablegen -*-===//
//
// Ops of the graph IR, contract v1 (shared/spec/graph-ir.md). Result types are
// checked against ShapeInference.cpp in each op's verifier.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_GRAPH_OPS
#define TFCC_GRAPH_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let summary = "Keras-like dataflow graph of tensor ops (NHWC)";
  let cppNamespace = "::mlir::graph";
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Graph_InitAttr : AttrDef<Graph_Dialect, "Init"> {
  let mnemonic = "init";
  let summary = "deterministic variable initializer";
  let description = [{
    `#graph.init<"KIND", seed = N, scale = S>`: KIND is one of zeros, ones,
    glorot_uniform, glorot_normal, he_uniform, he_normal, uniform (which
    requires scale). Keys may come in any order. The values are a function of
    (kind, seed, shape) only; see Initializers.h for the generator.
  }];
  let parameters = (ins
    StringRefParameter<"initializer kind">:$kind,
    "int64_t":$seed,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$scale);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Graph_SgdAttr : AttrDef<Graph_Dialect, "Sgd"> {
  let mnemonic = "sgd";
  let summary = "stochastic gradient descent optimizer (tf.keras.optimizers.SGD)";
  let description = [{
    `#graph.sgd<learning_rate = 1.0e-02, momentum = 0.0, nesterov = false>`:
    keys in any order, each optional with Keras' default (shown); floats are
    written with a decimal point. learning_rate > 0, momentum in [0, 1).
  }];
  let parameters = (ins APFloatParameter<"learning rate">:$learning_rate,
                        APFloatParameter<"momentum">:$momentum,
                        "bool":$nesterov);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Graph_AdamAttr : AttrDef<Graph_Dialect, "Adam"> {
  let mnemonic = "adam";
  let summary = "Adam optimizer (tf.keras.optimizers.Adam)";
  let description = [{
    `#graph.adam<learning_rate = 1.0e-03, beta1 = 0.9, beta2 = 0.999,
    epsilon = 1.0e-07>`: keys in any order, each optional with Keras' default
    (shown); floats are written with a decimal point. learning_rate > 0,
    beta1 and beta2 in [0, 1), epsilon > 0.
  }];
  let parameters = (ins APFloatParameter<"learning rate">:$learning_rate,
                        APFloatParameter<"first-moment decay">:$beta1,
                        APFloatParameter<"second-moment decay">:$beta2,
                        APFloatParameter<"denominator offset">:$epsilon);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// Every operand and result within the largest tensor size (TensorSize.h).
def Graph_TensorSizeLimited : NativeOpTrait<"TensorSizeLimited"> {
  let cppNamespace = "::mlir::graph";
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, !listconcat([Graph_TensorSizeLimited], traits)>;

def Graph_AnyTensor : RankedTensorOf<[F32, F64, F16, BF16, I1, I8, I32, I64]>;
def Graph_FloatTensor : RankedTensorOf<[F32, F64, F16, BF16]>;
def Graph_IndexTensor : RankedTensorOf<[I32, I64]>;
def Graph_BoolTensor : RankedTensorOf<[I1]>;

// One tensor in, one of the same type out; the type is printed once.
class Graph_UnaryOp<string mnemonic, TypeConstraint operandType = Graph_AnyTensor,
                    list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let arguments = (ins operandType:$x);
  let results = (outs operandType:$y);
  let assemblyFormat = "$x attr-dict `:` type($y)";
}

class Graph_FloatUnaryOp<string mnemonic, string doc, list<Trait> traits = []>
    : Graph_UnaryOp<mnemonic, Graph_FloatTensor, traits> {
  let summary = doc;
}

// Ops printed with a functional type whose verifier infers the result type.
class Graph_InferredOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

class Graph_BinaryOp<string mnemonic, string doc>
    : Graph_InferredOp<mnemonic> {
  let summary = doc;
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs);
  let results = (outs Graph_AnyTensor:$result);
}

//===----------------------------------------------------------------------===//
// Variables and constants
//===----------------------------------------------------------------------===//

def Graph_VariableOp : Graph_Op<"variable", [Symbol]> {
  let summary = "named persistent tensor with an initializer (tf.Variable)";
  let description = [{
    `graph.variable @name : TYPE = INIT {trainable = false}` where INIT is a
    dense elements attribute, `dense_resource<key>` or `#graph.init<...>`.
    The type must be fully static.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<AnyRankedTensor>:$type,
                       AnyAttr:$init, DefaultValuedAttr<BoolAttr, "true">:$trainable);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    RankedTensorType getTensorType() {
      return ::llvm::cast<RankedTensorType>(getType());
    }
  }];
}

def Graph_ReadOp : Graph_Op<"read", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reads the current value of a variable";
  let arguments = (ins FlatSymbolRefAttr:$variable);
  let results = (outs Graph_AnyTensor:$value);
  let assemblyFormat = "$variable attr-dict `:` type($value)";
}

def Graph_ConstantOp : Graph_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "inline constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_AnyTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_BinaryOp<"add", "elementwise sum, NumPy broadcasting">;
def Graph_SubOp : Graph_BinaryOp<"sub", "elementwise difference, NumPy broadcasting">;
def Graph_MulOp : Graph_BinaryOp<"mul", "elementwise product, NumPy broadcasting">;
def Graph_DivOp : Graph_BinaryOp<"div", "elementwise quotient, NumPy broadcasting">;
def Graph_MaximumOp : Graph_BinaryOp<"maximum", "elementwise maximum, NumPy broadcasting">;
def Graph_MinimumOp : Graph_BinaryOp<"minimum", "elementwise minimum, NumPy broadcasting">;
def Graph_PowOp : Graph_BinaryOp<"pow", "elementwise power, NumPy broadcasting">;

def Graph_NegOp : Graph_UnaryOp<"neg"> { let summary = "-x"; }
def Graph_AbsOp : Graph_UnaryOp<"abs"> { let summary = "|x|"; }
def Graph_ExpOp : Graph_FloatUnaryOp<"exp", "e^x">;
def Graph_LogOp : Graph_FloatUnaryOp<"log", "natural logarithm">;
def Graph_SqrtOp : Graph_FloatUnaryOp<"sqrt", "square root">;
def Graph_RsqrtOp : Graph_FloatUnaryOp<"rsqrt", "1 / sqrt(x)">;
def Graph_SquareOp : Graph_UnaryOp<"square"> { let summary = "x * x"; }
def Graph_TanhOp : Graph_FloatUnaryOp<"tanh", "hyperbolic tangent">;
def Graph_SigmoidOp : Graph_FloatUnaryOp<"sigmoid", "1 / (1 + e^-x)">;
def Graph_ReluOp : Graph_FloatUnaryOp<"relu", "max(x, 0)">;
def Graph_Relu6Op : Graph_FloatUnaryOp<"relu6", "min(max(x, 0), 6)">;
def Graph_ErfOp : Graph_FloatUnaryOp<"erf", "Gauss error function">;
def Graph_FloorOp : Graph_FloatUnaryOp<"floor", "round toward -inf">;
def Graph_CeilOp : Graph_FloatUnaryOp<"ceil", "round toward +inf">;
def Graph_HardSigmoidOp : Graph_FloatUnaryOp<"hard_sigmoid", "relu6(x + 3) / 6">;
def Graph_HardSwishOp : Graph_FloatUnaryOp<"hard_swish", "x * hard_sigmoid(x)">;

def Graph_GeluOp : Graph_FloatUnaryOp<"gelu", "Gaussian error linear unit"> {
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let hasVerifier = 1;
}

def Graph_LeakyReluOp : Graph_FloatUnaryOp<"leaky_relu", "x if x > 0 else alpha * x"> {
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha);
}

def Graph_ClipOp : Graph_FloatUnaryOp<"clip", "min(max(x, min), max)"> {
  let arguments = (ins Graph_FloatTensor:$x, F32Attr:$min, F32Attr:$max);
  let hasVerifier = 1;
}

def Graph_DropoutOp : Graph_FloatUnaryOp<"dropout", "identity outside training"> {
  let arguments = (ins Graph_FloatTensor:$x, F32Attr:$rate,
                       DefaultValuedAttr<I64Attr, "0">:$seed);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_SoftmaxOp : Graph_FloatUnaryOp<"softmax", "numerically stable softmax"> {
  let arguments = (ins Graph_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let hasVerifier = 1;
}

def Graph_LogSoftmaxOp : Graph_FloatUnaryOp<"log_softmax", "numerically stable log(softmax)"> {
  let arguments = (ins Graph_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_InferredOp<"cast"> {
  let summary = "element type conversion (float to int truncates toward zero)";
  let arguments = (ins Graph_AnyTensor:$x);
  let results = (outs Graph_AnyTensor:$y);
  let hasFolder = 1;
}

def Graph_CompareOp : Graph_InferredOp<"compare"> {
  let summary = "elementwise comparison with broadcasting, i1 result";
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs, StrAttr:$predicate);
  let results = (outs Graph_BoolTensor:$result);
}

def Graph_SelectOp : Graph_InferredOp<"select"> {
  let summary = "cond ? a : b with broadcasting";
  let arguments = (ins Graph_BoolTensor:$condition, Graph_AnyTensor:$lhs,
                       Graph_AnyTensor:$rhs);
  let results = (outs Graph_AnyTensor:$result);
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Graph_MatmulOp : Graph_InferredOp<"matmul"> {
  let summary = "batched matrix product; batch dims broadcast";
  let arguments = (ins Graph_FloatTensor:$lhs, Graph_FloatTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_DenseOp : Graph_InferredOp<"dense"> {
  let summary = "Keras Dense without activation: x @ kernel + bias";
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$kernel,
                       Optional<Graph_FloatTensor>:$bias);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_Conv2DOp : Graph_InferredOp<"conv2d"> {
  let summary = "TF Conv2D: NHWC input, HWIO kernel";
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$kernel,
                       Optional<Graph_FloatTensor>:$bias,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_DepthwiseConv2DOp : Graph_InferredOp<"depthwise_conv2d"> {
  let summary = "TF DepthwiseConv2D: kernel [kh, kw, c, m], output channel c*m + mi";
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$kernel,
                       Optional<Graph_FloatTensor>:$bias,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding);
  let results = (outs Graph_FloatTensor:$result);
}

class Graph_Pool2DOp<string mnemonic, string doc> : Graph_InferredOp<mnemonic> {
  let summary = doc;
  let arguments = (ins Graph_FloatTensor:$x, I64ArrayAttr:$window,
                       OptionalAttr<I64ArrayAttr>:$strides,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding);
  let results = (outs Graph_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// The strides, defaulting to the window as in TF.
    ::mlir::ArrayAttr getEffectiveStrides() {
      return getStrides() ? *getStrides() : getWindow();
    }
  }];
}

def Graph_MaxPool2DOp : Graph_Pool2DOp<"max_pool2d", "TF MaxPool2D (padding ignored)">;
def Graph_AvgPool2DOp : Graph_Pool2DOp<"avg_pool2d",
    "TF AveragePooling2D (SAME divides by the count of real elements)">;

def Graph_GlobalAvgPool2DOp : Graph_InferredOp<"global_avg_pool2d"> {
  let summary = "mean over H and W: NHWC -> [n, c]";
  let arguments = (ins Graph_FloatTensor:$x);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_GlobalMaxPool2DOp : Graph_InferredOp<"global_max_pool2d"> {
  let summary = "max over H and W: NHWC -> [n, c]";
  let arguments = (ins Graph_FloatTensor:$x);
  let results = (outs Graph_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Graph_BatchNormOp : Graph_InferredOp<"batch_norm"> {
  let summary = "batch normalization over the last axis (inference form)";
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$gamma,
                       Graph_FloatTensor:$beta, Graph_FloatTensor:$mean,
                       Graph_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-03">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.99">:$momentum);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_LayerNormOp : Graph_InferredOp<"layer_norm"> {
  let summary = "layer normalization over the axes from `axis` to the end";
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$gamma,
                       Graph_FloatTensor:$beta,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-03">:$epsilon);
  let results = (outs Graph_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_InferredOp<"reshape"> {
  let summary = "row-major reshape; the result type gives the shape";
  let arguments = (ins Graph_AnyTensor:$x);
  let results = (outs Graph_AnyTensor:$y);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_TransposeOp : Graph_InferredOp<"transpose"> {
  let summary = "permutes dimensions: result dim i is input dim perm[i]";
  let arguments = (ins Graph_AnyTensor:$x, I64ArrayAttr:$perm);
  let results = (outs Graph_AnyTensor:$y);
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_InferredOp<"concat"> {
  let summary = "concatenation along an axis";
  let arguments = (ins Variadic<Graph_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_AnyTensor:$result);
}

def Graph_SliceOp : Graph_InferredOp<"slice"> {
  let summary = "strided slice; a limit of -1 means the end of the dimension";
  let arguments = (ins Graph_AnyTensor:$x, I64ArrayAttr:$starts, I64ArrayAttr:$limits,
                       OptionalAttr<I64ArrayAttr>:$strides);
  let results = (outs Graph_AnyTensor:$y);
}

def Graph_PadOp : Graph_InferredOp<"pad"> {
  let summary = "padding, pads = [l0, h0, l1, h1, ...]";
  let description = [{
    Without `mode` (or with `mode = "constant"`) the new elements hold
    `value`, as the spec defines. Extension for ONNX Pad (docs/decisions.md):
    `mode = "reflect"` mirrors the input about its edge element, which is not
    repeated (NumPy/ONNX reflect; the pads of each side must be smaller than
    the dimension), and `mode = "edge"` repeats the edge element. `value` is
    ignored by both.
  }];
  let arguments = (ins Graph_AnyTensor:$x, I64ArrayAttr:$pads,
                       DefaultValuedAttr<F32Attr, "0.0">:$value,
                       DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs Graph_AnyTensor:$y);
  let builders = [
    // Constant padding (the spec's form).
    OpBuilder<(ins "Type":$y, "Value":$x, "ArrayAttr":$pads,
                   "FloatAttr":$value), [{
      build($_builder, $_state, y, x, pads, value, StringAttr());
    }]>
  ];
}

def Graph_ResizeOp : Graph_InferredOp<"resize"> {
  let summary = "TF2 tf.image.resize (nearest or bilinear) of NHWC images";
  let arguments = (ins Graph_FloatTensor:$x, I64ArrayAttr:$size,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<BoolAttr, "true">:$half_pixel_centers);
  let results = (outs Graph_FloatTensor:$y);
}

def Graph_GatherOp : Graph_InferredOp<"gather"> {
  let summary = "gathers slices of table along axis; out-of-range is a runtime error";
  let arguments = (ins Graph_AnyTensor:$table, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_AnyTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Graph_ReduceOp<string mnemonic, string doc> : Graph_InferredOp<mnemonic> {
  let summary = doc;
  let arguments = (ins Graph_AnyTensor:$x, I64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keep_dims);
  let results = (outs Graph_AnyTensor:$y);
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum over axes">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "mean over axes">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "max over axes">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "min over axes">;

def Graph_ArgmaxOp : Graph_InferredOp<"argmax"> {
  let summary = "index of the maximum along an axis (first wins ties), i32";
  let arguments = (ins Graph_AnyTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs RankedTensorOf<[I32]>:$result);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Graph_SparseSoftmaxCrossEntropyOp : Graph_InferredOp<"sparse_softmax_cross_entropy"> {
  let summary = "mean cross entropy of logits [n, c] against i32 labels [n]";
  let arguments = (ins Graph_FloatTensor:$logits, Graph_IndexTensor:$labels);
  let results = (outs 0DTensorOf<[F32]>:$loss);
}

def Graph_SoftmaxCrossEntropyOp : Graph_InferredOp<"softmax_cross_entropy"> {
  let summary = "mean cross entropy of logits [n, c] against probabilities [n, c]";
  let arguments = (ins Graph_FloatTensor:$logits, Graph_FloatTensor:$targets);
  let results = (outs 0DTensorOf<[F32]>:$loss);
}

def Graph_MeanSquaredErrorOp : Graph_InferredOp<"mean_squared_error"> {
  let summary = "mean of (prediction - target)^2 over all elements";
  let arguments = (ins Graph_FloatTensor:$prediction, Graph_FloatTensor:$target);
  let results = (outs 0DTensorOf<[F32]>:$loss);
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def Graph_TrainStepOp : Graph_Op<"train_step", [Symbol, HasParent<"ModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "training entry point: a loss function and an optimizer";
  let description = [{
    `graph.train_step @name {loss = @loss, optimizer = #graph.adam<...>,
    clip_norm = 1.0 : f32}` at module level. `loss` names a func.func that
    returns exactly one tensor<f32>; `optimizer` is a #graph.sgd or
    #graph.adam; `clip_norm` (optional, > 0) clips the global gradient norm.
    The entry point takes the loss function's arguments, returns the loss and
    updates every trainable variable in place (shared/spec/graph-ir.md,
    "Training").
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$loss,
                       AnyAttr:$optimizer, OptionalAttr<F32Attr>:$clip_norm);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compiler-internal fused ops (made by tfcc-fuse-ops; not in the spec)
//===----------------------------------------------------------------------===//

def Graph_F32Tensor : RankedTensorOf<[F32]>;

class Graph_FusedOp<string mnemonic> : Graph_Op<mnemonic,
    [Pure, AttrSizedOperandSegments]> {
  let assemblyFormat = [{
    $x `,` $kernel (`bias` $bias^)? (`residual` $residual^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_FusedConv2DOp : Graph_FusedOp<"fused_conv2d"> {
  let summary = "conv2d or depthwise_conv2d with explicit zero padding and an epilogue";
  let description = [{
    What tfcc-fuse-ops turns a float32 `graph.conv2d` (groups = 1) or
    `graph.depthwise_conv2d` into, together with what it absorbed: a zero
    `graph.pad` of its input (`pads = [top, bottom, left, right]`), a
    following bias add or inference batch_norm (folded into `kernel` and
    `bias`), a residual add of a same-shaped tensor and an activation.
    result = activation(conv(x, kernel) + bias + residual), where
    `activation` is "none", "relu", "clip" (min(max(v, alpha), beta)),
    "leaky_relu" (v > 0 ? v : alpha * v), "hard_swish" or "sigmoid". It
    lowers to one call of the runtime's convolution micro-kernel.
  }];
  let arguments = (ins Graph_F32Tensor:$x, Graph_F32Tensor:$kernel,
                       Optional<Graph_F32Tensor>:$bias, Optional<Graph_F32Tensor>:$residual,
                       I64ArrayAttr:$strides, I64ArrayAttr:$dilations,
                       I64ArrayAttr:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$depthwise,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DefaultValuedAttr<F32Attr, "0.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta);
  let results = (outs Graph_F32Tensor:$result);
}

def Graph_FusedDenseOp : Graph_FusedOp<"fused_dense"> {
  let summary = "dense (x [..., k] @ kernel [k, n]) with an epilogue";
  let description = [{
    A float32 `graph.dense`, or `graph.matmul` by a constant matrix, with
    what tfcc-fuse-ops absorbed after it: bias add, residual add of a
    same-shaped tensor, activation (as for `graph.fused_conv2d`). Lowers to
    one call of the runtime's GEMM micro-kernel with the kernel packed at
    compile time.
  }];
  let arguments = (ins Graph_F32Tensor:$x, Graph_F32Tensor:$kernel,
                       Optional<Graph_F32Tensor>:$bias, Optional<Graph_F32Tensor>:$residual,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DefaultValuedAttr<F32Attr, "0.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta);
  let results = (outs Graph_F32Tensor:$result);
}

//===----------------------------------------------------------------------===//
// Compiler-internal training ops (made by tfcc-autodiff; not in the spec).
// docs/autodiff.md gives their semantics; the reference interpreter runs
// them (dialects/graph/Reference/Training.cpp).
//===----------------------------------------------------------------------===//

def Graph_AssignOp : Graph_Op<"assign", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "writes a variable (training entry points only)";
  let description = [{
    `graph.assign @var, %value : TYPE` replaces the current value of variable
    `@var`; the value's type equals the variable's. A later `graph.read` of
    `@var` (in this call or a later one) sees the new value.
  }];
  let arguments = (ins FlatSymbolRefAttr:$variable, Graph_AnyTensor:$value);
  let assemblyFormat = "$variable `,` $value attr-dict `:` type($value)";
}

def Graph_DropoutMaskOp : Graph_Op<"dropout_mask", [Pure]> {
  let summary = "training-mode dropout mask: 0 or 1 / (1 - rate) per element";
  let description = [{
    `%m = graph.dropout_mask %x, %step {rate = R : f32, seed = S}` has the
    type of `%x`, whose values are not read. Element i (row-major) is kept
    when u_i >= rate, where, with splitmix64 as in Initializers.cpp,
    key = splitmix64(S * 0x9E3779B97F4A7C15 + step) and
    u_i = (splitmix64(key + i) >> 40) * 2^-24. Kept elements hold
    1 / (1 - rate) (computed in double, rounded to the element type once),
    dropped ones 0. `%step` is a tensor<i64> (the training step counter).
  }];
  let arguments = (ins Graph_FloatTensor:$x, 0DTensorOf<[I64]>:$step,
                       F32Attr:$rate, DefaultValuedAttr<I64Attr, "0">:$seed);
  let results = (outs Graph_FloatTensor:$mask);
  let assemblyFormat = "$x `,` $step attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

// Training-mode batch normalization, created by tfcc-autodiff over x of shape
// [..., C] with the statistics taken over every axis but the last.
// `moments` and `sums` are tensor<2xC>: rows (mean, biased variance) and
// (sum of dy, sum of dy * (x - mean)). N below is the element count of x
// divided by C.

def Graph_MomentsOp : Graph_Op<"moments", [Pure]> {
  let summary = "per-channel batch mean and biased variance (training batch_norm)";
  let description = [{
    `%m = graph.moments %x : (tensor<?x8x8x4xf32>) -> tensor<2x4xf32>`:
    row 0 the mean of each channel (the last axis) over all other axes, row 1
    the biased variance, mean((x - mean)^2).
  }];
  let arguments = (ins Graph_FloatTensor:$x);
  let results = (outs Graph_FloatTensor:$moments);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_BatchNormTrainOp : Graph_Op<"batch_norm_train", [Pure]> {
  let summary = "training-mode batch_norm on precomputed batch statistics";
  let description = [{
    `%y = graph.batch_norm_train %x, %moments, %gamma, %beta {epsilon}`:
    y = (x - mean) * rsqrt(variance + epsilon) * gamma + beta per channel,
    where `%moments` must be `graph.moments %x`. Its gradient rule treats
    the statistics as functions of `%x` (the full batch-norm gradient goes to
    `%x`; `%moments` gets none).
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$moments,
                       Graph_FloatTensor:$gamma, Graph_FloatTensor:$beta,
                       F32Attr:$epsilon);
  let results = (outs Graph_FloatTensor:$y);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_BatchNormGradSumsOp : Graph_Op<"batch_norm_grad_sums", [Pure]> {
  let summary = "per-channel sums of dy and dy * (x - mean) (batch_norm gradient)";
  let description = [{
    `%s = graph.batch_norm_grad_sums %x, %dy, %moments`: row 0 the sum of
    `%dy` per channel over all other axes, row 1 the sum of
    dy * (x - mean). The gradients of gamma and beta are row 1 * rsqrt(
    variance + epsilon) and row 0.
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$dy,
                       Graph_FloatTensor:$moments);
  let results = (outs Graph_FloatTensor:$sums);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_BatchNormTrainGradOp : Graph_Op<"batch_norm_train_grad", [Pure]> {
  let summary = "gradient of batch_norm_train with respect to x";
  let description = [{
    `%dx = graph.batch_norm_train_grad %x, %dy, %moments, %gamma, %sums
    {epsilon}`: with r = rsqrt(variance + epsilon),
    dx = gamma * r * (dy - sum_dy / N - (x - mean) * r^2 * sum_dy_xc / N),
    the batch-norm gradient including the paths through the batch mean and
    variance.
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$dy,
                       Graph_FloatTensor:$moments, Graph_FloatTensor:$gamma,
                       Graph_FloatTensor:$sums, F32Attr:$epsilon);
  let results = (outs Graph_FloatTensor:$dx);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_BroadcastLikeOp : Graph_Op<"broadcast_like", [Pure]> {
  let summary = "broadcasts a value (NumPy rules) to the shape of another tensor";
  let description = [{
    `%r = graph.broadcast_like %value, %like`: the result has the element
    type of `%value` and the shape of `%like`, whose values are not read.
  }];
  let arguments = (ins Graph_AnyTensor:$value, Graph_AnyTensor:$like);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ElementCountOp : Graph_Op<"element_count", [Pure]> {
  let summary = "product of some dimensions of a tensor, as a float scalar";
  let description = [{
    `%n = graph.element_count %x {axes = [0, 1]} : (tensor<?x4xf32>) ->
    tensor<f32>`: the product of the listed dimensions of `%x` (whose values
    are not read) as a 0-D float tensor. Used for the means of gradients over
    dynamic dimensions.
  }];
  let arguments = (ins Graph_AnyTensor:$x, I64ArrayAttr:$axes);
  let results = (outs 0DTensorOf<[F32, F64]>:$count);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_Conv2DBackpropInputOp : Graph_Op<"conv2d_backprop_input", [Pure]> {
  let summary = "gradient of conv2d with respect to its input (TF Conv2DBackpropInput)";
  let description = [{
    `%dx = graph.conv2d_backprop_input %dy, %kernel {input_size = [h, w],
    strides, dilations, padding, groups}`: the input gradient of the
    `graph.conv2d` with those attributes whose input had spatial size
    `[h, w]`: dx[n, ih, iw, g*in_g + ci] = sum over the output positions and
    channels co of group g that read (ih, iw) of dy[n, oh, ow, co] *
    kernel[i, j, ci, co].
  }];
  let arguments = (ins Graph_FloatTensor:$dy, Graph_FloatTensor:$kernel,
                       I64ArrayAttr:$input_size,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Graph_FloatTensor:$dx);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_Conv2DBackpropFilterOp : Graph_Op<"conv2d_backprop_filter", [Pure]> {
  let summary = "gradient of conv2d with respect to its kernel (TF Conv2DBackpropFilter)";
  let description = [{
    `%dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [kh, kw],
    strides, dilations, padding, groups}`: dk[i, j, ci, co] = sum over n,
    oh, ow of x[n, ih, iw, g*in_g + ci] * dy[n, oh, ow, co] for the input
    position (ih, iw) tap (i, j) of output (oh, ow) reads (padding skipped),
    g the group of co. Result `[kh, kw, in / groups, out]`.
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$dy,
                       I64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<I64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Graph_FloatTensor:$dkernel);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_MaxPool2DGradOp : Graph_Op<"max_pool2d_grad", [Pure]> {
  let summary = "gradient of max_pool2d: each window's gradient goes to its maximum";
  let description = [{
    `%dx = graph.max_pool2d_grad %x, %dy {window, strides, padding}` has the
    type of `%x`. Each output element's gradient is added to the input
    position of the first maximum of its window in row-major window order
    (a NaN counts as the maximum; padded positions are never chosen).
    With `positive_only` (set by tfcc-fuse-ops, which folds in the gradient
    of a ReLU that produced `%x`), a gradient reaches only positions whose
    input is greater than zero.
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$dy,
                       I64ArrayAttr:$window, I64ArrayAttr:$strides,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding,
                       UnitAttr:$positive_only);
  let results = (outs Graph_FloatTensor:$dx);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_MaxPool2DWithIndicesOp : Graph_Op<"max_pool2d_with_indices", [Pure]> {
  let summary = "max_pool2d that also records each window's first maximum";
  let description = [{
    What tfcc-fuse-ops makes of a float32 `graph.max_pool2d` whose input also
    feeds a `graph.max_pool2d_grad` of the same geometry (a training step):
    `%y, %taps = graph.max_pool2d_with_indices %x {window, strides, padding,
    positive_only}`. `%y` is the max_pool2d result; `%taps` (i8, the shape of
    `%y`) holds the tap i * kw + j of the first maximum that
    max_pool2d_grad's rule picks, or -1 when `positive_only` is set and that
    maximum is not above zero. The gradient then reads `%taps` instead of
    `%x`. Compiler-internal: never in a model, not interpreted.
  }];
  let arguments = (ins Graph_FloatTensor:$x, I64ArrayAttr:$window,
                       I64ArrayAttr:$strides,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding,
                       UnitAttr:$positive_only);
  let results = (outs Graph_FloatTensor:$y, RankedTensorOf<[I8]>:$taps);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_MaxPool2DGradIndicesOp : Graph_Op<"max_pool2d_grad_indices", [Pure]> {
  let summary = "max_pool2d_grad from the taps max_pool2d_with_indices recorded";
  let description = [{
    `%dx = graph.max_pool2d_grad_indices %taps, %dy {input_size = [h, w],
    window, strides, padding}`: dx = 0, then each window's dy is added at its
    recorded tap (none for -1). Compiler-internal, as above.
  }];
  let arguments = (ins RankedTensorOf<[I8]>:$taps, Graph_FloatTensor:$dy,
                       I64ArrayAttr:$input_size, I64ArrayAttr:$window,
                       I64ArrayAttr:$strides,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding);
  let results = (outs Graph_FloatTensor:$dx);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_AvgPool2DGradOp : Graph_Op<"avg_pool2d_grad", [Pure]> {
  let summary = "gradient of avg_pool2d: each window's gradient spread over its real elements";
  let description = [{
    `%dx = graph.avg_pool2d_grad %dy {input_size = [h, w], window, strides,
    padding}`: each output element's gradient divided by the count of real
    (non-padded) elements of its window is added to each of them.
  }];
  let arguments = (ins Graph_FloatTensor:$dy, I64ArrayAttr:$input_size,
                       I64ArrayAttr:$window, I64ArrayAttr:$strides,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding);
  let results = (outs Graph_FloatTensor:$dx);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ResizeGradOp : Graph_Op<"resize_grad", [Pure]> {
  let summary = "gradient of resize: scatter-add of each output's gradient to its taps";
  let description = [{
    `%dx = graph.resize_grad %dy {input_size = [h, w], mode,
    half_pixel_centers}`: the transpose of `graph.resize` from `[h, w]` to
    the spatial size of `%dy` (same source coordinates, computed in float):
    nearest adds dy to the chosen pixel; bilinear adds dy times each of the
    four taps' weights.
  }];
  let arguments = (ins Graph_FloatTensor:$dy, I64ArrayAttr:$input_size,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<BoolAttr, "true">:$half_pixel_centers);
  let results = (outs Graph_FloatTensor:$dx);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_GatherGradOp : Graph_Op<"gather_grad", [Pure]> {
  let summary = "gradient of gather: scatter-add of rows into a zero table";
  let description = [{
    `%dt = graph.gather_grad %dy, %indices {axis, size}`: a zero table with
    `size` rows along `axis` (the result type) to which each gathered slice
    of `%dy` is added at its index; an index outside [0, size) is a runtime
    error.
  }];
  let arguments = (ins Graph_FloatTensor:$dy, Graph_IndexTensor:$indices,
                       I64Attr:$axis, I64Attr:$size);
  let results = (outs Graph_FloatTensor:$dtable);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // TFCC_GRAPH_OPS
