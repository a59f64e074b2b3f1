# Unit tests of the C runtime (runtime/; CheckpointTest: runtime/src/checkpoint.c), the header emitter and the .npy reader/writer
# (TfccSupport, compiler/support.cmake). Included from test/unit/CMakeLists.txt after
# find_package(GTest REQUIRED CONFIG).
include(GoogleTest)

foreach(test RuntimeTest CheckpointTest HeaderEmitterTest NpyTest)
  add_executable(${test} ${CMAKE_CURRENT_LIST_DIR}/${test}.cpp)
  target_link_libraries(${test} PRIVATE TfccSupport ${TFCC_RUNTIME_FOR_TESTS} GTest::gtest_main)
  gtest_discover_tests(${test}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()

# The golden file, the runtime headers and the runtime archive the header tests compile
# and link against.
target_compile_definitions(HeaderEmitterTest PRIVATE TFCC_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  TFCC_RUNTIME_LIBRARY="$<TARGET_FILE:tfcc_runtime>")

# The runtime's CUDA support (runtime/src/cuda.c) without a GPU: a missing driver and a
# fake one (fake_cuda_driver.c, host memory; once more without cuLaunchKernel), chosen
# through TFCC_CUDA_DRIVER. The driver is loaded once per process: every test runs in
# its own (gtest_discover_tests).
add_library(tfcc_fake_cuda SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cuda_driver.c)
add_library(tfcc_fake_cuda_incomplete SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cuda_driver.c)
target_compile_definitions(tfcc_fake_cuda_incomplete PRIVATE FAKE_CUDA_WITHOUT_LAUNCH=1)
if(TFCC_SANITIZE)
  # Instrumented shared libraries leave the sanitizer runtime to the program
  # that loads them (its executable carries and exports it): undo LLVM's
  # -z defs for these two.
  foreach(lib tfcc_fake_cuda tfcc_fake_cuda_incomplete)
    target_link_options(${lib} PRIVATE -Wl,-z,undefs)
  endforeach()
endif()
add_executable(CudaRuntimeTest ${CMAKE_CURRENT_LIST_DIR}/CudaRuntimeTest.cpp)
target_include_directories(CudaRuntimeTest PRIVATE ${CMAKE_SOURCE_DIR}/runtime/src)
target_link_libraries(CudaRuntimeTest PRIVATE ${TFCC_RUNTIME_FOR_TESTS} tfcc_fake_cuda
  GTest::gtest_main ${CMAKE_DL_LIBS})
target_compile_definitions(CudaRuntimeTest PRIVATE
  TFCC_FAKE_CUDA_DRIVER="$<TARGET_FILE:tfcc_fake_cuda>"
  TFCC_FAKE_CUDA_INCOMPLETE="$<TARGET_FILE:tfcc_fake_cuda_incomplete>")
add_dependencies(CudaRuntimeTest tfcc_fake_cuda_incomplete)
gtest_discover_tests(CudaRuntimeTest
  DISCOVERY_MODE PRE_TEST
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
