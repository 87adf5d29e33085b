#!/usr/bin/env python3
"""DataMatrix Rectangular Extension (DMRE, ISO/IEC 21471) symbols for `DMRETests`, written into
`TestImages/dmre/` with their texts.

The symbols come from zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`), which takes
the DMRE sizes by number (`version=31` is 8x48 … `48` is 26x64, zint's numbering), so the images do
not depend on Seer's own reading of the standard. Each image is drawn deterministically: fixed
texts, scales, angles and damage; no randomness.
"""
import os

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dmre")

# zint's numbering of the DMRE sizes.
VERSIONS = {
    (8, 48): 31, (8, 64): 32, (8, 80): 33, (8, 96): 34, (8, 120): 35, (8, 144): 36,
    (12, 64): 37, (12, 88): 38, (16, 64): 39, (20, 36): 40, (20, 44): 41, (20, 64): 42,
    (22, 48): 43, (24, 48): 44, (24, 64): 45, (26, 40): 46, (26, 48): 47, (26, 64): 48,
}


def modules(text, size):
    """The symbol's modules (rows × columns, True = dark) for `text` in DMRE size `size`."""
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.DataMatrix, version=VERSIONS[size])
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    assert m.shape == size, (m.shape, size)
    # The writer's own reader agrees on the text.
    assert zxingcpp.read_barcode(b.to_image(scale=4)).text == text
    return m


def picture(m, scale, quiet=3):
    """Modules drawn `scale` pixels each inside a white quiet zone of `quiet` modules."""
    rows, cols = m.shape
    img = np.full(((rows + 2 * quiet) * scale, (cols + 2 * quiet) * scale), 255, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if m[r, c]:
                y, x = (r + quiet) * scale, (c + quiet) * scale
                img[y:y + scale, x:x + scale] = 0
    return Image.fromarray(img, "L")


def turned(image, degrees):
    """`image` turned by `degrees`, softened, on a grey background (contrast 0.75, lifted by 40)."""
    image = image.rotate(degrees, resample=Image.BICUBIC, expand=True, fillcolor=255)
    image = image.filter(ImageFilter.GaussianBlur(0.8))
    return Image.fromarray((np.array(image, np.float32) * 0.75 + 40).astype(np.uint8), "L")


def save(name, image, text, out=OUT):
    """`image` as NAME.png in `out`, and the text it holds as NAME.txt (empty: none)."""
    image.save(os.path.join(out, name + ".png"), optimize=True)
    with open(os.path.join(out, name + ".txt"), "w", encoding="utf-8") as f:
        f.write(text if text is not None else "")


def main():
    os.makedirs(OUT, exist_ok=True)
    # Clean symbols of four sizes.
    for size, scale, text in [
        ((8, 48), 4, "DMRE 8x48"),
        ((12, 88), 3, "Lot 4711, expiry 2027-06-30: DMRE 12x88"),
        ((20, 44), 3, "Seer reads rectangular extension sizes"),
        ((26, 40), 3, "26x40: its placement wraps below the last row"),
        ((26, 64), 3, "https://example.com/dmre/26x64?serial=000123456789&batch=AB12"),
    ]:
        save(f"dmre-{size[0]}x{size[1]}", picture(modules(text, size), scale), text)

    # Turned 9 degrees, softened, on a grey background: the outline is found at an angle.
    text = "Turned 24x48"
    save("dmre-24x48-turned", turned(picture(modules(text, (24, 48)), 4, quiet=6), 9), text)

    # Mirrored (printed or seen back to front).
    text = "Mirrored 8x96 symbol"
    save("dmre-8x96-mirrored", picture(modules(text, (8, 96)), 3).transpose(Image.FLIP_LEFT_RIGHT), text)

    # Damaged within correction: a 16x64 symbol (36 error words, up to 18 errors) with a 3 × 4
    # block of data modules inverted, at most 12 modules in at most 8 codewords.
    text = "Damaged but correctable"
    m = modules(text, (16, 64))
    m[5:8, 20:24] = ~m[5:8, 20:24]
    save("dmre-16x64-damaged", picture(m, 3), text)

    # Damaged beyond correction: an 8x48 symbol (15 error words, up to 7 errors) with 36 data
    # modules inverted across both regions; no reading.
    m = modules("Too damaged 8x48", (8, 48))
    m[2:5, 3:9] = ~m[2:5, 3:9]
    m[2:5, 28:34] = ~m[2:5, 28:34]
    save("dmre-8x48-beyond", picture(m, 4), None)

    # Not a DMRE size: an 8x64 symbol with eight columns of its second region cut out (8 × 56 modules,
    # a size no table has); no reading.
    m = modules("Cut to 8x56", (8, 64))
    m = np.concatenate([m[:, :20], m[:, 28:]], axis=1)
    save("dmre-8x56-cut", picture(m, 4), None)


if __name__ == "__main__":
    main()
