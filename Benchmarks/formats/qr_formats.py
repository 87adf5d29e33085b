#!/usr/bin/env python3
"""Does a photo read the same in HEIC and WebP as in PNG? Converts every QR photo of
../shared/testdata/qr-photos to HEIC (libheif's heif-enc) and to WebP (cwebp) in a temporary folder,
runs `seer scan --format json` over the three sets, and compares the texts read from each photo.

    python3 Benchmarks/formats/qr_formats.py [--seer .build/release/seer] [--quality 90]
        [--photos ../shared/testdata/qr-photos] [--keep DIR]

Needs: apt libheif-examples (heif-enc) and webp (cwebp); pip pillow. Nothing is written into the project.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def convert(job):
    src, heic, webp, quality = job
    # heif-enc 1.15 misreads 1-bit palette PNGs (two half-width copies side by side): both encoders
    # get the photo as 8-bit RGB, as a phone's camera pipeline would hand it over.
    rgb = heic + ".rgb.png"
    Image.open(src).convert("RGB").save(rgb)
    subprocess.run(["heif-enc", "-q", str(quality), "-o", heic, rgb], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["cwebp", "-quiet", "-q", str(quality), rgb, "-o", webp], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.remove(rgb)


def scan(seer, folder):
    out = subprocess.run([seer, "scan", "--format", "json", folder], capture_output=True, text=True)
    texts = {}
    for line in out.stdout.splitlines():
        obj = json.loads(line)
        rel = os.path.relpath(obj["file"], folder)
        key = os.path.splitext(rel)[0]
        if "error" in obj:
            texts[key] = ("error", obj["error"]["code"])
        else:
            texts[key] = tuple(sorted(s.get("text") or s.get("bytes", "") for s in obj.get("symbols", [])))
    return texts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seer", default=os.path.join(ROOT, ".build", "release", "seer"))
    ap.add_argument("--photos", default=os.path.join(ROOT, "..", "shared", "testdata", "qr-photos"))
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--keep")
    args = ap.parse_args()
    for tool in ("heif-enc", "cwebp"):
        if not shutil.which(tool):
            sys.exit(f"needs {tool}: apt-get install libheif-examples webp")
    work = args.keep or tempfile.mkdtemp(prefix="seer-formats-")
    jobs = []
    for dirpath, _, names in os.walk(args.photos):
        for name in sorted(names):
            if not name.lower().endswith(".png"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), args.photos)
            stem = os.path.splitext(rel)[0]
            for kind in ("heic", "webp"):
                os.makedirs(os.path.join(work, kind, os.path.dirname(rel)), exist_ok=True)
            jobs.append((os.path.join(dirpath, name), os.path.join(work, "heic", stem + ".heic"),
                         os.path.join(work, "webp", stem + ".webp"), args.quality))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(convert, jobs))
    png = scan(args.seer, args.photos)
    results = {"png": png, "heic": scan(args.seer, os.path.join(work, "heic")), "webp": scan(args.seer, os.path.join(work, "webp"))}
    read = sum(1 for v in png.values() if v and v[0] != "error")
    print(f"{len(jobs)} photos; PNG: {read} with a code read")
    status = 0
    for kind in ("heic", "webp"):
        same = sum(1 for k, v in png.items() if results[kind].get(k) == v)
        diffs = [(k, v, results[kind].get(k)) for k, v in png.items() if results[kind].get(k) != v]
        print(f"{kind.upper()} (quality {args.quality}): {same} / {len(png)} read exactly as the PNG")
        for k, a, b in diffs:
            print(f"  {k}: PNG {a!r} {kind} {b!r}")
            status = 1
    sizes = collections.Counter()
    for _, heic, webp, _ in jobs:
        sizes["heic"] += os.path.getsize(heic)
        sizes["webp"] += os.path.getsize(webp)
    print(f"total size: HEIC {sizes['heic'] / 1e6:.1f} MB, WebP {sizes['webp'] / 1e6:.1f} MB")
    if not args.keep:
        shutil.rmtree(work)
    sys.exit(status)


if __name__ == "__main__":
    main()
