//===- ComposedOps.h - chains of graph ops for ONNX ops ------*- C++ -*-===//
//
// ONNX ops the graph IR has no single op for (activations, normalizations,
// losses) are built as chains of graph ops; OpChain builds them and keeps
// the first failure, so a converter checks once at the end.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_ONNX_COMPOSEDOPS_H
#define TFCC_COMPILER_ONNX_COMPOSEDOPS_H

#include "compiler/onnx/HostFolding.h"
#include "compiler/onnx/ImportContext.h"

namespace tfcc::onnx_import {

/// Builds chains of graph ops; the first failure sticks. Every method
/// returns a null value only after a failure and builds nothing once one
/// happened, so a null operand never reaches a builder.
struct OpChain {
  ImportContext &ctx;
  bool failed = false;

  /// A scalar constant of float type `type` (f32 by default).
  mlir::Value scalar(double value, mlir::Type type = {}) {
    if (!type)
      type = ctx.builder().getF32Type();
    return ctx.constant(makeFilledFloat(type, {}, value));
  }
  mlir::Value check(mlir::FailureOr<mlir::Value> v) {
    if (mlir::failed(v)) {
      failed = true;
      return {};
    }
    return *v;
  }
  /// ctx.create<OpTy>(args...) (result type inferred), unless failed.
  template <typename OpTy, typename... Args> mlir::Value op(Args &&...args) {
    if (failed)
      return {};
    return check(ctx.create<OpTy>(std::forward<Args>(args)...));
  }
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm) {
    if (failed)
      return {};
    return ctx.transpose(x, perm);
  }
  mlir::Value cast(mlir::Value x, mlir::Type elementType) {
    if (failed)
      return {};
    return ctx.cast(x, elementType);
  }
  template <typename OpTy> mlir::Value binary(mlir::Value a, mlir::Value b) {
    if (failed)
      return {};
    return check(ctx.create<OpTy>(a, b));
  }
  template <typename OpTy> mlir::Value unary(mlir::Value x) {
    if (failed)
      return {};
    return ctx.builder().create<OpTy>(ctx.loc(), x).getResult();
  }
  mlir::Value compare(mlir::Value a, mlir::Value b, llvm::StringRef predicate) {
    if (failed)
      return {};
    return check(ctx.create<mlir::graph::CompareOp>(
        a, b, ctx.builder().getStringAttr(predicate)));
  }
  mlir::Value select(mlir::Value cond, mlir::Value a, mlir::Value b) {
    if (failed)
      return {};
    return check(ctx.create<mlir::graph::SelectOp>(cond, a, b));
  }
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape) {
    if (failed)
      return {};
    return check(ctx.reshape(x, shape));
  }
  mlir::LogicalResult finish(mlir::Value result) {
    if (failed)
      return mlir::failure();
    ctx.setOutput(0, result);
    return mlir::success();
  }
};

} // namespace tfcc::onnx_import

#endif // TFCC_COMPILER_ONNX_COMPOSEDOPS_H
