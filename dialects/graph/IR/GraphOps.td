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

def Graph_AnyTensor : RankedTensorOf<[F32, F64, F16, BF16, I1, I8, UI8, I32, I64]>;
// Quantized data: ONNX int8 and uint8 (graph.quantize's result).
def Graph_QuantTensor : RankedTensorOf<[I8, UI8]>;
// What graph.dequantize reads: quantized data or int32 (a quantized bias).
def Graph_DequantTensor : RankedTensorOf<[I8, UI8, I32]>;
def Graph_F32Tensor : RankedTensorOf<[F32]>;
// f32, or f16 / bf16 after tfcc-precision-policy (computed in f32 by
// tfcc-widen-low-precision-ops).
def Graph_FusedFloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def Graph_MatmulTensor : RankedTensorOf<[F32, F64, F16, BF16, I32]>;
def Graph_FloatTensor : RankedTensorOf<[F32, F64, F16, BF16]>;
// What max pooling takes: float, or quantized 8-bit integers.
def Graph_PoolTensor : RankedTensorOf<[F32, F64, F16, BF16, I8, UI8]>;
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
  let description = [{
    `%v = graph.read @name : TYPE` yields the current value of the module's
    `graph.variable @name`; `@name` must name a graph.variable and TYPE must
    equal its type. The value is the variable's initializer until a
    `graph.assign` (which tfcc-autodiff emits in training entry points) writes
    it. It is how a TF `tf.Variable` is read; the ONNX importer also reads its
    larger constant tensors (over 16 elements, not i1) through a variable.

    Example:

    ```mlir
    %k = graph.read @conv1_kernel : tensor<3x3x1x32xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$variable);
  let results = (outs Graph_AnyTensor:$value);
  let assemblyFormat = "$variable attr-dict `:` type($value)";
}

def Graph_ConstantOp : Graph_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "inline constant tensor";
  let description = [{
    `%c = graph.constant dense<...> : TYPE`: the elements attribute `value`,
    whose type is the result type. It is the dialect's constant-like op: it
    folds to `value`, and folders materialize their constants as
    `graph.constant`. The ONNX importer uses it for small constant tensors (at
    most 16 elements, or i1).

    Example:

    ```mlir
    %c = graph.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_AnyTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_BinaryOp<"add", "elementwise sum, NumPy broadcasting"> {
  let description = [{
    Elementwise `lhs + rhs`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. Integer addition wraps (two's complement). TF `tf.math.add`,
    Keras `Add`; ONNX `Add`, and `Sum` / `Mean` as chains of `graph.add` (Mean
    then divides by the input count).

    Example:

    ```mlir
    %r = graph.add %a, %b
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_SubOp : Graph_BinaryOp<"sub", "elementwise difference, NumPy broadcasting"> {
  let description = [{
    Elementwise `lhs - rhs`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. Integer subtraction wraps (two's complement). TF
    `tf.math.subtract`, Keras `Subtract`; ONNX `Sub`.

    Example:

    ```mlir
    %r = graph.sub %a, %b
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_MulOp : Graph_BinaryOp<"mul", "elementwise product, NumPy broadcasting"> {
  let description = [{
    Elementwise `lhs * rhs`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. Integer multiplication wraps (two's complement). TF
    `tf.math.multiply`, Keras `Multiply`; ONNX `Mul`.

    Example:

    ```mlir
    %r = graph.mul %a, %b
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_DivOp : Graph_BinaryOp<"div", "elementwise quotient, NumPy broadcasting"> {
  let description = [{
    Elementwise `lhs / rhs`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. Floats divide as IEEE (x / 0 is an infinity or NaN); integers
    truncate toward zero, like TF's `Div`, and an integer division by zero is a
    run-time error of the reference interpreter. TF `tf.math.divide` (floats);
    ONNX `Div`, and `Reciprocal` as `1 / x`.

    Example:

    ```mlir
    %r = graph.div %a, %b
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_ModOp : Graph_InferredOp<"mod"> {
  let summary = "elementwise remainder, NumPy broadcasting";
  let description = [{
    Elementwise remainder of `lhs / rhs` with the sign of `rhs` (Python's
    `%`, the default) or, with `fmod`, of `lhs` (C's `fmod`: lhs - trunc(lhs /
    rhs) * rhs). Operands and broadcasting as `graph.div`. Floats need `fmod`
    (ONNX's rule); an integer remainder by zero is a run-time error of the
    reference interpreter and 0 in compiled code. ONNX `Mod`; TF
    `tf.math.floormod` / `truncatemod`.

    Example:

    ```mlir
    %r = graph.mod %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %f = graph.mod %x, %y {fmod = true}
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
  let results = (outs Graph_AnyTensor:$result);
  let hasVerifier = 1;
}

def Graph_MaximumOp : Graph_BinaryOp<"maximum", "elementwise maximum, NumPy broadcasting"> {
  let description = [{
    Elementwise `max(lhs, rhs)`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. For floats a NaN in either operand gives NaN. TF
    `tf.math.maximum`, Keras `Maximum`; ONNX `Max` (variadic, folded pairwise),
    integer `Relu` (max(x, 0)) and `Clip` with bounds that `graph.clip` cannot
    take.

    Example:

    ```mlir
    %r = graph.maximum %a, %b
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_MinimumOp : Graph_BinaryOp<"minimum", "elementwise minimum, NumPy broadcasting"> {
  let description = [{
    Elementwise `min(lhs, rhs)`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. For floats a NaN in either operand gives NaN. TF
    `tf.math.minimum`, Keras `Minimum`; ONNX `Min` (variadic, folded pairwise)
    and `Clip` with bounds that `graph.clip` cannot take.

    Example:

    ```mlir
    %r = graph.minimum %a, %b
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_PowOp : Graph_BinaryOp<"pow", "elementwise power, NumPy broadcasting"> {
  let description = [{
    Elementwise `lhs ^ rhs`. The operands must have the same element type (a
    mismatch is a verifier error suggesting `graph.cast`) and shapes that
    broadcast under NumPy rules; the result has the broadcast shape and that
    element type. Floats use C's `pow`; integers are raised exactly by repeated
    squaring, wrapping, and a negative integer exponent is a run-time error of
    the reference interpreter. TF `tf.math.pow`; ONNX `Pow` (its exponent is
    first cast to the base's element type).

    Example:

    ```mlir
    %r = graph.pow %a, %b
        : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_NegOp : Graph_UnaryOp<"neg"> {
  let summary = "-x";
  let description = [{
    Elementwise negation; the result has the operand's type. Float or integer
    operands (integer negation wraps: the minimum value stays itself). TF
    `tf.math.negative`; ONNX `Neg`.

    Example:

    ```mlir
    %y = graph.neg %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_AbsOp : Graph_UnaryOp<"abs"> {
  let summary = "|x|";
  let description = [{
    Elementwise absolute value; the result has the operand's type. Float or
    integer operands (integer abs wraps: |minimum value| is the minimum value).
    TF `tf.math.abs`; ONNX `Abs`.

    Example:

    ```mlir
    %y = graph.abs %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_ExpOp : Graph_FloatUnaryOp<"exp", "e^x"> {
  let description = [{
    Elementwise e^x of a float tensor (f32, f64, f16 or bf16); the result has
    the operand's type. TF `tf.math.exp`; ONNX `Exp` (and the exponential inside
    ReduceLogSumExp).

    Example:

    ```mlir
    %y = graph.exp %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_LogOp : Graph_FloatUnaryOp<"log", "natural logarithm"> {
  let description = [{
    Elementwise natural logarithm of a float tensor; the result has the
    operand's type. log(0) = -inf and log(x < 0) = NaN. TF `tf.math.log`; ONNX
    `Log` (and the logarithm of ReduceLogSum / ReduceLogSumExp).

    Example:

    ```mlir
    %y = graph.log %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_SqrtOp : Graph_FloatUnaryOp<"sqrt", "square root"> {
  let description = [{
    Elementwise square root of a float tensor; the result has the operand's
    type. sqrt(x < 0) = NaN. TF `tf.math.sqrt`; ONNX `Sqrt` (and the root of
    ReduceL2).

    Example:

    ```mlir
    %y = graph.sqrt %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_RsqrtOp : Graph_FloatUnaryOp<"rsqrt", "1 / sqrt(x)"> {
  let description = [{
    Elementwise reciprocal square root 1 / sqrt(x) of a float tensor; the result
    has the operand's type. rsqrt(0) = +inf. TF `tf.math.rsqrt`. ONNX has no
    such op; the importer uses it to expand InstanceNormalization.

    Example:

    ```mlir
    %y = graph.rsqrt %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_SquareOp : Graph_UnaryOp<"square"> {
  let summary = "x * x";
  let description = [{
    Elementwise x * x; the result has the operand's type. Float or integer
    operands (integer products wrap). TF `tf.math.square`; the ONNX importer
    uses it for ReduceSumSquare and ReduceL2.

    Example:

    ```mlir
    %y = graph.square %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_TanhOp : Graph_FloatUnaryOp<"tanh", "hyperbolic tangent"> {
  let description = [{
    Elementwise hyperbolic tangent of a float tensor; the result has the
    operand's type. TF `tf.math.tanh`, Keras activation `"tanh"`; ONNX `Tanh`.

    Example:

    ```mlir
    %y = graph.tanh %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_SigmoidOp : Graph_FloatUnaryOp<"sigmoid", "1 / (1 + e^-x)"> {
  let description = [{
    Elementwise logistic function 1 / (1 + e^-x) of a float tensor; the result
    has the operand's type. TF `tf.math.sigmoid`, Keras activation `"sigmoid"`;
    ONNX `Sigmoid`.

    Example:

    ```mlir
    %y = graph.sigmoid %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_ReluOp : Graph_FloatUnaryOp<"relu", "max(x, 0)"> {
  let description = [{
    Elementwise max(x, 0) of a float tensor; the result has the operand's type
    and relu(NaN) is NaN. TF `tf.nn.relu`, Keras `ReLU` / activation `"relu"`;
    ONNX `Relu` on f32 (other numeric types import as `graph.maximum` with 0).

    Example:

    ```mlir
    %y = graph.relu %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_Relu6Op : Graph_FloatUnaryOp<"relu6", "min(max(x, 0), 6)"> {
  let description = [{
    Elementwise min(max(x, 0), 6) of a float tensor; the result has the
    operand's type and relu6(NaN) is NaN. TF `tf.nn.relu6`, Keras
    `ReLU(max_value=6)`.

    Example:

    ```mlir
    %y = graph.relu6 %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_ErfOp : Graph_FloatUnaryOp<"erf", "Gauss error function"> {
  let description = [{
    Elementwise Gauss error function of a float tensor; the result has the
    operand's type. TF `tf.math.erf`; ONNX `Erf`.

    Example:

    ```mlir
    %y = graph.erf %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_FloorOp : Graph_FloatUnaryOp<"floor", "round toward -inf"> {
  let description = [{
    Elementwise rounding toward -inf of a float tensor; the result has the
    operand's type. It has no gradient (tfcc-autodiff stops there). TF
    `tf.math.floor`; ONNX `Floor`.

    Example:

    ```mlir
    %y = graph.floor %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_CeilOp : Graph_FloatUnaryOp<"ceil", "round toward +inf"> {
  let description = [{
    Elementwise rounding toward +inf of a float tensor; the result has the
    operand's type. It has no gradient (tfcc-autodiff stops there). TF
    `tf.math.ceil`; ONNX `Ceil`.

    Example:

    ```mlir
    %y = graph.ceil %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_MathOp : Graph_FloatUnaryOp<"math", "elementwise function of the math library"> {
  let description = [{
    Elementwise `fn(x)` of a float tensor; the result has the operand's type.
    `fn` is one of the functions in `dialects/graph/IR/MathFunctions.def`:
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
    "acosh", "atanh", "round" (halves to even) and "sign" (-1, 0 or 1;
    NaN stays NaN). Values outside a function's domain give NaN, as in C's
    libm. It has no gradient (tfcc-autodiff refuses it). ONNX `Sin`, `Cos`,
    `Tan`, `Asin`, `Acos`, `Atan`, `Sinh`, `Cosh`, `Asinh`, `Acosh`,
    `Atanh`, `Round`, `Sign` on floats; TF `tf.math.sin`, ...

    Example:

    ```mlir
    %y = graph.math "sin" %x : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, StrAttr:$fn);
  let assemblyFormat = "$fn $x attr-dict `:` type($y)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The function `fn` names (the verifier guarantees there is one).
    MathFunction getFunction();
  }];
}

def Graph_HardSigmoidOp : Graph_FloatUnaryOp<"hard_sigmoid", "relu6(x + 3) / 6"> {
  let description = [{
    Elementwise relu6(x + 3) / 6, i.e. clip(x / 6 + 0.5, 0, 1), of a float
    tensor; the result has the operand's type and hard_sigmoid(NaN) is NaN. ONNX
    `HardSigmoid` with alpha = 1/6 and beta = 0.5 (other alpha and beta import
    as `graph.mul`, `graph.add` and `graph.clip`).

    Example:

    ```mlir
    %y = graph.hard_sigmoid %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_HardSwishOp : Graph_FloatUnaryOp<"hard_swish", "x * hard_sigmoid(x)"> {
  let description = [{
    Elementwise x * hard_sigmoid(x) = x * relu6(x + 3) / 6 of a float tensor
    (the hard-swish activation of MobileNetV3); the result has the operand's
    type. ONNX `HardSwish`.

    Example:

    ```mlir
    %y = graph.hard_swish %x : tensor<2x3xf32>
    ```
  }];
}

def Graph_GeluOp : Graph_FloatUnaryOp<"gelu", "Gaussian error linear unit"> {
  let description = [{
    Elementwise Gaussian error linear unit of a float tensor; the result has the
    operand's type. `approximate` (default "none") selects the form, and the
    verifier accepts only these two:
    "none": 0.5 * x * (1 + erf(x / sqrt(2)));
    "tanh": 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
    TF `tf.nn.gelu` (approximate = False / True), Keras activation `"gelu"`.

    Example:

    ```mlir
    %y = graph.gelu %x {approximate = "tanh"} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let hasVerifier = 1;
}

def Graph_LeakyReluOp : Graph_FloatUnaryOp<"leaky_relu", "x if x > 0 else alpha * x"> {
  let description = [{
    Elementwise x if x > 0 else alpha * x of a float tensor, with the f32
    attribute `alpha` (default 0.2, as in `tf.nn.leaky_relu`; Keras `LeakyReLU`
    defaults to 0.3). The result has the operand's type; NaN stays NaN. ONNX
    `LeakyRelu`.

    Example:

    ```mlir
    %y = graph.leaky_relu %x {alpha = 1.0e-01 : f32} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha);
}

def Graph_ClipOp : Graph_FloatUnaryOp<"clip", "min(max(x, min), max)"> {
  let description = [{
    Elementwise min(max(x, min), max) of a float tensor, with the required f32
    attributes `min` and `max`; the verifier rejects min > max. The result has
    the operand's type; clip(NaN) is NaN. TF `tf.clip_by_value`; ONNX `Clip`
    with constant f32 bounds (other bounds import as
    `graph.maximum` / `graph.minimum`).

    Example:

    ```mlir
    %y = graph.clip %x {min = -1.0 : f32, max = 1.0 : f32} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, F32Attr:$min, F32Attr:$max);
  let hasVerifier = 1;
}

def Graph_DropoutOp : Graph_FloatUnaryOp<"dropout", "identity outside training"> {
  let description = [{
    Keras `Dropout`: `rate` (a required f32 in [0, 1)) and `seed` (default 0).
    Outside training it is the identity: it folds to its operand and the
    interpreter returns `x`. In a `graph.train_step`, tfcc-autodiff rewrites it
    to `x * graph.dropout_mask %x, %step {rate, seed}` (`x` itself for rate 0),
    which zeroes elements and scales the kept ones by 1 / (1 - rate). ONNX
    `Dropout` imports as the identity, not as this op.

    Example:

    ```mlir
    %y = graph.dropout %x {rate = 5.0e-01 : f32} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, F32Attr:$rate,
                       DefaultValuedAttr<I64Attr, "0">:$seed);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_SoftmaxOp : Graph_FloatUnaryOp<"softmax", "numerically stable softmax"> {
  let description = [{
    Softmax of a float tensor along `axis` (default -1; the verifier requires it
    in [-rank, rank)): with m the maximum along the axis, y =
    exp(x - m) / sum(exp(x - m)). The result has the operand's type. TF
    `tf.nn.softmax`, Keras `Softmax` / activation `"softmax"`; ONNX `Softmax`.

    Example:

    ```mlir
    %y = graph.softmax %x {axis = -1} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let hasVerifier = 1;
}

def Graph_LogSoftmaxOp : Graph_FloatUnaryOp<"log_softmax", "numerically stable log(softmax)"> {
  let description = [{
    Log-softmax of a float tensor along `axis` (default -1; the verifier
    requires it in [-rank, rank)): with m the maximum along the axis, y =
    (x - m) - log(sum(exp(x - m))). The result has the operand's type. TF
    `tf.nn.log_softmax`; ONNX `LogSoftmax`.

    Example:

    ```mlir
    %y = graph.log_softmax %x {axis = -1} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_InferredOp<"cast"> {
  let summary = "element type conversion (float to int truncates toward zero)";
  let description = [{
    Converts each element to the element type of the written result type; the
    shape is the operand's. Float to integer truncates toward zero (NaN and
    out-of-range values are undefined in compiled code; the interpreter gives 0
    and saturates); integer to integer wraps; i1 to a number is 0 / 1; a number
    to i1 is `x != 0`. A cast to the operand's own type folds away. TF
    `tf.cast`; ONNX `Cast` (to f32, f64, bool, int32 or int64).

    Example:

    ```mlir
    %r = graph.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$x);
  let results = (outs Graph_AnyTensor:$y);
  let hasFolder = 1;
}

def Graph_QuantizeOp : Graph_InferredOp<"quantize"> {
  let summary = "linear quantization to i8 / ui8 (ONNX QuantizeLinear)";
  let description = [{
    y = saturate(round_half_to_even(x / scale) + zero_point), computed in f32
    and saturated to the result type's range ([-128, 127] for i8, [0, 255]
    for ui8); NaN gives the lowest value. `scale` (f32) and `zero_point` (of
    the result's element type) have the same shape: a scalar (per tensor) or
    a 1-D tensor with one entry per index of dimension `axis` of x (per axis;
    `axis` in [-rank, rank), default 1, ignored for scalars). The result has
    x's shape. The importer and the verifier do not check scale's values
    (ONNX requires them positive; tfcc-import refuses a constant zero or
    negative scale). ONNX `QuantizeLinear` (opsets 10-19); docs/quantization.md.

    Example:

    ```mlir
    %q = graph.quantize %x, %scale, %zp {axis = 1}
        : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
    ```
  }];
  let arguments = (ins Graph_F32Tensor:$x, Graph_F32Tensor:$scale,
                       Graph_QuantTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_QuantTensor:$y);
}

def Graph_DequantizeOp : Graph_InferredOp<"dequantize"> {
  let summary = "linear dequantization to f32 (ONNX DequantizeLinear)";
  let description = [{
    y = (x - zero_point) * scale in f32, with `scale` and `zero_point` (of x's
    element type: i8, ui8 or i32) a scalar or one entry per index of dimension
    `axis` of x, as for graph.quantize. The result is f32 of x's shape. ONNX
    `DequantizeLinear` (opsets 10-19); docs/quantization.md.

    Example:

    ```mlir
    %y = graph.dequantize %q, %scale, %zp
        : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_DequantTensor:$x, Graph_F32Tensor:$scale,
                       Graph_DequantTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_F32Tensor:$y);
}

def Graph_CompareOp : Graph_InferredOp<"compare"> {
  let summary = "elementwise comparison with broadcasting, i1 result";
  let description = [{
    Elementwise comparison `lhs PREDICATE rhs` with the required string
    `predicate`, one of "eq", "ne", "lt", "le", "gt", "ge". The operands must
    have the same element type and NumPy-broadcastable shapes; the result is an
    i1 tensor of the broadcast shape. Comparisons with NaN are false except
    "ne". TF `tf.math.equal`, `not_equal`, `less`, ...; ONNX `Equal`, `Less`,
    `LessOrEqual`, `Greater`, `GreaterOrEqual`, and `Not` (x == false) and `Xor`
    (a != b) on booleans.

    Example:

    ```mlir
    %r = graph.compare %a, %b {predicate = "gt"}
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs, StrAttr:$predicate);
  let results = (outs Graph_BoolTensor:$result);
}

def Graph_SelectOp : Graph_InferredOp<"select"> {
  let summary = "cond ? a : b with broadcasting";
  let description = [{
    Elementwise `condition ? lhs : rhs`. `condition` is an i1 tensor; `lhs` and
    `rhs` must have the same element type, which the result has. All three
    shapes broadcast together under NumPy rules to the result shape. TF
    `tf.where` (with both branches); ONNX `Where`, and `And` / `Or` on booleans.

    Example:

    ```mlir
    %r = graph.select %c, %a, %b
        : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_BoolTensor:$condition, Graph_AnyTensor:$lhs,
                       Graph_AnyTensor:$rhs);
  let results = (outs Graph_AnyTensor:$result);
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Graph_MatmulOp : Graph_InferredOp<"matmul"> {
  let summary = "batched matrix product; batch dims broadcast";
  let description = [{
    Batched matrix product of float or i32 tensors of rank >= 2 and the same
    element type (i32 products and sums wrap: ONNX `MatMulInteger` on
    widened 8-bit data). `transpose_a` / `transpose_b` (default false) swap the last two
    dimensions of that operand first; then `[..., m, k] @ [..., k, n]` gives
    `[..., m, n]`, where the contracted sizes must agree and the batch
    dimensions broadcast under NumPy rules (a rank-2 operand applies to every
    batch). TF `tf.linalg.matmul`; ONNX `MatMul` (1-D operands are reshaped
    around it) and `Gemm` when it is not a `graph.dense`.

    Example:

    ```mlir
    %r = graph.matmul %a, %b {transpose_b = true}
        : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Graph_MatmulTensor:$lhs, Graph_MatmulTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Graph_MatmulTensor:$result);
}

def Graph_DenseOp : Graph_InferredOp<"dense"> {
  let summary = "Keras Dense without activation: x @ kernel + bias";
  let description = [{
    Keras `Dense` without activation: `x [..., in] @ kernel [in, out] + bias`
    gives `[..., out]`. `x` has rank >= 1, `kernel` rank 2 and the optional
    `bias` rank 1 with `out` elements; all operands are floats of one element
    type. ONNX `Gemm` with a constant f32 B, transA = 0 and alpha = 1, and
    `MatMul` by a constant rank-2 B.

    Example:

    ```mlir
    %r = graph.dense %x, %k, %b
        : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$kernel,
                       Optional<Graph_FloatTensor>:$bias);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_Conv2DOp : Graph_InferredOp<"conv2d"> {
  let summary = "TF Conv2D: NHWC input, HWIO kernel";
  let description = [{
    TF `Conv2D` (Keras `Conv2D` without activation): x NHWC, a statically shaped
    HWIO kernel `[kh, kw, in / groups, out]` and an optional bias `[out]` give
    NHWC `[n, oh, ow, out]`. `strides` and `dilations` (default [1, 1]) hold two
    positive integers; `padding` is "valid" (the default; the window must fit)
    or "same" (out = ceil(in / stride), the extra row or column of padding at
    the bottom/right). `groups` (default 1) must divide `out` and x must have
    `groups` times kernel dimension 2 channels; output channel o reads the input
    channels of group o / (out / groups). ONNX `Conv`, grouped and depthwise
    ones included (NCHW transposed around it; explicit pads other than TF's SAME
    become a `graph.pad`).

    Example:

    ```mlir
    %r = graph.conv2d %x, %k, %b {strides = [2, 2], padding = "same"}
        : (tensor<1x7x7x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>)
        -> tensor<1x4x4x4xf32>
    ```
  }];
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
  let description = [{
    TF `DepthwiseConv2D` (Keras `DepthwiseConv2D` without activation): x NHWC
    with c channels, a statically shaped kernel `[kh, kw, c, m]` and an optional
    bias `[c * m]` give NHWC `[n, oh, ow, c * m]`; output channel `ci * m + mi`
    is input channel ci convolved with kernel[:, :, ci, mi]. `strides`,
    `dilations` and `padding` are as for `graph.conv2d`. The ONNX importer turns
    depthwise Convs into `graph.conv2d` with `groups`, not this op.

    Example:

    ```mlir
    %r = graph.depthwise_conv2d %x, %k, %b {padding = "same"}
        : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>)
        -> tensor<1x6x6x6xf32>
    ```
  }];
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

def Graph_MaxPool2DOp : Graph_Pool2DOp<"max_pool2d", "TF MaxPool2D (padding ignored)"> {
  let description = [{
    TF / Keras `MaxPooling2D` of a float NHWC tensor: the maximum of each
    `window = [h, w]` (required) moved by `strides` (default: the window), with
    `padding` "valid" (the default) or "same", as for `graph.conv2d` without
    dilation; the channel count is kept. Padded positions are never read, and a
    NaN in a window gives NaN. ONNX `MaxPool` (dilated ones through strided
    slices). Also of int8 / uint8 tensors (quantized data, which
    tfcc-fuse-int8-ops pools before dequantizing it): the integers' maximum;
    the lowering takes those with a static channel count (and static H and W
    with "same") only.

    Example:

    ```mlir
    %r = graph.max_pool2d %x {window = [3, 3], strides = [2, 2], padding = "same"}
        : (tensor<1x7x7x2xf32>) -> tensor<1x4x4x2xf32>
    ```
  }];
  let arguments = (ins Graph_PoolTensor:$x, I64ArrayAttr:$window,
                       OptionalAttr<I64ArrayAttr>:$strides,
                       DefaultValuedAttr<StrAttr, "\"valid\"">:$padding);
  let results = (outs Graph_PoolTensor:$result);
}

def Graph_AvgPool2DOp : Graph_Pool2DOp<"avg_pool2d",
    "TF AveragePooling2D (SAME divides by the count of real elements)"> {
  let description = [{
    TF / Keras `AveragePooling2D` of a float NHWC tensor: the mean of each
    `window = [h, w]` (required) moved by `strides` (default: the window), with
    `padding` "valid" (the default) or "same", as for `graph.conv2d` without
    dilation; the channel count is kept. With "same" each window divides by its
    count of real (non-padded) elements. ONNX `AveragePool`.

    Example:

    ```mlir
    %r = graph.avg_pool2d %x {window = [3, 3], strides = [1, 1], padding = "same"}
        : (tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
    ```
  }];
}

def Graph_GlobalAvgPool2DOp : Graph_InferredOp<"global_avg_pool2d"> {
  let summary = "mean over H and W: NHWC -> [n, c]";
  let description = [{
    Keras `GlobalAveragePooling2D`: the mean over H and W of a rank-4 float NHWC
    tensor, `[n, h, w, c] -> [n, c]`. ONNX `GlobalAveragePool` (reshaped back to
    `[N, C, 1, 1]`).

    Example:

    ```mlir
    %r = graph.global_avg_pool2d %x : (tensor<2x4x4x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_GlobalMaxPool2DOp : Graph_InferredOp<"global_max_pool2d"> {
  let summary = "max over H and W: NHWC -> [n, c]";
  let description = [{
    Keras `GlobalMaxPooling2D`: the maximum over H and W of a rank-4 float NHWC
    tensor, `[n, h, w, c] -> [n, c]`; a NaN gives NaN. ONNX `GlobalMaxPool`
    (reshaped back to `[N, C, 1, 1]`).

    Example:

    ```mlir
    %r = graph.global_max_pool2d %x : (tensor<2x4x4x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x);
  let results = (outs Graph_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Graph_BatchNormOp : Graph_InferredOp<"batch_norm"> {
  let summary = "batch normalization over the last axis (inference form)";
  let description = [{
    Keras `BatchNormalization` (axis -1) in inference form: y =
    (x - mean) / sqrt(variance + epsilon) * gamma + beta over the last axis of x
    (rank >= 1). gamma, beta, mean and variance are vectors of the last
    dimension's size and x's element type. `epsilon` (default 1.0e-03) must be
    finite and >= 0, `momentum` (default 0.99) in [0, 1). In a
    `graph.train_step`, tfcc-autodiff normalizes with the batch statistics
    instead and, when mean and variance are variable reads, updates them with
    `momentum`. ONNX `BatchNormalization` (inference, channels moved last).

    Example:

    ```mlir
    %r = graph.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-03 : f32}
        : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
           tensor<3xf32>) -> tensor<2x4x4x3xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, Graph_FloatTensor:$gamma,
                       Graph_FloatTensor:$beta, Graph_FloatTensor:$mean,
                       Graph_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-03">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.99">:$momentum);
  let results = (outs Graph_FloatTensor:$result);
}

def Graph_LayerNormOp : Graph_InferredOp<"layer_norm"> {
  let summary = "layer normalization over the axes from `axis` to the end";
  let description = [{
    Layer normalization over the axes from `axis` (default -1, in [-rank, rank))
    to the end: with the mean and the biased variance of each such group, y =
    (x - mean) / sqrt(variance + epsilon) * gamma + beta, where gamma and beta
    have the shape of the normalized axes and x's element type. `epsilon`
    (default 1.0e-03) must be finite and >= 0. Keras `LayerNormalization` over
    the trailing axes; ONNX `LayerNormalization` (opset 17 on).

    Example:

    ```mlir
    %r = graph.layer_norm %x, %g, %b {axis = -1, epsilon = 1.0e-05 : f32}
        : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
    ```
  }];
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
  let description = [{
    Row-major reshape: the values keep their order and the written result type
    gives the new shape, with the operand's element type. The result may have at
    most one dynamic dimension: for a static operand it is inferred from the
    element count, which the static dimensions must divide; a dynamic operand
    needs exactly one (its fit is checked at run time). It folds away when the
    type is static and unchanged, folds a constant operand, and
    reshape(reshape(x)) becomes reshape(x). TF `tf.reshape`, Keras
    `Reshape` / `Flatten`; ONNX `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`.

    Example:

    ```mlir
    %r = graph.reshape %x : (tensor<?x2x3xf32>) -> tensor<?x6xf32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$x);
  let results = (outs Graph_AnyTensor:$y);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_TransposeOp : Graph_InferredOp<"transpose"> {
  let summary = "permutes dimensions: result dim i is input dim perm[i]";
  let description = [{
    Permutes the dimensions: result dimension i is operand dimension perm[i].
    `perm` (required) must be a permutation of [0, rank). The identity
    permutation folds away. TF `tf.transpose`; ONNX `Transpose` (the importer
    also uses it to move between NCHW and NHWC).

    Example:

    ```mlir
    %r = graph.transpose %x {perm = [2, 0, 1]}
        : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$x, I64ArrayAttr:$perm);
  let results = (outs Graph_AnyTensor:$y);
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_InferredOp<"concat"> {
  let summary = "concatenation along an axis";
  let description = [{
    Concatenates one or more tensors, in operand order, along `axis` (required;
    negative counts from the end). The operands must have the same rank and
    element type and agree in every other dimension; the result's `axis`
    dimension is the sum of theirs (dynamic if any is). TF `tf.concat`, Keras
    `Concatenate`; ONNX `Concat`.

    Example:

    ```mlir
    %r = graph.concat %a, %b {axis = 1}
        : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Graph_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_AnyTensor:$result);
}

def Graph_SliceOp : Graph_InferredOp<"slice"> {
  let summary = "strided slice; a limit of -1 means the end of the dimension";
  let description = [{
    Strided slice: per dimension d, the result holds the elements
    `starts[d] + k * strides[d]` below `limits[d]`, so it has
    ceil((limit - start) / stride) of them. `starts`, `limits` (required) and
    `strides` (default all 1) have one entry per dimension; strides are positive
    and 0 <= start <= limit <= size, where a limit of -1 means the end of the
    dimension. TF `tf.strided_slice` with positive strides; ONNX `Slice`
    (negative steps through `graph.gather`).

    Example:

    ```mlir
    %r = graph.slice %x {starts = [1, 0], limits = [3, -1], strides = [1, 2]}
        : (tensor<4x6xf32>) -> tensor<2x3xf32>
    ```
  }];
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
  let description = [{
    TF2 `tf.image.resize` of a float NHWC tensor to `size = [h, w]` (required,
    positive), giving `[n, h, w, c]`. `mode` is "nearest" (the default) or
    "bilinear"; `half_pixel_centers` (default true) maps output pixel centers to
    input ones. Source coordinates are computed in float as TF's kernels do,
    with scale = in / out. Keras `Resizing`; ONNX `Resize` and `Upsample` when
    their coordinate mapping reads the same source positions.

    Example:

    ```mlir
    %r = graph.resize %x {size = [5, 5], mode = "bilinear"}
        : (tensor<1x3x3x2xf32>) -> tensor<1x5x5x2xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, I64ArrayAttr:$size,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<BoolAttr, "true">:$half_pixel_centers);
  let results = (outs Graph_FloatTensor:$y);
}

def Graph_GatherOp : Graph_InferredOp<"gather"> {
  let summary = "gathers slices of table along axis; out-of-range is a runtime error";
  let description = [{
    Gathers slices of `table` along `axis` (default 0, in [-rank, rank)) at the
    i32 or i64 `indices`: the result has the shape
    `table[:axis] + indices + table[axis + 1:]` and table's element type. An
    index outside [0, size) (negative ones included) is a run-time error, never
    a wild read. TF `tf.gather`, Keras `Embedding` (axis 0); ONNX `Gather`
    (negative indices are wrapped before it).

    Example:

    ```mlir
    %r = graph.gather %t, %i {axis = 0}
        : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$table, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_AnyTensor:$result);
}

def Graph_GatherElementsOp : Graph_InferredOp<"gather_elements"> {
  let summary = "picks one element of data along axis per index; out-of-range is a runtime error";
  let description = [{
    `result[p] = data[p with p[axis] replaced by indices[p]]` for every
    position `p` of `indices`: `data` and the i32 or i64 `indices` have the
    same rank, each dimension of `indices` but `axis` is at most `data`'s,
    and the result has the shape of `indices` and the element type of
    `data`. An index outside [0, data.shape[axis]) (negative ones included)
    is a run-time error, never a wild read. ONNX `GatherElements` (negative
    indices are wrapped before it), PyTorch `torch.gather`, TF
    `tf.gather(..., batch_dims=axis)` on one axis.

    Example:

    ```mlir
    %r = graph.gather_elements %d, %i {axis = 1}
        : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$data, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_AnyTensor:$result);
}

def Graph_TopKIndicesOp : Graph_InferredOp<"top_k_indices"> {
  let summary = "indices of the k largest or smallest along the last axis, best first";
  let description = [{
    The i64 indices of the `k` largest (`largest`, the default) or smallest
    elements of each row along the last axis of a float tensor, best first;
    equal values come in index order and NaN ranks below every number. The
    result has x's shape with the last dimension `k`, 0 <= k <= its size.
    With `graph.gather_elements` along the last axis it gives the values: ONNX
    `TopK` (other axes transposed last), TF `tf.math.top_k`.

    Example:

    ```mlir
    %i = graph.top_k_indices %x {k = 3}
        : (tensor<?x10xf32>) -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$x, I64Attr:$k,
                       DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs Graph_IndexTensor:$indices);
}

def Graph_NonMaxSuppressionOp : Graph_InferredOp<"non_max_suppression"> {
  let summary = "greedy non-maximum suppression of boxes per batch and class";
  let description = [{
    ONNX `NonMaxSuppression` with its output padded to a static bound:
    `boxes` [b, n, 4] and `scores` [b, c, n] (float32, static shapes) give the
    i64 rows [batch, class, box] of the selected boxes, for each batch and
    class in turn: boxes are taken in order of decreasing score (equal scores
    in box order), each kept unless its IoU with a box already kept for that
    batch and class exceeds `iou_threshold`, at most
    `max_output_boxes_per_class` of them (>= 0); with `score_threshold` only
    boxes scoring above it are candidates. Boxes are corners
    [y1, x1, y2, x2] in either order, or with `center_point_box` = 1
    [x_center, y_center, width, height]; a box of no area suppresses nothing.
    The result has K = b * c * min(max_output_boxes_per_class, n) rows; the
    selected ones come first and the remaining rows are -1.

    Example:

    ```mlir
    %s = graph.non_max_suppression %boxes, %scores
        {max_output_boxes_per_class = 2, iou_threshold = 5.0e-01 : f32}
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<2x3xi64>
    ```
  }];
  let arguments = (ins Graph_F32Tensor:$boxes, Graph_F32Tensor:$scores,
                       I64Attr:$max_output_boxes_per_class,
                       DefaultValuedAttr<F32Attr, "0.0f">:$iou_threshold,
                       OptionalAttr<F32Attr>:$score_threshold,
                       DefaultValuedAttr<I64Attr, "0">:$center_point_box);
  let results = (outs RankedTensorOf<[I64]>:$selected);
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

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum over axes"> {
  let description = [{
    Sum of `x` over `axes` (required; negative axes count from the end, and an
    axis may appear once). With `keep_dims` (default false) the reduced
    dimensions stay as size 1, otherwise they are removed; the element type is
    kept. Integer sums wrap; an empty sum is 0. TF `tf.math.reduce_sum`; ONNX
    `ReduceSum` (and ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum,
    ReduceLogSumExp with unary ops around it).

    Example:

    ```mlir
    %r = graph.reduce_sum %x {axes = [1], keep_dims = true}
        : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
    ```
  }];
}

def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "mean over axes"> {
  let description = [{
    Mean of `x` over `axes` (required; negative axes count from the end, and an
    axis may appear once). With `keep_dims` (default false) the reduced
    dimensions stay as size 1, otherwise they are removed; the element type is
    kept. The sum divided by the product of the reduced dimensions; integer
    means truncate toward zero (over zero elements they are a run-time error; a
    float one is NaN). TF `tf.math.reduce_mean`; ONNX `ReduceMean`.

    Example:

    ```mlir
    %r = graph.reduce_mean %x {axes = [0, 2]}
        : (tensor<2x3x4xf32>) -> tensor<3xf32>
    ```
  }];
}

def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "max over axes"> {
  let description = [{
    Maximum of `x` over `axes` (required; negative axes count from the end, and
    an axis may appear once). With `keep_dims` (default false) the reduced
    dimensions stay as size 1, otherwise they are removed; the element type is
    kept. A NaN gives NaN; an empty float maximum is -inf (integers: the type's
    lowest value). TF `tf.math.reduce_max`; ONNX `ReduceMax`.

    Example:

    ```mlir
    %r = graph.reduce_max %x {axes = [2]}
        : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "min over axes"> {
  let description = [{
    Minimum of `x` over `axes` (required; negative axes count from the end, and
    an axis may appear once). With `keep_dims` (default false) the reduced
    dimensions stay as size 1, otherwise they are removed; the element type is
    kept. A NaN gives NaN; an empty float minimum is +inf (integers: the type's
    highest value). TF `tf.math.reduce_min`; ONNX `ReduceMin`.

    Example:

    ```mlir
    %r = graph.reduce_min %x {axes = [-1]}
        : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_ArgmaxOp : Graph_InferredOp<"argmax"> {
  let summary = "index of the maximum along an axis (first wins ties), i32";
  let description = [{
    The index of the maximum along `axis` (default -1, in [-rank, rank)) as an
    i32 tensor with that dimension removed. The first maximum wins ties and a
    NaN counts as the maximum (the first NaN wins); an empty axis is a run-time
    error. It has no gradient. TF `tf.math.argmax` (output_type = tf.int32);
    ONNX `ArgMax` and `ArgMin` (on the negated input), cast to i64.

    Example:

    ```mlir
    %r = graph.argmax %x {axis = -1} : (tensor<2x5xf32>) -> tensor<2xi32>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs RankedTensorOf<[I32]>:$result);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Graph_SparseSoftmaxCrossEntropyOp : Graph_InferredOp<"sparse_softmax_cross_entropy"> {
  let summary = "mean cross entropy of logits [n, c] against i32 labels [n]";
  let description = [{
    The mean over the batch of -log_softmax(logits[i])[labels[i]]: float logits
    `[n, c]` and integer labels `[n]` (i32 or i64) give a `tensor<f32>`. A label
    outside [0, c) is a run-time error; an empty batch gives NaN. Keras
    `SparseCategoricalCrossentropy(from_logits=True)`, i.e. the mean of TF
    `tf.nn.sparse_softmax_cross_entropy_with_logits`.

    Example:

    ```mlir
    %r = graph.sparse_softmax_cross_entropy %l, %y
        : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$logits, Graph_IndexTensor:$labels);
  let results = (outs 0DTensorOf<[F32]>:$loss);
}

def Graph_SoftmaxCrossEntropyOp : Graph_InferredOp<"softmax_cross_entropy"> {
  let summary = "mean cross entropy of logits [n, c] against probabilities [n, c]";
  let description = [{
    The mean over the batch of -sum_j targets[i, j] * log_softmax(logits[i])_j:
    logits and target probabilities of one float element type and shape `[n, c]`
    give a `tensor<f32>`. Keras `CategoricalCrossentropy(from_logits=True)`,
    i.e. the mean of TF `tf.nn.softmax_cross_entropy_with_logits`.

    Example:

    ```mlir
    %r = graph.softmax_cross_entropy %l, %p
        : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$logits, Graph_FloatTensor:$targets);
  let results = (outs 0DTensorOf<[F32]>:$loss);
}

def Graph_MeanSquaredErrorOp : Graph_InferredOp<"mean_squared_error"> {
  let summary = "mean of (prediction - target)^2 over all elements";
  let description = [{
    The mean over all elements of (prediction - target)^2: two float tensors of
    the same element type and shape give a `tensor<f32>`. Keras
    `MeanSquaredError` with its default reduction.

    Example:

    ```mlir
    %r = graph.mean_squared_error %a, %b
        : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
    ```
  }];
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
    "leaky_relu" (v > 0 ? v : alpha * v), "hard_swish" or "sigmoid". With
    `round_to = bf16` or `f16` (an f32 result only; set by
    tfcc-fuse-epilogue-rounding) the result is then rounded to that type to
    nearest even and held as f32, as `graph.cast` there and back gives. It
    lowers to one call of the runtime's convolution micro-kernel.
  }];
  let arguments = (ins Graph_FusedFloatTensor:$x, Graph_FusedFloatTensor:$kernel,
                       Optional<Graph_FusedFloatTensor>:$bias, Optional<Graph_FusedFloatTensor>:$residual,
                       I64ArrayAttr:$strides, I64ArrayAttr:$dilations,
                       I64ArrayAttr:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$depthwise,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DefaultValuedAttr<F32Attr, "0.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta,
                       OptionalAttr<TypeAttr>:$round_to);
  let results = (outs Graph_FusedFloatTensor:$result);
}

def Graph_FusedDenseOp : Graph_FusedOp<"fused_dense"> {
  let summary = "dense (x [..., k] @ kernel [k, n]) with an epilogue";
  let description = [{
    A float32 `graph.dense`, or `graph.matmul` by a constant matrix, with
    what tfcc-fuse-ops absorbed after it: bias add, residual add of a
    same-shaped tensor, activation and `round_to` (as for
    `graph.fused_conv2d`). Lowers to
    one call of the runtime's GEMM micro-kernel with the kernel packed at
    compile time.
  }];
  let arguments = (ins Graph_FusedFloatTensor:$x, Graph_FusedFloatTensor:$kernel,
                       Optional<Graph_FusedFloatTensor>:$bias, Optional<Graph_FusedFloatTensor>:$residual,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DefaultValuedAttr<F32Attr, "0.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta,
                       OptionalAttr<TypeAttr>:$round_to);
  let results = (outs Graph_FusedFloatTensor:$result);
}

class Graph_FusedInt8Op<string mnemonic> : Graph_Op<mnemonic,
    [Pure, AttrSizedOperandSegments]> {
  let assemblyFormat = [{
    $x `,` $kernel `,` $scales (`bias` $bias^)? (`residual` $residual^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_FusedConv2DInt8Op : Graph_FusedInt8Op<"fused_conv2d_int8"> {
  let summary = "uint8 x int8 convolution, int32 accumulation, float epilogue, optional requantization";
  let description = [{
    What tfcc-fuse-int8-ops makes of a `graph.fused_conv2d` (groups = 1,
    or depthwise with one output channel per input channel) whose input is
    `graph.dequantize` of a ui8 tensor by one constant scale s_x and zero
    point z_x, and whose kernel is `graph.dequantize` of constant int8
    weights (HWIO; depthwise [kh, kw, c, 1]) with zero points 0 and one
    scale per output channel (or per tensor) s_w. With
    `scales[o] = s_x * s_w[o]`:
    v = activation(scales[o] * sum((x - x_zero_point) * kernel) + bias[o]
    + residual), pads, strides, dilations and activations as
    `graph.fused_conv2d`'s. The result is v (f32) or, with `out_scale`,
    `graph.quantize(v, out_scale, out_zero_point)` to ui8 (a quantize that
    followed the convolution, absorbed). With `max_pool = [ph, pw]` the
    result is then max pooled by windows of ph x pw, strides the same, no
    padding (a `graph.max_pool2d` that followed, absorbed: each result
    dimension is the convolution's divided by the window, rounded down);
    groups 1 and no residual, windows the kernel's tiles hold
    (isInt8ConvPoolWindow). Lowers to the runtime's int8 GEMM,
    or with `depthwise` its uint8 depthwise kernel, which takes no residual
    and windows of at most 512 taps (kMaxInt8DepthwiseTaps: its float sums
    stay exact below that; docs/quantization.md, "Kernels").

    Example:

    ```mlir
    %y = graph.fused_conv2d_int8 %x, %w, %s bias %b {x_zero_point = 3,
        strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1],
        activation = "relu", out_scale = 0.05 : f32, out_zero_point = 0}
        : (tensor<?x8x8x16xui8>, tensor<3x3x16x32xi8>, tensor<32xf32>,
           tensor<32xf32>) -> tensor<?x8x8x32xui8>
    ```
  }];
  let arguments = (ins RankedTensorOf<[UI8]>:$x, RankedTensorOf<[I8]>:$kernel,
                       Graph_F32Tensor:$scales, Optional<Graph_F32Tensor>:$bias,
                       Optional<Graph_F32Tensor>:$residual,
                       I64ArrayAttr:$strides, I64ArrayAttr:$dilations,
                       I64ArrayAttr:$pads, I64Attr:$x_zero_point,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DefaultValuedAttr<F32Attr, "0.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta,
                       OptionalAttr<F32Attr>:$out_scale,
                       DefaultValuedAttr<I64Attr, "0">:$out_zero_point,
                       DefaultValuedAttr<BoolAttr, "false">:$depthwise,
                       OptionalAttr<I64ArrayAttr>:$max_pool);
  let results = (outs RankedTensorOf<[F32, UI8]>:$result);
}

def Graph_FusedDenseInt8Op : Graph_FusedInt8Op<"fused_dense_int8"> {
  let summary = "uint8 x int8 dense layer, int32 accumulation, float epilogue, optional requantization";
  let description = [{
    The dense form of `graph.fused_conv2d_int8`: x [..., k] (ui8), kernel
    [k, n] (constant int8), scales [n]; made by tfcc-fuse-int8-ops from a
    `graph.fused_dense` of dequantized operands.

    Example:

    ```mlir
    %y = graph.fused_dense_int8 %x, %w, %s bias %b {x_zero_point = 128}
        : (tensor<?x64xui8>, tensor<64x10xi8>, tensor<10xf32>,
           tensor<10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[UI8]>:$x, RankedTensorOf<[I8]>:$kernel,
                       Graph_F32Tensor:$scales, Optional<Graph_F32Tensor>:$bias,
                       Optional<Graph_F32Tensor>:$residual,
                       I64Attr:$x_zero_point,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DefaultValuedAttr<F32Attr, "0.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta,
                       OptionalAttr<F32Attr>:$out_scale,
                       DefaultValuedAttr<I64Attr, "0">:$out_zero_point);
  let results = (outs RankedTensorOf<[F32, UI8]>:$result);
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
    With `positive_only` (set by tfcc-fuse-relu-pool-gradients, which folds
    in the gradient of a ReLU that produced `%x`), a gradient reaches only
    positions whose input is greater than zero.
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
    What tfcc-fuse-relu-pool-gradients makes of a float32 `graph.max_pool2d`
    whose input also feeds a `graph.max_pool2d_grad` of the same geometry (a
    training step):
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
