// A call of a table kernel as the lowering patterns write one
// (passes/GraphToLinalg/KernelCalls.h), compiled by check.sh as it is (it
// must compile) and with each mistake below (each must not):
//  OMIT_PARAMETER  a parameter left out;
//  WRONG_KIND      a value where the table has an int32_t constant;
//  WITH_TEMPERATURE  the parameter check.sh adds to a copy of the table
//                  (compiles only against that copy, and the call without
//                  it compiles only against the real table).
#include "passes/GraphToLinalg/KernelCalls.h"

using namespace mlir;
using namespace mlir::tfcc;

void emitSoftmax(OpBuilder &b, Location loc, Value x, Value rows, Value y) {
  emitKernelCall(b, loc,
                 kernels::tfcc_rt_softmax_f32{
                     .x = x,
                     .rows = rows,
#ifndef OMIT_PARAMETER
                     .cols = 10,
#endif
#ifdef WRONG_KIND
                     .log_softmax = rows,
#else
                     .log_softmax = 0,
#endif
#ifdef WITH_TEMPERATURE
                     .temperature = 1.0f,
#endif
                     .y = y});
}
