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
