#!/usr/bin/env python3
"""The plate models' weight files, as SeerPlate reads them, and their conversion.

Two formats, both little-endian, both a magic, Int32 shape fields and the class characters (one
byte each), then the layers in PyTorch's order:

- the sequence recogniser (`plate-ctc.spr`, `Sources/SeerPlate/SequenceRecognizer.swift`):
  Int32 `height c1 c2 c3 c4 head classes`; six layers (five convolutions, the per-column head);
- a glyph classifier (`glyph-*.sgc`, `Sources/SeerPlate/GlyphClassifier.swift`):
  Int32 `c1 c2 c3 hidden classes`; five layers (three convolutions, two linear layers).

Version 1 (`SPR1`, `SGC1`) stores each layer as Float32 weights, then Float32 biases. Version 2
(`SPR2`, `SGC2`), the one Seer reads, stores each layer as one Float32 scale per output channel,
the weights as Int8 (each weight is its Int8 times its output channel's scale), then Float32
biases: a quarter of the size, so that the library, which embeds the files in its code, compiles
quickly. The training scripts write version 2 (`layer_bytes`); converting a version-1 file:

    python3 scripts/plate-ocr/modelfile.py IN OUT     # e.g. IN plate-ctc-v1.spr, OUT plate-ctc.spr

which prints how far the Int8 weights are from the Float32 ones.
"""
import struct
import sys

import numpy as np

GLYPH_SIDE = 32  # the glyph classifiers' canvas, pooled three times to 4 x 4


def quantise(weights):
    """(scales, int8 values) of a layer's weights (output channels first): per output channel the
    scale maps the largest magnitude to 127, and each weight is rounded to the nearest step."""
    w = np.asarray(weights, np.float64).reshape(len(weights), -1)
    peak = np.abs(w).max(axis=1)
    scales = (peak / 127).astype(np.float32)
    safe = np.where(scales > 0, scales.astype(np.float64), 1.0)
    q = np.clip(np.rint(w / safe[:, None]), -127, 127).astype(np.int8)
    return scales, q


def layer_bytes(weights, bias):
    """One layer of a version-2 file: its per-output-channel scales, Int8 weights and biases."""
    scales, q = quantise(weights)
    return scales.astype("<f4").tobytes() + q.tobytes() + np.asarray(bias, np.float32).astype("<f4").tobytes()


def shapes(blob):
    """(magic family, header bytes, layer shapes as (outputs, inputs per output)) of a file."""
    family = blob[:3]
    if family == b"SPR":
        height, c1, c2, c3, c4, head, classes = struct.unpack("<7i", blob[4:32])
        start = 32 + classes
        dims = [(c1, 1 * 9), (c2, c1 * 9), (c3, c2 * 9), (c4, c3 * 9), (head, c4 * 6), (classes, head)]
    elif family == b"SGC":
        c1, c2, c3, hidden, classes = struct.unpack("<5i", blob[4:24])
        start = 24 + classes
        side = GLYPH_SIDE // 8
        dims = [(c1, 9), (c2, c1 * 9), (c3, c2 * 9), (hidden, c3 * side * side), (classes, hidden)]
    else:
        raise ValueError(f"not a plate model file (magic {blob[:4]!r})")
    return family, blob[4:start], dims


def read_layers(blob):
    """The layers [(weights as outputs x inputs float32, biases)] of a version-1 or version-2 file."""
    family, _, dims = shapes(blob)
    version = blob[3:4]
    offset = 4 + len(shapes(blob)[1])
    layers = []
    for outputs, inputs in dims:
        if version == b"1":
            w = np.frombuffer(blob, "<f4", outputs * inputs, offset).reshape(outputs, inputs)
            offset += 4 * outputs * inputs
        elif version == b"2":
            scales = np.frombuffer(blob, "<f4", outputs, offset)
            offset += 4 * outputs
            q = np.frombuffer(blob, np.int8, outputs * inputs, offset).reshape(outputs, inputs)
            offset += outputs * inputs
            w = q.astype(np.float32) * scales[:, None]
        else:
            raise ValueError(f"unknown version {version!r}")
        b = np.frombuffer(blob, "<f4", outputs, offset)
        offset += 4 * outputs
        layers.append((np.array(w, np.float32), np.array(b, np.float32)))
    if offset != len(blob):
        raise ValueError(f"{len(blob) - offset} bytes after the last layer")
    return layers


def convert(blob):
    """A version-1 file's bytes as version 2 (the same shape, classes and biases)."""
    family, header, _ = shapes(blob)
    if blob[3:4] != b"1":
        raise ValueError("not a version-1 file")
    out = bytearray(family + b"2" + header)
    for w, b in read_layers(blob):
        out += layer_bytes(w, b)
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    blob = open(sys.argv[1], "rb").read()
    new = convert(blob)
    worst = 0.0
    for (w1, _), (w2, _) in zip(read_layers(blob), read_layers(new)):
        worst = max(worst, float(np.abs(w1 - w2).max() / max(1e-12, np.abs(w1).max())))
    with open(sys.argv[2], "wb") as f:
        f.write(new)
    print(f"{sys.argv[1]} ({len(blob)} bytes) -> {sys.argv[2]} ({len(new)} bytes); largest weight error "
          f"{worst:.4f} of its layer's largest weight")


if __name__ == "__main__":
    main()
