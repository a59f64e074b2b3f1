//===- NN3D.h - ONNX 3-D convolution and pooling ----------------*- C++ -*-===//
//
// Conv, MaxPool and AveragePool over NCDHW inputs (rank 5), decomposed into
// the graph IR's 2-D ops. NN.cpp's converters call these for rank-5 inputs.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_ONNX_NN3D_H
#define TFCC_COMPILER_ONNX_NN3D_H

#include "compiler/onnx/ImportContext.h"

namespace tfcc::onnx_import {

/// Conv of an NCDHW input with an OIDHW weight: one graph.conv2d per kernel
/// depth tap, summed. Depth and channels must be static.
mlir::LogicalResult convertConv3D(ImportContext &ctx);

/// MaxPool (`isMax`) or AveragePool of an NCDHW input: one 2-D pool per
/// kernel depth tap, combined with graph.maximum or a scaled sum.
mlir::LogicalResult convertPool3D(ImportContext &ctx, bool isMax);

} // namespace tfcc::onnx_import

#endif // TFCC_COMPILER_ONNX_NN3D_H
