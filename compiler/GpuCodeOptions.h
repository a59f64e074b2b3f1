//===- GpuCodeOptions.h - how the CUDA target's device code is built ------===//

#ifndef TFCC_COMPILER_GPUCODEOPTIONS_H
#define TFCC_COMPILER_GPUCODEOPTIONS_H

#include <cstdint>
#include <string>

namespace tfcc {

/// How the CUDA target's device code is built.
struct GpuCodeOptions {
  std::string arch = "sm_90"; // --cuda-arch
  /// The CUDA toolkit whose ptxas and fatbinary make the embedded binary
  /// (the cubin for `arch` and its PTX, which the driver compiles for other
  /// GPUs); empty: $CUDA_HOME, else /usr/local/cuda.
  std::string toolkit;
  /// Embed the PTX only (no toolkit needed; the driver compiles it when the
  /// model loads): the registered pipeline, for tfcc-opt and lit.
  bool ptxOnly = false;
  int64_t blockSize = 256; // threads per block of each kernel
};

} // namespace tfcc

#endif // TFCC_COMPILER_GPUCODEOPTIONS_H
