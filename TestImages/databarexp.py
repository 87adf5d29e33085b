#!/usr/bin/env python3
"""GS1 DataBar Expanded and Expanded Stacked symbols (ISO/IEC 24724) for `DataBarExpandedTests`,
written into `TestImages/databarexp/` with their texts.

The bars come from zxing-cpp's writer (`pip install zxing-cpp==3.1.1 pillow numpy`), so the images
do not depend on Seer's own reading of the standard; each text is zxing-cpp's reading of the clean
symbol (the element string, GS after a field of variable length). The contents cover every
encodation method (AI 01 with weights, prices, currencies and dates; none), the numeric,
alphanumeric and ISO/IEC 646 modes (lower case, punctuation, the space) and FNC1. Each image is
drawn deterministically: fixed contents, scales, angles and blur; no randomness. A damaged symbol
(one bar of a data character a module wider, the space after it a module narrower) has an empty
text: nothing may be read from it.
"""
import functools
import os

import numpy as np
import zxingcpp
from PIL import Image, ImageFilter

import dmre
from dmre import picture

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "databarexp")
save = functools.partial(dmre.save, out=OUT)
EXP, STK = zxingcpp.BarcodeFormat.DataBarExp, zxingcpp.BarcodeFormat.DataBarExpStk


def modules(content, fmt):
    """The symbol's modules (True = bar), every row, and zxing-cpp's text for it."""
    b = zxingcpp.create_barcode(content, fmt)
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    r = zxingcpp.read_barcode(b.to_image(scale=3), text_mode=zxingcpp.TextMode.Plain)
    assert r is not None and r.valid, content
    return m, r.text


def damaged(m):
    """The first narrow bar of the first pair's second data character (modules 34–50) widened by a
    module into the wider space after it, on every row."""
    m = m.copy()
    row = m[m.shape[0] // 2]
    for x in range(35, 49):
        if row[x] and not row[x - 1] and not row[x + 1] and not row[x + 2]:
            m[:, x + 1] = True
            return m
    raise ValueError("no bar to widen")


def main():
    os.makedirs(OUT, exist_ok=True)
    # Upright, with quiet zones: every encodation method.
    for name, content, scale in [
        ("exp-3103", "(01)98898765432106(3103)001750", 2),
        ("exp-3202", "(01)90012345678908(3202)001234", 3),
        ("exp-392x", "(01)90012345678908(3922)795", 2),
        ("exp-393x", "(01)90012345678908(3932)978795", 2),
        ("exp-weight-date", "(01)90012345678908(3103)012233(15)991231", 2),
        ("exp-alpha", "(10)123456A1234A(15)991231", 2),
        ("exp-space", "(10)1098 1234", 3),
        ("exp-iso646", "(21)abcdefg hij!%&", 2),
        ("exp-gtin-fields", "(01)98898765432106(15)991231(3103)001750(10)12A(422)123(21)123456(423)012345678901", 2),
        ("stk-deusto", "(01)12345678901231(10)UNIVERSITY-OF-DEUSTO", 2),
        ("stk-punctuation", "(10)1;:/ABCDEFGHIJKLM", 2),
        ("stk-date-lot", "(01)00012345678905(17)201231(10)ABC123", 3),
    ]:
        m, text = modules(content, STK if name.startswith("stk") else EXP)
        save(name, picture(m, scale, quiet=4), text)

    # Modules of one pixel, no quiet zone (as cropped symbols come).
    m, text = modules("(10)123456A1234A(15)991231", EXP)
    save("exp-alpha-x1", picture(m, 1, quiet=0), text)
    m, text = modules("(10)1;:/ABCDEFGHIJKLM", STK)
    save("stk-punctuation-x1", picture(m, 1, quiet=0), text)

    # Three pixels a module, no quiet zone: the last row's far pair lies well past its patch.
    m, text = modules("(01)97457392788423(21)6254105781(17)950921", STK)
    save("stk-x3", picture(m, 3, quiet=0), text)

    # Upside down: every row read right to left.
    m, text = modules("(01)12345678901231(10)PIRAMIDE-PROJECT", STK)
    save("stk-upside-down", picture(m, 2, quiet=4).rotate(180), text)

    # Turned 4 degrees and softened on a light grey background, 3 pixels a module.
    m, text = modules("(01)98898765432106(3103)001750", EXP)
    img = picture(m, 3, quiet=6).rotate(4, resample=Image.BICUBIC, expand=True, fillcolor=255)
    img = img.filter(ImageFilter.GaussianBlur(0.7))
    img = Image.fromarray((np.asarray(img).astype(np.float64) * 0.8 + 30).astype(np.uint8), "L")
    save("exp-turned", img, text)

    # Damaged: one data character's bars altered; zxing-cpp reads nothing, nor may Seer.
    m, _ = modules("(10)123456A1234A(15)991231", EXP)
    img = picture(damaged(m), 2, quiet=4)
    assert not zxingcpp.read_barcodes(img), "zxing-cpp reads the damaged symbol"
    save("exp-damaged", img, "")


if __name__ == "__main__":
    main()
