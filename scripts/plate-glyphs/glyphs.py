"""Plate glyphs rendered from fonts and distorted the way photographed plates distort them.

The samples imitate what SeerPlate's segmenter hands the glyph classifier: one connected
component of ink, cut out of a row straightened to a 40 px glyph height and binarised, then
put on the network's canvas by `canvas()` (the same arithmetic as `GlyphClassifier.canvas`
in Sources/SeerPlate/GlyphClassifier.swift).
"""
import glob
import io
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from scipy import ndimage

CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
SIZE, GLYPH_HEIGHT, MAX_WIDTH = 32, 28, 30

# Sans, condensed, DIN and gothic faces from Debian packages (see README.md for the list).
FONT_PATTERNS = [
    "dejavu/DejaVuSans*", "liberation2/LiberationSans*", "urw-base35/NimbusSans*.otf", "urw-base35/URWGothic*.otf",
    "roboto/unhinted/Roboto-*", "roboto/unhinted/RobotoCondensed-*", "opendin/*", "routed-gothic/*", "bebas-neue/*",
    "b612/B612-*", "freefont/FreeSans*", "croscore/Arimo*", "open-sans/OpenSans-*", "lato/Lato-*", "go/Go-*",
    "clear-sans/*", "jura/*", "noto/NotoSans-*", "crosextra/Carlito*", "cantarell/*", "league-spartan/*",
    "dejavu/DejaVuSansMono*", "liberation2/LiberationMono*", "urw-base35/NimbusMonoPS*.otf", "roboto/unhinted/RobotoMono*",
]
EXCLUDE = ("italic", "oblique", "thin", "hairline", "extralight", "serif", "mono-", "condlight")


def fonts():
    found = []
    for pattern in FONT_PATTERNS:
        for root in ("/usr/share/fonts/truetype/", "/usr/share/fonts/opentype/"):
            found += glob.glob(root + pattern)
    return sorted(set(f for f in found if not any(e in os.path.basename(f).lower() for e in EXCLUDE)))


def area_weights(n_in, n_out):
    """Matrix (n_out, n_in): each output sample's normalised overlap with the input samples."""
    scale = n_in / n_out
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        lo, hi = o * scale, (o + 1) * scale
        for i in range(int(np.floor(lo)), min(n_in, int(np.ceil(hi)))):
            w[o, i] = max(0.0, min(hi, i + 1) - max(lo, i))
        w[o] /= w[o].sum()
    return w


def canvas(mask):
    """A glyph mask (bool, cropped to its box) on the SIZE x SIZE canvas: GLYPH_HEIGHT tall,
    aspect kept up to MAX_WIDTH wide, centred, each pixel the fraction of ink it covers."""
    return place(mask.astype(np.float64))


def ink(crop):
    """A grey crop (dark glyph on light ground, uint8) as ink 0..1: stretched between its 5th and
    95th percentiles (at least 8 levels apart), dark = 1."""
    values = np.sort(crop.ravel())
    n = len(values)
    lo, hi = int(values[(n - 1) * 5 // 100]), int(values[(n - 1) * 95 // 100])
    hi = max(hi, lo + 8)
    return np.clip((hi - crop.astype(np.float64)) / (hi - lo), 0, 1)


def grey_canvas(crop):
    """The grey crop under a glyph's box, as ink, on the canvas (same placing as `canvas`)."""
    return place(ink(crop))


def place(values):
    h, w = values.shape
    tw = max(1, min(MAX_WIDTH, int(np.floor(w * GLYPH_HEIGHT / h + 0.5))))
    g = area_weights(h, GLYPH_HEIGHT) @ values @ area_weights(w, tw).T
    out = np.zeros((SIZE, SIZE), np.float32)
    y0, x0 = (SIZE - GLYPH_HEIGHT) // 2, (SIZE - tw) // 2
    out[y0:y0 + GLYPH_HEIGHT, x0:x0 + tw] = g
    return out


def render(font_path, ch, size=72, stroke=0):
    """`ch` black on white, cropped with a margin; None when the font has no ink for it."""
    font = ImageFont.truetype(font_path, size)
    img = Image.new("L", (size * 3, size * 3), 255)
    ImageDraw.Draw(img).text((size, size // 2), ch, font=font, fill=0, stroke_width=stroke, stroke_fill=0)
    ys, xs = np.where(np.array(img) < 128)
    if len(ys) == 0:
        return None
    m = size // 3
    return img.crop((xs.min() - m, ys.min() - m, xs.max() + m, ys.max() + m))


def otsu(values):
    hist = np.bincount(values.ravel(), minlength=256).astype(np.float64)
    total, levels = hist.sum(), np.arange(256)
    wb = np.cumsum(hist)
    sb = np.cumsum(hist * levels)
    wf = total - wb
    valid = (wb > 0) & (wf > 0)
    mb = np.where(valid, sb / np.maximum(wb, 1), 0)
    mf = np.where(valid, (sb[-1] - sb) / np.maximum(wf, 1), 0)
    between = np.where(valid, wb * wf * (mb - mf) ** 2, 0)
    return int(np.argmax(between)) + 1


def distort(img, rng, ch):
    """One photographed, straightened and binarised version of a rendered glyph, as a mask."""
    w, h = img.size
    ink = np.array(img) < 128
    ys, xs = np.where(ink)
    if ch not in "1I" and rng.random() < 0.5:
        # Plate fonts give every character about one width: squeeze to a plate-like aspect.
        aspect = (xs.max() - xs.min() + 1) / (ys.max() - ys.min() + 1)
        sx = rng.uniform(0.33, 0.62) / aspect
    else:
        sx = rng.uniform(0.45, 0.8) if rng.random() < 0.6 else rng.uniform(0.8, 1.25)
    shear, angle = rng.uniform(-0.18, 0.18), rng.uniform(-5, 5)
    img = img.resize((max(4, int(w * sx)), h), Image.BILINEAR)
    w, h = img.size
    img = img.transform((w + int(abs(shear) * h), h), Image.AFFINE, (1, shear, -shear * h if shear > 0 else 0, 0, 1, 0),
                        resample=Image.BILINEAR, fillcolor=255)
    img = img.rotate(angle, resample=Image.BILINEAR, expand=True, fillcolor=255)
    r = rng.random()
    if r < 0.2:
        img = img.filter(ImageFilter.MinFilter(3))  # bolder strokes
    elif r < 0.35:
        img = img.filter(ImageFilter.MaxFilter(3))  # thinner strokes
    ys, xs = np.where(np.array(img) < 128)
    if len(ys) < 20:
        return None
    # Down to the glyph's size in the photo, with blur, uneven light, noise and JPEG.
    target = rng.uniform(13, 46)
    s = target / (ys.max() - ys.min() + 1)
    small = img.resize((max(3, int(img.size[0] * s)), max(3, int(img.size[1] * s))), Image.BOX)
    blur = rng.uniform(0, 1.0)
    if blur > 0.3:
        small = small.filter(ImageFilter.GaussianBlur(blur))
    a = np.array(small).astype(np.float32) / 255
    dark, light = rng.uniform(0, 0.45), rng.uniform(0.55, 1.0)
    a = dark + (light - dark) * a
    gy, gx = np.mgrid[0:a.shape[0], 0:a.shape[1]]
    a += rng.uniform(-0.15, 0.15) * gx / max(1, a.shape[1]) + rng.uniform(-0.15, 0.15) * gy / max(1, a.shape[0])
    a += rng.normal(0, rng.uniform(0, 0.06), a.shape)
    small = Image.fromarray(np.clip(a * 255, 0, 255).astype(np.uint8))
    if rng.random() < 0.4:
        buffer = io.BytesIO()
        small.save(buffer, "JPEG", quality=int(rng.uniform(30, 90)))
        buffer.seek(0)
        small = Image.open(buffer).convert("L")
    # Up to the straightened row's 40 px glyph height (bilinear, as Rectifier does), binarised
    # around Otsu's threshold; the largest component is the glyph.
    s = 40.0 / target
    big = np.array(small.resize((max(3, int(small.size[0] * s)), max(3, int(small.size[1] * s))), Image.BILINEAR))
    mask = big.astype(np.int32) < otsu(big) + int(rng.uniform(-25, 15))
    labels, n = ndimage.label(mask)
    if n == 0:
        return None
    sizes = ndimage.sum(mask, labels, range(1, n + 1))
    k = int(np.argmax(sizes))
    sl = ndimage.find_objects(labels)[k]
    glyph = labels[sl] == k + 1
    # The segmenter's own limits on what a glyph looks like.
    if glyph.shape[0] < 12 or not 0.12 < glyph.mean() < 0.9 or glyph.shape[1] > 1.3 * glyph.shape[0]:
        return None
    return glyph, big[sl]


def samples(font_paths, per_class, seed):
    """(X, G, Y): mask canvases, grey canvases and class indices, `per_class` distortions of each
    character per font."""
    rng = np.random.default_rng(seed)
    xs, gs, ys = [], [], []
    for path in font_paths:
        for index, ch in enumerate(CHARS):
            plain = [render(path, ch, stroke=s) for s in (0, 2)]
            if plain[0] is None:
                continue
            alternative = None
            if ch == "1":
                # Plate fonts often draw 1 as a plain stroke, like I.
                alternative = [render(path, "I", stroke=s) for s in (0, 2)]
            elif ch == "W":
                # US plate fonts draw W with straight sides: an M upside down.
                alternative = [m.transpose(Image.FLIP_TOP_BOTTOM) if m is not None else None
                               for m in (render(path, "M", stroke=s) for s in (0, 2))]
            for _ in range(per_class):
                source = alternative if alternative and alternative[0] is not None and rng.random() < 0.35 else plain
                base = source[1] if source[1] is not None and rng.random() < 0.2 else source[0]
                cut = distort(base, rng, ch)
                if cut is not None:
                    xs.append(canvas(cut[0]))
                    gs.append(grey_canvas(cut[1]))
                    ys.append(index)
    return np.array(xs, np.float32), np.array(gs, np.float32), np.array(ys, np.int64)
