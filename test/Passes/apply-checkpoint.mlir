// The checkpoint is written by flatc from JSON (an independent FlatBuffers
// implementation): k = [[1, 2], [3, 4]], b = [0.5, -1] and an optimizer slot
// the module has no variable for.
// RUN: rm -rf %t && mkdir -p %t
// RUN: flatc -b -o %t %tfcc_src/runtime/checkpoint.fbs %S/../tools/Inputs/weights_tiny.json
// RUN: tfcc-opt %s --tfcc-apply-checkpoint=path=%t/weights_tiny.tfck | FileCheck %s
// Under another name only when the pass is told the checkpoint's.
// RUN: sed 's/@tiny/@renamed/' %s > %t/renamed.mlir
// RUN: not tfcc-opt %t/renamed.mlir --tfcc-apply-checkpoint=path=%t/weights_tiny.tfck 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: tfcc-opt %t/renamed.mlir "--tfcc-apply-checkpoint=path=%t/weights_tiny.tfck model-name=tiny" | FileCheck %s
// Without a file the pass refuses to run.
// RUN: not tfcc-opt %s --tfcc-apply-checkpoint 2>&1 | FileCheck %s --check-prefix=NOPATH

// CHECK: graph.variable @k : tensor<2x2xf32> = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]>
// CHECK: graph.variable @b : tensor<2xf32> = dense<[5.000000e-01, -1.000000e+00]>
// NAME: error: checkpoint '{{.*}}weights_tiny.tfck' is of model 'tiny', not 'renamed'
// NOPATH: error: tfcc-apply-checkpoint needs a checkpoint (path=FILE)
module @tiny {
  graph.variable @k : tensor<2x2xf32> = dense<0.0>
  graph.variable @b : tensor<2xf32> = dense<0.0>
  func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
    %k = graph.read @k : tensor<2x2xf32>
    %b = graph.read @b : tensor<2xf32>
    %y = graph.dense %x, %k, %b : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    return %y : tensor<?x2xf32>
  }
}
