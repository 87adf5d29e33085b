#!/usr/bin/env python3
"""Symbols filled to capacity, drawn by zxing-cpp's writer: for each size and level the writer
takes (rMQR's 32 sizes at M and H, Micro QR M1-M4, QR versions 1-40 at L/M/Q/H, Aztec's 36 sizes,
every DataMatrix size, MicroPDF417's 34, PDF417 at several column counts and levels, MaxiCode's
modes), the longest run of one character that fits, found by bisection: digits, upper-case letters
and lower-case letters (each a different encodation mode). Clean, upright, three pixels a module
(MaxiCode four).

A symbol too full for a terminator, a last codeword that is a pad or a check codeword, the size
tables themselves: what a reader gets wrong only when the data fills the symbol. It found R13x27
at level M read with 7 check codewords instead of 9 (docs/codes.md, rMQR).

    python3 Benchmarks/codes/capacity.py --out /tmp/capacity [--families rmqr,microqr,...]
    python3 Benchmarks/codes/codes.py --dataset codes2d --data /tmp/capacity --part all --presets balanced

The output has the layout of codes-2d: `FAMILY-full-d/`, `-u/` and `-l/`, each `NAME.png` (NAME the
size and level) with `NAME.txt` holding the payload. Payloads run to at most 1 000 characters
(PDF417's digits run past 2 500, a larger picture than the benchmark's budget reads).
"""
import argparse
import os

import numpy as np
from PIL import Image

KINDS = {"d": "7", "u": "A", "l": "a"}
LONGEST = 1000


def shapes(zxingcpp):
    """(family, format, writer options, name) for every shape drawn."""
    f = zxingcpp.BarcodeFormat
    for v in range(1, 33):
        for level in "MH":
            yield "rmqr", f.RMQRCode, {"version": v, "ec_level": level}, f"v{v}-{level}"
    for v in range(1, 5):
        for level in "LMQ":
            yield "microqr", f.MicroQRCode, {"version": v, "ec_level": level}, f"M{v}-{level}"
    for v in range(1, 41):
        for level in "LMQH":
            yield "qr", f.QRCode, {"version": v, "ec_level": level}, f"v{v}-{level}"
    for v in range(1, 37):
        yield "aztec", f.Aztec, {"version": v}, f"v{v}"
    for v in range(1, 80):
        yield "datamatrix", f.DataMatrix, {"version": v}, f"v{v}"
    for v in range(1, 35):
        yield "micropdf417", f.MicroPDF417, {"version": v}, f"v{v}"
    for columns in [1, 2, 3, 5, 8, 13, 20, 30]:
        for level in range(0, 9, 2):
            yield "pdf417", f.PDF417, {"columns": columns, "ec_level": str(level)}, f"c{columns}-e{level}"
    for mode in range(2, 7):
        yield "maxicode", f.MaxiCode, {"version": mode}, f"m{mode}"


def longest(zxingcpp, fmt, options, char):
    """The most repetitions of `char` the writer fits in this shape (up to LONGEST); 0 if none."""

    def fits(n):
        try:
            zxingcpp.create_barcode(char * n, fmt, **options)
            return True
        except Exception:
            return False

    if not fits(1):
        return 0
    low, high = 1, LONGEST
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def main():
    import zxingcpp

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--families", help="comma-separated: rmqr, microqr, qr, aztec, datamatrix, micropdf417, pdf417, maxicode")
    args = parser.parse_args()
    wanted = set(args.families.split(",")) if args.families else None
    count = 0
    for family, fmt, options, name in shapes(zxingcpp):
        if wanted and family not in wanted:
            continue
        for kind, char in KINDS.items():
            n = longest(zxingcpp, fmt, options, char)
            if n == 0:
                continue
            text = char * n
            try:
                barcode = zxingcpp.create_barcode(text, fmt, **options)
                image = np.array(barcode.to_image(scale=4 if family == "maxicode" else 3))
            except Exception:
                continue  # a shape the writer names but does not draw
            folder = os.path.join(args.out, f"{family}-full-{kind}")
            os.makedirs(folder, exist_ok=True)
            Image.fromarray(image).save(os.path.join(folder, f"{name}.png"))
            with open(os.path.join(folder, f"{name}.txt"), "w", encoding="utf-8") as handle:
                handle.write(text)
            count += 1
    print(f"{count} symbols in {args.out}")


if __name__ == "__main__":
    main()
