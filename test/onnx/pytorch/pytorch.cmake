# Slices exported by PyTorch (python3-torch) against ONNX Runtime 1.30 (issue 13); see
# check.sh. Exports into ${CMAKE_BINARY_DIR}/onnx-pytorch and fetches ONNX Runtime from the
# npm registry into ${CMAKE_BINARY_DIR}/onnx-real (shared with onnx-real-models; never
# committed), so it carries the label `network`: `ctest -LE network` leaves it out.
add_test(NAME onnx-pytorch-slices
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(onnx-pytorch-slices PROPERTIES
  TIMEOUT 600
  LABELS network
  ENVIRONMENT "TFCC_BIN=$<TARGET_FILE_DIR:tfcc>")
