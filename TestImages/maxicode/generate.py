#!/usr/bin/env python3
"""MaxiCode symbols for `MaxiCodeTests`, written into `TestImages/maxicode/`: for each, the image
(`NAME.png`), its exact text (`NAME.txt`, UTF-8) and its module grid (`NAME.grid`: zint's `--dump`,
33 rows of 30 modules as hexadecimal, dark = 1).

The symbols come from Debian's zint (`apt-get install zint`, 2.11.1), so that the images do not depend
on Seer's own reading of ISO/IEC 16023; zxing-cpp (`pip install zxing-cpp==3.1.1 pillow numpy`)
must read each upright, undamaged one to the same text. Everything is deterministic: fixed texts,
angles, scales and damage.
"""
import os
import subprocess

import numpy as np
from PIL import Image, ImageDraw

OUT = os.path.dirname(os.path.abspath(__file__))
GS, RS, EOT = "\x1d", "\x1e", "\x04"

# name: (zint arguments, the text a reader reports)
SYMBOLS = {
    # Mode 2: numeric postcode, country 840, class 001, after the ISO/IEC 15434 header.
    "mode2": (["--mode=2", "--primary=152382802840001",
               "-d", "[)>" + RS + "01" + GS + "96" + "1Z00004951" + GS + "UPSN" + GS + "06X610" + GS + "159" + GS
               + "1234567" + GS + "1/1" + GS + GS + "Y" + GS + "634 ALPHA DR" + GS + "PITTSBURGH" + GS + "PA" + RS + EOT],
              "[)>" + RS + "01" + GS + "96" + "152382802" + GS + "840" + GS + "001" + GS + "1Z00004951" + GS + "UPSN" + GS
              + "06X610" + GS + "159" + GS + "1234567" + GS + "1/1" + GS + GS + "Y" + GS + "634 ALPHA DR" + GS
              + "PITTSBURGH" + GS + "PA" + RS + EOT),
    # Mode 2, a five-digit postcode and no header: the fields lead the message.
    "mode2-short": (["--mode=2", "--primary=01234276123", "-d", "Parcel 7 of 9"],
                    "01234" + GS + "276" + GS + "123" + GS + "Parcel 7 of 9"),
    # Mode 3: an alphanumeric postcode (six characters, padded with spaces as written).
    "mode3": (["--mode=3", "--primary=B1050 056999", "-d", "Hello, MaxiCode #3"],
              "B1050 " + GS + "056" + GS + "999" + GS + "Hello, MaxiCode #3"),
    "mode4": (["--mode=4", "-d", "Seer reads MaxiCode: 123456789012 & lower case, punctuation {[|]}!"],
              "Seer reads MaxiCode: 123456789012 & lower case, punctuation {[|]}!"),
    "mode5": (["--mode=5", "-d", "Enhanced error correction: MODE 5 0123456789"],
              "Enhanced error correction: MODE 5 0123456789"),
    "mode6": (["--mode=6", "-d", "READER PROGRAMMING 42"], "READER PROGRAMMING 42"),
    # Code sets C, D and E: accented capitals and small letters, symbols, a control character.
    "latin1": (["--mode=4", "-d", "ÀÉÎÕÜ àéîõü ¢£¥§©®µ¼½¾ ß ÿ Tab\there"], "ÀÉÎÕÜ àéîõü ¢£¥§©®µ¼½¾ ß ÿ Tab\there"),
    # ECI 7 (ISO/IEC 8859-5).
    "eci7": (["--mode=4", "--eci=7", "-d", "Привет, МаксиКод"], "Привет, МаксиКод"),
    # The second of three symbols of a structured-append sequence.
    "append-2of3": (["--mode=4", "--structapp=2,3", "-d", "PART TWO"], "PART TWO"),
}


def zint(args, path=None, scale=None):
    cmd = ["zint", "-b", "MAXICODE"] + args
    if path is None:
        return subprocess.run(cmd + ["--dump"], capture_output=True, text=True, check=True).stdout
    if scale:
        cmd += ["--scale=%s" % scale]
    subprocess.run(cmd + ["-o", path], check=True, capture_output=True)


def grey(path):
    return Image.open(path).convert("L")


def placed(img, angle=0, margin=60, blur=False):
    """The symbol on a white page, turned by `angle` degrees (anticlockwise)."""
    page = Image.new("L", (img.width + 2 * margin, img.height + 2 * margin), 255)
    page.paste(img, (margin, margin))
    if angle:
        page = page.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
    return page


def modules_of(codewords):
    """The (row, column) of every module of these codewords, by `MaxiCode.layout`."""
    swift = open(os.path.join(OUT, "../../Sources/SeerQR/MaxiCode.swift"), encoding="utf-8").read()
    body = swift.split("static let layout: [Int16] = [", 1)[1].split("]", 1)[0]
    layout = [int(x) for x in body.replace("\n", " ").split(",") if x.strip()]
    assert len(layout) == 990
    wanted = set(codewords)
    return [(i // 30, i % 30) for i, bit in enumerate(layout) if bit >= 0 and bit // 6 in wanted]


def main():
    import zxingcpp

    for name, (args, text) in SYMBOLS.items():
        png = os.path.join(OUT, name + ".png")
        zint(args, png, scale=2)
        img = placed(grey(png), margin=20)
        img.save(png)
        open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8").write(text)
        open(os.path.join(OUT, name + ".grid"), "w").write(zint(args))
        got = [b.text for b in zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain) if b.format == zxingcpp.BarcodeFormat.MaxiCode]
        # zxing-cpp prints GS, RS and EOT as they are; control characters are compared as such.
        assert got == [text], (name, got, text)

    # Turned, scaled and softened copies of mode 4, and one upside down.
    args, text = SYMBOLS["mode4"]
    tmp = os.path.join(OUT, "tmp.png")
    for name, angle, scale in [("mode4-turned-37", 37, 3), ("mode4-turned-150", 150, 2), ("mode4-upside-down", 180, 1.2), ("mode4-small-turned-20", 20, 1)]:
        zint(args, tmp, scale=scale)
        placed(grey(tmp), angle).save(os.path.join(OUT, name + ".png"))
        open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8").write(text)

    # A white blot over part of the secondary message (within its correction).
    zint(args, tmp, scale=2)
    img = placed(grey(tmp), margin=20)
    d = ImageDraw.Draw(img)
    d.rectangle([30, 30, 95, 70], fill=255)
    img.save(os.path.join(OUT, "mode4-blot.png"))
    open(os.path.join(OUT, "mode4-blot.txt"), "w", encoding="utf-8").write(text)
    got = [b.text for b in zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain)]
    assert got == [text], got
    # Every module of the first five primary codewords turned over (the primary corrects five), and
    # of the first six (beyond it): module positions from Seer's layout table, which `layout.py`
    # measures on zint's symbols.
    for name, words, expected in [("mode4-primary-5", 5, text), ("mode4-primary-6", 6, "")]:
        zint(args, tmp, scale=4)
        img = grey(tmp)
        d = ImageDraw.Draw(img)
        for (r, c) in modules_of(range(words)):
            x, y = 17.5 + 40 * c + (20 if r % 2 else 0), 20 + 34 * r
            dark = img.getpixel((int(x), int(y))) < 128
            hexagon = [(x + 19 * np.cos(np.pi / 6 + k * np.pi / 3), y + 19 * np.sin(np.pi / 6 + k * np.pi / 3)) for k in range(6)]
            d.polygon(hexagon, fill=255 if dark else 0)
        img = placed(img.resize((img.width // 2, img.height // 2), Image.LANCZOS), margin=20)
        img.save(os.path.join(OUT, name + ".png"))
        open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8").write(expected)
        got = [b.text for b in zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain)]
        assert got == ([expected] if expected else []), (name, got)
    os.remove(tmp)


if __name__ == "__main__":
    main()
