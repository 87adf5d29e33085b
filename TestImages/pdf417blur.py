#!/usr/bin/env python3
"""Blurred PDF417 and MicroPDF417 symbols for `PDF417PictureTests` and `MicroPDF417Tests`, written
into `TestImages/codes-2d/` as `pdf417-blurred-*.png` and `micropdf417-blurred-*.png` with their
texts.

Each is drawn at 3 pixels a module and blurred by a Gaussian of 1.35 pixels (0.45 of a module):
thresholded, every bar comes out wider and every space narrower, so the start and stop patterns'
and the RAPs' one-module elements miss their widths (the sums of a bar and its space keep theirs),
and a misread row indicator can name a column count the symbol's length rules out. They come
from zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`), so they do not depend on
Seer's own reading of the standard; the texts come from seeded generators, so the images are the
same on every run.

    python3 TestImages/pdf417blur.py
"""
import os
import random

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter, ImageOps

ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?-_/()&@#=+"
# Per format: the generator's seed, the texts' lengths drawn in turn from it, and those written
# (symbols the reader lost before the sums of a bar and its space were used).
SERIES = [
    ("pdf417", zxingcpp.BarcodeFormat.PDF417, 417,
     [5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47, 50, 55, 60, 65, 70, 75, 80], {11, 44}),
    ("micropdf417", zxingcpp.BarcodeFormat.MicroPDF417, 4170, [4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26], {6, 14}),
]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "codes-2d")
    for family, barcode_format, seed, lengths, keep in SERIES:
        rng = random.Random(seed)
        for length in lengths:
            text = "".join(rng.choice(ALPHABET) for _ in range(length))
            if length not in keep:
                continue
            modules = np.array(zxingcpp.write_barcode_to_image(zxingcpp.create_barcode(text, barcode_format), scale=1))
            image = Image.fromarray(modules).resize((modules.shape[1] * 3, modules.shape[0] * 3), Image.NEAREST)
            image = ImageOps.expand(image, border=24, fill=255).filter(ImageFilter.GaussianBlur(1.35))
            name = f"{family}-blurred-{length}"
            image.save(os.path.join(out, f"{name}.png"), optimize=True)
            with open(os.path.join(out, f"{name}.txt"), "w", encoding="utf-8") as handle:
                handle.write(text)
            print(f"{name}.png: {image.size[0]}x{image.size[1]}")


if __name__ == "__main__":
    main()
