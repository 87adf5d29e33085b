"""Whole plate rows rendered the way SeerPlate's rectifier hands them to the sequence recogniser.

A plate is drawn flat (US state layouts, EU with the blue band, Brazil old and Mercosul) from
fonts Debian ships, then photographed: perspective residue, rotation, blur, a glyph height of
12-50 px in the photo, glare, shadow, dirt, JPEG loss and noise. The rectifier's crop is then
imitated: the glyph row straightened to a fixed glyph height with 0.6 glyph heights of margin at
either end and 1.1 above and below the centre line, jittered as a located row is (a row's ends
and centre line are never exact). `sample()` returns the recogniser's input (`recogniser_input`,
the same arithmetic as `SequenceRecognizer.input` in Sources/SeerPlate/SequenceRecognizer.swift)
and the label (A-Z 0-9 only: separators, emblems and small text are not read).
"""
import glob
import io
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
LETTERS, DIGITS = CHARS[:26], CHARS[26:]
# The recogniser's input: the rectified crop's band of +-0.8 glyph heights around the centre
# line, scaled so that it is HEIGHT px tall (glyphs 20 px).
HEIGHT = 32
BAND = 0.8
RECT_GLYPH = 40  # Rectifier.glyphHeight

# Faces for plate characters: condensed, DIN-like and plain sans (Debian packages, README.md).
PLATE_FONTS = [
    "opendin/*", "urw-base35/NimbusSansNarrow-Bold.otf", "urw-base35/NimbusSansNarrow-Regular.otf",
    "urw-base35/NimbusSans-Bold.otf", "roboto/unhinted/RobotoCondensed-Bold*", "roboto/unhinted/RobotoCondensed-Regular*",
    "roboto/unhinted/Roboto-Bold.ttf", "roboto/unhinted/Roboto-Medium.ttf", "routed-gothic/*", "bebas-neue/*",
    "dejavu/DejaVuSansCondensed-Bold.ttf", "dejavu/DejaVuSans-Bold.ttf", "dejavu/DejaVuSansMono-Bold.ttf",
    "liberation2/LiberationSansNarrow-Bold.ttf", "liberation2/LiberationSans-Bold.ttf", "liberation2/LiberationMono-Bold.ttf",
    "croscore/Arimo-Bold.ttf", "b612/B612-Bold*", "freefont/FreeSansBold.ttf", "go/Go-Bold.ttf", "go/Go-Mono-Bold.ttf",
    "clear-sans/ClearSans-Bold.ttf", "clear-sans/ClearSans-Medium.ttf", "jura/Jura-Bold.ttf", "noto/NotoSans-Bold.ttf",
    "noto/NotoSans-CondensedBold.ttf", "noto/NotoSans-SemiCondensedBold.ttf", "league-spartan/*", "urw-base35/URWGothic-Demi.otf",
    "open-sans/OpenSans-Bold.ttf", "lato/Lato-Bold.ttf", "cantarell/Cantarell-Bold*", "crosextra/Carlito-Bold.ttf",
] + [
    # Condensed faces whose O and 0 are stadiums (straight sides, round ends), as on Brazil's old plates
    # and several European ones: beside round-O faces they teach O from D and 8 from B by the corners.
    "dosis/Dosis-SemiBold.otf", "dosis/Dosis-Bold.otf", "dosis/Dosis-ExtraBold.otf",
    "league-mono/LeagueMono-CondensedBold.otf", "league-mono/LeagueMono-CondensedExtraBold.otf",
    "league-mono/LeagueMono-NarrowBold.otf",
]
STADIUM_FONTS = ["dosis/Dosis-*Bold.otf", "league-mono/LeagueMono-CondensedBold.otf",
                 "league-mono/LeagueMono-CondensedExtraBold.otf", "league-mono/LeagueMono-NarrowBold.otf"]
# Faces for state names, slogans and dealer frames.
SMALL_FONTS = ["dejavu/DejaVuSerif-Bold.ttf", "dejavu/DejaVuSans.ttf", "urw-base35/C059-Bold.otf",
               "urw-base35/Z003-MediumItalic.otf", "liberation2/LiberationSerif-Bold.ttf", "lato/Lato-Italic.ttf",
               "urw-base35/NimbusRoman-Bold.otf", "noto/NotoSerif-Bold.ttf"]
STATES = ["CALIFORNIA", "TEXAS", "FLORIDA", "NEW YORK", "ILLINOIS", "OHIO", "GEORGIA", "MICHIGAN", "ARIZONA",
          "NEVADA", "OREGON", "WASHINGTON", "COLORADO", "VIRGINIA", "NEW JERSEY", "PENNSYLVANIA", "MARYLAND",
          "INDIANA", "KENTUCKY", "UTAH", "IOWA", "KANSAS", "MAINE", "ALABAMA", "MISSOURI", "TENNESSEE", "Idaho"]
SLOGANS = ["THE LONE STAR STATE", "Sunshine State", "EMPIRE STATE", "Land of Lincoln", "dmv.ca.gov", "Great Lakes",
           "Live Free or Die", "Grand Canyon State", "Garden State", "Famous Potatoes", "America's Dairyland",
           "Virginia is for Lovers", "visitPA.com", "First in Flight", "Peach State", "Beautiful", "Wild Wonderful"]
EU_CODES = ["D", "F", "I", "E", "NL", "SK", "CZ", "PL", "B", "A", "P", "L", "H", "SLO", "HR", "RO", "LT"]


def font_files(patterns):
    found = []
    for pattern in patterns:
        for root in ("/usr/share/fonts/truetype/", "/usr/share/fonts/opentype/"):
            found += glob.glob(root + pattern)
    return sorted(set(found))


def rand_text(rng, pattern):
    """A plate text from a pattern: A letter, 9 digit, * either, anything else kept as is."""
    out = []
    for p in pattern:
        if p == "A":
            out.append(LETTERS[rng.integers(26)])
        elif p == "9":
            out.append(DIGITS[rng.integers(10)])
        elif p == "*":
            out.append(CHARS[rng.integers(36)])
        else:
            out.append(p)
    return "".join(out)


US_PATTERNS = ["9AAA999", "AAA9999", "AAA 9999", "999 AAA", "AAA-999", "AA9-9999", "9AA 9999", "A99 9AA", "AAA 999",
               "99A A99", "AAA-9999", "999-AAA", "9999AA", "AA 99999", "A99-AAA", "*****", "******", "*******",
               "AAA A99", "AA 9999", "9AAA99", "99999A", "AA9 A9A"]
EU_PATTERNS = {"D": ["AA AA 999", "A AA 9999", "AAA A 99", "AA A 9999"], "F": ["AA-999-AA"], "I": ["AA 999AA"],
               "E": ["9999 AAA"], "NL": ["AA-999-A", "99-AAA-9", "9-AAA-99", "AA-99-AA"], "SK": ["AA-999AA", "AA 999AA"],
               "CZ": ["9A9 9999", "9AA 9999"], "PL": ["AA 99999", "AAA 99AA", "AA 999AA"], "B": ["9-AAA-999"],
               "A": ["A 9999 A", "AA 999 AA"], "P": ["99-AA-99", "AA-99-AA"], "L": ["AA 9999"], "H": ["AAA-999"],
               "SLO": ["AA 99-999"], "HR": ["AA 999-AA"], "RO": ["AA 99 AAA"], "LT": ["AAA 999"]}


class Renderer:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.fonts = font_files(PLATE_FONTS)
        self.stadium = font_files(STADIUM_FONTS) or self.fonts
        self.small = font_files(SMALL_FONTS) or self.fonts
        if not self.fonts:
            raise SystemExit("no plate fonts: install the packages in scripts/plate-glyphs/README.md")
        self._cache = {}

    def font(self, path, size):
        key = (path, size)
        if key not in self._cache:
            self._cache[key] = ImageFont.truetype(path, size)
        return self._cache[key]

    # ---- flat plates -------------------------------------------------------------------------
    def plate(self):
        """A flat plate: (RGB image, label, glyph box (x0, y0, x1, y1), glyph height)."""
        while True:
            r = self.rng.random()
            img, label, box, gh = self.us() if r < 0.5 else self.eu() if r < 0.78 else self.br()
            # Text run past the plate's edge is redrawn: its label would name glyphs not shown.
            if box[0] >= 2 and box[2] <= img.width - 2 and len(label) >= 4:
                return img, label, box, gh

    def draw_text(self, img, x, y, text, font, fill, spacing, squeeze, gaps):
        """Draws `text` glyph by glyph (squeezed horizontally) with its top at y; returns the
        glyph extent and the label."""
        draw_w, label, boxes = x, "", []
        asc = font.getbbox("H")
        for ch in text:
            if ch == " ":
                draw_w += gaps
                continue
            if ch in "-.·":
                w = int((asc[3] - asc[1]) * 0.35)
                cy = y + (asc[3] - asc[1]) // 2
                d = ImageDraw.Draw(img)
                if ch == "-":
                    d.rectangle([draw_w + 2, cy - 2, draw_w + w, cy + 2], fill=fill)
                else:
                    d.ellipse([draw_w + w // 2 - 3, cy - 3, draw_w + w // 2 + 3, cy + 3], fill=fill)
                draw_w += w + 4
                continue
            bb = font.getbbox(ch)
            gw, gh = bb[2] - bb[0], asc[3] - asc[1]
            tile = Image.new("L", (gw + 4, bb[3] - bb[1] + 4), 0)
            ImageDraw.Draw(tile).text((2 - bb[0], 2 - bb[1]), ch, font=font, fill=255)
            nw = max(2, int(tile.width * squeeze))
            tile = tile.resize((nw, tile.height), Image.BILINEAR)
            ty = y + (bb[1] - asc[1]) - 2
            img.paste(Image.new("RGB", tile.size, fill), (draw_w, ty), tile)
            boxes.append((draw_w, ty, draw_w + nw, ty + tile.height))
            draw_w += nw + spacing
            label += ch
        x0 = min(b[0] for b in boxes); x1 = max(b[2] for b in boxes)
        return (x0, y, x1, y + (asc[3] - asc[1])), label

    def glyph_font(self, height, faces=None):
        faces = faces or self.fonts
        path = faces[self.rng.integers(len(faces))]
        # Size so that a capital H is `height` px tall.
        f = self.font(path, 100)
        bb = f.getbbox("H")
        return self.font(path, max(8, int(100 * height / max(1, bb[3] - bb[1]))))

    def us(self):
        rng = self.rng
        W, H = 480, 240
        grounds = [(245, 245, 240), (250, 250, 250), (230, 235, 245), (250, 240, 200), (255, 255, 255), (210, 225, 240),
                   (240, 230, 210), (40, 60, 120), (20, 20, 20), (250, 220, 60)]
        ground = grounds[rng.integers(len(grounds))] if rng.random() < 0.85 else tuple(int(v) for v in rng.integers(0, 255, 3))
        dark_ground = sum(ground) < 300
        inks = [(20, 30, 120), (10, 10, 10), (120, 20, 20), (20, 80, 40)] if not dark_ground else [(250, 250, 250), (250, 220, 60)]
        ink = inks[rng.integers(len(inks))]
        img = Image.new("RGB", (W, H), ground)
        d = ImageDraw.Draw(img)
        if rng.random() < 0.4:  # a graphic plate: a gradient or scene band behind the glyphs
            for yy in range(H):
                t = yy / H
                c = tuple(int(ground[k] * (1 - 0.3 * t) + 200 * 0.3 * t * (k == rng.integers(3))) for k in range(3))
                d.line([(0, yy), (W, yy)], fill=c)
        text = rand_text(rng, US_PATTERNS[rng.integers(len(US_PATTERNS))])
        gh = int(rng.uniform(0.36, 0.52) * H)
        font = self.glyph_font(gh)
        squeeze = rng.uniform(0.6, 1.05)
        spacing = int(rng.uniform(0.02, 0.15) * gh)
        # Measure, then centre.
        probe = Image.new("RGB", (W * 3, H), ground)
        (bx0, _, bx1, _), _ = self.draw_text(probe, 0, 0, text, font, ink, spacing, squeeze, int(0.4 * gh))
        tw = bx1 - bx0
        if tw > W * 0.92:
            squeeze *= W * 0.92 / tw
            tw = int(W * 0.92)
        ty = int(H * rng.uniform(0.28, 0.36))
        x = (W - tw) // 2 + int(rng.uniform(-0.04, 0.04) * W)
        box, label = self.draw_text(img, x, ty, text, font, ink, spacing, squeeze, int(0.4 * gh))
        small = self.small[rng.integers(len(self.small))]
        if rng.random() < 0.9:  # state name above
            name = STATES[rng.integers(len(STATES))]
            f = self.font(small, int(H * rng.uniform(0.1, 0.2)))
            tb = d.textbbox((0, 0), name, font=f)
            d.text(((W - (tb[2] - tb[0])) // 2, int(H * 0.04)), name, font=f,
                   fill=tuple(int(v) for v in rng.integers(0, 200, 3)) if not dark_ground else (250, 250, 250))
        if rng.random() < 0.7:  # slogan below
            s = SLOGANS[rng.integers(len(SLOGANS))]
            f = self.font(small, int(H * rng.uniform(0.07, 0.12)))
            tb = d.textbbox((0, 0), s, font=f)
            d.text(((W - (tb[2] - tb[0])) // 2, int(H * 0.84)), s, font=f, fill=ink)
        if rng.random() < 0.25:  # stacked small characters beside the number (not read)
            f = self.font(self.fonts[rng.integers(len(self.fonts))], int(gh * 0.38))
            sx = box[0] - int(gh * 0.45) if rng.random() < 0.5 else box[2] + int(gh * 0.12)
            for k in range(2):
                d.text((sx, box[1] + k * int(gh * 0.5)), LETTERS[rng.integers(26)], font=f, fill=ink)
        if rng.random() < 0.5:  # registration sticker in a corner
            sx = int(rng.choice([0.03, 0.8]) * W); sy = int(rng.choice([0.05, 0.75]) * H)
            c = tuple(int(v) for v in rng.integers(0, 255, 3))
            d.rectangle([sx, sy, sx + int(W * 0.14), sy + int(H * 0.17)], fill=c)
            d.text((sx + 4, sy + 2), str(rng.integers(10, 99)), font=self.font(small, int(H * 0.1)), fill=(0, 0, 0))
        if rng.random() < 0.6:  # bolts
            for bx in (0.2, 0.8):
                cx, cy = int(bx * W), int(rng.choice([0.12, 0.88]) * H)
                d.ellipse([cx - 7, cy - 7, cx + 7, cy + 7], fill=(150, 150, 150), outline=(60, 60, 60))
        self.frame(img, d)
        return img, label, box, gh

    def eu(self):
        rng = self.rng
        code = EU_CODES[rng.integers(len(EU_CODES))]
        text = rand_text(rng, EU_PATTERNS[code][rng.integers(len(EU_PATTERNS[code]))])
        two_rows = rng.random() < 0.12
        W, H = (520, 112) if not two_rows else (300, 220)
        ground = (250, 250, 250) if rng.random() < 0.8 else (250, 215, 40)
        img = Image.new("RGB", (W, H), ground)
        d = ImageDraw.Draw(img)
        band = int(H * 0.42) if not two_rows else int(W * 0.13)
        d.rectangle([0, 0, band, H], fill=(20, 50, 160))
        for k in range(12):  # the ring of stars
            a = 2 * np.pi * k / 12
            cx, cy = band / 2 + np.cos(a) * band * 0.25, H * 0.3 + np.sin(a) * band * 0.25
            d.ellipse([cx - 2, cy - 2, cx + 2, cy + 2], fill=(250, 210, 0))
        f = self.font(self.fonts[0], int(band * 0.45))
        d.text((band * 0.15, H * 0.62), code, font=f, fill=(250, 250, 250))
        ink = (15, 15, 15)
        font_h = int(H * rng.uniform(0.6, 0.72)) if not two_rows else int(H * 0.36)
        font = self.glyph_font(font_h)
        squeeze = rng.uniform(0.65, 1.0)
        spacing = int(rng.uniform(0.03, 0.12) * font_h)
        if two_rows:
            parts = text.replace("-", " ").split(" ")
            top, bottom = parts[0], "".join(parts[1:]) or parts[0]
            box1, l1 = self.draw_text(img, band + 20, int(H * 0.08), top, font, ink, spacing, squeeze, int(0.3 * font_h))
            box, label = self.draw_text(img, band + 12, int(H * 0.54), bottom, font, ink, spacing, squeeze, int(0.3 * font_h))
            self.frame(img, d, dark=True)
            return img, label, box, font_h
        probe = Image.new("RGB", (W * 3, H), ground)
        (bx0, _, bx1, _), _ = self.draw_text(probe, 0, 0, text, font, ink, spacing, squeeze, int(0.35 * font_h))
        avail = W - band - 20
        if bx1 - bx0 > avail:
            squeeze *= avail / (bx1 - bx0)
        (bx0, _, bx1, _), _ = self.draw_text(probe, 0, 0, text, font, ink, spacing, squeeze, int(0.35 * font_h))
        x = band + max(6, (avail - (bx1 - bx0)) // 2)
        box, label = self.draw_text(img, x, (H - font_h) // 2, text, font, ink, spacing, squeeze, int(0.35 * font_h))
        if code == "D" and rng.random() < 0.7:  # seals between district and letters
            sx = box[0] + int(0.3 * (box[2] - box[0]))
            d.ellipse([sx, H * 0.3, sx + font_h * 0.3, H * 0.55], fill=(200, 60, 60))
        self.frame(img, d, dark=True)
        return img, label, box, font_h

    def br(self):
        rng = self.rng
        mercosul = rng.random() < 0.5
        W, H = 480, 150
        if mercosul:
            text = rand_text(rng, "AAA9A99")
            img = Image.new("RGB", (W, H), (250, 250, 250))
            d = ImageDraw.Draw(img)
            d.rectangle([0, 0, W, int(H * 0.2)], fill=(20, 50, 160))
            d.text((W * 0.4, 2), "BRASIL", font=self.font(self.small[0], int(H * 0.15)), fill=(250, 250, 250))
            font_h = int(H * rng.uniform(0.5, 0.6))
            ty = int(H * 0.3)
            ink = (15, 15, 15)
        else:
            text = rand_text(rng, "AAA-9999" if rng.random() < 0.8 else "AAA 9999")
            grey = rng.random() < 0.7
            ground = (200, 200, 195) if grey else (180, 30, 30)
            img = Image.new("RGB", (W, H), ground)
            d = ImageDraw.Draw(img)
            city = "SAO PAULO" if rng.random() < 0.5 else "SP - CAMPINAS"
            d.text((W * 0.3, 4), city, font=self.font(self.small[1], int(H * 0.16)), fill=(20, 20, 20) if grey else (250, 250, 250))
            font_h = int(H * rng.uniform(0.5, 0.62))
            ty = int(H * 0.3)
            ink = (20, 20, 20) if grey else (250, 250, 250)
        # The old plates' face has stadium-shaped O and 0: most of them take such a face.
        font = self.glyph_font(font_h, self.stadium if not mercosul and rng.random() < 0.6 else None)
        squeeze = rng.uniform(0.65, 1.0)
        spacing = int(rng.uniform(0.03, 0.12) * font_h)
        probe = Image.new("RGB", (W * 3, H), (0, 0, 0))
        (bx0, _, bx1, _), _ = self.draw_text(probe, 0, 0, text, font, ink, spacing, squeeze, int(0.3 * font_h))
        if bx1 - bx0 > W * 0.92:
            squeeze *= W * 0.92 / (bx1 - bx0)
            (bx0, _, bx1, _), _ = self.draw_text(probe, 0, 0, text, font, ink, spacing, squeeze, int(0.3 * font_h))
        box, label = self.draw_text(img, (W - (bx1 - bx0)) // 2, ty, text, font, ink, spacing, squeeze, int(0.3 * font_h))
        self.frame(img, d, dark=True)
        return img, label, box, font_h

    def frame(self, img, d, dark=False):
        rng = self.rng
        W, H = img.size
        if rng.random() < 0.7:
            c = (20, 20, 20) if dark or rng.random() < 0.6 else tuple(int(v) for v in rng.integers(0, 255, 3))
            t = int(rng.integers(1, 6))
            inset = int(rng.integers(0, 6))
            d.rounded_rectangle([inset, inset, W - 1 - inset, H - 1 - inset], radius=int(rng.integers(0, 14)), outline=c, width=t)

    # ---- the photograph and the rectifier's crop ---------------------------------------------
    def sample(self):
        """(input float32 HEIGHT x w in 0..1, dark = 0, label)."""
        rng = self.rng
        img, label, box, gh = self.plate()
        # Surroundings: the plate on a bumper / car body / dealer frame.
        W, H = img.size
        pad = int(gh * 1.5)
        bg_c = tuple(int(v) for v in rng.integers(0, 255, 3))
        scene = Image.new("RGB", (W + 2 * pad, H + 2 * pad), bg_c)
        sd = ImageDraw.Draw(scene)
        for _ in range(int(rng.integers(0, 6))):
            x0, y0 = rng.integers(0, scene.width), rng.integers(0, scene.height)
            sd.rectangle([x0, y0, x0 + rng.integers(5, 200), y0 + rng.integers(5, 80)],
                         fill=tuple(int(v) for v in rng.integers(0, 255, 3)))
        if rng.random() < 0.3:  # a dealer frame's text below or above
            f = self.font(self.small[rng.integers(len(self.small))], int(pad * 0.5))
            sd.text((pad + W * 0.2, H + pad + pad * 0.2), "AUTO SALES 555-0199", font=f, fill=(250, 250, 250))
        scene.paste(img, (pad, pad))
        box = (box[0] + pad, box[1] + pad, box[2] + pad, box[3] + pad)
        g = np.asarray(scene.convert("L"), np.float32)
        # Lighting: glare, shadow.
        yy, xx = np.mgrid[0:g.shape[0], 0:g.shape[1]].astype(np.float32)
        if rng.random() < 0.4:
            cx, cy, r = rng.uniform(0, g.shape[1]), rng.uniform(0, g.shape[0]), rng.uniform(0.2, 0.8) * g.shape[1]
            g = g + rng.uniform(40, 140) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (r * r))
        if rng.random() < 0.4:
            a, b = rng.normal(size=2)
            side = (a * (xx - g.shape[1] / 2) + b * (yy - g.shape[0] / 2)) > rng.normal() * 30
            g = np.where(side, g * rng.uniform(0.35, 0.8), g)
        g = g * rng.uniform(0.5, 1.1) + rng.uniform(-30, 40)
        if rng.random() < 0.5:  # dirt
            for _ in range(int(rng.integers(1, 30))):
                x0, y0 = rng.integers(0, g.shape[1]), rng.integers(0, g.shape[0])
                rad = int(rng.integers(1, max(2, gh // 6)))
                g[max(0, y0 - rad):y0 + rad, max(0, x0 - rad):x0 + rad] *= rng.uniform(0.3, 0.9)
        scene = Image.fromarray(np.clip(g, 0, 255).astype(np.uint8))
        # Rotation and perspective residue around the glyph box, then the photo's resolution: a
        # glyph height of 12-50 px.
        target = float(np.exp(rng.uniform(np.log(12), np.log(50))))
        s = target / gh
        small = scene.resize((max(8, int(scene.width * s)), max(8, int(scene.height * s))), Image.BILINEAR)
        if rng.random() < 0.6:
            small = small.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.4) * max(1.0, target / 25)))
        a = np.asarray(small, np.float32) + rng.normal(0, rng.uniform(0, 12), (small.height, small.width))
        small = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        if rng.random() < 0.7:
            buf = io.BytesIO()
            small.save(buf, "JPEG", quality=int(rng.integers(15, 90)))
            small = Image.open(io.BytesIO(buf.getvalue())).convert("L")
        # The rectifier: the located row's ends and centre line with a locator's error, a small
        # leftover tilt and keystone, glyphs scaled to RECT_GLYPH px.
        bx0, by0, bx1, by1 = [v * s for v in box]
        h = (by1 - by0) * rng.uniform(0.9, 1.12)
        cy = (by0 + by1) / 2 + rng.normal(0, 0.06) * h
        x0 = bx0 + rng.normal(0, 0.12) * h - (rng.uniform(0, 1.2) * h if rng.random() < 0.15 else 0)
        x1 = bx1 + rng.normal(0, 0.12) * h + (rng.uniform(0, 1.2) * h if rng.random() < 0.15 else 0)
        x0, x1 = x0 - 0.6 * h, x1 + 0.6 * h
        angle = rng.normal(0, 0.025)
        shear = rng.normal(0, 0.08)
        keystone = rng.normal(0, 0.04)
        scale = HEIGHT / (2 * BAND * h)
        out_w = max(8, int((x1 - x0) * scale))
        # Output pixel (u, v) -> source: along the row, across it with shear and keystone.
        u = np.arange(out_w, dtype=np.float32) / scale
        v = (np.arange(HEIGHT, dtype=np.float32) + 0.5) / scale - BAND * h
        U, V = np.meshgrid(u, v)
        k = 1 + keystone * (U / max(1.0, x1 - x0) - 0.5) * 2
        V = V * k
        X = x0 + U * np.cos(angle) - V * np.sin(angle) + shear * V
        Y = cy + U * np.sin(angle) + V * np.cos(angle)
        src = np.asarray(small, np.float32)
        crop = bilinear(src, X, Y)
        # Glyph polarity: the plate's ink against its ground decides, as the locator does.
        if label_is_light(img):
            crop = 255 - crop if rng.random() < 0.9 else crop
        return recogniser_input(crop), label


def label_is_light(img):
    """Whether the plate's glyphs are lighter than its ground (sampled at the glyph row)."""
    g = np.asarray(img.convert("L"), np.float32)
    return np.median(g) < 110


def bilinear(src, X, Y):
    h, w = src.shape
    X = np.clip(X, 0, w - 1.001); Y = np.clip(Y, 0, h - 1.001)
    xi, yi = X.astype(int), Y.astype(int)
    fx, fy = X - xi, Y - yi
    return ((src[yi, xi] * (1 - fx) + src[yi, xi + 1] * fx) * (1 - fy)
            + (src[yi + 1, xi] * (1 - fx) + src[yi + 1, xi + 1] * fx) * fy)


def recogniser_input(crop):
    """A grey crop (HEIGHT rows, dark glyphs on light) as the network's input: stretched between
    its 2nd and 98th percentiles (at least 8 levels apart), 0 = dark, 1 = light."""
    values = np.sort(crop.ravel())
    n = len(values)
    lo, hi = float(values[(n - 1) * 2 // 100]), float(values[(n - 1) * 98 // 100])
    hi = max(hi, lo + 8)
    return np.clip((crop - lo) / (hi - lo), 0, 1).astype(np.float32)


def write_rows(out, count, seed):
    """Writes `count` rendered rows as the recogniser sees them (PNG, HEIGHT px tall) and
    rows.csv (file,text) into `out`."""
    r = Renderer(seed)
    os.makedirs(out, exist_ok=True)
    lines = ["file,text"]
    for i in range(count):
        x, label = r.sample()
        name = f"row{i:02d}.png"
        Image.fromarray((x * 255 + 0.5).astype(np.uint8)).save(os.path.join(out, name))
        lines.append(f"{name},{label}")
    with open(os.path.join(out, "rows.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Writes rendered plate rows as the recogniser sees them.")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    write_rows(a.out, a.count, a.seed)
