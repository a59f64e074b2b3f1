//===- Limits.h - the size limits of models (no MLIR) -----------*- C++ -*-===//
//
// Plain constants, for the readers that do not link MLIR (.npy, checkpoints)
// as well as the verifiers (TensorSize.h). docs/reliability.md lists them.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_IR_LIMITS_H
#define TFCC_DIALECTS_GRAPH_IR_LIMITS_H

#include <cstdint>

// In the graph dialect's namespace (only a name: nothing here needs MLIR).
namespace mlir::graph {

/// Bytes of the largest tensor (of its static dimensions, a dynamic one
/// counting 1), and of all variables and constants of a model together:
/// 16 GiB.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 34;

/// Largest file a reader accepts beyond the data it holds (headers, names,
/// text): a .npy or checkpoint holds at most kMaxTensorBytes of data.
constexpr int64_t kMaxMetadataBytes = int64_t(1) << 30;

/// Largest ONNX file: protobuf parses at most 2 GiB.
constexpr int64_t kMaxOnnxFileBytes = (int64_t(1) << 31) - 1;

/// Largest graph-IR text file (weights written as hex take two characters a
/// byte).
constexpr int64_t kMaxModelTextBytes = 2 * kMaxTensorBytes + kMaxMetadataBytes;

} // namespace mlir::graph

#endif // TFCC_DIALECTS_GRAPH_IR_LIMITS_H
