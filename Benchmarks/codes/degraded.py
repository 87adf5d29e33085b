#!/usr/bin/env python3
"""Degraded renderings of 1-D codes, for measuring beyond the photos: EAN-13, UPC-A and EAN-8
drawn here from their digits, Code 128 drawn by zxing-cpp's writer, each placed on a grey page and
degraded as photos are: blur, perspective, curvature, glare, low resolution and JPEG loss, alone
and together. Payloads and degradations come from one seeded generator, so a run is repeatable.

    python3 Benchmarks/codes/degraded.py --out /tmp/degraded [--count 12] [--seed 7]
    python3 Benchmarks/codes/codes.py --dataset barcodes --data /tmp/degraded --presets balanced

The output has the layout of ../shared/testdata/barcodes (a folder per family and degradation,
`N.png` with `N.txt` holding the expected text, UPC-A as GTIN-13 as the scorer expects).
"""
import argparse
import io
import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

L = ["3211", "2221", "2122", "1411", "1132", "1231", "1114", "1312", "1213", "3112"]
PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]


def check_digit(digits):
    s = sum(d * (3 if k % 2 == 0 else 1) for k, d in enumerate(reversed(digits)))
    return (10 - s % 10) % 10


def digit_modules(d, even, right):
    w = [int(c) for c in L[d]]
    if even:
        w.reverse()
    out, bar = [], right
    for n in w:
        out += [bar] * n
        bar = not bar
    return out


def ean13_modules(digits):
    m = [True, False, True]
    for k in range(6):
        m += digit_modules(digits[1 + k], PARITY[digits[0]][k] == "G", False)
    m += [False, True, False, True, False]
    for k in range(6):
        m += digit_modules(digits[7 + k], False, True)
    return m + [True, False, True]


def ean8_modules(digits):
    m = [True, False, True]
    for k in range(4):
        m += digit_modules(digits[k], False, False)
    m += [False, True, False, True, False]
    for k in range(4):
        m += digit_modules(digits[4 + k], False, True)
    return m + [True, False, True]


def symbol(family, rng):
    """(modules or a PIL image, expected text)."""
    if family in ("ean13", "upca"):
        d = [0 if family == "upca" else rng.randrange(1, 10)] + [rng.randrange(10) for _ in range(11)]
        d.append(check_digit(d))
        return ean13_modules(d), "".join(map(str, d))
    if family == "ean8":
        d = [rng.randrange(10) for _ in range(7)]
        d.append(check_digit(d))
        return ean8_modules(d), "".join(map(str, d))
    import zxingcpp
    text = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-") for _ in range(rng.randrange(6, 14)))
    img = zxingcpp.write_barcode_to_image(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.Code128), scale=1,
                                          add_hrt=False, add_quiet_zones=False)
    a = np.array(img)
    a = a if a.ndim == 2 else a[..., 0]
    row = a[a.shape[0] // 2]
    return [bool(v < 128) for v in row], text


def draw(modules, module_px, height_px, quiet):
    w = (len(modules) + 2 * quiet) * module_px
    img = Image.new("L", (w, height_px + 2 * module_px * 4), 235)
    d = ImageDraw.Draw(img)
    for k, bar in enumerate(modules):
        if bar:
            x = (quiet + k) * module_px
            d.rectangle([x, module_px * 4, x + module_px - 1, module_px * 4 + height_px - 1], fill=25)
    return img


def place(code, rng, page=(900, 700)):
    bg = Image.new("L", page, rng.randrange(150, 210))
    # Some texture on the page: soft blobs.
    d = ImageDraw.Draw(bg)
    for _ in range(12):
        x, y, r = rng.randrange(page[0]), rng.randrange(page[1]), rng.randrange(20, 120)
        d.ellipse([x - r, y - r, x + r, y + r], fill=rng.randrange(120, 230))
    bg = bg.filter(ImageFilter.GaussianBlur(25))
    angle = rng.uniform(-8, 8)
    code = code.rotate(angle, expand=True, fillcolor=235, resample=Image.BICUBIC)
    scale = min(1.0, 0.85 * page[0] / code.width, 0.85 * page[1] / code.height)
    if scale < 1:
        code = code.resize((int(code.width * scale), int(code.height * scale)), Image.LANCZOS)
    mask = Image.new("L", code.size, 255).rotate(0)
    x = rng.randrange(0, max(1, page[0] - code.width))
    y = rng.randrange(0, max(1, page[1] - code.height))
    bg.paste(code, (x, y), mask)
    return bg


def perspective(img, rng, amount=0.12):
    w, h = img.size
    j = lambda s: rng.uniform(0, amount) * s
    quad = (j(w), j(h), j(w), h - j(h), w - j(w), h - j(h), w - j(w), j(h))
    return img.transform((w, h), Image.QUAD, quad, resample=Image.BICUBIC, fillcolor=180)


def curvature(img, rng):
    a = np.array(img).astype(np.float32)
    h, w = a.shape
    amp = rng.uniform(4, 10)
    out = np.empty_like(a)
    xs = np.arange(w)
    for y in range(h):
        shift = amp * math.sin(math.pi * y / h)
        out[y] = np.interp(xs + shift * (xs - w / 2) / (w / 2), xs, a[y])
    return Image.fromarray(out.clip(0, 255).astype(np.uint8))


def glare(img, rng):
    a = np.array(img).astype(np.float32)
    h, w = a.shape
    cx, cy, r = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h, rng.uniform(0.1, 0.25) * w
    yy, xx = np.mgrid[0:h, 0:w]
    g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    a = a + g * (255 - a) * rng.uniform(0.5, 0.8)
    return Image.fromarray(a.clip(0, 255).astype(np.uint8))


def jpeg(img, quality):
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert("L")


DEGRADATIONS = {
    "blur": lambda im, r: im.filter(ImageFilter.GaussianBlur(r.uniform(1.2, 2.2))),
    "perspective": lambda im, r: perspective(im, r),
    "curved": lambda im, r: curvature(im, r),
    "glare": lambda im, r: glare(im, r),
    "lowres": lambda im, r: im.resize((im.width * 2 // 5, im.height * 2 // 5), Image.BILINEAR),
    "jpeg": lambda im, r: jpeg(im, r.randrange(12, 25)),
    "mixed": lambda im, r: jpeg(perspective(im.filter(ImageFilter.GaussianBlur(r.uniform(0.8, 1.4))), r, 0.08), 35),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=10, help="photos per family and degradation")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--families", default="ean13,upca,ean8,code128")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    for family in a.families.split(","):
        for name, degrade in DEGRADATIONS.items():
            folder = os.path.join(a.out, f"{family}-{name}")
            os.makedirs(folder, exist_ok=True)
            for i in range(a.count):
                modules, text = symbol(family, rng)
                module_px = rng.choice([2, 3, 3, 4])
                code = draw(modules, module_px, int(len(modules) * module_px * rng.uniform(0.35, 0.6)), 12)
                img = degrade(place(code, rng), rng)
                img.save(os.path.join(folder, f"{i}.png"))
                with open(os.path.join(folder, f"{i}.txt"), "w") as f:
                    f.write(text)
    print(f"written to {a.out}")


if __name__ == "__main__":
    main()
