# Cross toolchain for the kernel tests on AArch64 (test/cross/run.sh): clang-19
# targeting aarch64-linux-gnu against Debian's cross sysroot
# (libc6-dev-arm64-cross, libstdc++-12-dev-arm64-cross), linked by lld, run
# under qemu-aarch64-static.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TFCC_CROSS_TRIPLE aarch64-linux-gnu)
set(TFCC_CROSS_SYSROOT /usr/${TFCC_CROSS_TRIPLE})
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_C_COMPILER_TARGET ${TFCC_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${TFCC_CROSS_TRIPLE})
# The cross GCC's runtime objects and libstdc++ live beside the sysroot.
set(TFCC_CROSS_GCC /usr/lib/gcc-cross/${TFCC_CROSS_TRIPLE}/12)
set(CMAKE_C_FLAGS_INIT "--gcc-install-dir=${TFCC_CROSS_GCC}")
set(CMAKE_CXX_FLAGS_INIT "--gcc-install-dir=${TFCC_CROSS_GCC}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_FIND_ROOT_PATH ${TFCC_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L ${TFCC_CROSS_SYSROOT})
