"""Makes broken and edited checkpoints for test/tools/checkpoint.test.

ckpt_edit.py json IN.json OUT.json   edits flatc's JSON of a checkpoint:
    the step counter becomes 42 and hidden_bias[0] 0.5, their crc32c
    recomputed here (OUT.json, a valid checkpoint once flatc builds it), and
    writes OUT.json's siblings shape.json (hidden_bias with shape [17]),
    dtype.json (hidden_bias as I32), unknown.json (a variable renamed),
    missing.json (the step dropped), version.json (format version 1),
    stale_crc.json (hidden_bias[0] changed, its crc32c not).
    Checks first that IN.json's every crc32c is the CRC-32C of its data.
ckpt_edit.py bytes IN.tfck DIR       writes truncated and corrupt copies of a
    binary checkpoint into DIR: trunc_N.tfck, data.tfck (a bit of the last
    variable's data flipped), ident.tfck (identifier
    flipped), root.tfck (root offset out of range), vtable.tfck (the root
    table's vtable offset out of range), string.tfck (the model name's
    offset out of range).
"""
import json
import os
import struct
import sys


def crc32c(data):
    """CRC-32C bit by bit (reflected polynomial 0x82F63B78), independent of
    the runtime's table-driven one."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283  # the check value of CRC-32C


def edit_json(src, dst):
    with open(src) as f:
        ck = json.load(f)
    out_dir = os.path.dirname(dst)

    def var(c, name):
        return next(v for v in c["variables"] if v["name"] == name)

    def save(c, name):
        with open(os.path.join(out_dir, name), "w") as f:
            json.dump(c, f)

    for v in ck["variables"]:
        if v.get("crc32c", 0) != crc32c(bytes(v.get("data", []))):
            sys.exit("%s: variable %s: crc32c %d is not the CRC-32C of its data"
                     % (src, v["name"], v.get("crc32c", 0)))

    good = json.loads(json.dumps(ck))
    var(good, "train_step/step")["data"] = list(struct.pack("<q", 42))
    data = var(good, "hidden_bias")["data"]
    data[0:4] = list(struct.pack("<f", 0.5))
    for name in ("train_step/step", "hidden_bias"):
        var(good, name)["crc32c"] = crc32c(bytes(var(good, name)["data"]))
    save(good, os.path.basename(dst))

    c = json.loads(json.dumps(ck))
    var(c, "hidden_bias")["data"][0:4] = list(struct.pack("<f", 0.5))
    save(c, "stale_crc.json")

    c = json.loads(json.dumps(ck))
    var(c, "hidden_bias")["shape"] = [17]
    save(c, "shape.json")
    c = json.loads(json.dumps(ck))
    var(c, "hidden_bias")["dtype"] = "I32"
    save(c, "dtype.json")
    c = json.loads(json.dumps(ck))
    var(c, "hidden_bias")["name"] = "hidden_bias_renamed"
    save(c, "unknown.json")
    c = json.loads(json.dumps(ck))
    c["variables"] = [v for v in c["variables"] if v["name"] != "train_step/step"]
    save(c, "missing.json")
    c = json.loads(json.dumps(ck))
    c["version"] = 1
    save(c, "version.json")


def edit_bytes(src, out_dir):
    with open(src, "rb") as f:
        b = f.read()

    def save(name, data):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)

    for n in (0, 7, 8, 30, len(b) // 2, len(b) - 100, len(b) - 1):
        save("trunc_%d.tfck" % n, b[:n])
    m = bytearray(b)
    m[-1] ^= 0x01  # the last variable's data ends the file
    save("data.tfck", m)
    m = bytearray(b)
    m[4] ^= 0x20  # 'T' -> 't'
    save("ident.tfck", m)
    m = bytearray(b)
    m[0:4] = struct.pack("<I", len(b) + 1000)
    save("root.tfck", m)
    root = struct.unpack_from("<I", b, 0)[0]
    m = bytearray(b)
    m[root:root + 4] = struct.pack("<i", -len(b))
    save("vtable.tfck", m)
    # The model name is the second field of the root table: find its slot
    # through the vtable.
    vt = root - struct.unpack_from("<i", b, root)[0]
    field = root + struct.unpack_from("<H", b, vt + 6)[0]
    m = bytearray(b)
    m[field:field + 4] = struct.pack("<I", 0x7FFFFFF0)
    save("string.tfck", m)


if __name__ == "__main__":
    {"json": edit_json, "bytes": edit_bytes}[sys.argv[1]](sys.argv[2], sys.argv[3])
