#!/usr/bin/env python3
"""Executed guest instructions of a program run under qemu-user, from qemu's trace.

    qemu-aarch64-static -L /usr/aarch64-linux-gnu -d in_asm,exec,nochain -D LOG ./program ...
    test/cross/count_instructions.py LOG

`in_asm` logs each translated block's instructions once, `exec` (with `nochain`, so that
no block jumps to the next without being logged) every execution of a block; the count is
the sum over executions of the block's length. The figures of docs/embedded.md (NEON
against scalar builds of the runtime) come from it; the program's start-up (the dynamic
loader, libc) is included, so subtract a run that exits at once.
"""
import re
import sys

BLOCK_INSN = re.compile(r"^0x([0-9a-f]+):\s")
TRACE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/")


def count(path):
    length = {}  # block start -> instructions (the last translation of that address)
    start, n, total = None, 0, 0
    with open(path, errors="replace") as log:
        for line in log:
            if line.startswith("IN:"):
                start, n = None, 0
                continue
            m = BLOCK_INSN.match(line)
            if m:
                if start is None:
                    start = int(m.group(1), 16)
                n += 1
                length[start] = n
                continue
            m = TRACE.match(line)
            if m:
                total += length.get(int(m.group(1), 16), 0)
    return total


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: count_instructions.py QEMU_LOG")
    print(count(sys.argv[1]))
