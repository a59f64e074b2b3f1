# Included from test/CMakeLists.txt (after enable_testing): a cheap run of the
# training example (3 epochs on 2000 images, 1000 test images, a few seconds).
if(TARGET fashion_mnist_data)
  add_test(NAME train_fashion_mnist_smoke
    COMMAND sh ${CMAKE_SOURCE_DIR}/examples/train_fashion_mnist/smoke_test.sh
            $<TARGET_FILE:train_fashion_mnist> ${CMAKE_BINARY_DIR}/data
            ${CMAKE_CURRENT_BINARY_DIR}/train_fashion_mnist_smoke)
  set_tests_properties(train_fashion_mnist_smoke PROPERTIES TIMEOUT 120)
  # The same epochs in mixed_bf16 (the same program on the mixed-precision
  # library) end within 0.5 points of float32 (issue 21).
  add_test(NAME train_fashion_mnist_mixed_bf16
    COMMAND sh ${CMAKE_SOURCE_DIR}/examples/train_fashion_mnist/mixed_precision_test.sh
            $<TARGET_FILE:train_fashion_mnist> ${CMAKE_BINARY_DIR}/data
            ${CMAKE_CURRENT_BINARY_DIR}/train_fashion_mnist_mixed_bf16
            ${CMAKE_BINARY_DIR}/examples/train_fashion_mnist/model_mixed_bf16)
  set_tests_properties(train_fashion_mnist_mixed_bf16 PROPERTIES TIMEOUT 600)
  # --logdir: TensorBoard event files read back by a reader of the formats'
  # own (TFRecord framing, Event protos compiled with protoc), not the writer's.
  add_test(NAME train_fashion_mnist_tensorboard
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/examples/train_fashion_mnist/tensorboard_test.py
            $<TARGET_FILE:train_fashion_mnist> ${CMAKE_BINARY_DIR}/data
            ${CMAKE_CURRENT_BINARY_DIR}/train_fashion_mnist_tensorboard)
  set_tests_properties(train_fashion_mnist_tensorboard PROPERTIES TIMEOUT 600)
  # The main job's steps (examples/main_job.sh), quick: train, bake the
  # weights into an inference library, link examples/mnist/main.c to it.
  add_test(NAME main_job_quick
    COMMAND sh ${CMAKE_SOURCE_DIR}/examples/main_job_test.sh ${CMAKE_BINARY_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/main_job_quick)
  set_tests_properties(main_job_quick PROPERTIES TIMEOUT 300)
endif()
