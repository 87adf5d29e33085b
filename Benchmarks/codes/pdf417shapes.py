#!/usr/bin/env python3
"""PDF417 and MicroPDF417 symbols of every shape their writer allows, drawn by zxing-cpp's writer:
one to thirty columns, three to ninety rows, payloads of digits, mixed text or Latin-1 of 5 to 300
characters, two or three pixels a module, upright and clean. What `sweep2d.py` leaves out: it draws
each family in the writer's default shape only, and a symbol of one column, or of three rows and
thirty columns, is read by other paths of the locator (docs/codes.md).

With `--small` the same shapes are drawn as small as printers and screens draw them: a pixel a
module, rows one to three pixels tall, and a quiet zone of none to four pixels.

    python3 Benchmarks/codes/pdf417shapes.py --out /tmp/pdf417shapes [--count 40] [--seed 17] [--small]
    python3 Benchmarks/codes/codes.py --dataset codes2d --data /tmp/pdf417shapes --part all --verbose

The output has the layout of codes-2d: `pdf417-shapes/N.png` and `micropdf417-shapes/N.png` (with
`--small`, `pdf417-small/` and `micropdf417-small/`), each with `N.txt` holding the payload.
"""
import argparse
import os
import random

import numpy as np
from PIL import Image, ImageOps

MIXED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?-_/()&@#=+"
# Printable Latin-1: the C1 controls (0x80-0x9F) make no text.
LATIN1 = [chr(c) for c in range(32, 127)] + [chr(c) for c in range(160, 256)]

SHAPES = {
    "pdf417": ("PDF417", [5, 15, 40, 120, 300], [None, 1, 2, 3, 5, 8, 12, 20, 30], [None, 3, 10, 40, 90]),
    "micropdf417": ("MicroPDF417", [3, 8, 20, 40], [None, 1, 2, 3, 4], [None, 4, 10, 20, 44]),
}


def main():
    import zxingcpp

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=40, help="symbols per family")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--small", action="store_true", help="a pixel a module, rows 1-3 pixels tall")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for family, (name, lengths, columns, rows) in SHAPES.items():
        folder = os.path.join(args.out, f"{family}-{'small' if args.small else 'shapes'}")
        os.makedirs(folder, exist_ok=True)
        n = 0
        while n < args.count:
            kind = rng.choice(["digits", "mixed", "latin1"])
            alphabet = {"digits": "0123456789", "mixed": MIXED, "latin1": LATIN1}[kind]
            text = "".join(rng.choice(alphabet) for _ in range(rng.choice(lengths))).strip() or "A"
            options = {}
            c, r = rng.choice(columns), rng.choice(rows)
            if c:
                options["columns"] = str(c)
            if r:
                options["rows"] = str(r)
            try:
                barcode = zxingcpp.create_barcode(text, getattr(zxingcpp.BarcodeFormat, name), **options)
            except Exception:
                continue  # a shape the payload does not fit: draw another
            modules = np.array(zxingcpp.write_barcode_to_image(barcode, scale=1, add_quiet_zones=not args.small))
            if modules.ndim == 3:
                modules = modules[..., 0]
            if args.small:
                # The symbol's rows (the writer repeats each), each drawn 1-3 pixels tall.
                lines = [modules[0]] + [line for above, line in zip(modules, modules[1:]) if not np.array_equal(above, line)]
                tall = rng.choice([1, 2, 3])
                image = Image.fromarray(np.repeat(np.array(lines), tall, axis=0))
                image = ImageOps.expand(image, border=rng.choice([0, 1, 2, 4]), fill=255)
            else:
                scale = rng.choice([2, 3])
                image = Image.fromarray(modules).resize((modules.shape[1] * scale, modules.shape[0] * scale), Image.NEAREST)
                image = ImageOps.expand(image, border=8 * scale, fill=255)
            image.save(os.path.join(folder, f"{n}.png"))
            with open(os.path.join(folder, f"{n}.txt"), "w", encoding="utf-8") as handle:
                handle.write(text)
            n += 1
    print(f"{2 * args.count} symbols in {args.out}")


if __name__ == "__main__":
    main()
