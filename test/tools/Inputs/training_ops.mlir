// The compiler-internal training ops (docs/autodiff.md), one public function
// each, compiled and compared with the interpreter (training-ops.test). The
// only dynamic dimension is the batch.
module @training_ops {
  func.func @dropout(%x: tensor<?x5x7xf32>) -> tensor<?x5x7xf32> {
    %step = graph.constant dense<7> : tensor<i64>
    %m = graph.dropout_mask %x, %step {rate = 3.000000e-01 : f32, seed = 42 : i64} : (tensor<?x5x7xf32>, tensor<i64>) -> tensor<?x5x7xf32>
    return %m : tensor<?x5x7xf32>
  }
  func.func @dropout_seed0(%x: tensor<4x33xf32>) -> tensor<4x33xf32> {
    %step = graph.constant dense<123456789> : tensor<i64>
    %m = graph.dropout_mask %x, %step {rate = 5.000000e-01 : f32} : (tensor<4x33xf32>, tensor<i64>) -> tensor<4x33xf32>
    return %m : tensor<4x33xf32>
  }
  func.func @broadcast_like(%v: tensor<3x1xf32>, %like: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
    %r = graph.broadcast_like %v, %like : (tensor<3x1xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
    return %r : tensor<?x3x4xf32>
  }
  func.func @element_count(%x: tensor<?x3x4xf32>) -> tensor<f32> {
    %n = graph.element_count %x {axes = [0, 2]} : (tensor<?x3x4xf32>) -> tensor<f32>
    return %n : tensor<f32>
  }

  // Training batch norm: statistics, normalization and its gradient (float32
  // through the runtime's reductions, float64 through linalg). Inputs are
  // random, so the moments are fed back through graph.moments itself.
  func.func @batch_norm_train_ops(%x: tensor<?x5x3x40xf32>, %dy: tensor<?x5x3x40xf32>, %g: tensor<40xf32>, %b: tensor<40xf32>) -> (tensor<2x40xf32>, tensor<?x5x3x40xf32>, tensor<2x40xf32>, tensor<?x5x3x40xf32>) {
    %m = graph.moments %x : (tensor<?x5x3x40xf32>) -> tensor<2x40xf32>
    %y = graph.batch_norm_train %x, %m, %g, %b {epsilon = 1.0e-03 : f32} : (tensor<?x5x3x40xf32>, tensor<2x40xf32>, tensor<40xf32>, tensor<40xf32>) -> tensor<?x5x3x40xf32>
    %s = graph.batch_norm_grad_sums %x, %dy, %m : (tensor<?x5x3x40xf32>, tensor<?x5x3x40xf32>, tensor<2x40xf32>) -> tensor<2x40xf32>
    %dx = graph.batch_norm_train_grad %x, %dy, %m, %g, %s {epsilon = 1.0e-03 : f32} : (tensor<?x5x3x40xf32>, tensor<?x5x3x40xf32>, tensor<2x40xf32>, tensor<40xf32>, tensor<2x40xf32>) -> tensor<?x5x3x40xf32>
    return %m, %y, %s, %dx : tensor<2x40xf32>, tensor<?x5x3x40xf32>, tensor<2x40xf32>, tensor<?x5x3x40xf32>
  }
  func.func @batch_norm_train_ops_f64(%x: tensor<?x3xf64>, %dy: tensor<?x3xf64>, %g: tensor<3xf64>, %b: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<?x3xf64>, tensor<2x3xf64>, tensor<?x3xf64>) {
    %m = graph.moments %x : (tensor<?x3xf64>) -> tensor<2x3xf64>
    %y = graph.batch_norm_train %x, %m, %g, %b {epsilon = 1.0e-03 : f32} : (tensor<?x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<?x3xf64>
    %s = graph.batch_norm_grad_sums %x, %dy, %m : (tensor<?x3xf64>, tensor<?x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    %dx = graph.batch_norm_train_grad %x, %dy, %m, %g, %s {epsilon = 1.0e-03 : f32} : (tensor<?x3xf64>, tensor<?x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<2x3xf64>) -> tensor<?x3xf64>
    return %m, %y, %s, %dx : tensor<2x3xf64>, tensor<?x3xf64>, tensor<2x3xf64>, tensor<?x3xf64>
  }

  // conv2d_backprop_input
  func.func @conv_input_s2_same(%dy: tensor<?x4x4x6xf32>, %k: tensor<3x3x4x6xf32>) -> tensor<?x7x8x4xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [7, 8], padding = "same", strides = [2, 2]} : (tensor<?x4x4x6xf32>, tensor<3x3x4x6xf32>) -> tensor<?x7x8x4xf32>
    return %dx : tensor<?x7x8x4xf32>
  }
  func.func @conv_input_d2_valid(%dy: tensor<?x4x3x4xf32>, %k: tensor<3x2x5x4xf32>) -> tensor<?x8x5x5xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [8, 5], dilations = [2, 2]} : (tensor<?x4x3x4xf32>, tensor<3x2x5x4xf32>) -> tensor<?x8x5x5xf32>
    return %dx : tensor<?x8x5x5xf32>
  }
  func.func @conv_input_g2_s2_valid(%dy: tensor<?x4x3x6xf32>, %k: tensor<3x3x2x6xf32>) -> tensor<?x9x8x4xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [9, 8], strides = [2, 2], groups = 2 : i64} : (tensor<?x4x3x6xf32>, tensor<3x3x2x6xf32>) -> tensor<?x9x8x4xf32>
    return %dx : tensor<?x9x8x4xf32>
  }
  func.func @conv_input_g3_d2_same(%dy: tensor<?x6x5x3xf32>, %k: tensor<3x3x2x3xf32>) -> tensor<?x6x5x6xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [6, 5], padding = "same", dilations = [2, 2], groups = 3 : i64} : (tensor<?x6x5x3xf32>, tensor<3x3x2x3xf32>) -> tensor<?x6x5x6xf32>
    return %dx : tensor<?x6x5x6xf32>
  }

  // conv2d_backprop_filter
  func.func @conv_filter_s2_same(%x: tensor<?x7x8x4xf32>, %dy: tensor<?x4x4x6xf32>) -> tensor<3x3x4x6xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3], padding = "same", strides = [2, 2]} : (tensor<?x7x8x4xf32>, tensor<?x4x4x6xf32>) -> tensor<3x3x4x6xf32>
    return %dk : tensor<3x3x4x6xf32>
  }
  func.func @conv_filter_d2_valid(%x: tensor<?x8x5x5xf32>, %dy: tensor<?x4x3x4xf32>) -> tensor<3x2x5x4xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 2], dilations = [2, 2]} : (tensor<?x8x5x5xf32>, tensor<?x4x3x4xf32>) -> tensor<3x2x5x4xf32>
    return %dk : tensor<3x2x5x4xf32>
  }
  func.func @conv_filter_g2_s2_valid(%x: tensor<?x9x8x4xf32>, %dy: tensor<?x4x3x6xf32>) -> tensor<3x3x2x6xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3], strides = [2, 2], groups = 2 : i64} : (tensor<?x9x8x4xf32>, tensor<?x4x3x6xf32>) -> tensor<3x3x2x6xf32>
    return %dk : tensor<3x3x2x6xf32>
  }
  func.func @conv_filter_g3_d2_same(%x: tensor<?x6x5x6xf32>, %dy: tensor<?x6x5x3xf32>) -> tensor<3x3x2x3xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3], padding = "same", dilations = [2, 2], groups = 3 : i64} : (tensor<?x6x5x6xf32>, tensor<?x6x5x3xf32>) -> tensor<3x3x2x3xf32>
    return %dk : tensor<3x3x2x3xf32>
  }

  // max_pool2d_grad: overlapping windows, SAME padding, ties.
  func.func @max_pool_grad_overlap(%x: tensor<?x7x7x3xf32>, %dy: tensor<?x3x3x3xf32>) -> tensor<?x7x7x3xf32> {
    %dx = graph.max_pool2d_grad %x, %dy {window = [3, 3], strides = [2, 2]} : (tensor<?x7x7x3xf32>, tensor<?x3x3x3xf32>) -> tensor<?x7x7x3xf32>
    return %dx : tensor<?x7x7x3xf32>
  }
  func.func @max_pool_grad_same(%x: tensor<?x6x5x2xf32>, %dy: tensor<?x3x3x2xf32>) -> tensor<?x6x5x2xf32> {
    %dx = graph.max_pool2d_grad %x, %dy {window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<?x6x5x2xf32>, tensor<?x3x3x2xf32>) -> tensor<?x6x5x2xf32>
    return %dx : tensor<?x6x5x2xf32>
  }
  func.func @max_pool_grad_ties(%dy: tensor<2x3x3x2xf32>) -> tensor<2x7x7x2xf32> {
    %x = graph.constant dense<1.000000e+00> : tensor<2x7x7x2xf32>
    %dx = graph.max_pool2d_grad %x, %dy {window = [3, 3], strides = [2, 2]} : (tensor<2x7x7x2xf32>, tensor<2x3x3x2xf32>) -> tensor<2x7x7x2xf32>
    return %dx : tensor<2x7x7x2xf32>
  }
  func.func @max_pool_grad_relu_ties(%x: tensor<?x6x6x4xf32>, %dy: tensor<?x3x3x4xf32>) -> tensor<?x6x6x4xf32> {
    %r = graph.relu %x : tensor<?x6x6x4xf32>
    %dx = graph.max_pool2d_grad %r, %dy {window = [2, 2], strides = [2, 2], padding = "same"} : (tensor<?x6x6x4xf32>, tensor<?x3x3x4xf32>) -> tensor<?x6x6x4xf32>
    return %dx : tensor<?x6x6x4xf32>
  }
  // The ReLU gradient's mask after the pooling gradient: the compiler folds
  // it into the kernel (positive_only), the interpreter runs it as written.
  func.func @max_pool_grad_relu_mask(%x: tensor<?x6x6x4xf32>, %dy: tensor<?x3x3x4xf32>) -> tensor<?x6x6x4xf32> {
    %zero = graph.constant dense<0.000000e+00> : tensor<f32>
    %r = graph.relu %x : tensor<?x6x6x4xf32>
    %g = graph.max_pool2d_grad %r, %dy {window = [2, 2], strides = [2, 2]} : (tensor<?x6x6x4xf32>, tensor<?x3x3x4xf32>) -> tensor<?x6x6x4xf32>
    %m = graph.compare %x, %zero {predicate = "gt"} : (tensor<?x6x6x4xf32>, tensor<f32>) -> tensor<?x6x6x4xi1>
    %dx = graph.select %m, %g, %zero : (tensor<?x6x6x4xi1>, tensor<?x6x6x4xf32>, tensor<f32>) -> tensor<?x6x6x4xf32>
    return %dx : tensor<?x6x6x4xf32>
  }
  // A forward pool and its gradient (the compiler records the taps in the
  // forward pool), overlapping SAME windows and the ReLU mask.
  func.func @max_pool_and_grad_recorded(%x: tensor<?x7x7x3xf32>, %dy: tensor<?x4x4x3xf32>) -> (tensor<?x4x4x3xf32>, tensor<?x7x7x3xf32>) {
    %zero = graph.constant dense<0.000000e+00> : tensor<f32>
    %r = graph.relu %x : tensor<?x7x7x3xf32>
    %p = graph.max_pool2d %r {window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<?x7x7x3xf32>) -> tensor<?x4x4x3xf32>
    %g = graph.max_pool2d_grad %r, %dy {window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<?x7x7x3xf32>, tensor<?x4x4x3xf32>) -> tensor<?x7x7x3xf32>
    %m = graph.compare %x, %zero {predicate = "gt"} : (tensor<?x7x7x3xf32>, tensor<f32>) -> tensor<?x7x7x3xi1>
    %dx = graph.select %m, %g, %zero : (tensor<?x7x7x3xi1>, tensor<?x7x7x3xf32>, tensor<f32>) -> tensor<?x7x7x3xf32>
    return %p, %dx : tensor<?x4x4x3xf32>, tensor<?x7x7x3xf32>
  }
  func.func @max_pool_and_grad_disjoint(%x: tensor<?x9x8x20xf32>, %dy: tensor<?x4x4x20xf32>) -> (tensor<?x4x4x20xf32>, tensor<?x9x8x20xf32>) {
    %p = graph.max_pool2d %x {window = [2, 2]} : (tensor<?x9x8x20xf32>) -> tensor<?x4x4x20xf32>
    %g = graph.max_pool2d_grad %x, %dy {window = [2, 2], strides = [2, 2]} : (tensor<?x9x8x20xf32>, tensor<?x4x4x20xf32>) -> tensor<?x9x8x20xf32>
    return %p, %g : tensor<?x4x4x20xf32>, tensor<?x9x8x20xf32>
  }
  func.func @max_pool_grad_positive_only_overlap(%x: tensor<?x7x7x3xf32>, %dy: tensor<?x3x3x3xf32>) -> tensor<?x7x7x3xf32> {
    %dx = graph.max_pool2d_grad %x, %dy {positive_only, window = [3, 3], strides = [2, 2]} : (tensor<?x7x7x3xf32>, tensor<?x3x3x3xf32>) -> tensor<?x7x7x3xf32>
    return %dx : tensor<?x7x7x3xf32>
  }

  // avg_pool2d_grad
  func.func @avg_pool_grad_same(%dy: tensor<?x4x3x3xf32>) -> tensor<?x7x6x3xf32> {
    %dx = graph.avg_pool2d_grad %dy {input_size = [7, 6], window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<?x4x3x3xf32>) -> tensor<?x7x6x3xf32>
    return %dx : tensor<?x7x6x3xf32>
  }
  func.func @avg_pool_grad_overlap(%dy: tensor<?x4x4x2xf32>) -> tensor<?x5x5x2xf32> {
    %dx = graph.avg_pool2d_grad %dy {input_size = [5, 5], window = [2, 2], strides = [1, 1]} : (tensor<?x4x4x2xf32>) -> tensor<?x5x5x2xf32>
    return %dx : tensor<?x5x5x2xf32>
  }

  // resize_grad: up, down and uneven ratios, both modes, both centerings.
  func.func @resize_grad_nearest_hp(%dy: tensor<?x6x8x2xf32>) -> tensor<?x3x4x2xf32> {
    %dx = graph.resize_grad %dy {input_size = [3, 4], mode = "nearest"} : (tensor<?x6x8x2xf32>) -> tensor<?x3x4x2xf32>
    return %dx : tensor<?x3x4x2xf32>
  }
  func.func @resize_grad_nearest(%dy: tensor<?x3x4x2xf32>) -> tensor<?x5x7x2xf32> {
    %dx = graph.resize_grad %dy {input_size = [5, 7], mode = "nearest", half_pixel_centers = false} : (tensor<?x3x4x2xf32>) -> tensor<?x5x7x2xf32>
    return %dx : tensor<?x5x7x2xf32>
  }
  func.func @resize_grad_bilinear_hp(%dy: tensor<?x7x9x2xf32>) -> tensor<?x4x6x2xf32> {
    %dx = graph.resize_grad %dy {input_size = [4, 6], mode = "bilinear"} : (tensor<?x7x9x2xf32>) -> tensor<?x4x6x2xf32>
    return %dx : tensor<?x4x6x2xf32>
  }
  func.func @resize_grad_bilinear(%dy: tensor<?x7x9x2xf32>) -> tensor<?x4x6x2xf32> {
    %dx = graph.resize_grad %dy {input_size = [4, 6], mode = "bilinear", half_pixel_centers = false} : (tensor<?x7x9x2xf32>) -> tensor<?x4x6x2xf32>
    return %dx : tensor<?x4x6x2xf32>
  }
  func.func @resize_grad_bilinear_down(%dy: tensor<?x3x4x2xf32>) -> tensor<?x5x7x2xf32> {
    %dx = graph.resize_grad %dy {input_size = [5, 7], mode = "bilinear"} : (tensor<?x3x4x2xf32>) -> tensor<?x5x7x2xf32>
    return %dx : tensor<?x5x7x2xf32>
  }

  // gather_grad: repeated indices; an axis inside the table.
  func.func @gather_grad_rows(%dy: tensor<5x4xf32>) -> tensor<6x4xf32> {
    %i = graph.constant dense<[3, 0, 3, 1, 3]> : tensor<5xi64>
    %dt = graph.gather_grad %dy, %i {axis = 0 : i64, size = 6 : i64} : (tensor<5x4xf32>, tensor<5xi64>) -> tensor<6x4xf32>
    return %dt : tensor<6x4xf32>
  }
  func.func @gather_grad_axis1(%dy: tensor<?x2x3x4xf32>) -> tensor<?x5x4xf32> {
    %i = graph.constant dense<[[4, 0, 4], [2, 4, 0]]> : tensor<2x3xi32>
    %dt = graph.gather_grad %dy, %i {axis = 1 : i64, size = 5 : i64} : (tensor<?x2x3x4xf32>, tensor<2x3xi32>) -> tensor<?x5x4xf32>
    return %dt : tensor<?x5x4xf32>
  }
  // The forward gather bounds the random indices (tfcc-run's input domain).
  func.func @gather_grad_dynamic(%dy: tensor<?x5x8xf32>, %i: tensor<?x5xi32>, %t: tensor<10x8xf32>) -> (tensor<10x8xf32>, tensor<?x5x8xf32>) {
    %dt = graph.gather_grad %dy, %i {axis = 0 : i64, size = 10 : i64} : (tensor<?x5x8xf32>, tensor<?x5xi32>) -> tensor<10x8xf32>
    %g = graph.gather %t, %i : (tensor<10x8xf32>, tensor<?x5xi32>) -> tensor<?x5x8xf32>
    return %dt, %g : tensor<10x8xf32>, tensor<?x5x8xf32>
  }

  // Stride-1 groups-1 convolution gradients (the micro-kernel paths).
  func.func @conv_input_s1_same(%dy: tensor<?x7x8x6xf32>, %k: tensor<3x3x4x6xf32>) -> tensor<?x7x8x4xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [7, 8], padding = "same"} : (tensor<?x7x8x6xf32>, tensor<3x3x4x6xf32>) -> tensor<?x7x8x4xf32>
    return %dx : tensor<?x7x8x4xf32>
  }
  func.func @conv_input_s1_same_even(%dy: tensor<?x6x7x5xf32>, %k: tensor<2x4x3x5xf32>) -> tensor<?x6x7x3xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [6, 7], padding = "same"} : (tensor<?x6x7x5xf32>, tensor<2x4x3x5xf32>) -> tensor<?x6x7x3xf32>
    return %dx : tensor<?x6x7x3xf32>
  }
  // Strided input gradients (dy spread out with zeros, then the kernel):
  // unequal strides with a non-square kernel and an uncovered bottom/right
  // edge, and a stride-2 dilated SAME gradient.
  func.func @conv_input_s23_valid(%dy: tensor<?x4x3x5xf32>, %k: tensor<3x2x4x5xf32>) -> tensor<?x10x9x4xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [10, 9], strides = [2, 3]} : (tensor<?x4x3x5xf32>, tensor<3x2x4x5xf32>) -> tensor<?x10x9x4xf32>
    return %dx : tensor<?x10x9x4xf32>
  }
  func.func @conv_input_s2_d2_same(%dy: tensor<?x5x4x3xf32>, %k: tensor<3x3x2x3xf32>) -> tensor<?x9x8x2xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [9, 8], strides = [2, 2], dilations = [2, 2], padding = "same"} : (tensor<?x5x4x3xf32>, tensor<3x3x2x3xf32>) -> tensor<?x9x8x2xf32>
    return %dx : tensor<?x9x8x2xf32>
  }
  func.func @conv_input_1x1(%dy: tensor<?x5x5x8xf32>, %k: tensor<1x1x3x8xf32>) -> tensor<?x5x5x3xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [5, 5]} : (tensor<?x5x5x8xf32>, tensor<1x1x3x8xf32>) -> tensor<?x5x5x3xf32>
    return %dx : tensor<?x5x5x3xf32>
  }
  func.func @conv_input_wide(%dy: tensor<?x11x11x64xf32>, %k: tensor<3x3x32x64xf32>) -> tensor<?x13x13x32xf32> {
    %dx = graph.conv2d_backprop_input %dy, %k {input_size = [13, 13]} : (tensor<?x11x11x64xf32>, tensor<3x3x32x64xf32>) -> tensor<?x13x13x32xf32>
    return %dx : tensor<?x13x13x32xf32>
  }
  func.func @conv_filter_s1_same(%x: tensor<?x7x8x4xf32>, %dy: tensor<?x7x8x6xf32>) -> tensor<3x3x4x6xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3], padding = "same"} : (tensor<?x7x8x4xf32>, tensor<?x7x8x6xf32>) -> tensor<3x3x4x6xf32>
    return %dk : tensor<3x3x4x6xf32>
  }
  func.func @conv_filter_1x1(%x: tensor<?x5x5x3xf32>, %dy: tensor<?x5x5x8xf32>) -> tensor<1x1x3x8xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [1, 1]} : (tensor<?x5x5x3xf32>, tensor<?x5x5x8xf32>) -> tensor<1x1x3x8xf32>
    return %dk : tensor<1x1x3x8xf32>
  }
  func.func @conv_filter_1x1_s2(%x: tensor<?x5x5x3xf32>, %dy: tensor<?x3x3x8xf32>) -> tensor<1x1x3x8xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [1, 1], strides = [2, 2]} : (tensor<?x5x5x3xf32>, tensor<?x3x3x8xf32>) -> tensor<1x1x3x8xf32>
    return %dk : tensor<1x1x3x8xf32>
  }
  func.func @conv_filter_wide(%x: tensor<?x13x13x32xf32>, %dy: tensor<?x11x11x64xf32>) -> tensor<3x3x32x64xf32> {
    %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3]} : (tensor<?x13x13x32xf32>, tensor<?x11x11x64xf32>) -> tensor<3x3x32x64xf32>
    return %dk : tensor<3x3x32x64xf32>
  }
}
