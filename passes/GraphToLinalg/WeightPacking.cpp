//===- WeightPacking.cpp - weights into the micro-kernels' layouts --------===//
//
// Constant weights are packed at compile time by the runtime's own packing
// functions (the tfcc_kernel_pack library, the same C code the runtime
// runs), so compile-time and run-time packing agree bit for bit; variable
// ones (a train step's) by a call of that function into a fresh buffer,
// placed in the arena like any other.
//
//===----------------------------------------------------------------------===//

#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

using namespace mlir;
using namespace mlir::tfcc;

namespace {

/// A constant 1-D float32 buffer holding `values`.
Value createPackedConstant(OpBuilder &b, Location loc,
                           ArrayRef<float> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getF32Type());
  Value constant = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(type, values));
  return toReadOnlyMemref(b, loc, constant);
}

/// A constant 1-D int8 buffer holding `values`.
Value createPackedConstant(OpBuilder &b, Location loc,
                           ArrayRef<int8_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getIntegerType(8));
  Value constant = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(type, values));
  return toReadOnlyMemref(b, loc, constant);
}

} // namespace

Value mlir::tfcc::packGemmWeights(OpBuilder &b, Location loc, Value weights,
                                  int64_t k, int64_t n) {
  int64_t size = tfcc_rt_sgemm_packed_b_size(k, n);
  if (std::optional<std::vector<float>> values = getConstantFloats(weights)) {
    std::vector<float> packed(size);
    tfcc_rt_sgemm_pack_b(k, n, values->data(), n, /*trans_b=*/0,
                         packed.data());
    return createPackedConstant(b, loc, packed);
  }
  Value buffer = allocResult(
      b, loc, RankedTensorType::get({size}, b.getF32Type()), {});
  emitKernelCall(b, loc,
                 kernels::tfcc_rt_sgemm_pack_b{.K = k,
                                               .N = n,
                                               .B = weights,
                                               .ldb = n,
                                               .trans_b = 0,
                                               .packed = buffer});
  return buffer;
}

Value mlir::tfcc::packWinogradWeights(OpBuilder &b, Location loc, Value hwio,
                                      int64_t c, int64_t oc) {
  int64_t size = tfcc_rt_winograd_packed_size(c, oc);
  if (std::optional<std::vector<float>> values = getConstantFloats(hwio)) {
    std::vector<float> packed(size);
    tfcc_rt_winograd_pack(c, oc, values->data(), packed.data());
    return createPackedConstant(b, loc, packed);
  }
  Value buffer = allocResult(
      b, loc, RankedTensorType::get({size}, b.getF32Type()), {});
  emitKernelCall(b, loc,
                 kernels::tfcc_rt_winograd_pack{
                     .c = c, .oc = oc, .hwio = hwio, .packed = buffer});
  return buffer;
}

Value mlir::tfcc::packInt8GemmWeights(OpBuilder &b, Location loc,
                                      Value weights, int64_t k, int64_t n) {
  int64_t size = tfcc_rt_qgemm_packed_b_size(k, n);
  if (std::optional<std::vector<int64_t>> values =
          getConstantIntegers(weights)) {
    std::vector<int8_t> narrow(values->begin(), values->end());
    std::vector<int8_t> packed(size);
    tfcc_rt_qgemm_pack_b(k, n, narrow.data(), packed.data());
    return createPackedConstant(b, loc, packed);
  }
  Value buffer =
      allocResult(b, loc, RankedTensorType::get({size}, b.getIntegerType(8)),
                  {});
  emitKernelCall(b, loc,
                 kernels::tfcc_rt_qgemm_pack_b{
                     .K = k, .N = n, .B = weights, .packed = buffer});
  return buffer;
}

Value mlir::tfcc::packInt8DepthwiseWeights(OpBuilder &b, Location loc,
                                           Value weights, int64_t taps,
                                           int64_t c) {
  int64_t size = tfcc_rt_depthwise_u8s8_packed_size(taps, c);
  if (std::optional<std::vector<int64_t>> values =
          getConstantIntegers(weights)) {
    std::vector<int8_t> narrow(values->begin(), values->end());
    std::vector<float> packed(size);
    tfcc_rt_depthwise_u8s8_pack(taps, c, narrow.data(), packed.data());
    return createPackedConstant(b, loc, packed);
  }
  Value buffer =
      allocResult(b, loc, RankedTensorType::get({size}, b.getF32Type()), {});
  emitKernelCall(
      b, loc,
      kernels::tfcc_rt_depthwise_u8s8_pack{
          .taps = taps, .c = c, .weights = weights, .packed = buffer});
  return buffer;
}
