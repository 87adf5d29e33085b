#!/usr/bin/env python3
"""Generates TestImages/codes: linear codes drawn to test that every reading is right or absent.

Each image is drawn from its modules (bars one or more modules wide) at a few pixels a module, with
quiet zones, then blurred a little as a camera would. `manifest.json` lists, per image, the symbology
and the only text a reader may report (`text`), or `null` when nothing may be reported.

- `upca-*.png`: UPC-A symbols; `upca-damaged-*.png` have one bar widened by a module (ink, a scratch),
  which can make a valid-looking different EAN-13: the reading must be the printed number or nothing.
- `code128-fnc4.png`: Code 128 with FNC4 characters (ISO-8859-1 letters beyond ASCII), as some
  labels carry them: the text must come out with those letters, not their ASCII halves.
- `code39-fullascii.png`: Code 39 whose shift pairs spell lower-case text (Full ASCII).

Needs: pip install pillow numpy python-barcode (a development tool; Seer does not use it).
Run from anywhere: python3 TestImages/codes/generate.py
"""
import json
import os

import barcode
import numpy as np
from PIL import Image, ImageFilter

ROOT = os.path.dirname(os.path.abspath(__file__))

# Code 128 symbol values 0-105 as bar/space widths (the standard's table).
CODE128 = (
    "212222 222122 222221 121223 121322 131222 122213 122312 132212 221213 221312 231212 112232 122132 "
    "122231 113222 123122 123221 223211 221132 221231 213212 223112 312131 311222 321122 321221 312212 "
    "322112 322211 212123 212321 232121 111323 131123 131321 112313 132113 132311 211313 231113 231311 "
    "112133 112331 132131 113123 113321 133121 313121 211331 231131 213113 213311 213131 311123 311321 "
    "331121 312113 312311 332111 314111 221411 431111 111224 111422 121124 121421 141122 141221 112214 "
    "112412 122114 122411 142112 142211 241211 221114 413111 241112 134111 111242 121142 121241 114212 "
    "124112 124211 411212 421112 421211 212141 214121 412121 111143 111341 131141 114113 114311 411113 "
    "411311 113141 114131 311141 411131 211412 211214 211232"
).split()
STOP = "2331112"


def widths_to_modules(widths):
    out, bar = "", True
    for w in widths:
        out += ("1" if bar else "0") * int(w)
        bar = not bar
    return out


def code128_modules(text):
    """Code set B, with FNC4 (value 100 in set B) before each character above 127."""
    values = [104]
    for ch in text:
        b = ch.encode("latin-1")[0]
        if b >= 128:
            values.append(100)
            b -= 128
        assert 32 <= b < 128
        values.append(b - 32)
    check = (values[0] + sum(i * v for i, v in enumerate(values[1:], start=1))) % 103
    values.append(check)
    return "".join(widths_to_modules(CODE128[v]) for v in values) + widths_to_modules(STOP)


def draw(modules, path, module_px=3, height=60, quiet=12, blur=0.8):
    width = (len(modules) + 2 * quiet) * module_px
    row = np.full(width, 255, np.uint8)
    for i, m in enumerate(modules):
        if m == "1":
            row[(quiet + i) * module_px:(quiet + i + 1) * module_px] = 20
    img = np.tile(row, (height, 1))
    canvas = np.full((height + 2 * quiet * module_px // 2, width), 255, np.uint8)
    canvas[quiet * module_px // 2:quiet * module_px // 2 + height] = img
    im = Image.fromarray(canvas)
    if blur:
        im = im.filter(ImageFilter.GaussianBlur(blur))
    im.save(os.path.join(ROOT, path))


def widen_bar(modules, bar_index):
    """Widens the bar_index-th bar (counting from 0) by one module, into the space after it."""
    seen, i = -1, 0
    while i < len(modules):
        if modules[i] == "1" and (i == 0 or modules[i - 1] == "0"):
            seen += 1
            if seen == bar_index:
                j = i
                while j < len(modules) and modules[j] == "1":
                    j += 1
                return modules[:j] + "1" + modules[j + 1:]
        i += 1
    raise ValueError("no such bar")


def main():
    manifest = {}
    upc = barcode.get("upca", "03600029145", writer=None)
    modules = upc.build()[0]
    number = upc.get_fullcode()
    draw(modules, "upca-036000291452.png")
    manifest["upca-036000291452.png"] = {"symbology": "upca", "text": number}
    # Bars in the left and right halves widened by a module each in turn.
    for bar in (6, 9, 12, 20, 23, 26):
        name = f"upca-damaged-bar{bar}.png"
        draw(widen_bar(modules, bar), name)
        manifest[name] = {"symbology": "upca", "text": number, "orNothing": True}
    text = "Größe: 12 µm"
    draw(code128_modules(text), "code128-fnc4.png", module_px=3)
    manifest["code128-fnc4.png"] = {"symbology": "code128", "text": text}
    c39 = barcode.get_barcode_class("code39")("+H+E+L+L+O", writer=None, add_checksum=False)
    draw(c39.build()[0], "code39-fullascii.png", module_px=3)
    manifest["code39-fullascii.png"] = {"symbology": "code39", "text": "hello"}
    with open(os.path.join(ROOT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
