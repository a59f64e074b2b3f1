//===- BoundedFile.h - read a regular file of bounded size ------*- C++ -*-===//
//
// Every file tfcc reads (models, weights, checkpoints, .npy) goes through
// this: a device or FIFO (/dev/zero) would otherwise be read until memory
// runs out. No MLIR or LLVM (TfccSupport).
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_BOUNDEDFILE_H
#define TFCC_COMPILER_BOUNDEDFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace tfcc {

/// Reads all of `path` into `bytes` when it is a regular file of at most
/// `maxBytes`; else returns false with `error` saying why ("'PATH' is not a
/// regular file", "... is N bytes, more than the M a WHAT may have", or the
/// system's reason it cannot be opened or read). `what` names the kind of
/// file in messages ("checkpoint", ".npy file").
bool readBoundedFile(const std::string &path, int64_t maxBytes,
                     const std::string &what, std::vector<uint8_t> &bytes,
                     std::string &error);

} // namespace tfcc

#endif // TFCC_COMPILER_BOUNDEDFILE_H
