# ONNX's conformance data (Debian libonnx-testdata) through tfcc: every model of
# the node, pytorch-converted, pytorch-operator and simple suites is compiled,
# run on its test_data_set_* and compared with the reference outputs. Every test
# that does not pass (an unsupported op or type included: --strict) must be
# listed with its reason in conformance-skips.txt; anything else fails the
# test. See docs/onnx-conformance.md.
set(TFCC_ONNX_TESTDATA_DIR /usr/share/libonnx-testdata/data CACHE PATH
    "libonnx-testdata's data directory (node/, pytorch-converted/, ...)")
set(TFCC_ONNX_CONFORMANCE_JOBS 2 CACHE STRING
    "Tests the ONNX conformance runner runs in parallel")

if(NOT EXISTS ${TFCC_ONNX_TESTDATA_DIR}/node)
  message(WARNING "No ONNX test data in ${TFCC_ONNX_TESTDATA_DIR} (install "
          "libonnx-testdata): the onnx-conformance test is not registered")
  return()
endif()

add_test(NAME onnx-conformance
  COMMAND tfcc-onnx-conformance
    --data ${TFCC_ONNX_TESTDATA_DIR}
    --suite node,pytorch-converted,pytorch-operator,simple
    --skip-list ${CMAKE_CURRENT_LIST_DIR}/conformance-skips.txt --strict
    --jobs ${TFCC_ONNX_CONFORMANCE_JOBS})
set_tests_properties(onnx-conformance PROPERTIES
  TIMEOUT 3000
  # The children of --jobs use the cores.
  PROCESSORS ${TFCC_ONNX_CONFORMANCE_JOBS})
