# AArch64 Linux (ARMv8-A, NEON always present): Debian's arm64 cross sysroot.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TFCC_CROSS_TRIPLE aarch64-linux-gnu)
set(TFCC_CROSS_CLANG_TARGET aarch64-linux-gnu)
set(TFCC_CROSS_ARCH_FLAGS "")
set(TFCC_CROSS_QEMU qemu-aarch64-static)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
