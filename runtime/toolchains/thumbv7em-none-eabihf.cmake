# Cortex-M4F / M7 (ARMv7E-M, single-precision FPU, hard float), bare metal:
# clang-19 against picolibc's headers (Debian picolibc-arm-none-eabi); the
# freestanding runtime (no threads, files or malloc: runtime/CMakeLists.txt).
# Firmware images link it with arm-none-eabi-gcc and picolibc
# (docs/embedded.md, test/cross/cortex-m.sh).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET thumbv7em-none-eabihf)
set(TFCC_PICOLIBC /usr/lib/picolibc/arm-none-eabi)
# -ffunction-sections: the firmware's link keeps only the kernels a model calls.
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -isystem ${TFCC_PICOLIBC}/include -ffunction-sections -fdata-sections")
