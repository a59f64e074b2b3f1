#!/usr/bin/python3
"""Writes the small ONNX models of test/onnx (run with Debian's python3-onnx 1.12).

    cd test/onnx/Inputs && /usr/bin/python3 make_models.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def weight(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def save(graph, name, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tfcc-tests")
    model.ir_version = 7
    onnx.save(model, name)


# A small NCHW CNN: conv, batch norm, relu, max pool, grouped SAME conv,
# global average pool, flatten, gemm, softmax.
nodes = [
    helper.make_node("Conv", ["x", "conv1.w", "conv1.b"], ["c1"], name="conv1",
                     kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                     ["b1"], name="bn1", epsilon=1e-3),
    helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "conv2.w"], ["c2"], name="conv2", kernel_shape=[3, 3],
                     group=2, strides=[2, 2], auto_pad="SAME_UPPER"),
    helper.make_node("GlobalAveragePool", ["c2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
]
inits = [
    weight("conv1.w", 4, 3, 3, 3), weight("conv1.b", 4),
    weight("bn.scale", 4), weight("bn.bias", 4), weight("bn.mean", 4),
    numpy_helper.from_array(rng.uniform(0.5, 2, 4).astype(np.float32), "bn.var"),
    weight("conv2.w", 6, 2, 3, 3), weight("fc.w", 5, 6), weight("fc.b", 5),
]
graph = helper.make_graph(
    nodes, "cnn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 5])], inits)
save(graph, "cnn.onnx")


def relu_graph(op_type="Relu", name="act"):
    return helper.make_graph(
        [helper.make_node(op_type, ["x"], ["y"], name=name)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])


save(relu_graph("Frobnicate", "mystery"), "unknown_op.onnx")
save(relu_graph(), "opset5.onnx", opset=5)

# An attribute value tfcc does not take: Cast to uint16 (no such tensors).
graph = helper.make_graph(
    [helper.make_node("Cast", ["x"], ["y"], name="to_uint16", to=TensorProto.UINT16)], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 5])],
    [helper.make_tensor_value_info("y", TensorProto.UINT16, [1, 1, 5, 5])])
save(graph, "bad_attribute.onnx", opset=12)

# Not a protobuf at all.
with open("corrupt.onnx", "wb") as f:
    f.write(bytes(range(7, 200)) * 3)


def conv3d_model():
    """3-D Conv (groups, strides, dilations, asymmetric pads), MaxPool and
    AveragePool (pads, count_include_pad = 0) over NCDHW, decomposed by the
    importer into 2-D ops."""
    r = np.random.default_rng(3)
    w = numpy_helper.from_array(r.standard_normal((4, 1, 3, 2, 3)).astype(np.float32), "conv.w")
    b = numpy_helper.from_array(r.standard_normal(4).astype(np.float32), "conv.b")
    nodes = [
        helper.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], name="conv3d", group=2,
                         strides=[2, 1, 2], dilations=[1, 2, 1], pads=[1, 0, 1, 2, 1, 0]),
        helper.make_node("MaxPool", ["c"], ["m"], name="maxpool3d", kernel_shape=[2, 2, 2],
                         pads=[1, 0, 1, 0, 1, 0]),
        helper.make_node("AveragePool", ["m"], ["y"], name="avgpool3d", kernel_shape=[2, 3, 2],
                         strides=[1, 2, 1], pads=[0, 1, 1, 1, 1, 0]),
    ]
    graph = helper.make_graph(
        nodes, "conv3d",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 5, 6, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, b])
    save(graph, "conv3d.onnx")


conv3d_model()


def named_dims_model():
    """Batch, height and width dynamic (dim_params N, H, W): a strided Conv
    with pads, Relu, a padded MaxPool, GlobalAveragePool and Flatten to
    [N, 4], and Relu of the input as a second output [N, 3, H, W]. Built
    once with tfcc --dim-bound H=.. --dim-bound W=.. (docs/c-api.md,
    "Dimensions")."""
    r = np.random.default_rng(4)
    w = numpy_helper.from_array(r.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv.w")
    b = numpy_helper.from_array(r.standard_normal(4).astype(np.float32), "conv.b")
    nodes = [
        helper.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], name="conv",
                         strides=[2, 1], pads=[1, 0, 1, 2]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["m"], name="pool", kernel_shape=[2, 3],
                         strides=[2, 2], pads=[0, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["m"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["y"], name="flatten"),
        helper.make_node("Relu", ["x"], ["features"], name="features"),
    ]
    graph = helper.make_graph(
        nodes, "named_dims",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [w, b])
    save(graph, "named_dims.onnx")


named_dims_model()


def named_reshape_model():
    """Reshapes with several dynamic dims (N, W), as PP-OCR's recognizer and
    openWakeWord's front end have them: a squeeze written as Reshape to
    Concat(Shape(x)[0], 4, Shape(x)[3]), then Unsqueeze."""
    i64 = TensorProto.INT64
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["n"], name="gather_n", axis=0),
        helper.make_node("Gather", ["s", "i3"], ["w"], name="gather_w", axis=0),
        helper.make_node("Concat", ["n", "four", "w"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["r"], name="squeeze"),
        helper.make_node("Exp", ["r"], ["e"], name="exp"),
        helper.make_node("Unsqueeze", ["e", "axes"], ["y"], name="unsqueeze"),
    ]
    inits = [helper.make_tensor("i0", i64, [1], [0]), helper.make_tensor("i3", i64, [1], [3]),
             helper.make_tensor("four", i64, [1], [4]), helper.make_tensor("axes", i64, [1], [1])]
    graph = helper.make_graph(
        nodes, "named_reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 1, "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1, 4, "W"])], inits)
    save(graph, "named_reshape.onnx")


named_reshape_model()


def if_on_input_model():
    """An If on a scalar graph input (as Silero VAD's sample rate): y = x * 2
    when mode == 1, else x + 1; x [N, 3] has a dynamic batch. tfcc
    --input-value mode=1 folds the If to its then branch."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    then_graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["doubled"], name="double")], "then",
        [], [helper.make_tensor_value_info("doubled", f32, ["N", 3])])
    else_graph = helper.make_graph(
        [helper.make_node("Add", ["x", "one"], ["plus_one"], name="increment")], "else",
        [], [helper.make_tensor_value_info("plus_one", f32, ["N", 3])])
    nodes = [
        helper.make_node("Equal", ["mode", "one_i"], ["is_one"], name="is_one"),
        helper.make_node("If", ["is_one"], ["y"], name="pick",
                         then_branch=then_graph, else_branch=else_graph),
    ]
    inits = [helper.make_tensor("two", f32, [], [2.0]), helper.make_tensor("one", f32, [], [1.0]),
             helper.make_tensor("one_i", i64, [], [1])]
    graph = helper.make_graph(
        nodes, "if_on_input",
        [helper.make_tensor_value_info("x", f32, ["N", 3]),
         helper.make_tensor_value_info("mode", i64, [])],
        [helper.make_tensor_value_info("y", f32, ["N", 3])], inits)
    save(graph, "if_on_input.onnx")


if_on_input_model()


def nms_models():
    """NonMaxSuppression that tfcc refuses: a threshold given at run time, and its
    padded rows read by a ReduceSum (which would add the padding in)."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    inputs = [helper.make_tensor_value_info("boxes", f32, [1, 6, 4]),
              helper.make_tensor_value_info("scores", f32, [1, 1, 6])]
    inits = [helper.make_tensor("max_out", i64, [1], [3]),
             helper.make_tensor("iou", f32, [1], [0.5])]
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou_in"],
                              ["selected"], name="nms")]
    graph = helper.make_graph(
        nodes, "nms_runtime_threshold",
        inputs + [helper.make_tensor_value_info("iou_in", f32, [1])],
        [helper.make_tensor_value_info("selected", i64, ["n", 3])], inits[:1])
    save(graph, "nms_runtime_threshold.onnx")
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou"],
                         ["selected"], name="nms"),
        helper.make_node("ReduceSum", ["selected"], ["total"], name="sum_rows", keepdims=0),
    ]
    graph = helper.make_graph(nodes, "nms_padded_sum", inputs,
                              [helper.make_tensor_value_info("total", i64, [])], inits)
    save(graph, "nms_padded_sum.onnx")
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou"],
                         ["selected"], name="nms"),
        helper.make_node("Slice", ["selected", "one", "big", "zero"], ["rest"],
                         name="drop_first"),
    ]
    graph = helper.make_graph(
        nodes, "nms_padded_slice", inputs,
        [helper.make_tensor_value_info("rest", i64, ["m", 3])],
        inits + [helper.make_tensor("one", i64, [1], [1]),
                 helper.make_tensor("big", i64, [1], [100]),
                 helper.make_tensor("zero", i64, [1], [0])])
    save(graph, "nms_padded_slice.onnx")
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out"],
                              ["selected"], name="nms", center_point_box=2)]
    graph = helper.make_graph(nodes, "nms_center_point_box", inputs,
                              [helper.make_tensor_value_info("selected", i64, ["n", 3])],
                              inits[:1])
    save(graph, "nms_center_point_box.onnx")
    nodes = [helper.make_node("NonMaxSuppression", ["dyn_boxes", "dyn_scores", "max_out"],
                              ["selected"], name="nms")]
    graph = helper.make_graph(
        nodes, "nms_dynamic",
        [helper.make_tensor_value_info("dyn_boxes", f32, ["N", 6, 4]),
         helper.make_tensor_value_info("dyn_scores", f32, ["N", 1, 6])],
        [helper.make_tensor_value_info("selected", i64, ["n", 3])], inits[:1])
    save(graph, "nms_dynamic.onnx")


nms_models()


def einsum_models():
    """Einsum equations tfcc refuses or that break ONNX's rules."""
    f32 = TensorProto.FLOAT

    def einsum(name, equation, shapes, inputs=None):
        names = inputs or ["a", "b"][:len(shapes)]
        graph = helper.make_graph(
            [helper.make_node("Einsum", names, ["y"], name="contract", equation=equation)],
            name, [helper.make_tensor_value_info(n, f32, s) for n, s in zip(names, shapes)],
            [helper.make_tensor_value_info("y", f32, None)])
        save(graph, name + ".onnx", opset=12)

    einsum("einsum_ellipsis", "...ij,...jk->...ik", [[2, 3, 4], [2, 4, 5]])
    einsum("einsum_diagonal", "ii->i", [[3, 3]])
    einsum("einsum_label_sizes", "ij,jk->ik", [[2, 3], [4, 5]])
    einsum("einsum_operands", "ij,jk,kl->il", [[2, 3], [3, 4]])
    einsum("einsum_dynamic", "ij,jk->ik", [["N", 3], [3, 5]])


einsum_models()


def scatter_models():
    """Scatters tfcc refuses or that break ONNX's rules."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64

    def scatter(name, op, indices, updates_shape, runtime_indices=False, opset=13, **attrs):
        idx = helper.make_tensor("idx", i64, list(np.shape(indices)),
                                 np.asarray(indices).ravel().tolist())
        inputs = [helper.make_tensor_value_info("data", f32, [3, 4]),
                  helper.make_tensor_value_info("updates", f32, updates_shape)]
        if runtime_indices:
            inputs.insert(1, helper.make_tensor_value_info("idx", i64, list(np.shape(indices))))
        graph = helper.make_graph(
            [helper.make_node(op, ["data", "idx", "updates"], ["y"], name="put", **attrs)],
            name, inputs, [helper.make_tensor_value_info("y", f32, [3, 4])],
            [] if runtime_indices else [idx])
        save(graph, name + ".onnx", opset=opset)

    scatter("scatter_runtime_indices", "ScatterElements", [[0, 1]], [1, 2],
            runtime_indices=True, axis=1)
    scatter("scatter_index_range", "ScatterElements", [[0, 4]], [1, 2], axis=1)
    scatter("scatternd_updates_shape", "ScatterND", [[1], [2]], [2, 3])
    scatter("scatter_reduction", "ScatterElements", [[0, 1]], [1, 2], opset=16, axis=1,
            reduction="avg")


scatter_models()
