#!/usr/bin/env python3
"""GS1 DataBar Limited symbols (ISO/IEC 24724) for `DataBarLimitedTests`, written into
`TestImages/databarltd/` with their texts.

The bars come from zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`), so the images
do not depend on Seer's own reading of the standard; zxing-cpp's reader checks each clean symbol.
The texts are Seer's form: AI (01) and the GTIN-14, digits only. Each image is drawn
deterministically: fixed GTINs, scales, angles, blur and damage; no randomness. A damaged symbol
(one bar of a data character a module wider, its neighbouring space a module narrower) has an
empty text: nothing may be read from it.
"""
import functools
import os

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter

import dmre
from dmre import picture

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "databarltd")
save = functools.partial(dmre.save, out=OUT)


def gtin14(first13):
    """The GTIN-14 of 13 digits: their check digit appended."""
    total = sum(int(d) * (3 if k % 2 == 0 else 1) for k, d in enumerate(reversed(first13)))
    return first13 + str((10 - total % 10) % 10)


def modules(gtin):
    """The symbol's 74 modules plus its 5 trailing space modules (True = bar), one row."""
    b = zxingcpp.create_barcode("(01)" + gtin, zxingcpp.BarcodeFormat.DataBarLtd)
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    row = m[m.shape[0] // 2]
    assert row.shape == (79,), row.shape
    # The writer's own reader agrees on the text.
    assert zxingcpp.read_barcode(b.to_image(scale=3)).text == "(01)" + gtin
    return row


def symbol(row, height):
    """The row drawn `height` modules high."""
    return np.tile(row, (height, 1))


def runs(row):
    """(start, length, is bar) of each element."""
    out, start = [], 0
    for k in range(1, len(row) + 1):
        if k == len(row) or row[k] != row[start]:
            out.append((start, k - start, bool(row[start])))
            start = k
    return out


def damaged(row):
    """The first narrow bar of the left data character followed by a wider space, widened by one
    module into that space: the character's widths change and its odd elements' sum turns even."""
    row = row.copy()
    elements = runs(row)
    # Elements 0 and 1 are the left guard; 2–15 the left data character.
    for (s, n, bar), (s2, n2, _) in zip(elements[2:15], elements[3:16]):
        if bar and n == 1 and n2 >= 2:
            row[s2] = True
            return row
    raise ValueError("no bar to widen")


def main():
    os.makedirs(OUT, exist_ok=True)
    gtins = [gtin14(d) for d in ["0000000000000", "0001234567890", "1501234567890", "0950110153000",
                                 "1999999999999", "0061414100041"]]
    # Clean, upright, 2–4 pixels a module and 12–20 modules high.
    for k, (g, scale, height) in enumerate(zip(gtins, [2, 3, 4, 3, 2, 3], [14, 12, 16, 20, 18, 10])):
        save(f"ltd-{k}-x{scale}", picture(symbol(modules(g), height), scale, quiet=4), "01" + g)

    # Upside down: read right to left.
    g = gtins[1]
    img = picture(symbol(modules(g), 14), 3, quiet=4).rotate(180)
    save("ltd-upside-down", img, "01" + g)

    # Turned 6 degrees on a light grey background, 3 pixels a module.
    g = gtins[2]
    img = picture(symbol(modules(g), 16), 3, quiet=6)
    img = img.rotate(6, resample=Image.BICUBIC, expand=True, fillcolor=225)
    save("ltd-turned-6", img, "01" + g)

    # Turned 90 degrees (bars lying down), 3 pixels a module.
    g = gtins[3]
    img = picture(symbol(modules(g), 14), 3, quiet=4).rotate(90, expand=True)
    save("ltd-turned-90", img, "01" + g)

    # Scaled by 2.6 (modules of 2 or 3 pixels) and blurred, low contrast.
    g = gtins[4]
    img = picture(symbol(modules(g), 14), 1, quiet=4)
    img = img.resize((int(img.width * 2.6), int(img.height * 2.6)), Image.BILINEAR)
    img = img.filter(ImageFilter.GaussianBlur(0.9))
    a = np.asarray(img).astype(np.float64)
    img = Image.fromarray((60 + a * (170 / 255)).astype(np.uint8), "L")
    save("ltd-blurred", img, "01" + g)

    # Beside an EAN-13 on one label: both are read, each in its place.
    g = gtins[5]
    ean = Image.fromarray(np.array(zxingcpp.create_barcode("4006381333931", zxingcpp.BarcodeFormat.EAN13).to_image(scale=2)))
    ltd = picture(symbol(modules(g), 16), 3, quiet=4)
    label = Image.new("L", (max(ean.width, ltd.width) + 40, ean.height + ltd.height + 60), 255)
    label.paste(ean, (20, 20))
    label.paste(ltd, (20, ean.height + 40))
    save("ltd-beside-ean13", label, "01" + g)

    # Damaged: one data character's bars altered; neither zxing-cpp nor Seer may read it.
    row = damaged(modules(gtins[1]))
    img = picture(symbol(row, 14), 3, quiet=4)
    assert not zxingcpp.read_barcodes(img), "zxing-cpp reads the damaged symbol"
    save("ltd-damaged", img, "")


if __name__ == "__main__":
    main()
