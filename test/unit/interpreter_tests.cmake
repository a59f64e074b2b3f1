# Unit tests of the reference interpreter (included from test/unit; the
# includer has found GTest).
include(GoogleTest)
add_executable(InterpreterTest ${CMAKE_CURRENT_LIST_DIR}/InterpreterTest.cpp)
target_link_libraries(InterpreterTest PRIVATE GTest::gtest_main TfccReference)
# The contract's models, in shared/ inside or beside the checkout (the tests
# that need them skip when they are absent).
set(_tfcc_spec_models "${CMAKE_CURRENT_LIST_DIR}/../../shared/spec/models")
if(NOT EXISTS "${_tfcc_spec_models}/ops.mlir")
  set(_tfcc_spec_models "${CMAKE_CURRENT_LIST_DIR}/../../../shared/spec/models")
endif()
get_filename_component(_tfcc_spec_models "${_tfcc_spec_models}" ABSOLUTE)
set(TFCC_SPEC_MODELS_DIR "${_tfcc_spec_models}"
    CACHE PATH "Directory of the graph-IR contract's model files")
target_compile_definitions(InterpreterTest PRIVATE
  TFCC_SPEC_MODELS_DIR="${TFCC_SPEC_MODELS_DIR}")
gtest_discover_tests(InterpreterTest DISCOVERY_MODE PRE_TEST)
