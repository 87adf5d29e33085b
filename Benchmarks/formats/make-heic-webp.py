#!/usr/bin/env python3
"""Makes the 12-MP HEIC and WebP benchmark photos from photo-12mp.png (Benchmarks/make-photos.sh):
    photo-12mp.heic  as iPhones write them: a grid of 512×512 HEVC tiles (8 × 6, cropped to
                     4032×3024 by the grid), each coded by libheif's heif-enc at quality 80
    photo-12mp.webp  lossy WebP at quality 90 (cwebp)
Needs: apt libheif-examples webp; pip pillow. Usage: make-heic-webp.py DIR
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "TestImages"))
from heifmux import coded_image, write_heif  # noqa: E402

out = sys.argv[1]
photo = Image.open(os.path.join(out, "photo-12mp.png")).convert("RGB")
w, h = photo.size
tile = 512
cols, rows = -(-w // tile), -(-h // tile)
with tempfile.TemporaryDirectory() as tmp:
    def encode(index):
        r, c = divmod(index, cols)
        box = (c * tile, r * tile, c * tile + tile, r * tile + tile)
        part = os.path.join(tmp, f"t{index}.png")
        photo.crop(box).save(part)  # past the edge: black, cropped away by the grid
        heic = os.path.join(tmp, f"t{index}.heic")
        subprocess.run(["heif-enc", "-q", "80", "-o", heic, part], check=True, stdout=subprocess.DEVNULL)
        return coded_image(open(heic, "rb").read())
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        tiles = list(pool.map(encode, range(rows * cols)))
write_heif(os.path.join(out, "photo-12mp.heic"), tiles, grid=(rows, cols, w, h))
subprocess.run(["cwebp", "-quiet", "-q", "90", os.path.join(out, "photo-12mp.png"), "-o", os.path.join(out, "photo-12mp.webp")], check=True)
for name in ("photo-12mp.heic", "photo-12mp.webp"):
    print(name, os.path.getsize(os.path.join(out, name)))
