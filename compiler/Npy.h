//===- Npy.h - NumPy .npy reading and writing -----------------------------===//
//
// The NumPy .npy format, versions 1.0, 2.0 and 3.0, C order only, little-endian
// data: dtypes '<f4' (f32), '<f8' (f64), '<i4' (i32), '<i8' (i64), '|b1'
// (bool), '<f2' (f16) and '|i1' (i8). Used for model inputs, outputs and weights in tools and
// tests. No MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_COMPILER_NPY_H
#define TFCC_COMPILER_NPY_H

#include "compiler/ModelSignature.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfcc {

/// A dense, row-major array: numElements() * byteSize(dtype) bytes of
/// little-endian data.
struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape; // empty for a 0-d (scalar) array
  std::vector<uint8_t> data;

  /// Product of the shape; 1 for a 0-d array, 0 when any dim is 0 (whatever
  /// the others: a file may declare [2^60, 15, 0]), INT64_MAX when the
  /// product overflows (no such array has its data).
  int64_t numElements() const {
    for (int64_t dim : shape)
      if (dim == 0)
        return 0;
    int64_t n = 1;
    for (int64_t dim : shape)
      if (__builtin_mul_overflow(n, dim, &n))
        return INT64_MAX;
    return n;
  }
};

/// Reads `path` into `out`. Returns false with `error` saying what is wrong
/// (missing file, bad magic, unsupported version, malformed header, unsupported
/// dtype, fortran_order with two or more dimensions, truncated data, trailing
/// bytes, a bool that is not 0 or 1); `out` is unspecified then.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// Parses an in-memory .npy file (what readNpy does after reading the file).
bool parseNpy(const std::vector<uint8_t> &bytes, NpyArray &out,
              std::string &error);

/// Writes `array` to `path` as numpy.save would (version 1.0, or 2.0 when the
/// header needs it; header padded to a multiple of 64 bytes). Returns false
/// with `error` when the data size does not match the shape, the dtype has no
/// .npy equivalent (bf16) or writing fails.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

/// Encodes `array` as .npy bytes (what writeNpy writes).
bool encodeNpy(const NpyArray &array, std::vector<uint8_t> &bytes,
               std::string &error);

/// bf16 has no .npy dtype: the tools read and write bf16 tensors as '<f4'
/// files. `f32` (dtype F32) rounded to bf16, to nearest even (NaN stays a
/// NaN, overflow gives an infinity).
NpyArray bf16FromF32(const NpyArray &f32);

/// `bf16` (dtype BF16) widened to F32, exactly.
NpyArray f32FromBf16(const NpyArray &bf16);

} // namespace tfcc

#endif // TFCC_COMPILER_NPY_H
