#!/usr/bin/python3
"""Writes the hostile ONNX models of test/onnx/hostile.test: small files that
declare huge tensors or lie about their data (run with Debian's python3-onnx).

    cd test/onnx/Inputs && /usr/bin/python3 make_hostile_models.py
"""
import onnx
from onnx import TensorProto, helper

BIG = 2**62 + 1  # x 4 bytes wraps to 4 in 64 bits


def save(nodes, name, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tfcc-tests")
    model.ir_version = 7
    onnx.save(model, "hostile_" + name + ".onnx")


def value(name, dims, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, dims)


def raw_tensor(name, dims, raw, dtype=TensorProto.FLOAT):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


# An input whose byte size wraps to 16 in 64 bits.
save([helper.make_node("Relu", ["x"], ["y"], name="relu")], "huge_input",
     [value("x", [BIG, 4])], [value("y", [BIG, 4])])

# A Constant declaring 2^32 floats with the data of one.
save([helper.make_node("Constant", [], ["c"], name="const",
                       value=raw_tensor("v", [2**32], b"\0\0\x80\x3f")),
      helper.make_node("Add", ["x", "c"], ["y"], name="add")], "constant_count",
     [value("x", [1])], [value("y", None)])

# An initializer whose element count wraps to 4 (dims [2^62 + 1, 4]: 2^64 + 4).
save([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "initializer_wraps",
     [value("x", [4])], [value("y", None)],
     [raw_tensor("w", [2**62 + 1, 4], b"\0" * 16)])

# An initializer with dims [2^62, 2] and no data.
save([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "initializer_huge",
     [value("x", [2])], [value("y", None)], [raw_tensor("w", [2**62, 2], b"")])

# ConstantOfShape and Expand to 65536 x 65536 (16 GiB of floats).
shape = helper.make_tensor("s", TensorProto.INT64, [2], [65536, 65537])
save([helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill",
                       value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))],
     "constant_of_shape", [], [value("y", None)], [shape])
save([helper.make_node("Expand", ["x", "s"], ["y"], name="expand")], "expand",
     [value("x", [1, 1])], [value("y", None)], [shape])

# Range 0 .. 2^40 (constant folded by the importer).
scalar = lambda n, v: helper.make_tensor(n, TensorProto.INT64, [], [v])
save([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")], "range",
     [], [value("y", None, TensorProto.INT64)],
     [scalar("a", 0), scalar("b", 2**40), scalar("d", 1)])

# Tile of a 2 x 2 input by 2^20 x 2^20.
save([helper.make_node("Tile", ["x", "r"], ["y"], name="tile")], "tile",
     [value("x", [2, 2])], [value("y", None)],
     [helper.make_tensor("r", TensorProto.INT64, [2], [2**20, 2**20])])

# Reshape targets whose product passes int64 (found by fuzz/onnx_import: the
# element count overflowed, UBSan): static, with a -1, and with two dynamic dims
# copied around them (the check for several unknown dims).
for name, shape, target in (("reshape_overflow", [2, 3], [2**40, 2**40]),
                            ("reshape_overflow_inferred", [2, 3], [2**40, 2**40, -1]),
                            ("reshape_overflow_dynamic", ["n", 3, 4, "m"],
                             [0, 2**40, 2**40, 0])):
    save([helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")], name,
         [value("x", shape)], [value("y", None)],
         [helper.make_tensor("s", TensorProto.INT64, [len(target)], target)])

# A LayerNormalization axis below -rank: ONNX's shape inference wrote its Mean's
# shape from there (SIGSEGV inside libonnx; found by fuzz/onnx_import).
save([helper.make_node("LayerNormalization", ["x", "w", "b"], ["y", "mean", "inv"],
                       name="norm", axis=-3)], "layer_norm_axis",
     [value("x", [3, 4]), value("w", [4]), value("b", [4])],
     [value("y", None), value("mean", None), value("inv", None)], opset=17)

# A Gemm (opset 6) whose B is a vector: ONNX's shape inference read its second
# dim (SIGSEGV inside libonnx; found by fuzz/onnx_import).
save([helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm")], "gemm_rank",
     [value("a", [3, 5]), value("b", [5]), value("c", [1, 4])], [value("y", None)],
     opset=6)

# A graph input without a type read by an EyeLike with a dtype: ONNX's shape
# inference read the missing type (SIGSEGV inside libonnx; fuzz/onnx_import).
untyped = onnx.ValueInfoProto()
untyped.name = "x"
save([helper.make_node("EyeLike", ["x"], ["y"], name="eye", dtype=TensorProto.FLOAT)],
     "eye_like_untyped", [untyped], [value("y", None)], opset=9)

# A GRU (opset 6) whose X is a vector, in a model importing the default domain
# twice (opsets 14 and 6): ONNX's shape inference took opset 6, whose GRU
# inference read X's dims unchecked (SIGSEGV inside libonnx; fuzz/onnx_import).
gru = [helper.make_node("GRU", ["x", "w", "r"], ["y"], name="gru", hidden_size=4)]
gru_inputs = [value("x", [4]), value("w", [1, 12, 3]), value("r", [1, 12, 4])]
save(gru, "gru_rank", gru_inputs, [value("y", None)], opset=6)
graph = helper.make_graph(gru, "two_opsets", gru_inputs, [value("y", None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14),
                                                helper.make_opsetid("", 6)],
                          producer_name="tfcc-tests")
model.ir_version = 7
onnx.save(model, "hostile_two_opsets.onnx")

# A Range whose limit keeps its data in an external file: ONNX's shape inference
# read it (SIGSEGV inside libonnx; fuzz/onnx_import). tfcc reads no external data.
limit = helper.make_tensor("b", TensorProto.INT64, [], [0])
limit.ClearField("int64_data")
limit.data_location = TensorProto.EXTERNAL
entry = limit.external_data.add()
entry.key, entry.value = "location", "limit.bin"
save([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")], "external_data",
     [], [value("y", None, TensorProto.INT64)], [scalar("a", 0), limit, scalar("d", 1)])

# Two nodes defining the same name (ONNX graphs are in SSA form).
save([helper.make_node("Relu", ["x"], ["y"], name="first"),
      helper.make_node("Neg", ["x"], ["y"], name="second")], "duplicate_output",
     [value("x", [2])], [value("y", [2])])

# Attributes that ONNX's own shape inference divides by (it died of SIGFPE
# on them; found by fuzz/onnx_import): a zero stride, group and block size.
save([helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                       strides=[2, 0])], "zero_stride",
     [value("x", [1, 1, 5, 5])], [value("y", None)])
save([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", group=0)], "zero_group",
     [value("x", [1, 2, 5, 5]), value("w", [2, 1, 3, 3])], [value("y", None)])
save([helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=0)],
     "zero_blocksize", [value("x", [1, 4, 2, 2])], [value("y", None)])

# A ConvTranspose with a rank-2 weight for a rank-3 input: ONNX's shape
# inference dereferenced a null pointer on it (found by fuzz/onnx_import).
save([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv")], "conv_transpose",
     [value("x", [1, 1, 3]), value("w", [1, 0])], [value("y", None)], opset=11)

# A Conv whose weight's rank differs from its input's: ONNX's shape inference
# read past the weight's dims (SIGSEGV in libonnx; found by fuzz/onnx_import).
save([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], "conv_ranks",
     [value("x", [1, 2, 5]), value("w", [2, 2, 3, 3])], [value("y", None)])

# The same for ConvInteger (uint8 input of rank 3, weight of rank 4): SIGSEGV in
# libonnx's convPoolShapeInference (found by fuzz/onnx_import).
save([helper.make_node("ConvInteger", ["x", "w"], ["y"], name="conv_integer")],
     "convinteger_ranks",
     [value("x", [1, 1, 5], TensorProto.UINT8), value("w", [1, 1, 2, 2], TensorProto.UINT8)],
     [value("y", None, TensorProto.INT32)])

# The zero stride again, in an attribute whose declared type is UNDEFINED
# (libonnx reads its ints all the same).
node = helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                        strides=[2, 0])
node.attribute[1].type = onnx.AttributeProto.UNDEFINED
save([node], "zero_stride_untyped", [value("x", [1, 1, 5, 5])], [value("y", None)])
