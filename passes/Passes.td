//===- Passes.td - tfcc passes ---------------------------*- tablegen -*-===//

#ifndef TFCC_PASSES
#define TFCC_PASSES

include "mlir/Pass/PassBase.td"

def ConvertGraphToLinalg : Pass<"tfcc-convert-graph-to-linalg", "ModuleOp"> {
  let summary = "Lower graph ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every graph op inside functions into upstream tensor-level ops
    (one pattern file per op family under passes/GraphToLinalg/), replaces
    `graph.read` by an `arith.constant` holding the variable's initial value
    (computed at compile time, see Initializers.h) and erases the
    `graph.variable` declarations. Dynamic dimensions are carried with
    `tensor.dim`. Example:

    ```mlir
    %r = graph.relu %x : tensor<?x10xf32>
    ```
    becomes a `linalg.generic` over a `tensor.empty(%d0) : tensor<?x10xf32>`
    computing `arith.maximumf %in, 0.0`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def ArenaAllocation : Pass<"tfcc-arena-allocation", "ModuleOp"> {
  let summary = "Place every heap buffer of an entry point in a caller arena";
  let description = [{
    After bufferization, replaces each `memref.alloc` of a function by a
    `memref.view` into an extra trailing `memref<?xi8>` arena argument at a
    64-byte aligned offset, and erases the matching deallocations. Offsets are
    assigned in allocation order (no reuse yet). The byte count of each buffer
    must be an affine function of the batch size; the pass records the arena
    size as `tfcc.arena_fixed` and `tfcc.arena_per_batch` on the function.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TFCC_PASSES
