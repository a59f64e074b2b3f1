// graph.non_max_suppression on ONNX's example boxes (suppress_by_IOU, in the
// operator's documentation): six unit boxes, three near y = 0, two near
// y = 10, one at 100; and, on random boxes and scores, two batches of three
// classes with a score threshold and centre-point boxes.
module @non_max_suppression {
  func.func @predict(%boxes: tensor<2x9x4xf32>, %scores: tensor<2x3x9xf32>)
      -> (tensor<4x3xi64>, tensor<24x3xi64>, tensor<54x3xi64>) {
    %b = graph.constant dense<[[[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1],
                                [0.0, -0.1, 1.0, 0.9], [0.0, 10.0, 1.0, 11.0],
                                [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]]]>
        : tensor<1x6x4xf32>
    %s = graph.constant dense<[[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]]> : tensor<1x1x6xf32>
    %example = graph.non_max_suppression %b, %s
        {max_output_boxes_per_class = 4, iou_threshold = 5.0e-01 : f32,
         score_threshold = 0.0 : f32}
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<4x3xi64>
    %r = graph.non_max_suppression %boxes, %scores
        {max_output_boxes_per_class = 4, iou_threshold = 2.0e-01 : f32,
         score_threshold = -5.0e-01 : f32}
        : (tensor<2x9x4xf32>, tensor<2x3x9xf32>) -> tensor<24x3xi64>
    %c = graph.non_max_suppression %boxes, %scores
        {max_output_boxes_per_class = 100, iou_threshold = 1.0e-01 : f32,
         center_point_box = 1}
        : (tensor<2x9x4xf32>, tensor<2x3x9xf32>) -> tensor<54x3xi64>
    return %example, %r, %c : tensor<4x3xi64>, tensor<24x3xi64>, tensor<54x3xi64>
  }
}
