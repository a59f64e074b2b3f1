// Every graph.math function (MathFunctions.def) on f32 and one on f64, with
// a dynamic batch. tfcc-run's random inputs lie in [-1, 1]: acosh gets
// 1 + x^2, atanh x / 2, round 3x (so halves and both signs occur), the rest
// x itself. Compiled (libm through math-to-libm) and compared with the
// interpreter (std:: functions in double).
module @math_functions {
  func.func @predict(%x: tensor<?x16xf32>, %d: tensor<?x4xf64>)
      -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
          tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
          tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
          tensor<?x16xf32>, tensor<?x4xf64>) {
    %one = graph.constant dense<1.0> : tensor<f32>
    %half = graph.constant dense<0.5> : tensor<f32>
    %three = graph.constant dense<3.0> : tensor<f32>
    %sq = graph.square %x : tensor<?x16xf32>
    %above1 = graph.add %sq, %one : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xf32>
    %halved = graph.mul %x, %half : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xf32>
    %tripled = graph.mul %x, %three : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xf32>
    %0 = graph.math "sin" %x : tensor<?x16xf32>
    %1 = graph.math "cos" %x : tensor<?x16xf32>
    %2 = graph.math "tan" %x : tensor<?x16xf32>
    %3 = graph.math "asin" %x : tensor<?x16xf32>
    %4 = graph.math "acos" %x : tensor<?x16xf32>
    %5 = graph.math "atan" %x : tensor<?x16xf32>
    %6 = graph.math "sinh" %x : tensor<?x16xf32>
    %7 = graph.math "cosh" %x : tensor<?x16xf32>
    %8 = graph.math "asinh" %x : tensor<?x16xf32>
    %9 = graph.math "acosh" %above1 : tensor<?x16xf32>
    %10 = graph.math "atanh" %halved : tensor<?x16xf32>
    %11 = graph.math "round" %tripled : tensor<?x16xf32>
    %12 = graph.math "sign" %x : tensor<?x16xf32>
    %13 = graph.math "atan" %d : tensor<?x4xf64>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
        : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
          tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
          tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>,
          tensor<?x16xf32>, tensor<?x4xf64>
  }
}
