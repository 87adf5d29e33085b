"""Aztec symbols under photo-like degradations, and a scorer for Seer on them.

Symbols come from the `aztec-code-generator` package (PyPI, pure Python; only for making test
images), drawn at 2-4 pixels a module with a quiet zone of 1-3 modules, then seen in perspective
(TestImages/warp.py), rotated, blurred (0-1.5 px), lit unevenly and saved as JPEG. Every draw comes
from one seeded generator, so a seed and a count always give the same set.

    pip install aztec-code-generator==0.12
    python3 TestImages/aztecphotos.py make --out /tmp/aztec-gen --count 160 --seed 24778
    python3 TestImages/aztecphotos.py score --out /tmp/aztec-gen --seer .build/release/seer

`score` runs `seer scan --symbologies aztec` over the set and counts read, wrong (a text other than
the one encoded) and missed, by symbol size.
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

# (compact, layers): the sizes drawn, compact 1-4 and full-range 5-22 layers.
KINDS = [(True, 1), (True, 2), (True, 3), (True, 4), (False, 5), (False, 8), (False, 12),
         (False, 16), (False, 20), (False, 22)]
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,:-/"


def text_for(rng, compact, layers):
    import aztec_code_generator as az
    # The package names symbols by module count; pick the configuration with these layers.
    cfg = [(s, c) for (s, c), v in az.configs.items() if c == compact and v.layers == layers]
    size = cfg[0][0]
    capacity = az.configs[(size, compact)].codewords * az.configs[(size, compact)].cw_bits
    # Text fills 35-60 % of the data bits (5 bits a character in Upper/Lower, more with latches).
    n = max(1, int(capacity * rng.uniform(0.35, 0.6) / 6.5))
    return size, "".join(rng.choice(ALPHABET) for _ in range(n))


def render(rng, compact, layers):
    import aztec_code_generator as az
    size, text = text_for(rng, compact, layers)
    code = az.AztecCode(text, size=size, compact=compact)
    m = np.array([[1 if code.matrix[y][x] in (1, "#", True) else 0 for x in range(size)]
                  for y in range(size)], dtype=np.uint8)
    ppm = rng.uniform(2.0, 4.0)
    quiet = rng.randint(1, 3)
    scale = 8  # drawn large, then brought down to ppm by the perspective map
    full = size + 2 * quiet
    big = np.full((full * scale, full * scale), 255, np.uint8)
    for y in range(size):
        for x in range(size):
            if m[y, x]:
                big[(y + quiet) * scale:(y + quiet + 1) * scale, (x + quiet) * scale:(x + quiet + 1) * scale] = 0
    img = Image.fromarray(big)
    side = full * ppm
    margin = side * 0.35 + 20
    w = h = int(side + 2 * margin)
    cx, cy = w / 2, h / 2
    angle = rng.uniform(0, 2 * np.pi)
    tilt = rng.uniform(0, 0.25)  # how far the far side shrinks
    pts = []
    for i, (u, v) in enumerate([(-1, -1), (1, -1), (1, 1), (-1, 1)]):
        shrink = 1 - tilt * (1 if v < 0 else 0) + rng.uniform(-0.04, 0.04)
        x, y = u * side / 2 * shrink, v * side / 2
        pts.append((cx + x * np.cos(angle) - y * np.sin(angle), cy + x * np.sin(angle) + y * np.cos(angle)))
    out = perspective(img, pts, (w, h))
    blur = rng.uniform(0, 1.5)
    if blur > 0.05:
        out = out.filter(ImageFilter.GaussianBlur(blur))
    a = np.asarray(out, np.float32)
    # Uneven light: a linear ramp of up to 45 % across the picture, contrast 60-100 %, noise.
    gx, gy = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
    d = rng.uniform(0, 2 * np.pi)
    ramp = 1 - rng.uniform(0, 0.45) * (0.5 + 0.5 * (np.cos(d) * gx + np.sin(d) * gy))
    lo = rng.uniform(0, 70)
    hi = rng.uniform(190, 255)
    a = (lo + (hi - lo) * a / 255) * ramp + np.random.default_rng(rng.randrange(1 << 30)).normal(0, 4, a.shape)
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=rng.randint(35, 85))
    return text, buf.getvalue(), dict(size=size, compact=compact, layers=layers, ppm=round(ppm, 2),
                                      quiet=quiet, blur=round(blur, 2), tilt=round(tilt, 2))


def make(a):
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    truth = {}
    for i in range(a.count):
        compact, layers = KINDS[i % len(KINDS)]
        text, jpeg, info = render(rng, compact, layers)
        name = f"{i:04d}-{'c' if compact else 'f'}{layers}.jpg"
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(jpeg)
        truth[name] = dict(text=text, **info)
    photoset.write_truth(a.out, truth)


def score(a):
    names, truth, got = photoset.read(a.out, a.seer, a.preset, "aztec")
    by = {}
    read = wrong = 0
    for n in names:
        t = truth[n]
        k = f"{'compact' if t['compact'] else 'full'} {t['layers']:2d}"
        texts = got.get(n, [])
        ok = t["text"] in texts
        bad = any(x != t["text"] for x in texts)
        read += ok
        wrong += bad
        r = by.setdefault(k, [0, 0, 0])
        r[0] += ok
        r[1] += 1
        r[2] += bad
        if a.verbose and not ok:
            print("miss", n, t["ppm"], t["blur"], t["tilt"], t["quiet"])
    for k in sorted(by):
        print(f"{k}: {by[k][0]}/{by[k][1]}" + (f", {by[k][2]} wrong" if by[k][2] else ""))
    print(f"all: {read}/{len(names)} = {100 * read / len(names):.1f} %, {wrong} wrong")


def main():
    photoset.main(make, score, count=160, seed=24778)

if __name__ == "__main__":
    main()
