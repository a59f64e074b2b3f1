//===- KernelCalls.h - typed calls of the runtime micro-kernels -*- C++ -*-===//
//
// Private to passes/GraphToLinalg. The op families whose ops lower to the
// runtime's micro-kernels (runtime/include/tfcc/tfcc_kernels.h) build their
// calls here. Each kernel of the table tfcc_kernels.def becomes a struct
// with one named field per parameter, filled with designated initializers:
//
//   emitKernelCall(b, loc, kernels::tfcc_rt_softmax_f32{
//       .x = x, .rows = rows, .cols = cols, .log_softmax = 0, .y = buffer});
//
// The fields' types have no default constructor, so a call that misses a
// parameter (or a table edit that adds one) does not compile; a field of
// another kind (a pointer for an integer) does not convert. The function
// declarations come from the same table (declareKernelFunctions).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_PASSES_GRAPHTOLINALG_KERNELCALLS_H
#define TFCC_PASSES_GRAPHTOLINALG_KERNELCALLS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstddef>
#include <cstdint>

namespace mlir::tfcc {

struct WindowPadding;

/// The kinds of kernel parameters (the types of tfcc_kernels.def). Each
/// builds the SSA value the call passes: build() at the call, getType() for
/// the declaration.
namespace kernel_args {

/// An int64_t: a constant, or an index or i64 value (a dynamic size).
class I64 {
public:
  I64() = delete;
  I64(int64_t constant) : constant(constant) {}
  I64(Value value) : value(value) {}
  Value build(OpBuilder &b, Location loc) const;
  static Type getType(MLIRContext *ctx);

private:
  int64_t constant = 0;
  Value value;
};

/// An int32_t constant (a flag, a mode, an activation code).
class I32 {
public:
  I32() = delete;
  I32(int32_t constant) : constant(constant) {}
  Value build(OpBuilder &b, Location loc) const;
  static Type getType(MLIRContext *ctx);

private:
  int32_t constant;
};

/// A float constant.
class F32 {
public:
  F32() = delete;
  F32(float constant) : constant(constant) {}
  Value build(OpBuilder &b, Location loc) const;
  static Type getType(MLIRContext *ctx);

private:
  float constant;
};

/// A buffer the kernel reads (`isOutput` false: a tensor, bufferized
/// read-only, or a memref; null passes 0) or writes (a memref, never null),
/// of `elementBits`-bit elements; passed as a pointer (!llvm.ptr).
template <bool isOutput, unsigned elementBits>
class Buffer {
public:
  Buffer() = delete;
  Buffer(Value value) : value(value) {}
  Buffer(std::nullptr_t) {}
  Value build(OpBuilder &b, Location loc) const;
  static Type getType(MLIRContext *ctx);

private:
  Value value;
};

using IN_F32 = Buffer<false, 32>;
using OUT_F32 = Buffer<true, 32>;
using IN_I8 = Buffer<false, 8>;
using OUT_I8 = Buffer<true, 8>;
using IN_U8 = Buffer<false, 8>;
using OUT_U8 = Buffer<true, 8>;
using OUT_I64 = Buffer<true, 64>;

} // namespace kernel_args

/// One struct per kernel of the table, named as the C function.
namespace kernels {
#define TFCC_ARG(type, name) kernel_args::type name;
#define TFCC_KERNEL(kernel, params)                                           \
  struct kernel {                                                              \
    static constexpr const char *kSymbol = #kernel;                            \
    params                                                                     \
  };
#include "tfcc/tfcc_kernels.def"
#undef TFCC_KERNEL
#undef TFCC_ARG
} // namespace kernels

/// func.call of the kernel with the struct's fields as its arguments.
#define TFCC_KERNEL(kernel, params)                                           \
  void emitKernelCall(OpBuilder &b, Location loc, const kernels::kernel &call);
#include "tfcc/tfcc_kernels.def"
#undef TFCC_KERNEL

/// Declares every kernel of the table in `module` (private functions).
void declareKernelFunctions(ModuleOp module);
/// Erases the declarations nothing calls.
void eraseUnusedKernelFunctions(ModuleOp module);

//===----------------------------------------------------------------------===//
// Operands and results
//===----------------------------------------------------------------------===//

/// The read-only buffer of `tensor`, with the identity layout the kernels
/// need (bufferization copies when the tensor lives in a strided view). Each
/// one carries a distinct `tfcc.kernel_read` ordinal, so CSE keeps one read
/// per kernel call.
Value toReadOnlyMemref(OpBuilder &b, Location loc, Value tensor);
inline constexpr const char *kKernelReadAttr = "tfcc.kernel_read";

/// TFCC_ACT_BF16_OPERANDS for a product tfcc-mark-bf16-operands marked (its
/// operands hold bf16 values), else 0.
int32_t bf16OperandsFlag(Operation *op);

/// A fresh 64-byte aligned buffer for a result of `type` whose dynamic dims
/// come from `dynamicSizes` (in order); placed in the arena later.
Value allocResult(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicSizes);
/// Same, the dynamic dims equal to those of `source` at the same positions
/// (the batch of the kernel's input).
Value allocResultLike(OpBuilder &b, Location loc, RankedTensorType type,
                      Value source);
/// The H and W a 2-D window kernel (convolution, pooling) over the NHWC `x`
/// takes, of x and of the result: constants where the types are static,
/// computed at run time where dynamic (buildWindowOutputSize, with
/// `padTotals` the pads of H and of W), and the result buffer of those sizes
/// (its batch that of x).
struct WindowExtents {
  Value h, w, oh, ow, output;
};
WindowExtents buildWindowExtents(OpBuilder &b, Location loc, Operation *op,
                                 Value x, RankedTensorType resultType,
                                 ArrayRef<int64_t> padTotals,
                                 ArrayRef<int64_t> window,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations);

/// The result tensor of a kernel that wrote `buffer`.
Value toResultTensor(OpBuilder &b, Location loc, RankedTensorType type,
                     Value buffer);

/// The TFCC_ACT_* code of a fused op's activation name.
int32_t getActivationCode(StringRef name);
/// The activation argument of a float kernel call: the activation's code,
/// or'ed with TFCC_ACT_ROUND_BF16 / _F16 for a fused op's `round_to`.
int32_t getEpilogueCode(StringRef activation, std::optional<Type> roundTo);

/// A float32 NHWC tensor type with static H, W and C (what the NHWC kernels
/// take).
bool isStaticF32Nhwc(Type type);
/// A float32 NHWC tensor type with a static C (and static H and W when
/// `staticHW`): what the NHWC kernels taking H and W at run time accept.
bool isNhwcF32WithStaticC(Type type, bool staticHW);

/// The [rows, cols] view of a float32 tensor whose trailing dims from `axis`
/// on are static (cols, their product) under dynamic leading ones (rows, an
/// index value), or failure: what the row-wise kernels take.
FailureOr<std::pair<Value, int64_t>> getRowsAndCols(OpBuilder &b, Location loc,
                                                    Value x, int64_t axis);

//===----------------------------------------------------------------------===//
// Weight packing (WeightPacking.cpp)
//===----------------------------------------------------------------------===//

/// The GEMM "B" operand of a [k, n] weight matrix in the micro-kernel's
/// packed layout: packed at compile time by the runtime's own packing
/// function when constant, else by a kernel call into a fresh buffer.
/// Returns the packed buffer (a memref).
Value packGemmWeights(OpBuilder &b, Location loc, Value weights, int64_t k,
                      int64_t n);

/// The int8 GEMM's "B" operand (tfcc_rt_qgemm_pack_b) of a [k, n] int8
/// weight matrix, the same way: packed at compile time when constant.
Value packInt8GemmWeights(OpBuilder &b, Location loc, Value weights, int64_t k,
                          int64_t n);

/// The uint8 depthwise kernel's weights (tfcc_rt_depthwise_u8s8_pack) of
/// int8 weights [taps, c] (any shape of that row-major order), the same way.
Value packInt8DepthwiseWeights(OpBuilder &b, Location loc, Value weights,
                               int64_t taps, int64_t c);

/// The Winograd kernel's weights from a [3, 3, c, oc] HWIO tensor,
/// transformed and packed the same way (compile time when constant, a call
/// of tfcc_rt_winograd_pack otherwise). Returns the buffer.
Value packWinogradWeights(OpBuilder &b, Location loc, Value hwio, int64_t c,
                          int64_t oc);

/// Whether a groups-1 float32 convolution with static per-image sizes (input
/// h x w x c, output oh x ow x oc) lowers to the Winograd F(2x2, 3x3) kernel
/// rather than the direct one: 3x3, unit strides and dilations, and the
/// runtime's measured rule tfcc_rt_conv2d_winograd_preferred.
/// `runtimeTransform`: the weights are transformed at run time, once per call
/// (variables), which a call must pay back.
bool isWinogradConv(int64_t h, int64_t w, int64_t c, int64_t oc, int64_t oh,
                    int64_t ow, ArrayRef<int64_t> kernelHw,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                    bool runtimeTransform);

} // namespace mlir::tfcc

#endif // TFCC_PASSES_GRAPHTOLINALG_KERNELCALLS_H
