#!/usr/bin/env python3
"""Generates the QR test fixtures in generated/ and their expectations in generated/manifest.json.

Development-time only (pip install segno pillow numpy); the outputs are committed. Deterministic:
a fixed random seed. Each fixture lists the exact texts (or base64 bytes for binary payloads) the
reader must return.
"""
import base64, json, math, os, random
import numpy as np
import segno
from PIL import Image, ImageFilter

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated")
rng = random.Random(20261122)
nrng = np.random.default_rng(20261122)
manifest = []


def code_image(payload, scale=6, border=4, error="m", version=None, encoding=None, eci=False, mode=None):
    q = segno.make_qr(payload, error=error, version=version, encoding=encoding, eci=eci, mode=mode, boost_error=False)
    rows = [list(r) for r in q.matrix_iter(scale=1, border=border)]
    a = np.array(rows, dtype=np.uint8)
    img = np.where(a == 1, 0, 255).astype(np.uint8)
    img = np.kron(img, np.ones((scale, scale), dtype=np.uint8))
    return Image.fromarray(img, "L"), q.version


def put(name, img, texts=None, binary=None, note=""):
    path = os.path.join(OUT, name + ".png")
    img.save(path, optimize=True)
    entry = {"file": name + ".png", "note": note}
    if texts is not None:
        entry["texts"] = texts
    if binary is not None:
        entry["bytes"] = [base64.b64encode(b).decode() for b in binary]
    manifest.append(entry)


def on_canvas(img, size, pos=None, bg=255):
    canvas = Image.new("L", size, bg)
    if pos is None:
        pos = ((size[0] - img.width) // 2, (size[1] - img.height) // 2)
    canvas.paste(img, pos)
    return canvas


def perspective(img, shrink=(0.0, 0.15, 0.1, 0.0)):
    """Warps the image so each corner moves inwards by the given fractions (TL, TR, BR, BL)."""
    w, h = img.size
    src = [(0, 0), (w, 0), (w, h), (0, h)]
    dx = [shrink[0] * w, -shrink[1] * w, -shrink[2] * w, shrink[3] * w]
    dy = [shrink[0] * h, shrink[1] * h, -shrink[2] * h, -shrink[3] * h]
    dst = [(x + a, y + b) for (x, y), a, b in zip(src, dx, dy)]
    # Coefficients map output (dst) to input (src).
    m = []
    for (x, y), (u, v) in zip(dst, src):
        m.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        m.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    b = np.array([c for p in src for c in p], dtype=float)
    coeffs = np.linalg.solve(np.array(m, dtype=float), b)
    return img.transform((w, h), Image.PERSPECTIVE, tuple(coeffs), Image.BICUBIC, fillcolor=255)


# 1. Payloads and character sets.
payloads = [
    ("ascii-url", "https://example.com/p/8741?lot=A12", {}),
    ("numeric", "0123456789012345678901234567890", {}),
    ("alnum", "SEER-TEST 42 $%*+-./:", {}),
    ("utf8-japanese", "こんにちは世界 QR テスト", {"encoding": "utf-8"}),
    ("utf8-accents", "Crème brûlée à l'œuvre — 5 €", {"encoding": "utf-8"}),
    ("sjis-kanji", "漢字モードの日本語テキスト", {"mode": "kanji"}),
    ("sjis-bytes", "東京都千代田区", {"encoding": "shift_jis"}),
    ("latin1-eci", "Grüße aus Köln, señor", {"encoding": "iso-8859-1", "eci": True}),
    ("latin1-plain", "Café déjà vu à Zürich", {"encoding": "iso-8859-1"}),
    ("vcard", "BEGIN:VCARD\nN:Doe;Jane\nTEL:+44 20 7946 0958\nEND:VCARD", {}),
]
for name, text, kw in payloads:
    img, _ = code_image(text, **kw)
    put("payload-" + name, img, texts=[text], note="charset and mode")

binary = bytes([0x00, 0x01, 0x02, 0xFF, 0xFE, 0x80, 0x10, 0x7F, 0x1B, 0x00, 0xC3, 0x28])
img, _ = code_image(binary)
put("payload-binary", img, binary=[binary], note="binary payload, text must be null")

# 2. Versions and error-correction levels.
for version in [1, 4, 7, 10, 15, 25]:
    for error in ["l", "h"]:
        cap_text = ("SEER%02d" % version) + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(version * 6))
        try:
            img, v = code_image(cap_text, error=error, version=version, scale=4 if version < 15 else 3)
        except segno.DataOverflowError:
            continue
        put("version-%02d-%s" % (version, error), img, texts=[cap_text], note="version %d ecc %s" % (version, error))

# 3. Rotation in 15 degree steps.
rot_text = "https://seer.example/rotate/15"
base, _ = code_image(rot_text, scale=5, border=4)
for angle in range(0, 360, 15):
    rotated = base.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
    put("rotate-%03d" % angle, on_canvas(rotated, (rotated.width + 40, rotated.height + 40)), texts=[rot_text],
        note="rotated %d degrees" % angle)

# 4. Degradations.
deg_text = "SEER DEGRADED 2026 #7731"
base, _ = code_image(deg_text, scale=6, error="m")
canvas = on_canvas(base, (base.width + 80, base.height + 60))
put("perspective-1", perspective(canvas, (0.0, 0.12, 0.08, 0.0)), texts=[deg_text], note="perspective")
put("perspective-2", perspective(canvas, (0.1, 0.0, 0.0, 0.14)), texts=[deg_text], note="perspective")
put("blur-1", canvas.filter(ImageFilter.GaussianBlur(1.5)), texts=[deg_text], note="gaussian blur 1.5")
put("blur-2", canvas.filter(ImageFilter.GaussianBlur(2.2)), texts=[deg_text], note="gaussian blur 2.2")
a = np.asarray(canvas, dtype=float)
noisy = np.clip(a + nrng.normal(0, 40, a.shape), 0, 255).astype(np.uint8)
put("noise", Image.fromarray(noisy, "L"), texts=[deg_text], note="gaussian noise sigma 40")
low = (a * (40 / 255) + 110).astype(np.uint8)
put("low-contrast", Image.fromarray(low, "L"), texts=[deg_text], note="contrast 40 levels")
ramp = np.linspace(0.35, 1.0, a.shape[1])[None, :]
shadow = (a * ramp).astype(np.uint8)
put("shadow-gradient", Image.fromarray(shadow, "L"), texts=[deg_text], note="light falling off to one side")
put("inverted", Image.fromarray((255 - a).astype(np.uint8), "L"), texts=[deg_text], note="light on dark")
tiny, _ = code_image("tiny modules", scale=2, border=4)
put("tiny-modules", on_canvas(tiny, (tiny.width + 20, tiny.height + 20)), texts=["tiny modules"], note="2 px modules")
small, _ = code_image("https://seer.example/far", scale=1, border=2)
small = small.resize((small.width * 3 // 2, small.height * 3 // 2), Image.BILINEAR)
put("far-away", on_canvas(small, (320, 240)), texts=["https://seer.example/far"], note="1.5 px modules in a larger photo")

# 5. Several codes in one image.
texts = ["LOT-0001", "LOT-0002", "https://seer.example/a", "データ 4"]
tiles = [code_image(t, scale=4, encoding="utf-8" if not t.isascii() else None)[0] for t in texts]
sheet = Image.new("L", (2 * 200 + 60, 2 * 200 + 60), 255)
for i, t in enumerate(tiles):
    sheet.paste(t, (20 + (i % 2) * 220, 20 + (i // 2) * 220))
put("several-4", sheet, texts=texts, note="four codes in a grid")

# 6. A photo-like scene: a code at an angle on a textured, unevenly lit background.
scene = np.asarray(Image.new("L", (640, 480), 0), dtype=float)
yy, xx = np.mgrid[0:480, 0:640]
scene = 90 + 60 * np.sin(xx / 37.0) * np.cos(yy / 23.0) + nrng.normal(0, 8, scene.shape)
code, _ = code_image("SCENE 3141", scale=5, border=2)
code = code.rotate(21, resample=Image.BICUBIC, expand=True, fillcolor=255)
mask = Image.new("L", code.size, 0)
mask.paste(255, (0, 0, code.width, code.height))
mask = mask.rotate(0)
img = Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8), "L")
img.paste(code, (200, 120))
light = np.clip(np.asarray(img, dtype=float) * (0.55 + 0.45 * xx / 640), 0, 255).astype(np.uint8)
put("scene-textured", Image.fromarray(light, "L").filter(ImageFilter.GaussianBlur(0.8)), texts=["SCENE 3141"],
    note="rotated code on a textured, unevenly lit background")

# 7. Linear barcodes (python-barcode), each with the symbology the reader must report.
import barcode
from barcode.writer import ImageWriter

linear = [
    ("ean13", "ean13", "4006381333931", "4006381333931"),
    ("ean8", "ean8", "9638507", "96385074"),
    ("upca", "upca", "03600029145", "036000291452"),
    ("code128", "code128", "SEER-128/abc", "SEER-128/abc"),
    ("code39", "code39", "SEER39", "SEER39"),
    ("i25", "itf", "12345678901231", "12345678901231"),
]
for fmt, kind, data, expected in linear:
    cls = barcode.get_barcode_class(kind)
    kwargs = {"add_checksum": False} if kind == "code39" else {}
    code = cls(data, writer=ImageWriter(), **kwargs)
    img = code.render({"module_width": 0.3, "module_height": 12.0, "quiet_zone": 6.0, "font_size": 0,
                       "write_text": False, "dpi": 300}).convert("L")
    entry_texts = [expected]
    put("linear-" + fmt, img, texts=entry_texts, note="symbology " + fmt)
    manifest[-1]["symbology"] = fmt

with open(os.path.join(OUT, "manifest.json"), "w", encoding="utf-8") as f:
    json.dump(manifest, f, ensure_ascii=False, indent=1)
print(len(manifest), "fixtures")
