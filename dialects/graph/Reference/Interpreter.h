//===- Interpreter.h - reference interpreter of the graph IR ----*- C++ -*-===//
//
// The numerical oracle of tfcc: evaluates a graph-IR function on concrete
// tensors with plain loops, op by op. It shares no code with the lowering;
// its conventions (rounding, summation order, NaN) are in docs/interpreter.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFCC_DIALECTS_GRAPH_REFERENCE_INTERPRETER_H
#define TFCC_DIALECTS_GRAPH_REFERENCE_INTERPRETER_H

#include "dialects/graph/Reference/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace tfcc::ref {

/// Evaluates the public functions of a graph-IR module. Variables keep their
/// initial values: the training part of the IR is not interpreted.
class Interpreter {
public:
  /// Prepares `module`, which must outlive the interpreter. Every variable is
  /// initialized exactly like the compiler does, with getVariableInitialValue;
  /// a variable whose initializer fails makes each run that reads it fail.
  explicit Interpreter(mlir::ModuleOp module);

  /// Runs public function `entry` on `inputs`. Each input is checked against
  /// its argument type (rank, static dimensions, element kind, value count);
  /// dynamic dimensions take the input's size. On failure returns failure()
  /// and error() says why, naming the op's location for runtime errors.
  mlir::FailureOr<std::vector<Tensor>> run(llvm::StringRef entry,
                                           llvm::ArrayRef<Tensor> inputs);

  /// Why the last run failed; empty after a successful run.
  const std::string &error() const { return error_; }

private:
  struct Variable {
    std::optional<Tensor> value;
    std::string error; // why `value` is missing
  };

  mlir::FailureOr<std::vector<Tensor>>
  call(mlir::func::FuncOp func, std::vector<Tensor> arguments, unsigned depth);
  mlir::LogicalResult fail(const llvm::Twine &message);

  mlir::ModuleOp module_;
  llvm::StringMap<Variable> variables_;
  std::string error_;
};

} // namespace tfcc::ref

#endif // TFCC_DIALECTS_GRAPH_REFERENCE_INTERPRETER_H
