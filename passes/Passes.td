//===- Passes.td - tfcc passes ---------------------------*- tablegen -*-===//

#ifndef TFCC_PASSES
#define TFCC_PASSES

include "mlir/Pass/PassBase.td"

def ConvertGraphToLinalg : Pass<"tfcc-convert-graph-to-linalg", "ModuleOp"> {
  let summary = "Lower graph ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every graph op inside functions into upstream tensor-level ops
    (one pattern file per op family under passes/GraphToLinalg/), replaces
    `graph.read` by an `arith.constant` holding the variable's initial value
    (computed at compile time, see Initializers.h) and erases the
    `graph.variable` declarations and any `graph.train_step` left (tfcc-autodiff
    replaces them by training functions; one left here is not wanted, e.g. in
    a `tfcc-opt` pipeline without the autodiff). In a training model
    tfcc-lower-state-access has already turned every `graph.read` and
    `graph.assign` into views of the state memory, so no weight becomes a
    constant there. Dynamic dimensions are carried with `tensor.dim`. A tree
    of single-use elementwise ops of one result shape (up to 64 ops) becomes
    one `linalg.generic` computing them all, as tfcc-fuse-elementwise would
    fuse them, in time linear in the graph's size. Example:

    ```mlir
    %r = graph.relu %x : tensor<?x10xf32>
    ```
    becomes a `linalg.generic` over a `tensor.empty(%d0) : tensor<?x10xf32>`
    computing `arith.maximumf %in, 0.0`; followed by
    `%s = graph.sigmoid %r : tensor<?x10xf32>`, its only use, one generic
    computes both.

    With `kernel-calls=false` (the CUDA target: the code does not run on the
    host CPU) no op becomes a runtime kernel call; each op lowers to linalg or
    is reported as having no GPU lowering, naming its node.
  }];
  let options = [
    Option<"kernelCalls", "kernel-calls", "bool", /*default=*/"true",
           "Lower heavy ops to calls of the runtime's CPU micro-kernels">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    "::mlir::bufferization::BufferizationDialect",
    // Kernel calls pass buffers as !llvm.ptr (KernelCalls.cpp).
    "::mlir::LLVM::LLVMDialect"
  ];
}

def ArenaAllocation : Pass<"tfcc-arena-allocation", "ModuleOp"> {
  let summary = "Place every heap buffer of an entry point in a caller arena";
  let description = [{
    After bufferization, replaces each `memref.alloc` of a function by a
    `memref.view` into an extra trailing `memref<?xi8>` arena argument at a
    64-byte aligned offset, and erases the matching deallocations. Buffers
    whose live ranges do not overlap share space (docs/memory-plan.md). The
    byte count of each buffer must be an affine function of the batch size;
    the pass records the arena size as `tfcc.arena_fixed` and
    `tfcc.arena_per_batch` on the function. The address of a placed buffer
    taken for a runtime kernel (`memref.extract_aligned_pointer_as_index`)
    becomes the arena's address plus the byte offset, which
    expand-strided-metadata would otherwise lose.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def RefineResultTypes : Pass<"tfcc-refine-result-types", "func::FuncOp"> {
  let summary = "Give graph ops the inferred result type where `?` was written for a known dimension";
  let description = [{
    The graph IR accepts a written result dimension `?` where shape
    inference knows it; the lowering builds results from operands and needs
    the known size. This pass sets each such op's result to the inferred
    type, and so the results of the ops after it whose type follows from
    their operands (inference, or the same type as the operand); other users
    get a `tensor.cast` back to the type they read, and the function returns
    the refined types (a dynamic dimension of a compiled interface is the
    batch). Example:

    ```mlir
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x?xf32> {
      %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x?xf32>
      %1 = graph.relu %0 : tensor<2x?xf32>
      return %1 : tensor<2x?xf32>
    }
    ```
    becomes
    ```mlir
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = graph.relu %0 : tensor<2x3xf32>
      return %1 : tensor<2x3xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def LayoutPropagation : Pass<"tfcc-layout-propagation", "func::FuncOp"> {
  let summary = "Sink transposes through layout-agnostic ops and cancel inverse pairs";
  let description = [{
    NCHW models (ONNX) reach the graph IR with every NHWC op wrapped in
    transposes. This pass pushes each transpose down toward its uses through
    elementwise ops (with constant or broadcast operands permuted to match),
    softmax, reductions, concat, pad and slice, and composes consecutive
    transposes, so that the transpose leaving one convolution meets the one
    entering the next and both disappear. The function's arguments and
    results keep their types. Example:

    ```mlir
    %0 = graph.transpose %conv1 {perm = [0, 3, 1, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x16x8x8xf32>
    %1 = graph.relu %0 : tensor<1x16x8x8xf32>
    %2 = graph.add %1, %bias : (tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) -> tensor<1x16x8x8xf32>
    %3 = graph.transpose %2 {perm = [0, 2, 3, 1]} : (tensor<1x16x8x8xf32>) -> tensor<1x8x8x16xf32>
    %4 = graph.conv2d %3, %k : ...
    ```
    becomes
    ```mlir
    %0 = graph.relu %conv1 : tensor<1x8x8x16xf32>
    %1 = graph.add %0, %bias_nhwc : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
    %2 = graph.conv2d %1, %k : ...
    ```
    where `%bias_nhwc` is the constant permuted at compile time (a reshape
    when only unit dimensions move, e.g. of a `graph.read`).
  }];
}

def SinkPadsThroughTransposes : Pass<"tfcc-sink-pads-through-transposes", "func::FuncOp"> {
  let summary = "Move a pad below the transpose that follows it, next to the convolution";
  let description = [{
    An NCHW model pads its input before the transpose into the NHWC layout
    of the convolution; tfcc-layout-propagation leaves function arguments
    (and so that pad) where they are. This pass rewrites
    `transpose(pad(x))` into `pad(transpose(x))` with the pads permuted, so
    the pad meets the convolution and tfcc-fuse-ops folds it into the
    kernel's padding. It runs after tfcc-layout-propagation, whose patterns
    move transposes the other way. Example:

    ```mlir
    %p = graph.pad %x {pads = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
    %t = graph.transpose %p {perm = [0, 2, 3, 1]} : (tensor<1x3x10x10xf32>) -> tensor<1x10x10x3xf32>
    ```
    becomes
    ```mlir
    %t = graph.transpose %x {perm = [0, 2, 3, 1]} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    %p = graph.pad %t {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<1x8x8x3xf32>) -> tensor<1x10x10x3xf32>
    ```
  }];
}

def FuseOps : Pass<"tfcc-fuse-ops", "func::FuncOp"> {
  let summary = "Fuse convolutions and dense layers with pads, biases, batch norms, residual adds and activations";
  let description = [{
    Rewrites each float32 `graph.conv2d` (groups = 1), `graph.depthwise_conv2d`,
    `graph.dense` and `graph.matmul` by a constant matrix into
    `graph.fused_conv2d` / `graph.fused_dense`, then grows them: a zero
    `graph.pad` of H and W becomes the kernel's padding; an add of a
    per-channel constant joins the bias; an inference `graph.batch_norm`
    with constant parameters is folded into the weights and bias at compile
    time; an add of a same-shaped tensor becomes the residual; relu, relu6,
    clip, leaky_relu, hard_swish and sigmoid become the activation. Only an
    op whose result has no other user grows. Example:

    ```mlir
    %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : ...
    %c = graph.conv2d %p, %k : ...
    %b = graph.batch_norm %c, %gamma, %beta, %mean, %var : ...
    %s = graph.add %b, %shortcut : ...
    %r = graph.relu %s : ...
    ```
    becomes one `graph.fused_conv2d %x, %k2 bias %b2 residual %shortcut
    {pads = [1, 1, 1, 1], activation = "relu", ...}` with `%k2`, `%b2` new
    constants.
  }];
}

def FuseInt8Ops : Pass<"tfcc-fuse-int8-ops", "func::FuncOp"> {
  let summary = "Give fused convolutions and dense layers of dequantized int8 data to the int8 kernels";
  let description = [{
    After tfcc-fuse-ops: a `graph.fused_conv2d` or `graph.fused_dense`
    whose input is `graph.dequantize` of a ui8 tensor (one constant scale
    s_x and zero point) and whose kernel is `graph.dequantize` of constant
    int8 weights (zero points 0, one scale per output channel on the last
    axis, or one scale) becomes `graph.fused_conv2d_int8` /
    `graph.fused_dense_int8` of the integers, with scales s_x * s_w and the
    same bias, residual and activation. A depthwise convolution does when
    the runtime's uint8 depthwise kernel takes it (one output channel per
    input channel, no residual, at most kMaxInt8DepthwiseTaps taps, static
    image sizes), its kernel seen through the reshape [kh, kw, 1, c] ->
    [kh, kw, c, 1] that an ONNX model's depthwise weights reach it by. A following
    per-tensor `graph.quantize` to ui8 that is its only user is absorbed
    (`out_scale`, `out_zero_point`, ui8 result). A `graph.max_pool2d` of
    8-bit data dequantized per tensor (through a -inf pad of H and W, each
    pad smaller than the window, or not) pools the integers and dequantizes
    after (exact: a positive scale keeps the order), and a per-tensor
    `graph.quantize` of `graph.dequantize` (through reshapes or not) with
    the same type, scale and zero point is the integers. A per-tensor
    `graph.quantize` of a float `graph.max_pool2d`'s result (through
    reshapes and transposes or not, each read by nothing else), as
    --quantize=int8 leaves before the next convolution, moves before the
    pooling (exact for inputs without NaN: quantizing keeps the order), so
    the convolution before it writes ui8. Anything else stays float.
    Example:

    ```mlir
    %x = graph.dequantize %q, %sx, %zx : (tensor<?x8xui8>, ...) -> tensor<?x8xf32>
    %w = graph.dequantize %wq, %sw, %zw {axis = 1} : (tensor<8x4xi8>, ...) -> ...
    %y = graph.fused_dense %x, %w bias %b {activation = "relu"} : ...
    %r = graph.quantize %y, %so, %zo : (...) -> tensor<?x4xui8>
    ```
    becomes `graph.fused_dense_int8 %q, %wq, %s bias %b {x_zero_point = ...,
    activation = "relu", out_scale = ..., out_zero_point = ...}` with `%s` a
    new constant, and

    ```mlir
    %d = graph.dequantize %q, %s, %z : (tensor<?x8x8x4xui8>, ...) -> tensor<?x8x8x4xf32>
    %p = graph.max_pool2d %d {window = [2, 2]} : (tensor<?x8x8x4xf32>) -> tensor<?x4x4x4xf32>
    %r = graph.quantize %p, %s, %z : (...) -> tensor<?x4x4x4xui8>
    ```
    becomes `%r = graph.max_pool2d %q {window = [2, 2]} : (tensor<?x8x8x4xui8>)
    -> tensor<?x4x4x4xui8>`. Last, a `graph.max_pool2d` whose windows are
    its strides, without padding, of a groups-1 `graph.fused_conv2d_int8`
    that nothing else reads is absorbed as its `max_pool`: the convolution
    pools its int32 sums before the epilogue (exact when every scale is
    positive and the activation never decreases), where the runtime's int8
    convolution kernel computes it and its tiles hold the window; so

    ```mlir
    %c = graph.fused_conv2d_int8 %q, %w, %s {..., out_scale = 0.05 : f32}
        : (tensor<?x28x28x1xui8>, ...) -> tensor<?x26x26x32xui8>
    %p = graph.max_pool2d %c {window = [2, 2]} : (...) -> tensor<?x13x13x32xui8>
    ```
    becomes one `graph.fused_conv2d_int8 %q, %w, %s {..., max_pool = [2, 2]}
    : (...) -> tensor<?x13x13x32xui8>`.
  }];
}

def Autodiff : Pass<"tfcc-autodiff", "ModuleOp"> {
  let summary = "Turn each graph.train_step into a training function (reverse-mode autodiff)";
  let description = [{
    For each `graph.train_step @name {loss = @f, optimizer, clip_norm}`,
    creates a public `func.func @name` with @f's arguments that returns the
    loss and, in between: evaluates @f's body (calls inlined) in training
    mode (`graph.dropout` multiplies by a `graph.dropout_mask` drawn from its
    seed and the step counter; `graph.batch_norm` normalizes with batch
    statistics and assigns its moving mean/variance variables;
    `graph.layer_norm` is expanded), computes the gradient of the loss with
    respect to every trainable variable it reads (reverse mode, fan-out
    accumulated, broadcasts summed back), clips them by their global norm,
    applies the SGD or Adam update with slot variables
    (`@"<var>/momentum"`, `@"<var>/adam_m"`, `@"<var>/adam_v"`) and assigns
    every updated variable and the step counter `@"<name>/step"`
    (tensor<i64>) with `graph.assign`. The train_step op is erased.
    docs/autodiff.md gives every formula. Example:

    ```mlir
    graph.train_step @train {loss = @loss, optimizer = #graph.sgd<learning_rate = 1.0e-01>}
    ```
    becomes
    ```mlir
    func.func @train(%x: tensor<?x4xf32>) -> tensor<f32> {
      ... forward of @loss ..., gradients ...
      graph.assign @w, %w_new : tensor<4x2xf32>
      graph.assign @"train/step", %step_next : tensor<i64>
      return %loss : tensor<f32>
    }
    ```
    An op without a gradient rule on the path from a trainable variable to
    the loss is an error naming the op.

    With `dynamic-loss-scale` (tfcc --precision=mixed_f16), the step scales
    as Keras' LossScaleOptimizer: the gradients are those of loss * S (S in
    the f32 variable `@"<name>/loss_scale"`, initially 2^15) divided by S;
    when any is not finite the variables, slots and step counter keep their
    values and S halves (to no less than 1); after 2000 finite steps in a row
    (counted in `@"<name>/good_steps"`) S doubles.

    With `split` (tfcc --split-train-step), the step's two halves follow it,
    sharing its state: `@compute_gradients` (the step's arguments) runs the
    forward and backward pass and returns the loss, every gradient in one
    flat f32 vector (f64 when a gradient is f64) and, when the model has
    batch normalization, the batch statistics (mean and variance of each)
    in another; `@apply_gradients(gradients[, batch_statistics])` updates
    the moving statistics, clips, applies the optimizer and counts the step,
    returning the new step counter. Between them a caller can all-reduce the
    vectors (docs/distributed.md). For a step `@s` not named `train_step`
    they are `@s_compute_gradients` and `@s_apply_gradients`.
  }];
  let options = [
    Option<"dynamicLossScale", "dynamic-loss-scale", "bool", "false",
           "Keras' dynamic loss scaling (for float16 training)">,
    Option<"splitStep", "split", "bool", "false",
           "Also emit the step's two halves, @compute_gradients and "
           "@apply_gradients (@<name>_... for a step not named train_step), "
           "for data-parallel training">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def DropTrainSteps : Pass<"tfcc-drop-train-steps", "ModuleOp"> {
  let summary = "Erase every graph.train_step: an inference build of a training model";
  let description = [{
    `tfcc --no-train`: the module's `graph.train_step` ops are erased, so
    tfcc-autodiff has nothing to do, no variable moves to the state memory
    and every variable stays a compile-time constant (its initial value, or
    a checkpoint's value after tfcc-apply-checkpoint). Example:

    ```mlir
    graph.variable @w = dense<...> : tensor<4x2xf32> {trainable}
    graph.train_step @train {loss = @loss, optimizer = #graph.sgd<learning_rate = 1.0e-01>}
    func.func @predict(...)
    ```
    keeps `@w` and `@predict` and loses `@train`.
  }];
}

def ApplyCheckpoint : Pass<"tfcc-apply-checkpoint", "ModuleOp"> {
  let summary = "Replace the variables' initial values by a checkpoint's values";
  let description = [{
    `tfcc --weights CKPT`: reads a checkpoint written by a trained model's
    `<prefix>_save_checkpoint` (runtime/checkpoint.fbs) and sets the initial
    value of every `graph.variable` to its value there, so an inference
    build carries the trained weights. The whole file is validated first
    (identifier, format version, every offset, each variable's CRC-32C, the
    model name equal to the module's name or `model-name`, each variable of
    the module present with its dtype and shape); on any error the module is
    left unchanged and the error names the file. Entries without a variable
    in the module (optimizer slots, the step counter) are ignored. Example:

    ```mlir
    graph.variable @k = dense<0.0> : tensor<2x2xf32>
    ```
    with `--tfcc-apply-checkpoint=path=tiny.tfck` becomes
    ```mlir
    graph.variable @k = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"",
           "The checkpoint file">,
    Option<"modelName", "model-name", "std::string", /*default=*/"",
           "A model name the checkpoint may carry besides the module's (the "
           "C prefix it was trained under)">
  ];
}

def LayoutState : Pass<"tfcc-layout-state", "ModuleOp"> {
  let summary = "Place every variable of a training model in the state memory";
  let description = [{
    After tfcc-autodiff, a training model keeps its variables in one block
    of state memory that the caller's context owns and checkpoints save. The
    pass gives each `graph.variable`, in declaration order, a 64-byte
    aligned byte offset (`tfcc.state_offset`), records the block's size on
    the module (`tfcc.state_bytes`) and marks the module `tfcc.stateful`, so
    the graph passes no longer fold a variable's value as a constant. A
    variable whose type cannot live there (bool, a dynamic shape) is an
    error naming it. Example:

    ```mlir
    graph.variable @w = dense<...> : tensor<3x2xf32> {trainable}
    graph.variable @b = dense<...> : tensor<2xf32> {trainable}
    ```
    becomes
    ```mlir
    module attributes {tfcc.state_bytes = 128 : i64, tfcc.stateful} {
      graph.variable @w = ... {tfcc.state_offset = 0 : i64, trainable}
      graph.variable @b = ... {tfcc.state_offset = 64 : i64, trainable}
    ```
  }];
}

def LowerStateAccess : Pass<"tfcc-lower-state-access", "ModuleOp"> {
  let summary = "Turn graph.read and graph.assign into views of the state memory argument";
  let description = [{
    In a module tfcc-layout-state laid out, every public function gets the
    state memory as a last `memref<N x i8>` argument; each `graph.read` of a
    variable becomes a tensor of its `memref.view` at the variable's
    `tfcc.state_offset` (a fresh copy in functions that also assign, so no
    read sees a later write) and each `graph.assign` a
    `bufferization.materialize_in_destination` into that view. A variable
    access left in a private function is an error. Modules without a state
    layout are left unchanged. Example:

    ```mlir
    %w = graph.read @w : tensor<3x2xf32>
    graph.assign @w, %w_new : tensor<3x2xf32>
    ```
    becomes
    ```mlir
    %v = memref.view %state[%c0][] : memref<128xi8> to memref<3x2xf32>
    %t = bufferization.to_tensor %v restrict : memref<3x2xf32>
    %w = bufferization.alloc_tensor() copy(%t) : tensor<3x2xf32>
    bufferization.materialize_in_destination %w_new in restrict writable %v
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FuseReluPoolGradients : Pass<"tfcc-fuse-relu-pool-gradients", "func::FuncOp"> {
  let summary = "Simplify the ReLU and max-pooling gradients of a train step";
  let description = [{
    Three rewrites of the backward pass tfcc-autodiff builds, each saving a
    pass over a tensor or a live buffer:
    the ReLU gradient's mask `compare(a, 0, "gt")` compares `relu(a)`
    instead (the same truth, NaN included), so `a` has no other user and a
    producing convolution can take the ReLU into its epilogue
    (tfcc-fuse-ops); `select(x > 0, max_pool2d_grad(x, dy), 0)` becomes
    `max_pool2d_grad(x, dy) {positive_only}`, the pooling gradient's kernel
    applying the mask; and a float32 NHWC `max_pool2d` whose gradient
    follows records each window's tap (`max_pool2d_with_indices`) that the
    gradient scatters through (`max_pool2d_grad_indices`), so the backward
    pass does not read `x` again. Example:

    ```mlir
    %y = graph.max_pool2d %x {window = [2, 2]} : ...
    %g = graph.max_pool2d_grad %x, %dy {window = [2, 2], strides = [2, 2]} : ...
    ```
    becomes
    ```mlir
    %y, %taps = graph.max_pool2d_with_indices %x {window = [2, 2], ...} : ...
    %g = graph.max_pool2d_grad_indices %taps, %dy {...} : ...
    ```
  }];
}

def FuseElementwise : Pass<"tfcc-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops, but never recompute costly broadcast producers";
  let description = [{
    Upstream `linalg-fuse-elementwise-ops` (the same patterns: producer into
    consumer when the producer has one use, reshape folding by expansion,
    constant folding, canonicalization), except that a producer with fewer
    loops than its consumer (a per-channel value read broadcast over a whole
    tensor, say) is not fused when its body does more than cheap arithmetic
    (a division, a square root, an exponential...): fused, it would be
    recomputed for every element of the broadcast dimensions. It stays a
    small loop of its own whose result the consumer reads. Example: the
    batch-norm scale gamma * rsqrt(var + eps), a loop over C, stays out of
    the loop over N x H x W x C that applies it.

    A fused body holds at most 2048 ops, and fusion runs in three rounds
    (bodies up to 16 ops, then 256, then 2048): each fusion copies both
    bodies, so a long chain fused one op at a time took time quadratic in
    the limit; fewer, longer loop nests cost LLVM's loop passes less, up to
    blocks of a few thousand ops (docs/reliability.md).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def RenameEntries : Pass<"tfcc-rename-entries", "ModuleOp"> {
  let summary = "Give the entry functions their internal names, __tfcc_impl_<entry>";
  let description = [{
    The C interface exports each entry point under a C name
    (`<prefix>_<entry>`) and calls the lowered function; so that the lowered
    body cannot clash with those names or any other C symbol of the program,
    every public function with a body is renamed `__tfcc_impl_<name>`, its
    uses too (a name that already has the prefix is left alone). Example:

    ```mlir
    func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x2xf32>
    ```
    becomes
    ```mlir
    func.func @__tfcc_impl_predict(%x: tensor<?x4xf32>) -> tensor<?x2xf32>
    ```
  }];
}

def QuantizeInt8 : Pass<"tfcc-quantize-int8", "ModuleOp"> {
  let summary = "Post-training int8 quantization of calibrated convolutions, dense layers and matmuls";
  let description = [{
    Each `graph.conv2d`, `graph.depthwise_conv2d`, `graph.dense` and
    `graph.matmul` with a `tfcc.input_range = array<f32: lo, hi>` attribute
    (written by `tfcc --quantize=int8` from its calibration run) and constant
    weights reads its input through `graph.quantize` to ui8 (per tensor,
    asymmetric over [min(lo, 0), max(hi, 0)]) and `graph.dequantize`, and its
    weights from a new i8 variable (symmetric per output channel: scale =
    max|w| / 127, values rounded half to even into [-127, 127]) through
    `graph.dequantize`; the float variable goes when nothing else reads it.
    Ops whose weights are computed at run time keep float weights and lose
    the attribute. docs/quantization.md. Example:

    ```mlir
    %y = graph.dense %x, %w {tfcc.input_range = array<f32: -1.0, 3.0>}
        : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    ```
    becomes a dense of `graph.dequantize(graph.quantize(%x, 0.0156863, 64))`
    and `graph.dequantize(graph.read @w_int8, [s0, s1], [0, 0]) {axis = 1}`.
    With `all-weights`, the weights of the quantizable ops without a range
    (in the entries that were not calibrated) are stored in int8 too, their
    inputs left float; a weight read by several ops gets one int8 copy.
    With `weight-bits=7` the weights take max|w| / 63 and [-63, 63].
  }];
  let options = [
    Option<"allWeights", "all-weights", "bool", /*default=*/"false",
           "Also quantize the weights of quantizable ops without an input range">,
    Option<"weightBits", "weight-bits", "int", /*default=*/"8",
           "Bits of the int8 weights: 8 (scale max|w| / 127, values in "
           "[-127, 127]) or 7 (max|w| / 63, [-63, 63]: the AVX2 int8 "
           "kernel's faster vpmaddubsw form is exact for them)">
  ];
}

def StripSignedness : Pass<"tfcc-strip-signedness", "ModuleOp"> {
  let summary = "Unsigned integer types become signless, after the linalg lowering";
  let description = [{
    The graph IR's `ui8` (ONNX uint8) tells the lowering which integer
    operations to build (`arith.uitofp`, `arith.extui`, unsigned compares);
    arith, linalg bodies and LLVM take signless integers only. The lowering
    wraps each body's unsigned block arguments and results in
    `builtin.unrealized_conversion_cast` to and from the signless type; this
    pass gives every value, block argument, function type and constant the
    signless type of the same width (a constant's bits unchanged) and erases
    the casts that became no-ops. Example:

    ```mlir
    %y = linalg.generic ... ins(%q : tensor<4xui8>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: ui8, %out: f32):
      %s = builtin.unrealized_conversion_cast %in : ui8 to i8
      %f = arith.uitofp %s : i8 to f32
      linalg.yield %f : f32
    }
    ```
    becomes the same generic over `tensor<4xi8>` with `%in: i8` used by
    `arith.uitofp` directly.
  }];
}

def ExpandF16Casts : Pass<"tfcc-expand-f16-casts"> {
  let summary = "Expand f16 <-> f32 conversions and f32 -> bf16 into integer operations";
  let description = [{
    Rewrites `arith.extf` from f16 and `arith.truncf` to f16 or bf16 (round to
    nearest even; overflow to infinity, NaN to a quiet NaN) into bit
    operations on i32, and one f32 add or subtract for subnormal f16 values,
    so that no target needs a conversion instruction, a compiler-rt call or
    bf16 vector support (ARMv7 cannot legalize upstream's bf16 expansion,
    which selects among bf16 values). `arith.truncf` from f64 goes through f32
    (two roundings); upstream's `arith-expand{include-bf16}` then widens bf16
    to f32.
    Scalar operands only (tfcc's loops are scalar until LLVM vectorizes
    them). Example:

    ```mlir
    %h = arith.truncf %x : f32 to f16
    ```
    becomes
    ```mlir
    %u = arith.bitcast %x : f32 to i32
    ... (the magnitude rebiased and rounded, the sign put back)
    %h = arith.bitcast %t : i16 to f16
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def WidenLowPrecisionOps : Pass<"tfcc-widen-low-precision-ops", "ModuleOp"> {
  let summary = "Compute graph ops on f16 / bf16 tensors in f32, rounding each result once";
  let description = [{
    The lowering and the micro-kernels compute in f32. Every graph op with an
    f16 or bf16 operand or result is rewritten to widen those operands to f32
    (exact; a compile-time constant becomes an f32 constant of its rounded
    values, so weights stay pre-packed), compute in f32 (matmuls and
    convolutions accumulate in f32) and round each result to its type once,
    to nearest even: what XLA and Keras do on CPUs without bf16 arithmetic.
    Values then travel between ops as f32 tensors holding 16-bit values; a
    rounding that cannot change them (f32 -> bf16 -> f32 of the result of a
    max pool, reshape, transpose, relu, max / min... of such values) is
    dropped. Example:

    ```mlir
    %y = graph.matmul %x, %w : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
    ```
    becomes
    ```mlir
    %x32 = graph.cast %x : (tensor<2x8xbf16>) -> tensor<2x8xf32>
    %w32 = graph.cast %w : (tensor<8x4xbf16>) -> tensor<8x4xf32>
    %y32 = graph.matmul %x32, %w32 : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %y = graph.cast %y32 : (tensor<2x4xf32>) -> tensor<2x4xbf16>
    ```
  }];
}

def FuseEpilogueRounding : Pass<"tfcc-fuse-epilogue-rounding", "ModuleOp"> {
  let summary = "Round a fused convolution's or dense layer's 16-bit result in its kernel's epilogue";
  let description = [{
    After tfcc-widen-low-precision-ops a 16-bit layer is an f32 op followed
    by a rounding, `graph.cast` to bf16 / f16 and back to f32, which lowers
    to a loop of its own: one more pass over the layer's output in memory.
    Where that op is a `graph.fused_conv2d` or `graph.fused_dense` whose
    result has no other use, it gets `round_to` instead and its kernel
    rounds each output tile in the epilogue, while it is in cache
    (TFCC_ACT_ROUND_* of the runtime's kernels); the values are the same,
    bit for bit. Example:

    ```mlir
    %y = graph.fused_dense %x, %k : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %l = graph.cast %y : (tensor<2x4xf32>) -> tensor<2x4xbf16>
    %r = graph.cast %l : (tensor<2x4xbf16>) -> tensor<2x4xf32>
    ```
    becomes
    ```mlir
    %r = graph.fused_dense %x, %k {round_to = bf16} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    ```
  }];
}

def MarkBf16Operands : Pass<"tfcc-mark-bf16-operands", "ModuleOp"> {
  let summary = "Mark the dense layers, matmuls and filter gradients whose f32 operands hold bf16 values";
  let description = [{
    After tfcc-widen-low-precision-ops and tfcc-fuse-epilogue-rounding, a
    `--precision=mixed_bf16` model's products multiply f32 tensors holding
    bf16 values: widened from bf16, rounded to it in a kernel's epilogue
    (`round_to = bf16`), constants whose values all are bf16 values, or
    moved or selected from such tensors (reshape, transpose, slice, max
    pooling, relu, ...). A `graph.fused_dense`, `graph.matmul` or
    `graph.conv2d_backprop_filter` (a train step's) whose two operands are
    such tensors gets the unit attribute `tfcc.bf16_operands`; its
    `tfcc_rt_sgemm` (`tfcc_rt_conv2d_filter_grad_f32`) call then carries
    TFCC_ACT_BF16_OPERANDS, which lets
    the runtime multiply them as bf16 pairs on AVX512_BF16's vdpbf16ps (the
    same exact products, accumulated in f32 in another order). Example:

    ```mlir
    %x = graph.cast %xl : (tensor<16x64xbf16>) -> tensor<16x64xf32>
    %k = graph.constant dense<0.5> : tensor<64x32xf32>
    %y = graph.fused_dense %x, %k : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
    ```
    gets
    ```mlir
    %y = graph.fused_dense %x, %k {tfcc.bf16_operands} : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
    ```
  }];
}

def RetypeInterface : Pass<"tfcc-retype-interface", "ModuleOp"> {
  let summary = "Entry points take and return f16 / bf16 where the model has f32 tensors";
  let description = [{
    tfcc --io-dtype=bf16 | f16. Every f32 tensor argument and result of a
    public function (an entry point) becomes the 16-bit type, with a
    `graph.cast` to f32 after the argument and to the 16-bit type before the
    return, so the body computes as before (the precision policy then decides
    in which type); the result of a `graph.train_step`'s loss function (the
    loss) stays f32. The C header's types follow (`uint16_t` data). Example
    (dtype=bf16):

    ```mlir
    func.func @predict(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
      %y = graph.relu %x : tensor<?x8xf32>
      return %y : tensor<?x8xf32>
    }
    ```
    becomes
    ```mlir
    func.func @predict(%x: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
      %w = graph.cast %x : (tensor<?x8xbf16>) -> tensor<?x8xf32>
      %y = graph.relu %w : tensor<?x8xf32>
      %n = graph.cast %y : (tensor<?x8xf32>) -> tensor<?x8xbf16>
      return %n : tensor<?x8xbf16>
    }
    ```
  }];
  let options = [
    Option<"dtype", "dtype", "std::string", "\"bf16\"",
           "bf16, f16 or f32 (no change)">,
  ];
}

def PrecisionPolicy : Pass<"tfcc-precision-policy", "ModuleOp"> {
  let summary = "Keras' mixed_bfloat16 / mixed_float16 policy: layers in 16 bits, the rest in f32";
  let description = [{
    tfcc --precision=mixed_bf16 | mixed_f16. As Keras' policies: dense and
    matmul, convolutions (fused ones with their epilogue), pooling, resizing,
    activations and elementwise arithmetic compute in the 16-bit type (the
    kernels accumulate in f32: tfcc-widen-low-precision-ops); softmax,
    log-softmax, losses, batch and layer normalization, sums and means (and
    any op not named here) compute in f32; data movement, comparisons,
    selections, max / min reductions and argmax follow their operands.
    Variables and constants stay f32 and are cast at each use (one cast per
    value); the entry points' argument and result types do not change, and
    ops outside the policy (calls, assigns, returns) get f32 where a value
    became 16-bit. tfcc runs it after the graph pipeline (fusion), or before
    tfcc-autodiff in a training build. Example (mixed_bf16):

    ```mlir
    %y = graph.dense %x, %k : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
    %s = graph.softmax %y : tensor<?x4xf32>
    return %s : tensor<?x4xf32>
    ```
    becomes
    ```mlir
    %xb = graph.cast %x : (tensor<?x8xf32>) -> tensor<?x8xbf16>
    %kb = graph.cast %k : (tensor<8x4xf32>) -> tensor<8x4xbf16>
    %y = graph.dense %xb, %kb : (tensor<?x8xbf16>, tensor<8x4xbf16>) -> tensor<?x4xbf16>
    %yf = graph.cast %y : (tensor<?x4xbf16>) -> tensor<?x4xf32>
    %s = graph.softmax %yf : tensor<?x4xf32>
    return %s : tensor<?x4xf32>
    ```
  }];
  let options = [
    Option<"policy", "policy", "std::string", "\"mixed_bf16\"",
           "mixed_bf16 or mixed_f16">,
  ];
}

def CollapseInnerLoops : Pass<"tfcc-collapse-inner-loops"> {
  let summary = "Collapse short trailing loops of elementwise linalg ops into one";
  let description = [{
    An all-parallel `linalg.generic` whose innermost loop runs fewer than 64
    times (an NHWC tensor with few channels: the ?x28x28x1 input image of a
    one-channel model) gets its unit loops dropped (`linalg::dropUnitDims`:
    maps read a unit dimension as a constant 0, which no collapsing keeps
    contiguous) and then its trailing loops collapsed into one, as far as
    every indexing map keeps them contiguous and in order and their trip
    counts are static, until that loop runs at least 64 times; its tensors
    are reshaped around it (`tensor.collapse_shape` / `expand_shape`, views
    after bufferization). LLVM then vectorizes one long loop instead of
    many short ones (4 lanes, or none). The leading loops stay, for
    tfcc-parallelize-loops to distribute. Ops that read their loop indices,
    and ops with a map holding another constant (a per-axis [3, 1, 1]
    operand read as (d1, 0, 0), which MLIR 19's collapsing rewrites as a
    loop index), are left alone. Example:

    ```mlir
    %q = linalg.generic {indexing_maps = [#id4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : tensor<?x28x28x1xf32>) outs(%e : tensor<?x28x28x1xi8>) {...}
    ```
    becomes
    ```mlir
    %xc = tensor.collapse_shape %x [[0], [1, 2, 3]] : tensor<?x28x28x1xf32> into tensor<?x784xf32>
    %ec = tensor.collapse_shape %e [[0], [1, 2, 3]] : tensor<?x28x28x1xi8> into tensor<?x784xi8>
    %qc = linalg.generic {indexing_maps = [#id2, #id2],
                          iterator_types = ["parallel", "parallel"]}
        ins(%xc : tensor<?x784xf32>) outs(%ec : tensor<?x784xi8>) {...}
    %q = tensor.expand_shape %qc [[0], [1, 2, 3]] ... : tensor<?x784xi8> into tensor<?x28x28x1xi8>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def SplitEmptyTensors : Pass<"tfcc-split-empty-tensors"> {
  let summary = "Give every use of a tensor.empty its own, before bufferization";
  let description = [{
    CSE merges the `tensor.empty` inits of every linalg op of one shape into
    one value; one-shot bufferization then treats all the ops writing into it
    as aliases of one another, and its conflict analysis runs in time
    quadratic in their number. An empty tensor has no contents, so each use
    gets its own copy, created right after the original (where its dynamic
    sizes are defined). The buffers bufferization allocates are the same:
    each op writing into the shared value got a copy of it then. Example:

    ```mlir
    %e = tensor.empty() : tensor<2x8xf32>
    %a = linalg.generic ... ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>)
    %b = linalg.generic ... ins(%a : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>)
    ```
    becomes
    ```mlir
    %e = tensor.empty() : tensor<2x8xf32>
    %e1 = tensor.empty() : tensor<2x8xf32>
    %a = linalg.generic ... ins(%x : tensor<2x8xf32>) outs(%e1 : tensor<2x8xf32>)
    %b = linalg.generic ... ins(%a : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>)
    ```
  }];
}

def OrderConstantGlobals : Pass<"tfcc-order-constant-globals", "ModuleOp"> {
  let summary = "Name and order the constants' globals by their first use";
  let description = [{
    One-shot bufferization (MLIR 19) takes a module's functions in an order
    that depends on heap addresses and creates each constant tensor's
    `memref.global` as it goes (`__constant_<type>`, `_0`, `_1`, ... on a
    clash, at the top of the module), so a model of several functions could
    compile to a different library each time. After it, this pass renames
    those globals as bufferization would have in the order of their first
    `memref.get_global` in the module, and places them at its top in that
    order; globals nothing uses follow in their order. Example:

    ```mlir
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[3.0, 4.0]>
    memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.0, 2.0]>
    func.func @a() { %0 = memref.get_global @__constant_2xf32_0 : memref<2xf32> ... }
    func.func @b() { %0 = memref.get_global @__constant_2xf32 : memref<2xf32> ... }
    ```
    becomes
    ```mlir
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
    memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[3.0, 4.0]>
    func.func @a() { %0 = memref.get_global @__constant_2xf32 : memref<2xf32> ... }
    func.func @b() { %0 = memref.get_global @__constant_2xf32_0 : memref<2xf32> ... }
    ```
  }];
}

def CopyReturnedArguments : Pass<"tfcc-copy-returned-arguments"> {
  let summary = "Return copies of returned arguments and of buffers returned twice";
  let description = [{
    `buffer-results-to-out-params` (MLIR 19) crashes on a function that
    returns one of its arguments (a model whose only op folded away) or one
    buffer twice (two results CSE made one). This pass runs before it, after
    bufferization: each such memref result becomes a new allocation holding
    a copy (`memref.alloc` + `memref.copy`, dynamic sizes from `memref.dim`),
    so every result is a buffer of its own. Example:

    ```mlir
    func.func @f(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
      %y = memref.alloc() : memref<4xf32>
      ...
      return %x, %y, %y ...
    ```
    becomes
    ```mlir
      %0 = memref.alloc() : memref<4xf32>
      memref.copy %x, %0 : memref<4xf32> to memref<4xf32>
      %1 = memref.alloc() : memref<4xf32>
      memref.copy %y, %1 : memref<4xf32> to memref<4xf32>
      return %0, %y, %1 ...
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ProfileSpans : Pass<"tfcc-profile-spans", "ModuleOp"> {
  let summary = "Wrap each node's kernel calls and loop nests in runtime profiling hooks";
  let description = [{
    After the memory plan, in each entry function (`__tfcc_impl_*`), the
    ops that do work (calls of runtime kernels, linalg ops, which become
    loop nests, `memref.copy`, and control flow holding such ops) are
    grouped: consecutive ones from the same node (the same node label, see
    `passes/NodeNames.h`) form one span. Each span is wrapped in
    `tfcc_rt_profile_begin(name, kind)` / `tfcc_rt_profile_end()` calls,
    guarded by one load of the runtime's `tfcc_rt_profiling_active` counter:
    a call on a context that is not profiling pays one load and branch per
    span (runtime/src/profile.c, docs/profiling.md). `name` is the node's
    name, `kind` the kernels or ops of the span, both private string
    constants. tfcc runs it on every target with an operating system.
    Example:

    ```mlir
    call @tfcc_rt_pool2d_f32(...) : (...) -> () loc("pool1")
    ```
    becomes
    ```mlir
    %0 = llvm.mlir.addressof @tfcc_rt_profiling_active : !llvm.ptr
    %1 = llvm.load %0 : !llvm.ptr -> i32
    %on = arith.cmpi ne, %1, %c0_i32 : i32
    scf.if %on {
      %name = llvm.mlir.addressof @__tfcc_span_name : !llvm.ptr   // "pool1"
      %kind = llvm.mlir.addressof @__tfcc_span_name_0 : !llvm.ptr // "tfcc_rt_pool2d_f32"
      func.call @tfcc_rt_profile_begin(%name, %kind) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    call @tfcc_rt_pool2d_f32(...) : (...) -> ()
    scf.if %on {
      func.call @tfcc_rt_profile_end() : () -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def CheckNumerics : Pass<"tfcc-check-numerics", "ModuleOp"> {
  let summary = "Report the first node whose float output holds a NaN or an infinity";
  let description = [{
    tfcc --check-numerics. Before the graph-level passes, after each op of
    the graph dialect in a function body with a floating-point tensor result
    (every result checked), an `any` reduction over the result's elements
    tests each element's exponent bits (all ones: NaN or an infinity; a bit
    test, which no fast-math flag can fold away), and where it holds calls
    `tfcc_rt_report_numerics` with a private string constant naming the node
    and op: "node 'conv1' (graph.conv2d)", and the result for an op with
    several. The runtime keeps the first report of a call and returns
    TFCC_INVALID_ARGUMENT with a message naming it. Constants are not
    checked (their values are known when compiling: a NaN weight is found at
    its first use). The checks keep every checked value alive, so some
    fusions (a convolution with its activation) no longer apply: a model
    built for debugging. Example:

    ```mlir
    %y = graph.log %x : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("log1")
    ```
    gets after it
    ```mlir
    %bad = linalg.generic {... reduction ...} ins(%y : tensor<?x4xf32>)
        outs(%false : tensor<i1>) {
    ^bb0(%v: f32, %acc: i1):
      %bits = arith.bitcast %v : f32 to i32
      %exp = arith.andi %bits, %c2139095040_i32 : i32
      %nonfinite = arith.cmpi eq, %exp, %c2139095040_i32 : i32
      %any = arith.ori %acc, %nonfinite : i1
      linalg.yield %any : i1
    } -> tensor<i1>
    %flag = tensor.extract %bad[] : tensor<i1>
    scf.if %flag {
      %node = llvm.mlir.addressof @__tfcc_numerics_node : !llvm.ptr
      func.call @tfcc_rt_report_numerics(%node) : (!llvm.ptr) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def ReturnOnNumericsReport : Pass<"tfcc-return-on-numerics-report", "ModuleOp"> {
  let summary = "Return from a --check-numerics build's function at the first NaN report";
  let description = [{
    In every function without results (the entries after the out-params
    pass), each `scf.if %bad { ... func.call @tfcc_rt_report_numerics(...) }`
    that tfcc-check-numerics made becomes a conditional branch to a block
    that reports and returns: the call stops at the first node whose output
    holds a NaN or an infinity, and the variable updates of a train step,
    which come last, are not made. Example:

    ```mlir
    scf.if %bad {
      %node = llvm.mlir.addressof @__tfcc_numerics_node : !llvm.ptr
      func.call @tfcc_rt_report_numerics(%node) : (!llvm.ptr) -> ()
    }
    ... the rest of the function ...
    ```
    becomes
    ```mlir
      cf.cond_br %bad, ^report, ^rest
    ^report:
      %node = llvm.mlir.addressof @__tfcc_numerics_node : !llvm.ptr
      func.call @tfcc_rt_report_numerics(%node) : (!llvm.ptr) -> ()
      return
    ^rest:
      ... the rest of the function ...
    ```
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect"];
}

def ExpandStridedMetadata : Pass<"tfcc-expand-strided-metadata"> {
  let summary = "Expand memref views into explicit offset, sizes and strides";
  let description = [{
    MLIR's `expand-strided-metadata` patterns (subviews, reshapes and casts
    become `memref.reinterpret_cast`s of their base buffer, with offsets,
    sizes and strides computed by `affine.apply`), applied from the ops they
    are rooted at and what their rewrites create, instead of by the
    whole-region greedy driver, which tries and folds every op of the module
    on each sweep. Equal constants are then merged at the start of their
    function, as that driver does. Example:

    ```mlir
    %v = memref.subview %m[%i, 0] [1, 8] [1, 1]
        : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    ```
    becomes
    ```mlir
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %m
    %o = affine.apply affine_map<()[s0] -> (s0 * 8)>()[%i]
    %v = memref.reinterpret_cast %base to offset: [%o], sizes: [8],
        strides: [1] : memref<f32> to memref<8xf32, strided<[1], offset: ?>>
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LowerLinalgToParallelLoops : Pass<"tfcc-lower-linalg-to-parallel-loops"> {
  let summary = "Lower linalg ops on buffers to scf.parallel loops";
  let description = [{
    The lowering of MLIR's `convert-linalg-to-parallel-loops`: each linalg
    op on buffers becomes an `scf.parallel` nest over its parallel
    dimensions, with `scf.for` loops inside over its reduction dimensions,
    loading its operands, running its body and storing its results. The
    upstream pass applies it with a pattern that matches any op, so the
    greedy driver tries and folds every op of the function on two full
    sweeps; here only the linalg ops, what their lowering creates and the
    index arithmetic (`memref.dim`, `affine.apply`) are visited, and equal
    constants are then merged at the start of their function, as that
    driver does: the same loops, in a fraction of the time on huge
    functions. Example:

    ```mlir
    linalg.generic {indexing_maps = [#id, #id],
                    iterator_types = ["parallel"]}
        ins(%a : memref<16xf32>) outs(%b : memref<16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %r = arith.mulf %x, %x : f32
      linalg.yield %r : f32
    }
    ```
    becomes
    ```mlir
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %a[%i] : memref<16xf32>
      %r = arith.mulf %x, %x : f32
      memref.store %r, %b[%i] : memref<16xf32>
      scf.reduce
    }
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ParallelizeLoops : Pass<"tfcc-parallelize-loops", "ModuleOp"> {
  let summary = "Run large generated loop nests on the context's thread pool";
  let description = [{
    After `tfcc-lower-linalg-to-parallel-loops`, every `scf.parallel` of a
    function (parallel dimensions; reductions are inner `scf.for`s) either
    becomes a serial `scf.for` nest or, when its body is large enough and
    calls nothing (arith, math, memref loads and stores, scf, affine, index
    only), an `omp.parallel` + `omp.wsloop nowait` over its leading
    dimensions (the fewest whose static trip counts multiply to at least
    `min-outer-iterations`, never the innermost of two or more that is not
    a unit dimension, which stays a loop LLVM can vectorize), the other
    dimensions staying serial `scf.for`s inside. The work of a nest is the
    number of body operations it executes; `num_threads` is that work over
    `min-work-per-thread` (at least 1), computed at run time when a trip
    count is dynamic (e.g. the batch). A nest with no dynamic trip count and
    less static work than two threads' (2 x `min-work-per-thread`) stays
    serial.

    The OpenMP translation outlines the body and calls `__kmpc_fork_call`,
    `__kmpc_push_num_threads`, `__kmpc_global_thread_num`,
    `__kmpc_for_static_init_8u` and `__kmpc_for_static_fini`, which the tfcc
    runtime implements, renamed `tfcc_rt_omp_*` by the compiler, on the
    context's thread pool (runtime/src/omp_shim.c):
    static chunks, no barrier, so results are identical for any thread
    count. Example:

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
      ... scf.reduce
    }
    ```
    becomes
    ```mlir
    %nt = ... (work over min-work-per-thread, as i32)
    omp.parallel num_threads(%nt : i32) {
      omp.wsloop nowait {
        omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
          scf.for %j = %c0 to %c64 step %c1 { ... }
          omp.yield
        }
        omp.terminator
      }
      omp.terminator
    }
    ```
  }];
  let options = [
    Option<"minWorkPerThread", "min-work-per-thread", "int64_t",
           /*default=*/"16384",
           "Body operations a thread must get for a fork to pay off">,
    Option<"minOuterIterations", "min-outer-iterations", "int64_t",
           /*default=*/"32",
           "Static iterations of the distributed dimensions to aim for">
  ];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def GpuDeviceBuffers : Pass<"tfcc-gpu-device-buffers", "ModuleOp"> {
  let summary = "Give each buffer an entry touches a copy in GPU memory";
  let description = [{
    The CUDA target, after tfcc-arena-allocation: the arena (the trailing
    `memref<?xi8>` argument before the batch size) is device memory the
    runtime allocated; the other arguments are the caller's host buffers and
    the weights (`memref.get_global`) host constants. Each of them that the
    entry reads or writes gets a `gpu.alloc` of its type: copied in with
    `gpu.memcpy` if it is read, copied back before each return if it is an
    argument that is written, freed before each return. A `memref.copy`
    (now between device buffers) becomes a `gpu.memcpy` where both sides are
    contiguous, a `linalg.copy` (a kernel) where not. Example:

    ```mlir
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>, %arena: memref<?xi8>,
                 %batch: index) attributes {tfcc.arena_fixed = 0 : i64} {
      linalg.generic ... ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
    ```
    becomes
    ```mlir
      %0 = gpu.alloc () : memref<4xf32>
      gpu.memcpy %0, %x : memref<4xf32>, memref<4xf32>
      %1 = gpu.alloc () : memref<4xf32>
      linalg.generic ... ins(%0 : memref<4xf32>) outs(%1 : memref<4xf32>)
      gpu.memcpy %y, %1 : memref<4xf32>, memref<4xf32>
      gpu.dealloc %0 : memref<4xf32>
      gpu.dealloc %1 : memref<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def GpuMapLoops : Pass<"tfcc-gpu-map-loops", "ModuleOp"> {
  let summary = "Shape parallel loops for GPU blocks and threads";
  let description = [{
    The CUDA target, on buffers, before gpu-map-parallel-loops: each linalg
    op becomes `scf.parallel` loops (as convert-linalg-to-parallel-loops),
    one with no parallel dimension (a reduction to one value) inside a
    one-iteration `scf.parallel`, and so does an outermost `scf.for` nest
    that loads or stores memory and holds no parallel loop: one GPU thread
    runs it, since the host cannot read device memory. Each outermost
    `scf.parallel` is then collapsed into one dimension over all its
    iterations (the innermost dimension fastest: consecutive threads touch
    consecutive elements) and tiled by `block-size`, so the tiles map to GPU
    blocks and the elements to threads. Example:

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c100) step (%c1, %c1) {
    ```
    becomes a loop over 800 iterations tiled by 256: an outer
    `scf.parallel` of 4 tiles around an inner one of 256 iterations (a
    bounds check inside), each iteration recovering `%i` and `%j` by
    division and remainder.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per GPU block (1..1024)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def CheckGpuPlacement : Pass<"tfcc-check-gpu-placement", "ModuleOp"> {
  let summary = "Refuse host code that would read or write device memory";
  let description = [{
    The CUDA target, after convert-parallel-loops-to-gpu: every buffer is
    device memory, so any op outside a `gpu.launch` that reads or writes a
    buffer (a `memref.load`, a `memref.store`, a call of a CPU function)
    would fault on the host. Each is reported at its location (which names
    its node), and the pass fails: no op is placed on the CPU silently.
    Example: a `memref.load %buf[%i]` left in the host function gives
    `error: tfcc cannot run 'memref.load' on the GPU: it is not in a GPU
    kernel, and the host cannot read device memory`.
  }];
}

#endif // TFCC_PASSES
