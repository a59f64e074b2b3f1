// RUN: tfcc-opt --tfcc-expand-f16-casts %s | FileCheck %s

// f16 conversions and the rounding to bf16 become integer code: no extf or
// truncf on a 16-bit type remains, and each 16-bit result is one bitcast
// of an i16. (Their values are checked end to end, bit for bit, by
// test/tools/low-precision.test.)
// CHECK-LABEL: func.func @conversions
// CHECK-NOT: arith.extf %{{.*}} : f16
// CHECK-NOT: arith.truncf %{{.*}} to f16
// CHECK-NOT: arith.truncf %{{.*}} to bf16
// CHECK-NOT: arith.select %{{.*}} : bf16
// f64 goes through f32.
// CHECK-DAG: arith.truncf %{{.*}} : f64 to f32
// CHECK-DAG: arith.bitcast %{{.*}} : i16 to f16
// CHECK-DAG: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: return
func.func @conversions(%h: f16, %s: f32, %d: f64) -> (f32, f64, f16, f16, bf16, bf16) {
  %0 = arith.extf %h : f16 to f32
  %1 = arith.extf %h : f16 to f64
  %2 = arith.truncf %s : f32 to f16
  %3 = arith.truncf %d : f64 to f16
  %4 = arith.truncf %d : f64 to bf16
  %5 = arith.truncf %s : f32 to bf16
  return %0, %1, %2, %3, %4, %5 : f32, f64, f16, f16, bf16, bf16
}
