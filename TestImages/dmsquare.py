#!/usr/bin/env python3
"""ECC 200 square and rectangular DataMatrix symbols (ISO/IEC 16022) for `DataMatrixSquareTests`,
written into `TestImages/dmsquare/` with their texts: sizes with several data regions and blocks,
and views libdmtx does not read, for Seer's own locator and sampler (`DMRE.swift`).

The symbols come from zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`), which takes
the sizes by number (`version=1` is 10x10 … `24` is 144x144, `25` to `30` the rectangles 8x18 …
16x48), so the images do not depend on Seer's own reading of the standard. Each image is drawn
deterministically: fixed texts, scales, views and damage; no randomness.
"""
import functools
import os

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter

import dmre
from dmre import picture
from warp import perspective

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dmsquare")
save = functools.partial(dmre.save, out=OUT)

SQUARES = [10, 12, 14, 16, 18, 20, 22, 24, 26, 32, 36, 40, 44, 48, 52, 64, 72, 80, 88, 96, 104, 120, 132, 144]
RECTANGLES = [(8, 18), (8, 32), (12, 26), (12, 36), (16, 36), (16, 48)]
VERSIONS = {(n, n): i + 1 for i, n in enumerate(SQUARES)}
VERSIONS.update({size: 25 + i for i, size in enumerate(RECTANGLES)})


def modules(text, size):
    """The symbol's modules (rows × columns, True = dark) for `text` in ECC 200 size `size`."""
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.DataMatrix, version=VERSIONS[size])
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    assert m.shape == size, (m.shape, size)
    assert zxingcpp.read_barcode(b.to_image(scale=4)).text == text
    return m



def main():
    os.makedirs(OUT, exist_ok=True)
    # 2×2 data regions, modules of about two and a half pixels, seen from an angle in low contrast:
    # libdmtx reads it only given far longer than a read allows.
    text = "Seen at an angle: 32x32, four regions"
    img = picture(modules(text, (32, 32)), 6, quiet=4)
    img = perspective(img, [(22, 14), (118, 30), (112, 122), (14, 108)], (136, 136))
    img = Image.fromarray((np.array(img, np.float32) * 0.7 + 50).astype(np.uint8), "L")
    save("dm-32x32-perspective", img, text)

    # Clean symbols with several regions and blocks: 4×4 regions in two blocks; 6×6 regions in ten
    # blocks of uneven lengths; a rectangle of two regions.
    for size, scale, text in [
        ((64, 64), 3, "64x64: sixteen data regions, two Reed-Solomon blocks. " * 3),
        ((144, 144), 2, "144x144: thirty-six data regions and ten blocks, eight of 156 words and two of 155. " * 12),
        ((16, 48), 4, "Rectangle 16x48, two regions"),
        ((24, 24), 4, "A 24x24 symbol"),
    ]:
        save(f"dm-{size[0]}x{size[1]}", picture(modules(text, size), scale), text)

    # Seen at a slant: a 22x22 symbol drawn as a sheared quadrilateral, the axis of its region's
    # inertia along a diagonal, not a side.
    text = "Sheared 22x22 at a slant"
    img = picture(modules(text, (22, 22)), 6, quiet=2)
    img = perspective(img, [(31, 46), (175, 58), (247, 167), (87, 166)], (259, 200))
    # Softened, as a photo is: libdmtx then reads nothing within a read's time.
    img = img.filter(ImageFilter.GaussianBlur(1.5))
    save("dm-22x22-slanted", img, text)

    # A dark band printed against the top of an 18x18 symbol, as wide as it: the symbol's region
    # runs on past its clock track into the band.
    text = "Band above 18x18"
    m = modules(text, (18, 18))
    m = np.concatenate([np.ones((8, 18), bool), m], axis=0)
    save("dm-18x18-band-above", picture(m, 5), text)

    # Damaged beyond correction: a 24x24 symbol (24 error words, up to 12 errors) with 5 × 10 data
    # modules inverted twice over; no reading.
    m = modules("Too damaged 24x24", (24, 24))
    m[3:8, 3:13] = ~m[3:8, 3:13]
    m[13:18, 8:18] = ~m[13:18, 8:18]
    save("dm-24x24-beyond", picture(m, 4), None)


if __name__ == "__main__":
    main()
