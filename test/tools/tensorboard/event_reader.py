"""A reader of TensorBoard event files built from the formats' specifications,
not from tfcc's writer (runtime/src/summary.c), for the tests:
  - TFRecord framing: uint64 length, masked CRC-32C of the length, data,
    masked CRC-32C of the data (CRC-32C computed here, bit by bit);
  - tensorflow.Event, Summary and GraphDef: the fields TensorBoard reads,
    declared in a .proto below and compiled with Debian's protoc for Python's
    protobuf (python3-protobuf).
read_events(path, work_dir) -> [Event]; ValueError on a framing or CRC error.
"""
import os
import struct
import subprocess
import sys

# --- Event, Summary and GraphDef, as tensorflow/core/util/event.proto,
# tensorflow/core/framework/{summary,graph,node_def,attr_value,tensor_shape}.proto
# declare them (the fields read here).
PROTO = """
syntax = "proto3";
package tfcc_test;
message SummaryValue {
  string node_name = 7;
  string tag = 1;
  oneof value { float simple_value = 2; bytes obsolete_old_style_histogram = 3; }
}
message Summary { repeated SummaryValue value = 1; }
message Dim { int64 size = 1; string name = 2; }
message TensorShape { repeated Dim dim = 2; bool unknown_rank = 3; }
message ListValue { repeated TensorShape shape = 7; }
message AttrValue { oneof value { ListValue list = 1; int32 type = 6; TensorShape shape = 7; } }
message NodeDef {
  string name = 1;
  string op = 2;
  repeated string input = 3;
  map<string, AttrValue> attr = 5;
}
message GraphDef { repeated NodeDef node = 1; }
message Event {
  double wall_time = 1;
  int64 step = 2;
  oneof what {
    string file_version = 3;
    bytes graph_def = 4;
    Summary summary = 5;
  }
}
"""


def protos(work_dir):
    """The compiled protos (module tb_event_pb2), built in work_dir/proto."""
    proto_dir = os.path.join(work_dir, "proto")
    os.makedirs(proto_dir, exist_ok=True)
    with open(os.path.join(proto_dir, "tb_event.proto"), "w") as f:
        f.write(PROTO)
    subprocess.check_call(["protoc", f"--proto_path={proto_dir}",
                           f"--python_out={proto_dir}", "tb_event.proto"])
    sys.path.insert(0, proto_dir)
    import tb_event_pb2
    return tb_event_pb2


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    with open(path, "rb") as f:
        data = f.read()
    pos, records = 0, []
    while pos < len(data):
        header = data[pos:pos + 12]
        if len(header) < 12:
            raise ValueError(f"{path}: truncated record header at {pos}")
        length, length_crc = struct.unpack("<QI", header)
        if masked(crc32c(header[:8])) != length_crc:
            raise ValueError(f"{path}: bad length CRC at {pos}")
        body = data[pos + 12:pos + 12 + length]
        (body_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if len(body) != length or masked(crc32c(body)) != body_crc:
            raise ValueError(f"{path}: bad data CRC at {pos}")
        records.append(body)
        pos += 16 + length
    return records




def read_events(path, work_dir):
    """The Event messages of the event file at `path`."""
    pb = protos(work_dir)
    return [pb.Event.FromString(r) for r in read_records(path)]
