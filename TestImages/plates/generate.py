#!/usr/bin/env python3
"""Renders the plate test scenes in this folder (run from anywhere; needs Pillow).

Also renders `nonplates/`: scenes with text that is not a plate (signs, labels, a caption under a
code, a screen, a shirt, a receipt), where a reader must report no plate; `nonplates/manifest.csv`
says what each shows.

Each scene is a synthetic car-park picture: a textured background with clutter, one licence plate
rendered in a plate-like font (DejaVu Sans Bold from fonts-dejavu-core, Nimbus Sans Narrow Bold from
fonts-urw-base35), then tilted, put in perspective, blurred, noised or dirtied. `manifest.csv` lists
file, expected text, region, what was done, and the format label expected (`format` with the
scene's region, `auto` with none): a format name of Sources/SeerPlate/Resources/grammars.txt, or
the formats the text fits joined by `|` where the drawn plate shows nothing that tells them apart
(docs/plates.md, "Labels": `ABC 1234` is an old Brazilian plate and a US one of the same layout;
the German plate's narrow second space is not seen as a wide gap, and its first gap alone does not
tell it from a Brazilian or US plate of three letters and four digits;
a plate with one wide gap after its first two letters, `BA 123 CD`, is Slovak or Italian). Those
scenes show what tells such formats apart on a real plate, as the reader must then read it: the EU
band with its country code (`band`), a US state's name or a Brazilian plate's city line above the
characters (`above`).
Deterministic: the same seed gives the same files.
"""
import csv
import math
import os
import random

from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FONTS = {
    "dejavu": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "nimbus": "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf",
}

# name, text lines, region, expected label with the region and with none, font, effects
SCENES = [
    ("br-old", ["ABC 1234"], "br", "br", "br", "dejavu", {"above": "SP - SAO PAULO"}),
    ("br-mercosul", ["RIO2A18"], "br", "br-mercosul", "br-mercosul", "dejavu", {"tilt": 8}),
    ("sk", ["BA 123 CD"], "eu", "sk", "sk", "dejavu", {"blur": 1.0, "band": "SK"}),
    ("de", ["M AB 1234"], "eu", "de", "de", "nimbus", {"tilt": -12, "band": "D"}),
    ("fr", ["AB-123-CD"], "eu", "fr", "fr", "dejavu", {"noise": 18}),
    ("uk", ["LN68 XKT"], "eu", "uk", "uk", "nimbus", {"perspective": 0.12}),
    ("es", ["1234 BCD"], "eu", "es", "es", "dejavu", {"dirt": 14}),
    ("nl", ["12-ABC-3"], "eu", "nl-1", "nl-1", "nimbus", {"tilt": 18}),
    ("cz", ["5A2 3456"], "eu", "cz", "cz", "dejavu", {"dark": True}),
    ("us-ca", ["7ABC123"], "us", "us-ca", "us-ca", "nimbus", {"tilt": -6, "blur": 0.8}),
    ("us-tx", ["KVT 4821"], "us", "us-7a", "us-7a", "dejavu", {"small": True, "above": "TEXAS"}),
    ("two-row", ["KE", "482AB"], "eu", "sk", "sk", "dejavu", {"band": "SK"}),
]


def plate_image(lines, font_path, dark, band=None, above=None):
    """The plate: its lines of characters in a frame; `band` draws an EU band (blue, a ring of
    stars, the country code under it) at the left, `above` a line of small text over the
    characters (a US state's name, a Brazilian plate's city)."""
    char_h = 56
    font = ImageFont.truetype(font_path, int(char_h * 1.35))
    widths = [font.getbbox(t)[2] - font.getbbox(t)[0] for t in lines]
    pad_x, pad_y, gap = 26, 20, 14
    band_w = int(char_h * 0.8) if band else 0
    above_h = int(char_h * 0.5) if above else 0
    w = max(widths) + 2 * pad_x + band_w
    h = len(lines) * char_h + (len(lines) - 1) * gap + 2 * pad_y + above_h
    ground, ink = ((30, 30, 30), (235, 235, 235)) if dark else ((245, 245, 240), (20, 20, 25))
    img = Image.new("RGB", (w, h), ground)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([2, 2, w - 3, h - 3], radius=10, outline=ink, width=4)
    if band:
        d.rectangle([6, 6, 6 + band_w, h - 7], fill=(0, 51, 153))
        cx, cy, r = 6 + band_w / 2, 6 + (h - 12) * 0.3, band_w * 0.28
        for k in range(12):
            a = 2 * math.pi * k / 12
            sx, sy = cx + r * math.cos(a), cy + r * math.sin(a)
            d.ellipse([sx - 2, sy - 2, sx + 2, sy + 2], fill=(255, 204, 0))
        code_font = ImageFont.truetype(FONTS["dejavu"], int(char_h * 0.42))
        box = code_font.getbbox(band)
        d.text((cx - (box[2] + box[0]) / 2, 6 + (h - 12) * 0.72 - (box[3] + box[1]) / 2), band, font=code_font, fill=(255, 255, 255))
    if above:
        small = ImageFont.truetype(FONTS["dejavu"], int(char_h * 0.4))
        box = small.getbbox(above)
        d.text((band_w + (w - band_w - (box[2] - box[0])) // 2 - box[0], 10 - box[1]), above, font=small, fill=ink)
    for i, t in enumerate(lines):
        box = font.getbbox(t)
        x = band_w + (w - band_w - (box[2] - box[0])) // 2 - box[0]
        y = pad_y + above_h + i * (char_h + gap) - box[1]
        d.text((x, y), t, font=font, fill=ink)
    for bx in (14, w - 14):  # bolts
        d.ellipse([bx - 4, 8, bx + 4, 16], fill=(120, 120, 120))
    return img


def scene(rng, lines, font_path, fx):
    W, H = 640, 420
    bg = Image.new("RGB", (W, H))
    d = ImageDraw.Draw(bg)
    for y in range(H):  # gradient
        v = int(90 + 80 * y / H)
        d.line([(0, y), (W, y)], fill=(v, v - 10, v - 20))
    for _ in range(25):  # clutter
        x, y = rng.randrange(W), rng.randrange(H)
        c = rng.randrange(40, 200)
        d.rectangle([x, y, x + rng.randrange(10, 90), y + rng.randrange(5, 40)], fill=(c, c, c))
    plate = plate_image(lines, font_path, fx.get("dark", False), fx.get("band"), fx.get("above")).convert("RGBA")
    scale = 0.45 if fx.get("small") else 0.8
    plate = plate.resize((int(plate.width * scale), int(plate.height * scale)), Image.LANCZOS)
    if "perspective" in fx:
        k = fx["perspective"]
        w, h = plate.size
        # Right side nearer: taller. Coefficients map output to input.
        src = [(0, 0), (w, 0), (w, h), (0, h)]
        dst = [(0, h * k), (w, 0), (w, h), (0, h * (1 - k))]
        plate = plate.transform((w, h), Image.PERSPECTIVE, _coeffs(dst, src), Image.BICUBIC)
    if "tilt" in fx:
        plate = plate.rotate(fx["tilt"], resample=Image.BICUBIC, expand=True)
    x = (W - plate.width) // 2 + rng.randrange(-40, 40)
    y = int(H * 0.55) - plate.height // 2
    bg.paste(plate, (x, y), plate)
    if "dirt" in fx:
        d = ImageDraw.Draw(bg)
        for _ in range(fx["dirt"]):
            px, py = x + rng.randrange(plate.width), y + rng.randrange(plate.height)
            r = rng.randrange(1, 4)
            d.ellipse([px - r, py - r, px + r, py + r], fill=(110, 95, 80))
    if "blur" in fx:
        bg = bg.filter(ImageFilter.GaussianBlur(fx["blur"]))
    if "noise" in fx:
        px = bg.load()
        n = fx["noise"]
        for yy in range(H):
            for xx in range(W):
                r, g, b = px[xx, yy]
                e = rng.randint(-n, n)
                px[xx, yy] = (max(0, min(255, r + e)), max(0, min(255, g + e)), max(0, min(255, b + e)))
    return bg


def _coeffs(pa, pb):
    # Solve the 8 perspective coefficients mapping pa (output) to pb (input).
    import numpy as np
    m = []
    for (x, y), (u, v) in zip(pa, pb):
        m.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        m.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(m, dtype=float)
    b = np.array(pb, dtype=float).reshape(8)
    return np.linalg.solve(a, b).tolist()


# name, what, lines, ink, ground, font, effects
NONPLATES = [
    ("sign-bordered", "a bordered sign, one plate-sized word", ["NO PARKING"], (200, 20, 20), (245, 245, 240), "dejavu", {"border": True}),
    ("label-lines", "a product label: batch, lot and date lines of one size", ["BATCH 4821", "LOT AB123CD", "EXP 2027 03"], (20, 20, 25), (250, 250, 245), "dejavu", {}),
    ("code-caption", "a caption under a code's modules", ["SCAN ME"], (20, 20, 25), (250, 250, 250), "dejavu", {"modules": True}),
    ("screen", "light text on a dark screen, several lines", ["ERROR 404", "CODE 7A3F", "RETRY IN 30"], (120, 240, 140), (20, 25, 30), "nimbus", {}),
    ("shirt", "print on a creased shirt", ["TEAM 2024"], (240, 240, 240), (30, 60, 140), "dejavu", {"fabric": True}),
    ("receipt", "a receipt: lines of small text with a plate-like code among them", ["TOTAL 12.40", "REG KVT4821", "CARD 4412", "THANK YOU"], (40, 40, 40), (236, 234, 226), "nimbus", {"small": True}),
    ("street-sign", "a street sign: a name and a number", ["MAIN ST 100"], (250, 250, 250), (20, 110, 60), "dejavu", {"border": True}),
    ("poster", "a poster: a headline and a line of words under it", ["BIG SALE", "UP TO 50 OFF"], (10, 10, 10), (250, 220, 40), "dejavu", {}),
]


def nonplate_scene(rng, lines, ink, ground, font_path, fx):
    """A card of text (sign, label, screen…) pasted on the same cluttered background as the plates."""
    W, H = 640, 420
    bg = Image.new("RGB", (W, H))
    d = ImageDraw.Draw(bg)
    for y in range(H):
        v = int(90 + 80 * y / H)
        d.line([(0, y), (W, y)], fill=(v, v - 10, v - 20))
    for _ in range(25):
        x, y = rng.randrange(W), rng.randrange(H)
        c = rng.randrange(40, 200)
        d.rectangle([x, y, x + rng.randrange(10, 90), y + rng.randrange(5, 40)], fill=(c, c, c))
    char_h = 22 if fx.get("small") else 40
    font = ImageFont.truetype(font_path, int(char_h * 1.35))
    widths = [font.getbbox(t)[2] - font.getbbox(t)[0] for t in lines]
    gap = int(char_h * 0.55)
    top = 170 if fx.get("modules") else 24
    cw = max(widths) + 60
    ch = top + len(lines) * char_h + (len(lines) - 1) * gap + 30
    card = Image.new("RGB", (cw, ch), ground)
    cd = ImageDraw.Draw(card)
    if fx.get("border"):
        cd.rectangle([4, 4, cw - 5, ch - 5], outline=ink, width=5)
    if fx.get("modules"):
        n, m = 21, 7
        x0 = (cw - n * m) // 2
        for i in range(n):
            for j in range(n):
                if rng.random() < 0.5 or (i < 7 and j < 7) or (i < 7 and j >= n - 7) or (i >= n - 7 and j < 7):
                    cd.rectangle([x0 + j * m, 10 + i * m, x0 + j * m + m - 1, 10 + i * m + m - 1], fill=ink)
    for i, t in enumerate(lines):
        box = font.getbbox(t)
        x = (cw - (box[2] - box[0])) // 2 - box[0]
        y = top + i * (char_h + gap) - box[1]
        cd.text((x, y), t, font=font, fill=ink)
    if fx.get("fabric"):
        px = card.load()
        for yy in range(ch):
            for xx in range(cw):
                r, g, b = px[xx, yy]
                e = int(18 * ((xx * 7 + yy * 3) % 11 - 5) / 5) + rng.randint(-10, 10)
                px[xx, yy] = (max(0, min(255, r + e)), max(0, min(255, g + e)), max(0, min(255, b + e)))
        card = card.rotate(4, resample=Image.BICUBIC, expand=True, fillcolor=(90, 80, 70))
    if card.width > W - 20:
        card = card.resize((W - 20, int(card.height * (W - 20) / card.width)), Image.LANCZOS)
    x = (W - card.width) // 2 + rng.randrange(-20, 20)
    y = max(0, (H - card.height) // 2)
    bg.paste(card, (x, y))
    return bg.filter(ImageFilter.GaussianBlur(0.6))


def main():
    rng = random.Random(4)
    rows = []
    for name, lines, region, label, auto_label, font, fx in SCENES:
        img = scene(rng, lines, FONTS[font], fx)
        path = os.path.join(HERE, name + ".png")
        img.convert("L").save(path, optimize=True)
        text = "".join(ch for ch in "".join(lines) if ch.isalnum())
        effects = " ".join("%s=%s" % kv for kv in fx.items()) or "plain"
        rows.append([name + ".png", text, region, effects, label, auto_label])
    with open(os.path.join(HERE, "manifest.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "text", "region", "effects", "format", "auto"])
        w.writerows(rows)
    folder = os.path.join(HERE, "nonplates")
    os.makedirs(folder, exist_ok=True)
    rows = []
    for name, what, lines, ink, ground, font, fx in NONPLATES:
        img = nonplate_scene(rng, lines, ink, ground, FONTS[font], fx)
        img.convert("L").save(os.path.join(folder, name + ".png"), optimize=True)
        rows.append([name + ".png", what])
    with open(os.path.join(folder, "manifest.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "what"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
