//===- KernelTestIsa.h - ISA levels in the kernel tests ---------*- C++ -*-===//
//
// What KernelsTest and QuantizedKernelsTest share to run each kernel at every
// ISA level the CPU has (kernels_internal.h's TFCC_ISA_*) and thread count:
// the levels' names, whether the CPU allows one, and the parameter axes and
// test names of an (ISA level, threads) suite.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_TEST_UNIT_KERNELTESTISA_H
#define TFCC_TEST_UNIT_KERNELTESTISA_H

#include "tfcc/tfcc_kernels.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

extern "C" {
#include "kernels_internal.h"
}

namespace tfcc_test {

// The ISA levels of kernels_internal.h, by name.
inline const char *const kIsaNames[] = {"generic", "avx2", "avx512"};

// Whether this CPU (and TFCC_KERNELS_ISA) allows `isa`.
inline bool haveIsa(int isa) {
  tfcc_rt_kernels_force_isa(-1);
  return tfcc_kernels_isa() >= isa;
}

// The (ISA level, threads) axes: every level, 1 and 2 threads.
inline auto isaThreadsValues() {
  return ::testing::Combine(::testing::Values(0, 1, 2),
                            ::testing::Values(1, 2));
}

// "avx2_2threads" and so on.
inline std::string
isaThreadsName(const ::testing::TestParamInfo<std::tuple<int, int>> &info) {
  return std::string(kIsaNames[std::get<0>(info.param)]) + "_" +
         std::to_string(std::get<1>(info.param)) + "threads";
}

} // namespace tfcc_test

#endif // TFCC_TEST_UNIT_KERNELTESTISA_H
