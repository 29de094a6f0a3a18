#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""keep_records.py SRC DST PYEXPR: copy the campaign journal folder SRC to DST keeping, in each
group's journal (*.rec), the records whose position k (0-based) satisfies PYEXPR (e.g. "k % 2 == 0");
the dropped samples are then "not run" for a --resume. Prints how many records were kept."""
import glob
import shutil
import struct
import sys

src, dst, expr = sys.argv[1:4]
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(src, dst)
total = kept = 0
for f in sorted(glob.glob(dst + "/*.rec")):
    b = open(f, "rb").read()
    i = 0
    out = b""
    k = 0
    while i + 12 <= len(b):
        size = struct.unpack_from("<Q", b, i + 4)[0]
        rec = b[i:i + 12 + size + 8]
        i += len(rec)
        total += 1
        if eval(expr, {"k": k}):
            out += rec
            kept += 1
        k += 1
    open(f, "wb").write(out)
print(f"kept {kept} of {total} journaled samples")
