"""DataMatrix and PDF417 symbols under photo-like degradations, and a scorer for Seer on them.

Symbols come from zxing-cpp's writer (PyPI `zxing-cpp`; only for making test images): ECC 200
DataMatrix squares and rectangles by size, and PDF417 by column count and error correction level.
They are drawn at 2-4 pixels a module (PDF417: 2-4 pixels the narrowest bar) with a quiet zone of
1-3 modules (PDF417: 2-4), sometimes bent a little as on a bottle, sometimes (DataMatrix) light on
dark, seen in perspective (TestImages/warp.py), turned at any angle, blurred (0-1.5 px), printed on
a textured paper, lit unevenly, with noise, and saved as JPEG. Every draw comes from one seeded
generator, so a seed and a count always give the same set.

    pip install zxing-cpp==3.1.1 pillow numpy
    python3 TestImages/dmpdfphotos.py make --out /tmp/dmpdf-gen --count 192 --seed 3417
    python3 TestImages/dmpdfphotos.py score --out /tmp/dmpdf-gen --seer .build/release/seer

`score` runs `seer scan --symbologies datamatrix,pdf417` over the set and counts read, wrong (a
text other than the one encoded) and missed, by kind.
"""
import io
import os
import random
import sys

import numpy as np
from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import photoset  # noqa: E402
from warp import perspective  # noqa: E402

SQUARES = [10, 12, 14, 16, 18, 20, 22, 24, 26, 32, 36, 40, 44, 48, 52, 64, 72, 80, 88, 96, 104, 120, 132, 144]
RECTANGLES = [(8, 18), (8, 32), (12, 26), (12, 36), (16, 36), (16, 48)]
VERSIONS = {(n, n): i + 1 for i, n in enumerate(SQUARES)}
VERSIONS.update({size: 25 + i for i, size in enumerate(RECTANGLES)})
# Data codewords of each DataMatrix size (ISO/IEC 16022 table 7), for the text's length.
CAPACITY = {(12, 12): 5, (16, 16): 12, (20, 20): 22, (24, 24): 36, (32, 32): 62, (40, 40): 114,
            (52, 52): 204, (8, 32): 10, (12, 26): 16, (16, 36): 32, (16, 48): 49}

# The kinds drawn, in turn: DataMatrix squares and rectangles by size, PDF417 by data columns.
KINDS = [("dm", (12, 12)), ("dm", (16, 16)), ("dm", (20, 20)), ("dm", (24, 24)), ("dm", (32, 32)),
         ("dm", (40, 40)), ("dm", (52, 52)), ("dm", (8, 32)), ("dm", (12, 26)), ("dm", (16, 36)),
         ("dm", (16, 48)), ("pdf", 2), ("pdf", 3), ("pdf", 4), ("pdf", 6), ("pdf", 8)]
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,:-/"


def random_text(rng, n):
    # Runs of digits now and then, as in serial and lot numbers.
    out = ""
    while len(out) < n:
        if rng.random() < 0.3:
            out += "".join(rng.choice("0123456789") for _ in range(rng.randint(2, 8)))
        else:
            out += rng.choice(ALPHABET)
    return out[:n]


def datamatrix(rng, size):
    import zxingcpp
    n = max(1, int(CAPACITY[size] * rng.uniform(0.5, 1.0)))
    while True:
        text = random_text(rng, n)
        try:
            b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.DataMatrix, version=VERSIONS[size])
        except Exception:
            n -= 1
            continue
        m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
        if m.shape == size:
            return text, m
        n -= 1


def pdf417(rng, columns):
    import zxingcpp
    text = random_text(rng, rng.randint(8, 30 * columns))
    level = rng.randint(2, 5)
    b = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.PDF417, columns=columns, ec_level=str(level))
    m = np.array(b.to_image(scale=1, add_quiet_zones=False)) < 128
    return text, m, level


def render(rng, kind, arg):
    info = {}
    if kind == "dm":
        text, m = datamatrix(rng, arg)
        quiet = rng.randint(1, 3)
        ppm = rng.uniform(2.0, 4.0)
    else:
        text, m, level = pdf417(rng, arg)
        info["level"] = level
        quiet = rng.randint(2, 4)
        ppm = rng.uniform(2.0, 4.0)
    rows, cols = m.shape
    scale = 8  # drawn large, then brought down to ppm by the perspective map
    big = np.full(((rows + 2 * quiet) * scale, (cols + 2 * quiet) * scale), 255, np.uint8)
    for y in range(rows):
        for x in range(cols):
            if m[y, x]:
                big[(y + quiet) * scale:(y + quiet + 1) * scale, (x + quiet) * scale:(x + quiet + 1) * scale] = 0
    inverted = kind == "dm" and rng.random() < 0.2
    if inverted:
        big = 255 - big
    bend = 0.0
    if rng.random() < 0.4:
        # Bent as on a bottle: columns shifted along a parabola by up to 0.6 modules.
        bend = rng.uniform(0.2, 0.6)
        h, w = big.shape
        pad = int(bend * scale) + 2
        bent = np.full((h + 2 * pad, w), 255 if not inverted else 255, np.uint8)
        xs = np.linspace(-1, 1, w)
        for x in range(w):
            dy = pad + int(round(bend * scale * (1 - xs[x] ** 2)))
            bent[dy:dy + h, x] = big[:, x]
        big = bent
    img = Image.fromarray(big)
    bh, bw = big.shape
    sw, sh = bw / scale * ppm, bh / scale * ppm
    side = max(sw, sh)
    margin = side * 0.3 + 20
    w, h = int(sw + 2 * margin), int(sh + 2 * margin)
    if max(sw, sh) > 2.2 * min(sw, sh):
        w = h = int(side + 2 * margin)  # room to turn a long symbol
    cx, cy = w / 2, h / 2
    angle = rng.uniform(0, 2 * np.pi) if rng.random() < 0.6 else rng.choice([0, 0.5, 1, 1.5]) * np.pi + rng.uniform(-0.1, 0.1)
    tilt = rng.uniform(0, 0.25)  # how far the far side shrinks
    pts = []
    for u, v in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
        shrink = 1 - tilt * (1 if v < 0 else 0) + rng.uniform(-0.04, 0.04)
        x, y = u * sw / 2 * shrink, v * sh / 2
        pts.append((cx + x * np.cos(angle) - y * np.sin(angle), cy + x * np.sin(angle) + y * np.cos(angle)))
    out = perspective(img, pts, (w, h))
    blur = rng.uniform(0, 1.5)
    if blur > 0.05:
        out = out.filter(ImageFilter.GaussianBlur(blur))
    a = np.asarray(out, np.float32)
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    # Paper: smooth blotches of up to 15 % and a fine grain.
    texture = np.ones_like(a)
    if rng.random() < 0.5:
        coarse = nrng.normal(0, 1, (h // 12 + 2, w // 12 + 2)).astype(np.float32)
        coarse = np.asarray(Image.fromarray(coarse).resize((w, h), Image.BICUBIC))
        texture = 1 - rng.uniform(0.05, 0.15) * np.clip(np.abs(coarse), 0, 1.5) / 1.5
        texture = texture * (1 + nrng.normal(0, 0.03, a.shape))
    # Uneven light: a linear ramp of up to 45 % across the picture, contrast 60-100 %, noise.
    gx, gy = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
    d = rng.uniform(0, 2 * np.pi)
    ramp = 1 - rng.uniform(0, 0.45) * (0.5 + 0.5 * (np.cos(d) * gx + np.sin(d) * gy))
    lo = rng.uniform(0, 70)
    hi = rng.uniform(190, 255)
    a = (lo + (hi - lo) * a / 255) * texture * ramp + nrng.normal(0, 4, a.shape)
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=rng.randint(35, 85))
    info.update(ppm=round(ppm, 2), quiet=quiet, blur=round(blur, 2), tilt=round(tilt, 2),
                angle=round(float(np.degrees(angle)) % 360, 1), bend=round(bend, 2), inverted=inverted)
    return text, buf.getvalue(), info


def kind_name(kind, arg):
    if kind == "dm":
        return f"dm{arg[0]}x{arg[1]}"
    return f"pdf{arg}c"


def make(a):
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    truth = {}
    for i in range(a.count):
        kind, arg = KINDS[i % len(KINDS)]
        text, jpeg, info = render(rng, kind, arg)
        name = f"{i:04d}-{kind_name(kind, arg)}.jpg"
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(jpeg)
        truth[name] = dict(text=text, kind=kind_name(kind, arg), **info)
    photoset.write_truth(a.out, truth)


def score(a):
    names, truth, got = photoset.read(a.out, a.seer, a.preset, "datamatrix,pdf417")
    by = {}
    read = wrong = 0
    for n in names:
        t = truth[n]
        k = t["kind"]
        texts = got.get(n, [])
        ok = t["text"] in texts
        bad = any(x != t["text"] for x in texts)
        read += ok
        wrong += bad
        r = by.setdefault(k, [0, 0, 0])
        r[0] += ok
        r[1] += 1
        r[2] += bad
        if a.verbose and (not ok or bad):
            print("wrong" if bad else "miss", n, {x: t[x] for x in t if x not in ("text", "kind")})
    for k in sorted(by, key=lambda k: (k[:2], [int(x) for x in k.strip("dmpfc").split("x")])):
        print(f"{k}: {by[k][0]}/{by[k][1]}" + (f", {by[k][2]} wrong" if by[k][2] else ""))
    for fam in ("dm", "pdf"):
        ks = [k for k in by if k.startswith(fam)]
        r, n = sum(by[k][0] for k in ks), sum(by[k][1] for k in ks)
        print(f"{'datamatrix' if fam == 'dm' else 'pdf417'}: {r}/{n}")
    print(f"all: {read}/{len(names)} = {100 * read / len(names):.1f} %, {wrong} wrong")


def main():
    photoset.main(make, score, count=192, seed=3417)

if __name__ == "__main__":
    main()
