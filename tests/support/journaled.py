#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""journaled.py DIR: the number of complete records in the campaign journal folder DIR (framed
records: magic 4 B, size 8 B, payload, checksum 8 B; a torn last record is not counted). Used by
the kill-and-resume tests to kill a run once some samples are journaled."""
import glob
import struct
import sys

n = 0
for f in glob.glob(sys.argv[1] + "/*.rec"):
    b = open(f, "rb").read()
    i = 0
    while i + 12 <= len(b):
        size = struct.unpack_from("<Q", b, i + 4)[0]
        if i + 12 + size + 8 > len(b):
            break
        n += 1
        i += 12 + size + 8
print(n)
