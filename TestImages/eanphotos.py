"""EAN-13 and UPC-A symbols photographed badly, and a scorer for Seer on them.

Each picture holds one symbol drawn from its own bar pattern (the digits' L, G and R codes, so no
writer library is needed) at 1.3-3.2 pixels a module, with the digits printed under it, seen in
perspective (TestImages/warp.py) and turned a little, blurred by a Gaussian of 0.3-1.1 modules,
at low contrast (ink 20-130, paper 130-235), lit unevenly, with noise, saved as JPEG. Now and
then a second symbol stands close beside it, as on a shelf. Every draw comes from one seeded
generator, so a seed and a count always give the same set.

    python3 TestImages/eanphotos.py make --out /tmp/ean-gen --count 160 --seed 6021
    python3 TestImages/eanphotos.py score --out /tmp/ean-gen --seer .build/release/seer

`score` runs `seer scan --symbologies all` over the set and counts read, wrong (a text other than
the one encoded) and missed, by module width and blur.
"""
import io
import os
import random
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import photoset  # noqa: E402
from warp import perspective  # noqa: E402

L_CODES = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
G_CODES = ["".join("1" if c == "0" else "0" for c in code)[::-1] for code in L_CODES]
R_CODES = ["".join("1" if c == "0" else "0" for c in code) for code in L_CODES]
# Parities of the left digits (G: even) for each first digit of an EAN-13.
FIRST = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]


def check_digit(digits):
    s = sum(d * (1 if i % 2 else 3) for i, d in enumerate(reversed(digits)))
    return (10 - s % 10) % 10


def modules(full):
    """The 95 modules (True: bar) of an EAN-13 of 13 digits."""
    bits = "101"
    for k in range(6):
        code = L_CODES if FIRST[full[0]][k] == "L" else G_CODES
        bits += code[full[1 + k]]
    bits += "01010"
    for k in range(6):
        bits += R_CODES[full[7 + k]]
    bits += "101"
    return [b == "1" for b in bits]


def random_symbol(rng):
    upca = rng.random() < 0.5
    body = [0 if upca else rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(11)]
    full = body + [check_digit(body)]
    text = "".join(map(str, full[1:] if upca else full))
    return ("upca" if upca else "ean13"), text, full


def font(size):
    for path in ["/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Regular.otf"]:
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    return ImageFont.load_default()


def drawn(full, scale, quiet):
    """The symbol on white, `scale` pixels a module, `quiet` modules of margin, digits below."""
    bits = modules(full)
    w = (95 + 2 * quiet) * scale
    bar_h = int(60 * scale)
    img = Image.new("L", (w, bar_h + 14 * scale), 255)
    d = ImageDraw.Draw(img)
    guards = set(range(3)) | set(range(45, 50)) | set(range(92, 95))
    for i, b in enumerate(bits):
        if b:
            x = (quiet + i) * scale
            h = bar_h + (5 * scale if i in guards else 0)
            d.rectangle([x, 0, x + scale - 1, h], fill=0)
    f = font(int(9 * scale))
    text = "".join(map(str, full))
    y = bar_h + 2 * scale
    d.text(((quiet - 8) * scale, y), text[0], fill=0, font=f)
    for k in range(6):
        d.text(((quiet + 4 + 7 * k) * scale, y), text[1 + k], fill=0, font=f)
        d.text(((quiet + 51 + 7 * k) * scale, y), text[7 + k], fill=0, font=f)
    return img


def render(rng):
    symbology, text, full = random_symbol(rng)
    ppm = rng.uniform(1.5, 3.5)
    quiet = 11
    scale = 6  # drawn large, then brought down to ppm by the perspective map
    big = drawn(full, scale, quiet)
    neighbour = None
    if rng.random() < 0.3:
        _, neighbour, other = random_symbol(rng)
        gap = rng.randint(4, 9)
        second = drawn(other, scale, quiet)
        both = Image.new("L", (big.width + second.width - (2 * quiet - gap) * scale, big.height), 255)
        both.paste(big, (0, 0))
        both.paste(second, (big.width - (2 * quiet - gap) * scale, 0))
        big = both
    # Brought down to about the final size first (area-averaged), so the perspective map, which
    # samples without averaging, does not alias the bars.
    big = big.resize((max(1, round(big.width * ppm / scale)), max(1, round(big.height * ppm / scale))), Image.LANCZOS)
    bw, bh = big.size
    sw, sh = float(bw), float(bh)
    margin = 30
    size = (int(sw + 2 * margin + rng.uniform(0, 60)), int(sh + 2 * margin + rng.uniform(0, 60)))
    cx, cy = size[0] / 2, size[1] / 2
    angle = rng.uniform(-0.2, 0.2)
    ca, sa = np.cos(angle), np.sin(angle)
    tilt = rng.uniform(-0.12, 0.12)  # one end nearer the camera than the other
    pts = []
    for (u, v) in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
        x = u * sw / 2 * (1 + tilt * v * 0.5)
        y = v * sh / 2 * (1 + tilt * u)
        pts.append((cx + ca * x - sa * y, cy + sa * x + ca * y))
    img = perspective(big, pts, size)
    blur = rng.uniform(0.2, 0.8) * ppm
    img = img.filter(ImageFilter.GaussianBlur(blur))
    a = np.asarray(img, float) / 255
    ink, paper = rng.uniform(20, 110), rng.uniform(140, 235)
    if paper - ink < 60:
        paper = ink + 60
    a = ink + (paper - ink) * a
    # Light falling off across the picture, and noise.
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    gx, gy = rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)
    a *= 1 + gx * (xx / size[0] - 0.5) + gy * (yy / size[1] - 0.5)
    nrng = np.random.default_rng(rng.randint(0, 2**31))
    a += nrng.normal(0, rng.uniform(1, 6), a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=rng.randint(45, 92))
    info = {"symbology": symbology, "text": text, "ppm": round(ppm, 2), "blur": round(blur / ppm, 2),
            "tilt": round(tilt, 3), "neighbour": neighbour}
    return buf.getvalue(), info


def make(a):
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    truth = {}
    for i in range(a.count):
        data, info = render(rng)
        name = f"{i:04d}.jpg"
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(data)
        truth[name] = info
    photoset.write_truth(a.out, truth)


def score(a):
    names, truth, got = photoset.read(a.out, a.seer, a.preset, "all")
    by = {}
    read = wrong = 0
    for n in names:
        t = truth[n]
        k = f"{'<2' if t['ppm'] < 2 else '2+'} px/module, blur {'<0.7' if t['blur'] < 0.7 else '0.7+'}"
        texts = got.get(n, [])
        ok = t["text"] in texts
        # The neighbour, when there is one, is a symbol of the picture too (as UPC-A or EAN-13).
        bad = any(x != t["text"] and x != t["neighbour"] and "0" + x != t["neighbour"] for x in texts)
        read += ok
        wrong += bad
        r = by.setdefault(k, [0, 0, 0])
        r[0] += ok
        r[1] += 1
        r[2] += bad
        if a.verbose and (bad or not ok):
            print("wrong" if bad else "miss", n, t, texts)
    for k in sorted(by):
        print(f"{k}: {by[k][0]}/{by[k][1]}" + (f", {by[k][2]} wrong" if by[k][2] else ""))
    print(f"all: {read}/{len(names)} = {100 * read / len(names):.1f} %, {wrong} wrong")


def main():
    photoset.main(make, score, count=160, seed=6021)


if __name__ == "__main__":
    main()
