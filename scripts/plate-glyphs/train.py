#!/usr/bin/env python3
"""Trains SeerPlate's glyph classifier and writes Sources/SeerPlate/Resources/glyph-{mask,grey}.sgc.

    python3 scripts/plate-glyphs/train.py [--input mask|grey] [--per-class 60] [--epochs 10] [--cache FILE]

Two models are trained from the same samples: one reads the glyph's binarised mask, the other the
grey straightened row under the glyph's box (`--input`); Seer averages them.

Needs numpy, scipy, pillow and torch (pip) and the fonts listed in README.md (apt). Runs on the
CPU in about ten minutes on two cores; seeds are fixed.
"""
import argparse
import os
import struct
import sys
from multiprocessing import Pool

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glyphs  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plate-ocr"))
import modelfile  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHANNELS, HIDDEN = (8, 16, 32), 64


class Net(nn.Module):
    """Three 3x3 convolutions with ReLU and 2x2 max-pooling, a hidden layer, the classes.
    GlyphClassifier.swift runs the same layers in the same order."""

    def __init__(self, channels=CHANNELS, hidden=HIDDEN, classes=len(glyphs.CHARS)):
        super().__init__()
        self.c1 = nn.Conv2d(1, channels[0], 3, padding=1)
        self.c2 = nn.Conv2d(channels[0], channels[1], 3, padding=1)
        self.c3 = nn.Conv2d(channels[1], channels[2], 3, padding=1)
        self.f1 = nn.Linear(channels[2] * (glyphs.SIZE // 8) ** 2, hidden)
        self.f2 = nn.Linear(hidden, classes)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.max_pool2d(F.relu(self.c3(x)), 2)
        return self.f2(self.drop(F.relu(self.f1(x.flatten(1)))))


def make_data(per_class, workers=2, chunks=8):
    fonts = glyphs.fonts()
    if not fonts:
        sys.exit("no fonts found: install the packages listed in scripts/plate-glyphs/README.md")
    print(f"{len(fonts)} fonts, {per_class} samples per character and font", file=sys.stderr)
    jobs = [(fonts[i::chunks], per_class, 1000 + i) for i in range(chunks)]
    with Pool(workers) as pool:
        parts = pool.starmap(glyphs.samples, jobs)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def train(x, y, epochs, batch=256):
    torch.manual_seed(0)
    np.random.seed(0)
    net = Net()
    optimiser = torch.optim.Adam(net.parameters(), 2e-3)
    steps = epochs * ((len(x) + batch - 1) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)
    xt, yt = torch.from_numpy(x[:, None]), torch.from_numpy(y)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(x))
        total = 0.0
        for i in range(0, len(x), batch):
            idx = order[i:i + batch]
            dy, dx = (int(v) for v in np.random.randint(-2, 3, 2))  # small shifts on the canvas
            loss = F.cross_entropy(net(torch.roll(xt[idx], (dy, dx), (2, 3))), yt[idx], label_smoothing=0.05)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.3f}", file=sys.stderr)
    return net.eval()


def export(net, path):
    """The format GlyphClassifier(bytes:) reads: `SGC2`, Int32 c1 c2 c3 hidden classes, the class
    characters, then layer by layer Float32 scales per output channel, Int8 weights and Float32
    biases, little-endian (scripts/plate-ocr/modelfile.py). The library embeds the file as a
    binary resource."""
    state = net.state_dict()
    blob = bytearray(b"SGC2") + struct.pack("<5i", *CHANNELS, HIDDEN, len(glyphs.CHARS)) + glyphs.CHARS.encode()
    for layer in ("c1", "c2", "c3", "f1", "f2"):
        w, b = (state[f"{layer}.{part}"].detach().numpy() for part in ("weight", "bias"))
        blob += modelfile.layer_bytes(w.reshape(len(w), -1), b)
    with open(path, "wb") as f:
        f.write(bytes(blob))
    print(f"wrote {path} ({len(blob)} bytes of weights)", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", choices=["mask", "grey"], default="mask")
    parser.add_argument("--per-class", type=int, default=60)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--cache", help="keep the generated samples in this .npz and reuse them")
    parser.add_argument("--out", help="the model file to write (default: Sources/SeerPlate/Resources/glyph-{mask,grey}.sgc)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    if args.cache and os.path.exists(args.cache):
        data = np.load(args.cache)
        masks, greys, labels = data["X"], data["G"], data["Y"]
    else:
        masks, greys, labels = make_data(args.per_class)
        if args.cache:
            np.savez_compressed(args.cache, X=masks, G=greys, Y=labels)
    net = train(masks if args.input == "mask" else greys, labels, args.epochs)
    export(net, args.out or os.path.join(ROOT, f"Sources/SeerPlate/Resources/glyph-{args.input}.sgc"))


if __name__ == "__main__":
    main()
