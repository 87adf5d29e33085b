#!/usr/bin/env python3
"""PDF417 symbols for `PDF417Tests`, written next to this script with their texts: a symbol seen at
a slant (its near end larger than its far one), symbols cut through their stop or start pattern
by the picture's edge, one of a single column filling its picture, a flat one of three rows, a
long one turned 6°, and small ones of a pixel a module with rows two pixels and one pixel tall.

The symbols come from the `pdf417gen` encoder (`pip install pdf417gen pillow numpy`), so the images
do not depend on Seer's own reading of the standard. Everything is drawn deterministically: fixed
texts, scales and views; no randomness.
"""
import os
import sys

import pdf417gen
from PIL import Image, ImageFilter

OUT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(OUT))
from warp import perspective  # noqa: E402


def symbol(text, columns, level, scale=3, ratio=3, padding=12):
    """The symbol for `text` drawn `scale` pixels a module, rows `ratio` modules tall, grey."""
    codes = pdf417gen.encode(text, columns=columns, security_level=level)
    return pdf417gen.render_image(codes, scale=scale, ratio=ratio, padding=padding).convert("L")


def save(name, image, text):
    """`image` as NAME.png here, and the text it holds as NAME.txt."""
    image.save(os.path.join(OUT, name + ".png"), optimize=True)
    with open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8") as f:
        f.write(text)


def main():
    # Seen at a slant: the start pattern's end about 1.3 times as tall and its modules as wide as
    # the stop pattern's, softened.
    text = "PDF417 seen at a slant"
    img = symbol(text, columns=3, level=2)
    img = perspective(img, [(80, 20), (400, 35), (400, 145), (80, 160)], (480, 180))
    save("pdf417-slanted", img.filter(ImageFilter.GaussianBlur(0.8)), text)

    # Cut by the picture's edge through the stop pattern (its last ten modules and the quiet zone
    # gone), then the same through the start pattern.
    text = "Cut through its stop pattern"
    img = symbol(text, columns=4, level=3, padding=24)
    w, h = img.size
    save("pdf417-no-stop", img.crop((0, 0, w - 24 - 3 * 10, h)), text)
    # Cut through its stop pattern and, besides, two columns of codewords wiped out down every row:
    # more erasures than its check codewords correct; no reading.
    img = symbol("Cut and wiped beyond correction", columns=4, level=3, padding=24)
    w, h = img.size
    img.paste(255, (24 + 3 * 17 * 3, 0, 24 + 3 * 17 * 5, h))
    save("pdf417-no-stop-beyond", img.crop((0, 0, w - 24 - 3 * 10, h)), "")

    # One column of codewords filling a short picture: the start pattern's 8-module bar is wider
    # than a window of a sixteenth of the line.
    text = "One column"
    save("pdf417-one-column", symbol(text, columns=1, level=2, padding=24), text)

    # Flat: three rows of thirty columns, under 30 pixels tall once the picture is halved.
    text = "A flat symbol: three rows of thirty columns and more, read across the rows, every one of them, at last"
    save("pdf417-flat", symbol(text, columns=30, level=2, padding=30), text)

    # Turned 6°, long and low: a scan line that meets the start pattern in one row meets the stop
    # pattern five rows away.
    text = "Turned 6 degrees, 6 columns long, rows 3 modules tall"
    img = symbol(text, columns=6, level=2, padding=24)
    save("pdf417-turned-6deg", img.rotate(6, resample=Image.BICUBIC, expand=True, fillcolor=255), text)

    # A pixel a module and rows two pixels tall (as some printers and screens draw them): averaged
    # a pixel across the line, each row would take a third of its neighbours.
    text = "One pixel a module, rows two pixels tall, with many rows to keep apart"
    save("pdf417-one-pixel-rows-2", symbol(text, columns=4, level=1, scale=1, ratio=2, padding=4), text)
    # Rows a pixel tall: only lines through pixel centres see one row at a time.
    text = "Rows one pixel tall"
    save("pdf417-one-pixel-rows-1", symbol(text, columns=3, level=2, scale=1, ratio=1, padding=2), text)

    text = "Cut through its start pattern"
    img = symbol(text, columns=4, level=3, padding=24)
    w, h = img.size
    save("pdf417-no-start", img.crop((24 + 3 * 10, 0, w, h)), text)


if __name__ == "__main__":
    main()
