#!/usr/bin/env python3
"""Writes a copy of libonnxruntime.so whose CPU detection sees an AVX2 machine.

ONNX Runtime has no switch that caps its kernels' ISA (oneDNN has ONEDNN_MAX_CPU_ISA,
PyTorch ATEN_CPU_CAPABILITY, OpenBLAS OPENBLAS_CORETYPE). Its detectors (MLAS, CPUIDInfo,
cpuinfo) all read XCR0 with XGETBV and use AVX-512 only when the OS has enabled the
ZMM/opmask state (XCR0 bits 5-7). This replaces every XGETBV instruction in the library's
executable segments with `push $7; pop %rax` (same 3 bytes): XCR0 then reads x87|SSE|AVX,
which is what an AVX2-only CPU (or an OS without AVX-512 state) shows, so every detector
picks its AVX2/FMA kernels. The instructions are found by disassembly (objdump), not by a
byte search, and each one is checked before it is patched.

    ort_isa_cap.py IN.so OUT.so     prints the number of instructions patched
"""
import os
import re
import shutil
import struct
import subprocess
import sys

XGETBV = b"\x0f\x01\xd0"
XCR0_AVX = b"\x6a\x07\x58"  # push $7; pop %rax


def load_segments(data):
    """(vaddr, offset, filesz) of each executable PT_LOAD segment of an ELF64 file."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segs = []
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1:  # PT_LOAD, PF_X
            segs.append((p_vaddr, p_offset, p_filesz))
    return segs


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    src, dst = argv[1], argv[2]
    try:
        with open(src, "rb") as f:
            data = bytearray(f.read())
    except OSError as e:
        raise SystemExit("ort_isa_cap: cannot read %s: %s" % (src, e.strerror))
    try:
        segs = load_segments(data)
    except (ValueError, struct.error) as e:
        raise SystemExit("ort_isa_cap: %s: %s" % (src, e))
    try:
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", src],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("ort_isa_cap: objdump -d %s failed (binutils): %s" % (src, e))
    addrs = [int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):\s+xgetbv\b", dis, re.M)]
    if not addrs:
        raise SystemExit("ort_isa_cap: no xgetbv in %s: nothing to cap" % src)
    for a in addrs:
        off = next((o + a - v for v, o, n in segs if v <= a < v + n), None)
        if off is None or data[off:off + 3] != XGETBV:
            raise SystemExit("ort_isa_cap: xgetbv at 0x%x is not where the ELF headers say" % a)
        data[off:off + 3] = XCR0_AVX
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    shutil.copymode(src, tmp)
    os.replace(tmp, dst)
    print(len(addrs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
