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
save(relu_graph(), "opset18.onnx", opset=18)

# An attribute the graph IR cannot express: MaxPool with dilations.
graph = helper.make_graph(
    [helper.make_node("MaxPool", ["x"], ["y"], name="dilated_pool", kernel_shape=[2, 2],
                      dilations=[2, 2])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 6, 6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 4])])
save(graph, "bad_attribute.onnx", opset=12)

# Not a protobuf at all.
with open("corrupt.onnx", "wb") as f:
    f.write(bytes(range(7, 200)) * 3)
