#!/usr/bin/env python3
"""Per-character accuracy of the glyph classifier (and of Tesseract) on real plate glyphs.

    python3 scripts/plate-glyphs/evaluate.py [--data ../shared/testdata/plates] [--seer .build/release/seer]

Runs `seer plate read` over each photo with SEER_PLATE_DEBUG, takes the glyph rows the segmenter
cut (the row whose Tesseract reading is closest to the truth, when it has exactly as many glyphs
as the truth has characters), labels the glyphs from the ground truth, and reports per region:
the classifier's top-1 accuracy, top-1 with look-alikes folded (O 0 D Q, 1 I, 8 B, 2 Z, 5 S), top-3,
and Tesseract's own top-1 on the rows it read with the right length. Measurement only.
"""
import argparse
import csv
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glyphs  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plate-ocr"))
import modelfile  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_model(path):
    """(input kind, classes, parameters) of a model file (Sources/SeerPlate/Resources/glyph-*.sgc)."""
    blob = open(path, "rb").read()
    kind = "grey" if "grey" in os.path.basename(path) else "mask"
    c1, c2, c3, hidden, classes = struct.unpack("<5i", blob[4:24])
    chars = blob[24:24 + classes].decode()
    shapes = [(c1, 1, 3, 3), (c2, c1, 3, 3), (c3, c2, 3, 3), (hidden, c3 * (glyphs.SIZE // 8) ** 2), (classes, hidden)]
    params = []
    for shape, (w, b) in zip(shapes, modelfile.read_layers(blob)):  # SGC1 or SGC2
        params += [w.reshape(shape), b]
    return kind, chars, params


def conv_relu_pool(x, w, b):
    c, h, wd = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((w.shape[0], h, wd), np.float32)
    for ky in range(3):
        for kx in range(3):
            out += np.tensordot(w[:, :, ky, kx], p[:, ky:ky + h, kx:kx + wd], axes=([1], [0]))
    out += b[:, None, None]
    out = np.maximum(out, 0)
    return out.reshape(out.shape[0], h // 2, 2, wd // 2, 2).max(axis=(2, 4))


def probabilities(params, canvas):
    x = canvas[None]
    for i in range(3):
        x = conv_relu_pool(x, params[2 * i], params[2 * i + 1])
    h = np.maximum(params[6] @ x.reshape(-1) + params[7], 0)
    logits = params[8] @ h + params[9]
    e = np.exp(logits - logits.max())
    return e / e.sum()


def levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "testdata", "plates"))
    parser.add_argument("--seer", default=os.path.join(ROOT, ".build", "release", "seer"))
    parser.add_argument("--model", action="append", help="a generated model file (repeatable; default: both shipped)")
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        print(f"{args.data} not found; skipping")
        return
    paths = args.model or [os.path.join(ROOT, "Sources", "SeerPlate", "Resources", f) for f in ("glyph-mask.sgc", "glyph-grey.sgc")]
    models = [load_model(p) for p in paths if os.path.exists(p)]
    chars = models[0][1]
    folds = ["O0DQ", "1I", "8B", "2Z", "5S"]
    fold = {c: next((g for g in folds if c in g), c) for c in chars}
    print("| region | glyphs | top-1 % | folded % | top-3 % | Tesseract top-1 % |")
    print("|---|---|---|---|---|---|")
    for region in ("us", "eu", "br"):
        rows = list(csv.DictReader(open(os.path.join(args.data, region, "truth.csv"))))
        n = top1 = folded = top3 = tn = tess = 0
        for row in rows:
            truth = re.sub("[^A-Z0-9]", "", row["plate_text"].upper())
            with tempfile.TemporaryDirectory() as folder:
                env = dict(os.environ, SEER_PLATE_DEBUG=folder)
                log = subprocess.run([args.seer, "plate", "read", "--jobs", "1", "--region", region,
                                      os.path.join(args.data, region, row["file"])],
                                     env=env, capture_output=True, text=True).stderr
                best = None
                for name, text in re.findall(r"^(\S+): (\S*)$", log, re.M):
                    png = name + "_glyphs.png"
                    if not os.path.exists(png):
                        continue
                    count = len(glob.glob(f"{name}_m*.png"))
                    if count != len(truth):
                        continue
                    masks = [np.array(Image.open(f"{name}_m{i}.png").convert("L")) < 128 for i in range(count)]
                    crops = [np.array(Image.open(f"{name}_g{i}.png").convert("L")) for i in range(count)]
                    distance = levenshtein(text, truth)
                    if distance <= 3 and (best is None or distance < best[0]):
                        best = (distance, list(zip(masks, crops)), text)
                if best is None:
                    continue
                for i, ((mask, crop), expected) in enumerate(zip(best[1], truth)):
                    p = np.mean([probabilities(params, glyphs.canvas(mask) if kind == "mask" else glyphs.grey_canvas(crop))
                                 for kind, _, params in models], axis=0)
                    order = np.argsort(-p)
                    n += 1
                    top1 += chars[order[0]] == expected
                    folded += fold[chars[order[0]]] == fold[expected]
                    top3 += expected in [chars[k] for k in order[:3]]
                if len(best[2]) == len(truth):
                    tn += len(truth)
                    tess += sum(a == b for a, b in zip(best[2], truth))
        pct = lambda k, m: f"{100 * k / max(1, m):.1f}"  # noqa: E731
        print(f"| {region} | {n} | {pct(top1, n)} | {pct(folded, n)} | {pct(top3, n)} | {pct(tess, tn)} |")


if __name__ == "__main__":
    main()
