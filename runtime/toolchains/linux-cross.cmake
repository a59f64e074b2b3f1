# Common part of the Linux cross toolchains (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake): clang-19 targeting TFCC_CROSS_TRIPLE against
# Debian's cross sysroot /usr/<triple> (libc6-dev-<arch>-cross) and the cross
# GCC's runtime objects, linked by lld, run under qemu-user. Used for the
# runtime archives tfcc links into cross-compiled models (CMakeLists.txt,
# docs/embedded.md) and for the kernel tests (test/cross/).
set(CMAKE_SYSTEM_NAME Linux)
set(TFCC_CROSS_SYSROOT /usr/${TFCC_CROSS_TRIPLE})
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_C_COMPILER_TARGET ${TFCC_CROSS_CLANG_TARGET})
set(CMAKE_CXX_COMPILER_TARGET ${TFCC_CROSS_CLANG_TARGET})
set(TFCC_CROSS_GCC /usr/lib/gcc-cross/${TFCC_CROSS_TRIPLE}/12)
set(CMAKE_C_FLAGS_INIT "--gcc-install-dir=${TFCC_CROSS_GCC} ${TFCC_CROSS_ARCH_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "--gcc-install-dir=${TFCC_CROSS_GCC} ${TFCC_CROSS_ARCH_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_FIND_ROOT_PATH ${TFCC_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR ${TFCC_CROSS_QEMU} -L ${TFCC_CROSS_SYSROOT})
