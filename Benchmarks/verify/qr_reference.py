#!/usr/bin/env python3
"""Writes reference QR matrices made by python-qrcode (PyPI) for SeerCodegen's module-exact tests.

Development tool only: run it to regenerate Tests/SeerCodegenTests/Fixtures/reference.json.
    pip install qrcode==8.2 && python3 Benchmarks/verify/qr_reference.py

Symbols whose mask is not given use the mask with the lowest penalty under `penalty` below.
(segno 1.6.6 was tried first: it appends a whole zero byte after the terminator when the bit stream
is already byte-aligned, which ISO/IEC 18004 7.4.10 does not ask for.)
"""
import json
import pathlib

import qrcode
from qrcode import constants

LEVELS = {"L": constants.ERROR_CORRECT_L, "M": constants.ERROR_CORRECT_M,
          "Q": constants.ERROR_CORRECT_Q, "H": constants.ERROR_CORRECT_H}

CASES = [
    # (payload, version or None for the smallest that fits, error level, mask or None for the automatic choice)
    ("01234567", 1, "M", None),
    ("HELLO WORLD", 1, "Q", None),
    ("https://id.example.com/01/09506000134352/21/S1001", None, "M", None),
    ("123456", None, "H", None),
    ("https://charge.example.com/cp/654321", None, "L", None),
    ("Seer", 2, "H", None),
    ("0109506000134352\x1d21S1001", None, "M", None),
]
for mask in range(8):
    CASES.append(("MASK TEST %d" % mask, 3, "LMQH"[mask % 4], mask))
    CASES.append(("mask test %d" % mask, 2, "LMQH"[mask % 4], mask))
for version in (5, 7, 10, 14, 21, 27, 32, 40):
    for level in "LH":
        length = int((version * 4 + 17) ** 2 * 0.028)
        CASES.append((("v%d-%s " % (version, level) + "0123456789abcdef" * 100)[:length], version, level, None))
CASES.append(("9" * 500, None, "Q", None))
CASES.append(("SEER " * 100, None, "M", None))

def penalty(m):
    """The four mask penalty rules of ISO/IEC 18004 7.8.3, read plainly (python-qrcode's own scoring
    differs in places, so its automatic choice is not used as the reference)."""
    n = len(m)
    total = 0
    for line in [list(row) for row in m] + [[m[y][x] for y in range(n)] for x in range(n)]:
        run = 1
        for i in range(1, n):
            if line[i] == line[i - 1]:
                run += 1
            else:
                total += 3 + run - 5 if run >= 5 else 0
                run = 1
        total += 3 + run - 5 if run >= 5 else 0
        bits = "".join("1" if v else "0" for v in line)
        for pattern in ("00001011101", "10111010000"):
            i = bits.find(pattern)
            while i != -1:
                total += 40
                i = bits.find(pattern, i + 1)
    for y in range(n - 1):
        for x in range(n - 1):
            if m[y][x] == m[y][x + 1] == m[y + 1][x] == m[y + 1][x + 1]:
                total += 3
    dark = sum(1 for row in m for v in row if v)
    return total + abs(dark * 20 - n * n * 10) // (n * n) * 10


def symbol(payload, version, level, mask):
    qr = qrcode.QRCode(version=version, error_correction=LEVELS[level], border=0, mask_pattern=mask)
    qr.add_data(payload.encode("utf-8"), optimize=0)
    qr.make(fit=version is None)
    return qr


out = []
for payload, version, level, mask in CASES:
    if mask is None:
        # The standard's choice: the lowest penalty over the eight masked symbols (first on ties).
        version = symbol(payload, version, level, 0).version
        scores = [penalty(symbol(payload, version, level, m).get_matrix()) for m in range(8)]
        chosen_mask = scores.index(min(scores))
        qr = symbol(payload, version, level, chosen_mask)
        version_given = any(c[0] == payload and c[1] is not None for c in CASES)
    else:
        qr = symbol(payload, version, level, mask)
        version_given = version is not None
    mode = {1: "numeric", 2: "alphanumeric", 4: "byte"}[qr.data_list[0].mode]
    matrix = qr.get_matrix()
    rows = ["".join("#" if v else "." for v in row) for row in matrix]
    # The mask actually applied, read back from the format information (row 8, columns 0-4 hold bits 14-10).
    high = sum(int(matrix[8][14 - i]) << (i - 10) for i in range(10, 15))
    chosen = (high ^ (0x5412 >> 10)) & 7
    assert mask is None or chosen == mask
    assert mask is not None or chosen == chosen_mask
    out.append({
        "payload": payload, "mode": mode, "version": qr.version, "level": level, "mask": chosen,
        "maskGiven": mask is not None, "versionGiven": version_given, "rows": rows,
    })
path = pathlib.Path(__file__).resolve().parents[2] / "Tests/SeerCodegenTests/Fixtures/reference.json"
path.write_text(json.dumps(out, indent=0) + "\n")
print("wrote", len(out), "symbols to", path)
