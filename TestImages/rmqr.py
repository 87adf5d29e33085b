#!/usr/bin/env python3
"""Rectangular Micro QR Codes (rMQR, ISO/IEC 23941) for `RMQRTests`, written into
`TestImages/rmqr/` with their texts.

The symbols come from zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`), which takes
the 32 sizes by number (`version=1` is R7x43 … `32` is R17x139) and the level as `ec_level`, so the
images do not depend on Seer's own reading of the standard. Each image is drawn deterministically:
fixed texts, scales, angles and damage; no randomness.
"""
import functools
import os

import numpy as np
import zxingcpp
from PIL import Image

import dmre
from dmre import picture

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rmqr")
save = functools.partial(dmre.save, out=OUT)

SIZES = [(7, 43), (7, 59), (7, 77), (7, 99), (7, 139), (9, 43), (9, 59), (9, 77), (9, 99), (9, 139),
         (11, 27), (11, 43), (11, 59), (11, 77), (11, 99), (11, 139), (13, 27), (13, 43), (13, 59),
         (13, 77), (13, 99), (13, 139), (15, 43), (15, 59), (15, 77), (15, 99), (15, 139), (17, 43),
         (17, 59), (17, 77), (17, 99), (17, 139)]


def modules(text, size, level="M"):
    """The symbol's modules (rows × columns, True = dark) for `text` in size `size`."""
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.RMQRCode, version=SIZES.index(size) + 1, ec_level=level)
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    assert m.shape == size, (m.shape, size)
    # The writer's own reader agrees on the text.
    assert zxingcpp.read_barcode(b.to_image(scale=4)).text == text
    return m




def main():
    os.makedirs(OUT, exist_ok=True)
    # Every size at both levels, 3 pixels a module: texts of each mode the size holds.
    texts = ["12345", "RMQR-7", "rMQR", "Size 9", "Text 0042"]
    for i, size in enumerate(SIZES):
        for level in "MH":
            text = texts[i % len(texts)]
            try:
                m = modules(text, size, level)
            except Exception:
                text = "1"
                m = modules(text, size, level)
            save(f"r{size[0]}x{size[1]}-{level}", picture(m, 3), text)

    # Every size at both levels filled: the longest run of digits the writer fits, so that the
    # data codewords end where the size's table says (a symbol too full for a terminator).
    for size in SIZES:
        for level in "MH":
            low, high = 1, 2 ** 9
            while low < high:
                middle = (low + high + 1) // 2
                try:
                    modules("7" * middle, size, level)
                    low = middle
                except Exception:
                    high = middle - 1
            save(f"full-r{size[0]}x{size[1]}-{level}", picture(modules("7" * low, size, level), 3), "7" * low)

    # Long texts fill the largest sizes: numeric, byte and mixed segments, several blocks.
    text = "3141592653589793238462643383279502884197169399375105820974944592307816406286"
    save("long-numeric-17x139-H", picture(modules(text, (17, 139), "H"), 4), text)
    text = "https://example.com/rmqr?serial=000123456789&lot=AB12"
    save("long-byte-15x139-M", picture(modules(text, (15, 139), "M"), 4), text)

    # Turned a quarter, and turned 7 degrees, softened, on a grey background.
    text = "Quarter turn"
    save("turned-90", picture(modules(text, (13, 59)), 4).rotate(90, expand=True), text)
    text = "Turned R11x77"
    save("turned-7", dmre.turned(picture(modules(text, (11, 77)), 5, quiet=6), 7), text)

    # Seen at a slant: the far end's modules about 9 % larger than the finder's.
    text = "Perspective R13x99"
    img = picture(modules(text, (13, 99)), 4, quiet=6)
    w, h = img.size
    img = img.transform((w, h), Image.PERSPECTIVE, (1, 0, 0, 0, 1, 0, 0.0001, 0), resample=Image.BICUBIC, fillcolor=255)
    save("perspective", img, text)

    # Mirrored (printed or seen back to front), and light on dark.
    text = "Mirrored R9x77"
    save("mirrored", picture(modules(text, (9, 77)), 4).transpose(Image.FLIP_LEFT_RIGHT), text)
    text = "Inverted R7x77"
    save("inverted", Image.fromarray(255 - np.array(picture(modules(text, (7, 77)), 4))), text)

    # Light on dark and cropped tight: no quiet zone in the image, 2 pixels a module.
    text = "Tight"
    m = modules(text, (7, 43), "M")
    save("inverted-tight", Image.fromarray(255 - np.array(picture(m, 2, quiet=0))), text)

    # One pixel a module, as a small label photographed from afar: the finder's rings are a pixel
    # wide, so a sample half a pixel off its centre falls between two modules.
    text = "One pixel"
    save("one-pixel-9x59", picture(modules(text, (9, 59)), 1), text)
    text = "12345678901234"
    save("one-pixel-13x43", picture(modules(text, (13, 43), "H"), 1, quiet=4), text)

    # Damaged within correction: an R11x43-M symbol (12 check codewords, up to 6 errors) with a
    # 2 × 3 block of data modules inverted (at most 3 codewords).
    text = "Damaged R11x43"
    m = modules(text, (11, 43))
    m[4:6, 20:23] = ~m[4:6, 20:23]
    save("damaged", picture(m, 4), text)

    # Damaged beyond correction: the same symbol with data modules inverted across many codewords.
    m = modules(text, (11, 43))
    m[2:9, 14:19] = ~m[2:9, 14:19]
    m[2:9, 26:31] = ~m[2:9, 26:31]
    save("beyond", picture(m, 4), None)

    # A QR Code: its finder patterns are not an rMQR's.
    text = "A QR Code, not an rMQR"
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode)
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    save("qr-code", picture(m, 4), text)


if __name__ == "__main__":
    main()
