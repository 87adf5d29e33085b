#!/usr/bin/env python3
"""Symbols of every 2-D family Seer reads, drawn by zxing-cpp's writer from seeded payloads of every
kind (digits, upper case, mixed text, Latin-1, UTF-8 with an ECI, long text filling large symbols)
and shown as a scanner meets them: module sizes from 1 to 5 pixels, turned a quarter, half and
three quarters, turned a few degrees, mirrored, light on dark, blurred. A measure of the decoders
and locators on symbols nobody tuned for, beside the photos of ../shared/testdata/codes-2d.

    python3 Benchmarks/codes/sweep2d.py --out /tmp/sweep2d [--count 8] [--seed 11]
    python3 Benchmarks/codes/codes.py --dataset codes2d --data /tmp/sweep2d --no-zxing --verbose

The output has the layout of codes-2d: a folder per family and view, `N.png` with `N.txt` holding
the payload.
"""
import argparse
import os
import random

import numpy as np
from PIL import Image, ImageFilter, ImageOps

DIGITS = "0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 $%*+-./:"
MIXED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?-_/()&@#=+"
LATIN1 = "abcdeéèàüöäßñçÉÜ0123456789 "
CJK = "日本語東京大阪漢字テスト123"


def payload(kind, rng, family):
    """A payload of `kind`, sized for `family`."""
    long_ok = family not in ("microqr", "rmqr", "micropdf417")
    if kind == "digits":
        return "".join(rng.choice(DIGITS) for _ in range(rng.randrange(6, 120 if long_ok else 30)))
    if kind == "upper":
        return "".join(rng.choice(UPPER) for _ in range(rng.randrange(4, 60 if long_ok else 14))).strip() or "A1"
    if kind == "mixed":
        return "".join(rng.choice(MIXED) for _ in range(rng.randrange(4, 80 if long_ok else 12))).strip() or "Ab1"
    if kind == "latin1":
        return "".join(rng.choice(LATIN1) for _ in range(rng.randrange(4, 40 if long_ok else 8))).strip() or "é1"
    if kind == "utf8":
        return "".join(rng.choice(CJK) for _ in range(rng.randrange(2, 20 if long_ok else 4)))
    if kind == "long":
        return "".join(rng.choice(MIXED) for _ in range(rng.randrange(300, 900)))
    raise ValueError(kind)


FAMILIES = {
    "aztec": ("Aztec", ["digits", "upper", "mixed", "latin1", "utf8", "long"]),
    "datamatrix": ("DataMatrix", ["digits", "upper", "mixed", "latin1", "utf8", "long"]),
    "pdf417": ("PDF417", ["digits", "upper", "mixed", "latin1", "utf8", "long"]),
    "micropdf417": ("MicroPDF417", ["digits", "upper", "mixed", "latin1"]),
    "microqr": ("MicroQRCode", ["digits", "upper"]),
    "rmqr": ("RMQRCode", ["digits", "upper", "mixed", "latin1"]),
    "maxicode": ("MaxiCode", ["digits", "upper", "mixed"]),
}

VIEWS = ["plain", "scale1", "scale5", "turn90", "turn180", "turn270", "tilt", "mirror", "inverted", "blur"]


def draw(family, text):
    import zxingcpp
    barcode = zxingcpp.create_barcode(text, getattr(zxingcpp.BarcodeFormat, FAMILIES[family][0]))
    image = np.array(zxingcpp.write_barcode_to_image(barcode, scale=1, add_quiet_zones=True))
    return image if image.ndim == 2 else image[..., 0]


def view(modules, name, rng, family):
    """The symbol (one pixel a module) as `name` shows it."""
    scale = {"scale1": 1, "scale5": 5}.get(name, 3)
    if family == "maxicode":
        scale = max(1, scale // 3)  # its writer draws hexagons already many pixels wide
    image = Image.fromarray(modules).resize((modules.shape[1] * scale, modules.shape[0] * scale), Image.NEAREST)
    image = ImageOps.expand(image, border=8 * scale, fill=255)
    if name.startswith("turn"):
        image = image.rotate(int(name[4:]), expand=True)
    elif name == "tilt":
        image = image.rotate(rng.uniform(4, 20) * rng.choice((-1, 1)), resample=Image.BILINEAR, expand=True, fillcolor=255)
    elif name == "mirror":
        image = ImageOps.mirror(image)
    elif name == "inverted":
        image = ImageOps.invert(image)
    elif name == "blur":
        image = image.filter(ImageFilter.GaussianBlur(scale * 0.45))
    return image


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=8, help="symbols per family and view")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    made = 0
    for family in args.families.split(","):
        kinds = FAMILIES[family][1]
        for name in VIEWS:
            folder = os.path.join(args.out, f"{family}-{name}")
            os.makedirs(folder, exist_ok=True)
            n = 0
            while n < args.count:
                text = payload(kinds[n % len(kinds)], rng, family)
                try:
                    modules = draw(family, text)
                except Exception:
                    continue  # too long for the family's largest symbol: draw another
                view(modules, name, rng, family).save(os.path.join(folder, f"{n}.png"))
                with open(os.path.join(folder, f"{n}.txt"), "w", encoding="utf-8") as handle:
                    handle.write(text)
                n += 1
                made += 1
    print(f"{made} symbols in {args.out}")


if __name__ == "__main__":
    main()
