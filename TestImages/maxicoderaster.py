#!/usr/bin/env python3
"""MaxiCode symbols rastered at five pixels a module, for `MaxiCodeTests` and `OtherSymbologyTests`,
written into `TestImages/codes-2d/` as `maxicode-raster-*.png` with their texts.

zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`; zint inside) rasters a MaxiCode with
its hexagons five pixels apart along a row and its rows four pixels apart, 0.8 of a module where a
hexagonal grid has √3/2, and draws the bull's-eye to scale (its outer ring 4.7 modules across, not
4.47): on the standard's grid the orientation modules fall beside their places. One symbol upright,
one turned 23° (bilinear), one blurred; the texts come from a seeded generator, so the images are
the same on every run.

    python3 TestImages/maxicoderaster.py
"""
import os
import random

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter, ImageOps

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 abcdefghijklmnopqrstuvwxyz"


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "codes-2d")
    rng = random.Random(5705)
    for name, length in [("upright", 12), ("turned-23", 40), ("blurred", 70)]:
        text = "".join(rng.choice(ALPHABET) for _ in range(length))
        modules = np.array(zxingcpp.write_barcode_to_image(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.MaxiCode), scale=1))
        image = ImageOps.expand(Image.fromarray(modules), border=16, fill=255)
        if name == "turned-23":
            image = image.rotate(23, resample=Image.BILINEAR, expand=True, fillcolor=255)
        elif name == "blurred":
            image = image.filter(ImageFilter.GaussianBlur(1.2))
        base = f"maxicode-raster-{name}"
        image.save(os.path.join(out, f"{base}.png"), optimize=True)
        with open(os.path.join(out, f"{base}.txt"), "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"{base}.png: {image.size[0]}x{image.size[1]}")


if __name__ == "__main__":
    main()
