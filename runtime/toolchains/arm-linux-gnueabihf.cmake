# 32-bit ARM Linux, hard float: Debian's armhf cross sysroot, built for ARMv7-A
# with NEON (the runtime's 4-float vector kernels), which every ARMv7 phone and
# board with NEON runs; Debian's armhf baseline (VFPv3-D16, no NEON) does not.
set(CMAKE_SYSTEM_PROCESSOR armv7-a)
set(TFCC_CROSS_TRIPLE arm-linux-gnueabihf)
set(TFCC_CROSS_CLANG_TARGET armv7a-linux-gnueabihf)
set(TFCC_CROSS_ARCH_FLAGS "-mfpu=neon -mfloat-abi=hard")
set(TFCC_CROSS_QEMU qemu-arm-static)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
