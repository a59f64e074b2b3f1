//===- KernelCalls.cpp - typed calls of the runtime micro-kernels ---------===//
//
// The argument kinds of tfcc_kernels.def and the call and declaration
// builders expanded from it (see KernelCalls.h).
//
//===----------------------------------------------------------------------===//

#include "passes/GraphToLinalg/KernelCalls.h"

#include "passes/GraphToLinalg/Utils.h"
#include "passes/LowPrecisionValues.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"
#include "tfcc/tfcc_types.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tfcc;

//===----------------------------------------------------------------------===//
// Argument kinds
//===----------------------------------------------------------------------===//

Value kernel_args::I64::build(OpBuilder &b, Location loc) const {
  if (!value)
    return b.create<arith::ConstantIntOp>(loc, constant, 64);
  if (value.getType().isIndex())
    // Folded when static, so the call reads like the static-shape case.
    return b.createOrFold<arith::IndexCastOp>(loc, b.getI64Type(), value);
  assert(value.getType().isInteger(64) && "an int64_t parameter of a kernel");
  return value;
}
Type kernel_args::I64::getType(MLIRContext *ctx) {
  return IntegerType::get(ctx, 64);
}

Value kernel_args::I32::build(OpBuilder &b, Location loc) const {
  return b.create<arith::ConstantIntOp>(loc, constant, 32);
}
Type kernel_args::I32::getType(MLIRContext *ctx) {
  return IntegerType::get(ctx, 32);
}

Value kernel_args::F32::build(OpBuilder &b, Location loc) const {
  return b.create<arith::ConstantFloatOp>(loc, APFloat(constant),
                                          b.getF32Type());
}
Type kernel_args::F32::getType(MLIRContext *ctx) {
  return Float32Type::get(ctx);
}

template <bool isOutput, unsigned elementBits>
Value kernel_args::Buffer<isOutput, elementBits>::build(OpBuilder &b,
                                                        Location loc) const {
  if (!value) {
    assert(!isOutput && "a kernel's output buffer");
    return b.create<LLVM::ZeroOp>(loc, getType(b.getContext()));
  }
  Value memref = value;
  if (isa<RankedTensorType>(value.getType())) {
    assert(!isOutput && "a kernel writes a memref, not a tensor");
    memref = toReadOnlyMemref(b, loc, value);
  }
  // A buffer of another element type would link and give wrong numbers:
  // refused in release builds too.
  if (cast<MemRefType>(memref.getType()).getElementTypeBitWidth() !=
      elementBits)
    llvm::report_fatal_error("kernel call: a buffer of " +
                             Twine(elementBits) +
                             "-bit elements expected");
  Value address =
      b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
  // A pointer, not an integer: on 32-bit targets a C pointer parameter is
  // 32 bits wide, and an i64 there shifted every later argument.
  Value integer =
      b.createOrFold<arith::IndexCastOp>(loc, b.getI64Type(), address);
  return b.create<LLVM::IntToPtrOp>(loc, getType(b.getContext()), integer);
}
template <bool isOutput, unsigned elementBits>
Type kernel_args::Buffer<isOutput, elementBits>::getType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx);
}

template class kernel_args::Buffer<false, 32>;
template class kernel_args::Buffer<true, 32>;
template class kernel_args::Buffer<false, 8>;
template class kernel_args::Buffer<true, 8>;
template class kernel_args::Buffer<true, 64>;

//===----------------------------------------------------------------------===//
// Calls and declarations, expanded from the table
//===----------------------------------------------------------------------===//

namespace {
void createCall(OpBuilder &b, Location loc, StringRef callee,
                ArrayRef<Value> args) {
  b.create<func::CallOp>(loc, callee, TypeRange{}, args);
}
} // namespace

#define TFCC_ARG(type, name) args.push_back(call.name.build(b, loc));
#define TFCC_KERNEL(kernel, params)                                           \
  void mlir::tfcc::emitKernelCall(OpBuilder &b, Location loc,                  \
                                  const kernels::kernel &call) {               \
    SmallVector<Value> args;                                                   \
    params createCall(b, loc, kernels::kernel::kSymbol, args);                 \
  }
#include "tfcc/tfcc_kernels.def"
#undef TFCC_KERNEL
#undef TFCC_ARG

void mlir::tfcc::declareKernelFunctions(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  auto declare = [&](StringRef name, ArrayRef<Type> inputs) {
    if (module.lookupSymbol(name))
      return;
    auto func = b.create<func::FuncOp>(module.getLoc(), name,
                                       b.getFunctionType(inputs, {}));
    func.setPrivate();
  };
#define TFCC_ARG(type, name) kernel_args::type::getType(ctx),
#define TFCC_KERNEL(kernel, params) declare(#kernel, {params});
#include "tfcc/tfcc_kernels.def"
#undef TFCC_KERNEL
#undef TFCC_ARG
}

void mlir::tfcc::eraseUnusedKernelFunctions(ModuleOp module) {
  // One walk over the module's symbol uses, not one per kernel: each walk
  // visits every attribute of every op.
  llvm::DenseSet<StringAttr> used;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(&module.getBodyRegion())) {
    for (const SymbolTable::SymbolUse &use : *uses)
      used.insert(use.getSymbolRef().getRootReference());
  } else {
    return; // An op with unknown symbol uses: keep every declaration.
  }
  for (StringRef name : {
#define TFCC_KERNEL(kernel, params) #kernel,
#include "tfcc/tfcc_kernels.def"
#undef TFCC_KERNEL
       }) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (func && !used.contains(func.getSymNameAttr()))
      func.erase();
  }
}

//===----------------------------------------------------------------------===//
// Operands and results
//===----------------------------------------------------------------------===//

Value mlir::tfcc::toReadOnlyMemref(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  // A kernel reads its operands through a pointer bufferization cannot see,
  // so each call keeps its own to_memref as the visible read of the tensor:
  // the ordinal among the tensor's to_memrefs keeps CSE from merging the
  // reads of two calls (with one read left at the first call, bufferization
  // took the tensor for dead after it and let an op in between overwrite its
  // buffer in place before the second call read it).
  int64_t ordinal = llvm::count_if(tensor.getUsers(), [](Operation *user) {
    return isa<bufferization::ToMemrefOp>(user);
  });
  auto op = b.create<bufferization::ToMemrefOp>(
      loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
  op->setAttr(kKernelReadAttr, b.getI64IntegerAttr(ordinal));
  return op;
}

int32_t mlir::tfcc::bf16OperandsFlag(Operation *op) {
  return op->hasAttr(kBf16OperandsAttrName) ? TFCC_ACT_BF16_OPERANDS : 0;
}

Value mlir::tfcc::allocResult(OpBuilder &b, Location loc,
                              RankedTensorType type, ValueRange dynamicSizes) {
  return b.create<memref::AllocOp>(
      loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes, b.getI64IntegerAttr(TFCC_ARENA_ALIGNMENT));
}

Value mlir::tfcc::allocResultLike(OpBuilder &b, Location loc,
                                  RankedTensorType type, Value source) {
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(b.create<tensor::DimOp>(loc, source, dim));
  return allocResult(b, loc, type, sizes);
}

WindowExtents mlir::tfcc::buildWindowExtents(
    OpBuilder &b, Location loc, Operation *op, Value x,
    RankedTensorType resultType, ArrayRef<int64_t> padTotals,
    ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> dilations) {
  auto xType = cast<RankedTensorType>(x.getType());
  WindowExtents extents;
  extents.h = getDimValue(b, loc, x, 1);
  extents.w = getDimValue(b, loc, x, 2);
  Value in[2] = {extents.h, extents.w};
  Value *out[2] = {&extents.oh, &extents.ow};
  SmallVector<Value> dynamicSizes;
  if (resultType.isDynamicDim(0))
    dynamicSizes.push_back(getDimValue(b, loc, x, 0));
  for (int64_t i = 0; i < 2; ++i) {
    if (!xType.isDynamicDim(1 + i) && !resultType.isDynamicDim(1 + i))
      *out[i] =
          b.create<arith::ConstantIndexOp>(loc, resultType.getDimSize(1 + i));
    else
      *out[i] = buildWindowOutputSize(b, loc, op, in[i], padTotals[i],
                                      window[i], strides[i], dilations[i],
                                      resultType.getDimSize(1 + i));
    if (resultType.isDynamicDim(1 + i))
      dynamicSizes.push_back(*out[i]);
  }
  extents.output = allocResult(b, loc, resultType, dynamicSizes);
  return extents;
}

Value mlir::tfcc::toResultTensor(OpBuilder &b, Location loc,
                                 RankedTensorType type, Value buffer) {
  return b.create<bufferization::ToTensorOp>(loc, type, buffer,
                                             /*restrict=*/true,
                                             /*writable=*/true);
}

int32_t mlir::tfcc::getActivationCode(StringRef name) {
  return llvm::StringSwitch<int32_t>(name)
      .Case("relu", TFCC_ACT_RELU)
      .Case("clip", TFCC_ACT_CLIP)
      .Case("leaky_relu", TFCC_ACT_LEAKY_RELU)
      .Case("hard_swish", TFCC_ACT_HARD_SWISH)
      .Case("sigmoid", TFCC_ACT_SIGMOID)
      .Default(TFCC_ACT_NONE);
}

int32_t mlir::tfcc::getEpilogueCode(StringRef activation,
                                    std::optional<Type> roundTo) {
  int32_t code = getActivationCode(activation);
  if (roundTo && roundTo->isBF16())
    code |= TFCC_ACT_ROUND_BF16;
  else if (roundTo && roundTo->isF16())
    code |= TFCC_ACT_ROUND_F16;
  return code;
}

bool mlir::tfcc::isStaticF32Nhwc(Type type) {
  return isNhwcWithStaticHwc(type) &&
         cast<RankedTensorType>(type).getElementType().isF32();
}

bool mlir::tfcc::isNhwcF32WithStaticC(Type type, bool staticHW) {
  if (staticHW)
    return isStaticF32Nhwc(type);
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.getRank() == 4 && !ranked.isDynamicDim(3) &&
         ranked.getElementType().isF32();
}

FailureOr<std::pair<Value, int64_t>>
mlir::tfcc::getRowsAndCols(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> trailing = type.getShape().drop_front(axis);
  if (!type.getElementType().isF32() || trailing.empty() ||
      ShapedType::isDynamicShape(trailing))
    return failure();
  int64_t cols = 1;
  for (int64_t d : trailing)
    cols *= d;
  SmallVector<int64_t> leading = llvm::to_vector(llvm::seq<int64_t>(0, axis));
  return std::make_pair(getDimsProduct(b, loc, x, leading), cols);
}
