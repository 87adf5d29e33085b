#!/usr/bin/env python3
"""Large full-range Aztec symbols (ISO/IEC 24778) for `AztecTests`, written into
`TestImages/codes-2d/` as `aztec-full-*.png` with their texts.

In a full-range symbol of 14 layers or more, every crossing of the reference grid (its lines every
16 modules alternate dark and light) looks like a bull's-eye along its row and column; these
symbols hold several such crossings above their centre. One is drawn light on dark (its bull's-eye
has a light centre). They come from zxing-cpp's writer
(`pip install zxing-cpp==3.1.1 pillow numpy`), so they do not depend on Seer's own reading of the
standard; the texts come from a seeded generator, so the images are the same on every run.

    python3 TestImages/aztecfull.py
"""
import os
import random

import numpy as np
import zxingcpp
from PIL import Image, ImageOps

ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?-_/()&@#=+"
# (name, characters, pixels a module, view)
SYMBOLS = [
    ("400", 400, 2, "upright"), ("700-mirrored", 700, 2, "mirrored"), ("1100-turned", 1100, 2, "turned"),
    ("500-light-on-dark", 500, 2, "light on dark"),
]


def main():
    rng = random.Random(24778)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "codes-2d")
    for name, length, scale, view in SYMBOLS:
        text = "".join(rng.choice(ALPHABET) for _ in range(length))
        modules = np.array(zxingcpp.write_barcode_to_image(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.Aztec), scale=1))
        image = Image.fromarray(modules).resize((modules.shape[1] * scale, modules.shape[0] * scale), Image.NEAREST)
        image = ImageOps.expand(image, border=4 * scale, fill=255)
        if view == "mirrored":
            image = ImageOps.mirror(image)
        elif view == "turned":
            image = image.rotate(90, expand=True)
        elif view == "light on dark":
            image = ImageOps.invert(image)
        image.save(os.path.join(out, f"aztec-full-{name}.png"), optimize=True)
        with open(os.path.join(out, f"aztec-full-{name}.txt"), "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"aztec-full-{name}.png: {modules.shape[1]} modules a side")


if __name__ == "__main__":
    main()
