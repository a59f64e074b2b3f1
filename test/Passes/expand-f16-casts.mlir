// RUN: tfcc-opt --tfcc-expand-f16-casts %s | FileCheck %s

// f16 conversions become integer code: no extf / truncf on f16 remains.
// (Their values are checked end to end by test/tools/low-precision.test.)
// CHECK-LABEL: func.func @conversions
// CHECK-NOT: arith.extf %{{.*}} : f16
// CHECK-NOT: arith.truncf %{{.*}} to f16
// CHECK-NOT: arith.truncf %{{.*}} : f64 to bf16
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// f64 to bf16 goes through f32 (arith-expand then expands f32 to bf16).
// CHECK-DAG: arith.truncf %{{.*}} : f64 to f32
// CHECK-DAG: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return
func.func @conversions(%h: f16, %s: f32, %d: f64) -> (f32, f64, f16, f16, bf16) {
  %0 = arith.extf %h : f16 to f32
  %1 = arith.extf %h : f16 to f64
  %2 = arith.truncf %s : f32 to f16
  %3 = arith.truncf %d : f64 to f16
  %4 = arith.truncf %d : f64 to bf16
  return %0, %1, %2, %3, %4 : f32, f64, f16, f16, bf16
}
