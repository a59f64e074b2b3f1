"""A minimal protobuf encoder for onnx.proto, for tests that write ONNX models by hand
(Debian has no onnx package for python3): only what those models use. Varints (int64
two's complement, 10 bytes when negative), length-delimited submessages and strings; field
numbers from onnx.proto.
"""
import numpy as np

# ONNX TensorProto.DataType
FLOAT, UINT8, INT8, INT32, INT64, BOOL, DOUBLE = 1, 2, 3, 6, 7, 9, 11
NP_TO_ONNX = {np.dtype(np.float32): FLOAT, np.dtype(np.int64): INT64,
              np.dtype(np.float64): DOUBLE,
              np.dtype(np.uint8): UINT8, np.dtype(np.int8): INT8,
              np.dtype(np.int32): INT32, np.dtype(np.bool_): BOOL}

# IR version of each opset (onnx/helper.py's table); what torch 1.13 writes too.
IR_VERSION = {9: 4, 10: 5, 11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8,
              19: 9, 20: 9, 21: 10, 22: 10}


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _int(field, value):
    return _varint(field << 3) + _varint(value)


def _bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def tensor_proto(name, array):
    array = np.asarray(array)
    array = np.ascontiguousarray(array).reshape(array.shape)  # keeps 0-d arrays 0-d
    out = b"".join(_int(1, d) for d in array.shape)           # dims
    out += _int(2, NP_TO_ONNX[array.dtype])                  # data_type
    out += _bytes(8, name)                                   # name
    out += _bytes(9, array.astype(array.dtype.newbyteorder("<")).tobytes())  # raw_data
    return out


def attribute_int(name, value):
    return _bytes(1, name) + _int(3, value) + _int(20, 2)  # INT


def attribute_ints(name, ints):
    return _bytes(1, name) + b"".join(_int(8, i) for i in ints) + _int(20, 7)  # INTS


def attribute_float(name, value):
    return _bytes(1, name) + _varint(2 << 3 | 5) + np.float32(value).tobytes() + _int(20, 1)


def attribute_string(name, value):
    return _bytes(1, name) + _bytes(4, value) + _int(20, 3)  # STRING


def attribute_tensor(name, array):
    """A TENSOR attribute (Constant's value)."""
    return _bytes(1, name) + _bytes(5, tensor_proto("", array)) + _int(20, 4)


def attribute_graph(name, graph):
    """A GRAPH attribute (If's branches); `graph` from graph_proto."""
    return _bytes(1, name) + _bytes(6, graph) + _int(20, 5)


def node_proto(op_type, inputs, outputs, name, attrs=()):
    out = b"".join(_bytes(1, i) for i in inputs)
    out += b"".join(_bytes(2, o) for o in outputs)
    out += _bytes(3, name) + _bytes(4, op_type)
    out += b"".join(_bytes(5, a) for a in attrs)
    return out


def value_info(name, elem_type, dims=None):
    tensor = _int(1, elem_type)
    if dims is not None:
        shape = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _bytes(2, d))
                         for d in dims)
        tensor += _bytes(2, shape)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor))


def graph_proto(nodes, inputs, outputs, initializers, name="g"):
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, name)
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += b"".join(_bytes(11, v) for v in inputs)
    graph += b"".join(_bytes(12, v) for v in outputs)
    return graph


def model_proto(nodes, inputs, outputs, initializers, opset):
    graph = graph_proto(nodes, inputs, outputs, initializers)
    model = _int(1, IR_VERSION[opset]) + _bytes(2, "tfcc-tests") + _bytes(7, graph)
    model += _bytes(8, _bytes(1, "") + _int(2, opset))
    return model
