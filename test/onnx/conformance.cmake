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

# The output-shape guard: every model of the four suites is imported (again
# with its integer inputs as constants where it needs them) and each output's
# static dims are compared with ONNX's reference output, whatever the skip list
# says. An import that yields an empty or misshaped tensor fails here even
# where --compare (the interpreter runs the same imported graph) cannot see it.
add_test(NAME onnx-output-shapes
  COMMAND tfcc-onnx-conformance --check-shapes
    --data ${TFCC_ONNX_TESTDATA_DIR}
    --suite node,pytorch-converted,pytorch-operator,simple
    --jobs ${TFCC_ONNX_CONFORMANCE_JOBS})
set_tests_properties(onnx-output-shapes PROPERTIES
  TIMEOUT 600
  PROCESSORS ${TFCC_ONNX_CONFORMANCE_JOBS})
