#!/usr/bin/env python3
"""Renders photos of text that is not a licence plate, as negatives for the plate confidence model.

    python3 scripts/plate-calibration/negatives.py OUTDIR [--count 400] [--seed 1]

Every photo holds text a plate reader may take for a plate: blocks of lines of one size (labels,
screens, receipts, menus, notices; one line may hold a plate-like code among words), signs of one
or two words, captions under a code's modules or a barcode's bars, signs in Chinese or Japanese
characters with digits, posters, prices and dates. The text is drawn from vocabularies and
patterns of its own (none of the scenes in `TestImages/plates/nonplates`, which the tests read, is
made here), in the fonts Debian ships (fonts-dejavu-core, fonts-urw-base35, and fonts-wqy-zenhei
for the CJK signs when installed), on cluttered backgrounds, then turned,
blurred and noised. The same seed gives the same scenes; only the noise added to some of them
comes from Pillow's own generator (`effect_noise`) and differs from run to run.

`Benchmarks/.build/release/plate-bench --findings OUT.jsonl OUTDIR` then labels every reading in them
wrong (the folder has no truth.csv), and `calibrate.py … synthetic=OUT.jsonl` fits the model with them.
"""
import argparse
import math
import os
import random

from PIL import Image, ImageDraw, ImageFilter, ImageFont

LATIN = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf",
    "/usr/share/fonts/opentype/urw-base35/C059-Bold.otf",
]
CJK = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"

WORDS = ("ENTRANCE EXIT OPEN CLOSED PUSH PULL STAFF ONLY PRIVATE KEEP CLEAR FIRE DOOR "
         "WELCOME HOTEL PHARMACY BAKERY COFFEE TICKETS PLATFORM GATE LEVEL FLOOR ROOM OFFICE "
         "SERIAL MODEL PART BEST BEFORE NET WEIGHT PRICE TOTAL CASH CHANGE VISA SUBTOTAL TAX "
         "ITEM QTY ORDER TABLE SERVER DATE TIME REF NO ID INVOICE STORE TEL FAX WWW "
         "SYSTEM READY LOADING UPDATE WARNING STATUS POWER MODE AUTO MANUAL SPEED LIMIT "
         "SCHOOL ZONE STOP YIELD ONE WAY DETOUR PARKING TOWING AREA NORTH SOUTH EAST WEST "
         "AVENUE ROAD LANE DRIVE PLAZA CENTRE MARKET STREET BRIDGE STATION AIRPORT "
         "FRESH DAILY SPECIAL OFFER FREE NEW HOT COLD SALE DEAL CLUB TEAM CITY UNITED "
         "RUN FAST HAPPY HOUR MENU SOUP SALAD PIZZA BURGER TEA MILK JUICE WATER").split()
CJK_WORDS = ["東京", "大阪", "新宿", "出口", "入口", "駐車場", "北口", "南口", "改札", "番線", "営業中", "本日", "特売",
             "北京", "上海", "站台", "停车场", "禁止", "欢迎", "号楼", "中央", "駅前", "通り", "公園"]


def code(rng):
    """A run of letters and digits such as a label, a receipt or a screen prints."""
    n = rng.randint(4, 8)
    return "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(n))


def number(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return "%d.%02d" % (rng.randint(1, 999), rng.randint(0, 99))
    if kind == 1:
        return "%04d-%02d-%02d" % (rng.randint(2000, 2039), rng.randint(1, 12), rng.randint(1, 28))
    if kind == 2:
        return "%02d:%02d" % (rng.randint(0, 23), rng.randint(0, 59))
    if kind == 3:
        return "%03d %04d" % (rng.randint(100, 999), rng.randint(0, 9999))
    if kind == 4:
        return "%d%%" % rng.randint(5, 90)
    return str(rng.randint(1, 99999))


def line(rng, allow_code):
    parts = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.55:
            parts.append(rng.choice(WORDS))
        elif r < 0.8 or not allow_code:
            parts.append(number(rng))
        else:
            parts.append(code(rng))
    if allow_code and len(parts) == 1 and rng.random() < 0.5:
        parts.insert(0, rng.choice(WORDS))  # a code never stands alone on its line
    return " ".join(parts)


def background(rng, W, H):
    bg = Image.new("L", (W, H))
    d = ImageDraw.Draw(bg)
    a, b = rng.randint(40, 200), rng.randint(40, 200)
    for y in range(H):
        d.line([(0, y), (W, y)], fill=int(a + (b - a) * y / H))
    for _ in range(rng.randint(10, 40)):
        x, y = rng.randrange(W), rng.randrange(H)
        d.rectangle([x, y, x + rng.randrange(10, W // 6), y + rng.randrange(5, H // 8)], fill=rng.randrange(20, 235))
    return bg


def colours(rng):
    """Ink and ground grey levels, far enough apart to read."""
    while True:
        ink, ground = rng.randrange(0, 256), rng.randrange(0, 256)
        if abs(ink - ground) >= 90:
            return ink, ground


def card(rng, lines, font_path, char_h, ink, ground, border, extra):
    font = ImageFont.truetype(font_path, int(char_h * 1.35))
    boxes = [font.getbbox(t) for t in lines]
    gap = int(char_h * rng.uniform(0.35, 0.9))
    top = 0
    pad = int(char_h * rng.uniform(0.4, 1.2))
    if extra == "modules":
        top = int(char_h * rng.uniform(3, 6))
    elif extra == "bars":
        top = int(char_h * rng.uniform(2, 4))
    width = max(b[2] - b[0] for b in boxes) + 2 * pad
    height = top + len(lines) * char_h + (len(lines) - 1) * gap + 2 * pad
    img = Image.new("L", (width, height), ground)
    d = ImageDraw.Draw(img)
    if border:
        w = max(2, char_h // rng.randint(6, 14))
        d.rectangle([w // 2, w // 2, width - 1 - w // 2, height - 1 - w // 2], outline=ink, width=w)
    if extra == "modules":
        m = max(3, (top - pad) // 25)
        n = min(25, (top - pad) // m)
        x0 = (width - n * m) // 2
        for i in range(n):
            for j in range(n):
                if rng.random() < 0.5:
                    d.rectangle([x0 + j * m, pad // 2 + i * m, x0 + j * m + m - 1, pad // 2 + i * m + m - 1], fill=ink)
    elif extra == "bars":
        x = pad
        while x < width - pad:
            w = rng.randint(1, 4) * max(1, char_h // 12)
            if rng.random() < 0.5:
                d.rectangle([x, pad // 2, min(width - pad, x + w - 1), top - pad // 3], fill=ink)
            x += w
    align = rng.choice(["centre", "left"])
    for i, (t, b) in enumerate(zip(lines, boxes)):
        x = (width - (b[2] - b[0])) // 2 - b[0] if align == "centre" else pad - b[0]
        y = pad + top + i * (char_h + gap) - b[1]
        d.text((x, y), t, font=font, fill=ink)
    return img


KINDS = {"block": 5, "sign": 2, "caption": 2, "cjk": 2, "poster": 2, "figures": 1}


def scene(rng, kinds=None):
    W = rng.choice([480, 640, 800, 1024, 1280])
    H = int(W * rng.uniform(0.6, 1.0))
    bg = background(rng, W, H)
    kinds = kinds or sorted(KINDS)
    kind = rng.choices(kinds, [KINDS[k] for k in kinds])[0]
    font = rng.choice(LATIN)
    border = rng.random() < 0.5
    extra = None
    if kind == "block":  # a label, screen, receipt, notice, menu: lines of one size
        lines = [line(rng, allow_code=True) for _ in range(rng.randint(3, 7))]
        char_h = rng.randint(12, 36)
    elif kind == "sign":  # one or two lines of words (numbers only after a word)
        n = rng.randint(1, 2)
        lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) for _ in range(n)]
        if rng.random() < 0.4:
            lines[-1] += " " + str(rng.randint(1, 999))
        char_h = rng.randint(16, 60)
    elif kind == "caption":  # text under a code's modules or a barcode's bars
        lines = [line(rng, allow_code=False) for _ in range(rng.randint(1, 2))]
        char_h = rng.randint(12, 40)
        extra = rng.choice(["modules", "bars"])
    elif kind == "cjk":
        lines = [rng.choice(CJK_WORDS) + (str(rng.randint(1, 999)) if rng.random() < 0.7 else "")]
        if rng.random() < 0.4:
            lines.append(rng.choice(CJK_WORDS))
        char_h = rng.randint(16, 50)
        if os.path.exists(CJK):
            font = CJK
        else:
            lines = [rng.choice(WORDS) + " " + str(rng.randint(1, 999))]
    elif kind == "poster":  # a headline and smaller lines
        lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))]
        lines += [line(rng, allow_code=False) for _ in range(rng.randint(1, 3))]
        char_h = rng.randint(16, 48)
    else:  # prices, dates, times, phone numbers
        lines = [number(rng) for _ in range(rng.randint(1, 4))]
        char_h = rng.randint(14, 50)
    ink, ground = colours(rng)
    img = card(rng, lines, font, char_h, ink, ground, border, extra)
    if rng.random() < 0.3:  # a print on fabric: an uneven ground
        px = img.load()
        for yy in range(img.height):
            for xx in range(img.width):
                e = int(16 * math.sin((xx * 0.11 + yy * 0.05) * rng.uniform(0.9, 1.1))) + rng.randint(-8, 8)
                px[xx, yy] = max(0, min(255, px[xx, yy] + e))
    limit = 0.9 * W
    if img.width > limit:
        img = img.resize((int(limit), max(1, int(img.height * limit / img.width))), Image.LANCZOS)
    if img.height > 0.9 * H:
        f = 0.9 * H / img.height
        img = img.resize((max(1, int(img.width * f)), int(0.9 * H)), Image.LANCZOS)
    mask = Image.new("L", img.size, 255)
    angle = rng.uniform(-12, 12)
    img = img.rotate(angle, resample=Image.BICUBIC, expand=True)
    mask = mask.rotate(angle, resample=Image.BICUBIC, expand=True)
    x = rng.randint(0, max(0, W - img.width))
    y = rng.randint(0, max(0, H - img.height))
    bg.paste(img, (x, y), mask)
    if rng.random() < 0.7:
        bg = bg.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.5)))
    if rng.random() < 0.4:
        n = rng.randint(4, 16)
        noise = Image.effect_noise(bg.size, n * 2)
        bg = Image.blend(bg, noise, 0.15)
    return bg


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", help="only these kinds of text, comma-separated: " + ", ".join(sorted(KINDS)))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    for k in range(args.count):
        img = scene(rng, args.kinds.split(",") if args.kinds else None)
        img.save(os.path.join(args.out, "scene%04d.png" % k), optimize=False)


if __name__ == "__main__":
    main()
