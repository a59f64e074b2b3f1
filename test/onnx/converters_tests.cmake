# Unit tests of the ONNX op converters (Elementwise, Shape, Reductions) and
# the import-time folding (HostFolding). Included from test/CMakeLists.txt
# when the TfccOnnx library exists; the includer has found GTest.
include(GoogleTest)
add_executable(OnnxConvertersTest ${CMAKE_CURRENT_LIST_DIR}/ConvertersTest.cpp)
target_link_libraries(OnnxConvertersTest PRIVATE
  TfccOnnx TfccRegistration GTest::gtest_main)
gtest_discover_tests(OnnxConvertersTest DISCOVERY_MODE PRE_TEST)
