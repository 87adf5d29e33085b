#!/usr/bin/env python3
"""Work per photo, against issue 36's bound: no photo takes more than 3 s of CPU in
`seer scan --read codes,plates` at the default preset, or more than twice its decoded size plus
100 MB of memory.

Generates photos of every format Seer reads at just under the 100-MP pixel limit (9 999 × 9 999),
and the scenes that were slow before (a sheet of 256 tiled codes, 81 MP of pixel noise, 12 MP of
bar-like bands, 100 MP of plate-like text), then runs one `seer scan --read codes,plates` process on
each under `/usr/bin/time` and prints its CPU time (user + system) and peak resident memory beside
the bound. "Decoded size" is the image the file holds, at its own channel count (colour files 3 bytes
a pixel, grey ones 1), as `seer decode` writes it; the bound on Seer's grey work image alone (1 byte
a pixel) is printed too.

    python3 Benchmarks/bounds/bounds.py [--seer .build/release/seer] [--work /tmp/seer-bounds] [--only NAME...]

Needs: pip numpy pillow segno; apt libheif-examples (heif-enc). Deterministic (fixed seeds); the
photos are written once into --work and reused.
"""
import argparse
import io
import json
import os
import random
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "TestImages"))
SIDE = 9999  # 99.98 MP: the largest square under the 100-MP limit


def blocks(seed, side=SIDE, colour=True):
    """8×8 blocks of random values: a photo-sized image every decoder must decode in full."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (side // 8 + 1, side // 8 + 1, 3) if colour else (side // 8 + 1, side // 8 + 1), dtype=np.uint8)
    return Image.fromarray(small).resize((side, side), Image.NEAREST)


def heic_grid(path, image, tile=512):
    """A HEIC grid of `tile`² HEVC tiles, as phones write large photos: one tile coded by heif-enc
    and used for every cell (the decoder decodes each), the grid cropped to the image's size."""
    import tempfile
    from heifmux import coded_image, write_heif
    with tempfile.TemporaryDirectory() as tmp:
        image.crop((0, 0, tile, tile)).save(os.path.join(tmp, "t.png"))
        subprocess.run(["heif-enc", "-q", "60", "-o", os.path.join(tmp, "t.heic"), os.path.join(tmp, "t.png")],
                       check=True, stdout=subprocess.DEVNULL)
        coded = coded_image(open(os.path.join(tmp, "t.heic"), "rb").read())
    cols, rows = -(-image.width // tile), -(-image.height // tile)
    write_heif(path, [coded] * (rows * cols), grid=(rows, cols, image.width, image.height))


def rgba16(path):
    """A 16-bit RGBA PNG (8 bytes a pixel before decoding) of a grey ramp, written row by row."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ramp = np.repeat((np.arange(SIDE, dtype=np.uint32) * 65535 // SIDE).astype(">u2"), 4)
    ramp[3::4] = 65535
    row = b"\0" + ramp.tobytes()
    z = zlib.compressobj(1)
    data = b"".join(z.compress(row) for _ in range(SIDE)) + z.flush()
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", SIDE, SIDE, 16, 6, 0, 0, 0))
                + chunk(b"IDAT", data) + chunk(b"IEND", b""))


def code_sheet(path):
    """A 2 896² sheet of 256 small codes (segno picks Micro QR for these texts), 175 px apart."""
    import segno
    sheet = Image.new("L", (2896, 2896), 255)
    k = 0
    for y in range(0, 2896 - 180, 181):
        for x in range(0, 2896 - 180, 181):
            buf = io.BytesIO()
            segno.make(f"TILE-{k}", error="m").save(buf, kind="png", scale=5, border=2)
            buf.seek(0)
            sheet.paste(Image.open(buf).convert("L").resize((175, 175)), (x, y))
            k += 1
    sheet.save(path)


def text_page(path):
    """100 MP of plate-like strings (7 letters and digits in a bold sans), row after row."""
    img = Image.new("L", (SIDE, SIDE), 235)
    d = ImageDraw.Draw(img)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 60)
    r = random.Random(3)
    chars = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
    for y in range(0, SIDE - 80, 110):
        for x in range(20, SIDE - 400, 330):
            d.text((x, y), "".join(r.choice(chars) for _ in range(7)), font=font, fill=20)
    img.save(path, quality=85)


def photos():
    """(file name, channels of the decoded image, maker)."""
    colour = lambda: blocks(1)
    grey = lambda: blocks(2, colour=False)
    rng = np.random.default_rng(4)
    return [
        ("baseline.jpg", 3, lambda p: colour().save(p, quality=85)),
        ("progressive.jpg", 3, lambda p: colour().save(p, quality=85, progressive=True)),
        ("progressive-444.jpg", 3, lambda p: colour().save(p, quality=85, progressive=True, subsampling=0)),
        ("progressive-grey.jpg", 1, lambda p: grey().save(p, quality=85, progressive=True)),
        # Progressive 4:4:4 and grey JPEGs near the largest the coefficient limit admits.
        ("progressive-444-14mp.jpg", 3, lambda p: blocks(1, 3800).save(p, quality=85, progressive=True, subsampling=0)),
        ("progressive-grey-16mp.jpg", 1, lambda p: blocks(2, 4000, colour=False).save(p, quality=85, progressive=True)),
        ("rgb.png", 3, lambda p: colour().save(p, compress_level=1)),
        ("grey.png", 1, lambda p: grey().save(p, compress_level=1)),
        ("rgba-16bit.png", 3, rgba16),
        ("lossy.webp", 3, lambda p: colour().save(p, quality=75, method=0)),
        ("lossless.webp", 3, lambda p: grey().convert("RGB").save(p, lossless=True, quality=0, method=0)),
        ("grid.heic", 3, lambda p: heic_grid(p, colour())),
        # A HEIC at the HEIC pixel limit (40 MP), and a phone's 12 MP.
        ("grid-40mp.heic", 3, lambda p: heic_grid(p, blocks(1, 6324))),
        ("grid-12mp.heic", 3, lambda p: heic_grid(p, blocks(1, 4032).crop((0, 0, 4032, 3024)))),
        ("code-sheet-2896.png", 1, code_sheet),
        ("pixel-noise-81mp.jpg", 1, lambda p: Image.fromarray(rng.integers(0, 256, (9000, 9000), dtype=np.uint8)).save(p, quality=90)),
        ("bands-12mp.png", 1, lambda p: Image.fromarray(np.tile((np.random.default_rng(5).random(4000) < 0.5).astype(np.uint8) * 255, (3000, 1))).save(p)),
        ("plate-text-100mp.jpg", 1, text_page),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seer", default=os.path.join(ROOT, ".build", "release", "seer"))
    ap.add_argument("--work", default="/tmp/seer-bounds")
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print("| photo | pixels | CPU s (≤ 3) | peak MB | bound MB (2 × decoded + 100) | grey bound MB | outcome |")
    print("|---|---:|---:|---:|---:|---:|---|")
    worst = True
    for name, channels, make in photos():
        if args.only and name not in args.only:
            continue
        path = os.path.join(args.work, name)
        if not os.path.exists(path):
            make(path)
        info = json.loads(subprocess.run([args.seer, "info", "--format", "json", path], capture_output=True, text=True).stdout)
        # `seer info` refuses what decoding refuses from the header: those photos are SIDE².
        w, h = info.get("width", SIDE), info.get("height", SIDE)
        run = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", args.seer, "scan", "--read", "codes,plates", path],
                             capture_output=True, text=True)
        user, system, kb = run.stderr.strip().splitlines()[-1].split()
        cpu = float(user) + float(system)
        peak = int(kb) / 1024
        bound = 2 * w * h * channels / 1e6 + 100
        grey = 2 * w * h / 1e6 + 100
        first = (run.stdout.strip().splitlines() or run.stderr.strip().splitlines() or ["?"])[0]
        outcome = "exit %d: %s" % (run.returncode, first.split(": ", 1)[-1][:60])
        ok = cpu <= 3 and peak <= bound
        worst = worst and ok
        print(f"| {name} | {w * h / 1e6:.1f} MP | {cpu:.2f} | {peak:.0f} | {bound:.0f} | {grey:.0f} | {outcome}{'' if ok else ' **over**'} |",
              flush=True)
    return 0 if worst else 1


if __name__ == "__main__":
    sys.exit(main())
