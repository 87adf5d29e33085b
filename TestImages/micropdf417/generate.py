#!/usr/bin/env python3
"""Writes the MicroPDF417 test images (`MicroPDF417Tests`): symbols made by zxing-cpp's writer
(`pip install zxing-cpp pillow numpy`), drawn at 4 pixels a module with a 4-module margin, each
NAME.png with its text in NAME.txt. Deterministic: the same writer gives the same files.

    python3 TestImages/micropdf417/generate.py

- `mpdf-1col`, `mpdf-2col`, `mpdf-3col`, `mpdf-4col`: one symbol of each width.
- `mpdf-4col-turned`: the 4-column symbol upside down.
- `mpdf-3col-tilted`: the 3-column symbol turned 5° (its rows cross the scan lines).
- `mpdf-3col-turned-12`: a 3-column symbol turned 12° (no scan line crosses both its sides).
- `mpdf-3col-rows-1`: the 3-column symbol at a pixel a module, its rows a pixel tall.
- `mpdf-2col-damaged`: three codewords' modules inverted (within what its check codewords correct).
- `mpdf-1col-destroyed`: six of the eleven rows' codewords inverted (beyond it): no reading.
"""
import os

import numpy as np
import zxingcpp
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SCALE, MARGIN = 4, 4

# Where each data column's codeword starts along a row, in modules from the left RAP.
STARTS = {1: [10], 2: [10, 27], 3: [10, 37, 54], 4: [10, 27, 54, 71]}


def symbol(text, columns):
    """The symbol's modules (True dark), one array row per module row (rows are 2 modules high)."""
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.MicroPDF417, columns=columns)
    a = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    return a


def invert(modules, columns, cells):
    """Inverts the codewords at (row, column) in `cells`."""
    m = modules.copy()
    for row, col in cells:
        x = STARTS[columns][col]
        m[2 * row:2 * row + 2, x:x + 17] = ~m[2 * row:2 * row + 2, x:x + 17]
    return m


def save(name, modules, text, turn=False, tilt=0, scale=SCALE):
    h, w = modules.shape
    canvas = np.ones((h + 2 * MARGIN, w + 2 * MARGIN), dtype=bool)
    canvas[MARGIN:MARGIN + h, MARGIN:MARGIN + w] = ~modules
    img = Image.fromarray((canvas * 255).astype(np.uint8)).resize(
        (canvas.shape[1] * scale, canvas.shape[0] * scale), Image.NEAREST)
    if turn:
        img = img.rotate(180)
    if tilt:
        img = img.rotate(tilt, resample=Image.BILINEAR, expand=True, fillcolor=255)
    img.save(os.path.join(HERE, name + ".png"), optimize=True)
    with open(os.path.join(HERE, name + ".txt"), "w", encoding="utf-8", newline="") as f:
        f.write(text)


def main():
    texts = {
        1: "MicroPDF417 1",
        2: "Seer reads MicroPDF417",
        3: "Three columns: 0123456789 and text",
        4: "Four data columns, 1234567890123 numbers, Lower case",
    }
    for columns, text in texts.items():
        save(f"mpdf-{columns}col", symbol(text, columns), text)
    save("mpdf-4col-turned", symbol(texts[4], 4), texts[4], turn=True)
    save("mpdf-3col-tilted", symbol(texts[3], 3), texts[3], tilt=5)
    save("mpdf-3col-turned-12", symbol("Turned 12 degrees", 3), "Turned 12 degrees", tilt=12)
    save("mpdf-3col-rows-1", symbol(texts[3], 3)[::2], texts[3], scale=1)
    two = symbol(texts[2], 2)
    save("mpdf-2col-damaged", invert(two, 2, [(1, 0), (4, 1), (9, 0)]), texts[2])
    one = symbol(texts[1], 1)
    save("mpdf-1col-destroyed", invert(one, 1, [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (10, 0)]), texts[1])


if __name__ == "__main__":
    main()
