#!/usr/bin/env python3
"""Generates the image-decoding fixtures in TestImages/{decode,orientation,malformed}.

Every pixel is a function the tests know (see Tests/SeerImageTests/Patterns.swift): the generator draws
the same formulas, so a test can compare a decoded image with what was drawn.

Needs: pip install pillow numpy; apt libjpeg-turbo-progs (cjpeg, jpegtran), libheif-examples (heif-enc)
and webp (cwebp, img2webp, webpmux).
Run from anywhere: python3 TestImages/generate.py
"""
import io
import os
import struct
import subprocess
import zlib

import sys
import tempfile

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)
from heifmux import coded_image, write_heif  # noqa: E402
W, H = 64, 48


def out(group, name):
    d = os.path.join(ROOT, group)
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


# ---- patterns (mirrored in Patterns.swift) ----
def rgb_pattern():
    y, x = np.mgrid[0:H, 0:W]
    r = x * 4
    g = y * 5
    b = (x + y) * 2
    return np.stack([r, g, b], axis=-1).astype(np.uint8)


def gray_pattern():
    y, x = np.mgrid[0:H, 0:W]
    return ((x * 3 + y * 2) % 256).astype(np.uint8)


def gray_levels(bits):
    y, x = np.mgrid[0:H, 0:W]
    return ((x + y) % (1 << bits)).astype(np.uint8)


def gray16_pattern():
    y, x = np.mgrid[0:H, 0:W]
    return (x * 1024 + y * 7).astype(np.uint16)


def alpha_pattern():
    y, x = np.mgrid[0:H, 0:W]
    return (y * 5 + (x % 4) * 6).astype(np.uint8)


def palette():
    return [(i * 16, 255 - i * 16, (i * 37) % 256) for i in range(16)]


def palette_index():
    y, x = np.mgrid[0:H, 0:W]
    return ((x // 4 + y // 4) % 16).astype(np.uint8)


PALETTE_ALPHA = [255, 0, 128, 64] + [255] * 12


# ---- raw PNG writer (full control over colour type, bit depth, interlace) ----
def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def adam7(rows_fn, width, height):
    """Yields the (y, xs) sample positions of the Adam7 passes in order."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    for x0, y0, dx, dy in passes:
        xs = list(range(x0, width, dx))
        if not xs:
            continue
        for y in range(y0, height, dy):
            yield y, xs


def pack_row(samples, bits):
    if bits >= 8:
        if bits == 16:
            return b"".join(struct.pack(">H", int(v)) for v in samples)
        return bytes(int(v) for v in samples)
    per = 8 // bits
    outb = bytearray()
    for i in range(0, len(samples), per):
        byte = 0
        for j in range(per):
            v = int(samples[i + j]) if i + j < len(samples) else 0
            byte |= v << (8 - bits * (j + 1))
        outb.append(byte)
    return bytes(outb)


def write_png(path, pixels, color_type, bits, interlace=False, extra=b"", plte=None, trns=None):
    """pixels: H×W (grey/index) or H×W×C array of sample values."""
    height, width = pixels.shape[:2]
    raw = bytearray()
    def row_bytes(y, xs):
        samples = []
        for x in xs:
            p = pixels[y, x]
            samples.extend(p.tolist() if hasattr(p, "tolist") and np.ndim(p) else [p])
        return pack_row(samples, bits)
    if interlace:
        for y, xs in adam7(None, width, height):
            raw += b"\x00" + row_bytes(y, xs)
    else:
        for y in range(height):
            raw += b"\x00" + row_bytes(y, range(width))
    data = b"\x89PNG\r\n\x1a\n"
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, color_type, 0, 0, 1 if interlace else 0))
    data += extra
    if plte is not None:
        data += chunk(b"PLTE", b"".join(bytes(c) for c in plte))
    if trns is not None:
        data += chunk(b"tRNS", trns)
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    data += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)
    return data


def png_fixtures():
    rgb = rgb_pattern()
    gray = gray_pattern()
    a = alpha_pattern()
    write_png(out("decode", "gray8.png"), gray, 0, 8)
    for bits in (1, 2, 4):
        write_png(out("decode", f"gray{bits}.png"), gray_levels(bits), 0, bits)
    write_png(out("decode", "gray16.png"), gray16_pattern(), 0, 16)
    write_png(out("decode", "gray-alpha.png"), np.stack([gray, a], axis=-1), 4, 8)
    write_png(out("decode", "rgb8.png"), rgb, 2, 8)
    write_png(out("decode", "rgb16.png"), rgb.astype(np.uint16) * 257, 2, 16)
    write_png(out("decode", "rgba8.png"), np.concatenate([rgb, a[..., None]], axis=-1), 6, 8)
    write_png(out("decode", "palette.png"), palette_index(), 3, 4, plte=palette())
    write_png(out("decode", "palette-trns.png"), palette_index(), 3, 8, plte=palette(), trns=bytes(PALETTE_ALPHA[:4]))
    write_png(out("decode", "rgb8-interlaced.png"), rgb, 2, 8, interlace=True)
    write_png(out("decode", "gray8-interlaced.png"), gray, 0, 8, interlace=True)
    # A PNG whose name says JPEG: the format comes from the bytes.
    write_png(out("decode", "png-named.jpg"), gray, 0, 8)


def jpeg_fixtures():
    rgb = Image.fromarray(rgb_pattern(), "RGB")
    gray = Image.fromarray(gray_pattern(), "L")
    rgb.save(out("decode", "baseline-420.jpg"), quality=95, subsampling=2)
    rgb.save(out("decode", "baseline-422.jpg"), quality=95, subsampling=1)
    rgb.save(out("decode", "baseline-444.jpg"), quality=95, subsampling=0)
    rgb.save(out("decode", "progressive.jpg"), quality=95, subsampling=0, progressive=True)
    gray.save(out("decode", "grayscale.jpg"), quality=95)
    # Restart markers every MCU row, through cjpeg.
    ppm = io.BytesIO()
    rgb.save(ppm, "PPM")
    with open(out("decode", "restart.jpg"), "wb") as f:
        subprocess.run(["cjpeg", "-quality", "95", "-sample", "1x1", "-restart", "1"], input=ppm.getvalue(), stdout=f, check=True)
    # CMYK as Adobe applications write it (inverted, Adobe APP14 marker).
    cmyk = np.zeros((H, W, 4), np.uint8)
    arr = rgb_pattern().astype(np.int32)
    k = 255 - arr.max(axis=-1)
    for c in range(3):
        cmyk[..., c] = np.where(k < 255, (255 - arr[..., c] - k) * 255 // np.maximum(255 - k, 1), 0)
    cmyk[..., 3] = k
    Image.fromarray(cmyk, "CMYK").save(out("decode", "cmyk-adobe.jpg"), quality=98)


def quadrant_image():
    """The picture as a person should see it: 48×32, four distinct quadrants (mirrored in Patterns.swift)."""
    w, h = 48, 32
    img = np.zeros((h, w), np.uint8)
    img[: h // 2, : w // 2] = 0
    img[: h // 2, w // 2 :] = 255
    img[h // 2 :, : w // 2] = 85
    img[h // 2 :, w // 2 :] = 170
    return img


def stored_for(displayed, orientation):
    """The stored pixels that, shown with `orientation`, give `displayed` (inverse of the EXIF transform)."""
    d = displayed
    return {
        1: d,
        2: np.fliplr(d),
        3: np.rot90(d, 2),
        4: np.flipud(d),
        5: d.T,
        6: np.rot90(d, 1),   # stored turned 90° counter-clockwise; displayed after a clockwise turn
        7: np.rot90(d, 2).T,
        8: np.rot90(d, -1),
    }[orientation]


def orientation_fixtures():
    shown = quadrant_image()
    for o in range(1, 9):
        stored = np.ascontiguousarray(stored_for(shown, o))
        img = Image.fromarray(stored, "L")
        exif = Image.Exif()
        exif[0x0112] = o
        img.save(out("orientation", f"jpeg-{o}.jpg"), quality=95, exif=exif.tobytes())
        img.save(out("orientation", f"png-{o}.png"), exif=exif.tobytes())


def malformed_fixtures():
    good_jpeg = open(out("decode", "baseline-420.jpg"), "rb").read()
    good_png = open(out("decode", "rgb8.png"), "rb").read()
    open(out("malformed", "empty.png"), "wb").close()
    with open(out("malformed", "text.jpg"), "w") as f:
        f.write("This is a text file with a .jpg name.\n")
    with open(out("malformed", "truncated.jpg"), "wb") as f:
        f.write(good_jpeg[: len(good_jpeg) * 6 // 10])
    with open(out("malformed", "truncated.png"), "wb") as f:
        f.write(good_png[: len(good_png) * 6 // 10])
    # Compressed image data with one byte flipped: the zlib stream breaks.
    i = good_png.index(b"IDAT") + 20
    with open(out("malformed", "bad-zlib.png"), "wb") as f:
        f.write(good_png[:i] + bytes([good_png[i] ^ 0xFF]) + good_png[i + 1 :])
    # A header chunk whose CRC does not match its bytes.
    c = good_png.index(b"IHDR") + 4 + 13
    with open(out("malformed", "bad-crc.png"), "wb") as f:
        f.write(good_png[:c] + bytes([good_png[c] ^ 0x01]) + good_png[c + 1 :])
    # A Huffman table whose code counts overflow: libjpeg refuses it.
    j = good_jpeg.index(b"\xff\xc4") + 5
    with open(out("malformed", "bad-huffman.jpg"), "wb") as f:
        f.write(good_jpeg[:j] + b"\xff" * 16 + good_jpeg[j + 16 :])
    # 60000×60000 headers with valid structure and tiny data: refused from the header.
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 0, 0, 0, 0))
    with open(out("malformed", "huge.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + ihdr + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))
    sof = good_jpeg.index(b"\xff\xc0")
    huge = bytearray(good_jpeg)
    huge[sof + 5 : sof + 9] = struct.pack(">HH", 60000, 60000)
    with open(out("malformed", "huge.jpg"), "wb") as f:
        f.write(bytes(huge))
    # Real files in formats Seer recognises but does not decode.
    small = Image.fromarray(gray_pattern(), "L")
    small.save(out("malformed", "image.gif"))
    small.save(out("malformed", "image.bmp"))
    small.save(out("malformed", "image.tiff"))
    # HEIC: the ISO-BMFF ftyp box a phone writes and nothing else: recognised, but no image in it.
    with open(out("malformed", "image.heic"), "wb") as f:
        f.write(struct.pack(">I", 24) + b"ftypheic" + struct.pack(">I", 0) + b"mif1heic")


# ---- HEIC and WebP (heif-enc, cwebp, img2webp, webpmux; heifmux.py for grids and transformations) ----
def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def encode_heic(pixels, path, *options):
    """heif-enc on a PNG of `pixels` (H×W×3 or H×W×4 uint8, or uint16 for 10 bits)."""
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "in.png")
        if pixels.dtype == np.uint16:
            write_png(png, pixels, 2, 16)
        else:
            Image.fromarray(pixels).save(png)
        run("heif-enc", *options, "-o", path, png)
    return open(path, "rb").read()


def coded(pixels, *options):
    """The HEVC-coded image (hvcC, width, height, data) heif-enc makes of `pixels`."""
    with tempfile.TemporaryDirectory() as tmp:
        return coded_image(encode_heic(pixels, os.path.join(tmp, "t.heic"), *options))


def exif_orientation(o):
    exif = Image.Exif()
    exif[0x0112] = o
    return exif.tobytes()[6:] if exif.tobytes().startswith(b"Exif") else exif.tobytes()


# irot (quarter turns anti-clockwise) then imir for each EXIF orientation. The imir axis is as libheif
# 1.15 applies it (0: top and bottom swap, 1: left and right), the library Seer decodes with.
HEIF_TRANSFORMS = {1: (None, None), 2: (None, 1), 3: (2, None), 4: (None, 0), 5: (3, 1), 6: (3, None), 7: (3, 0), 8: (1, None)}


def grid_pattern(width, height):
    """A grey picture with detail in every tile (mirrored in Patterns.swift)."""
    y, x = np.mgrid[0:height, 0:width]
    return ((x * 2 + y * 3 + (x // 16) * 40 + (y // 16) * 25) % 256).astype(np.uint8)


def heic_fixtures():
    rgb = rgb_pattern()
    encode_heic(rgb, out("heic", "rgb.heic"), "-q", "95")
    encode_heic(rgb.astype(np.uint16) * 257, out("heic", "rgb-10bit.heic"), "-q", "95", "-b", "10")
    rgba = np.concatenate([rgb, alpha_pattern()[..., None]], axis=-1)
    encode_heic(rgba, out("heic", "rgba.heic"), "-q", "95")
    # A grid as iPhones write them: 64×64 tiles, 2 rows × 3 columns, cropped to 180×100 by the grid.
    full = grid_pattern(192, 128)
    tiles = [coded(np.repeat(full[r * 64:(r + 1) * 64, c * 64:(c + 1) * 64, None], 3, axis=-1), "-q", "95")
             for r in range(2) for c in range(3)]
    write_heif(out("heic", "grid.heic"), tiles, grid=(2, 3, 180, 100))
    # The eight orientations as irot/imir boxes over stored quadrants.
    shown = quadrant_image()
    for o in range(1, 9):
        stored = np.ascontiguousarray(stored_for(shown, o))
        tile = coded(np.repeat(stored[..., None], 3, axis=-1), "-q", "95")
        irot, imir = HEIF_TRANSFORMS[o]
        # heif-enc codes whole 64×64 blocks: a one-tile grid crops to the picture, as heif-enc does.
        h, w = stored.shape
        write_heif(out("heic", f"orientation-{o}.heic"), [tile], grid=(1, 1, w, h), irot=irot, imir=imir)
    # EXIF orientation alone (as heif-enc keeps a JPEG's), and both as an iPhone writes them: the
    # boxes turn the picture, the EXIF tag repeats what they do and must not turn it again.
    stored = np.ascontiguousarray(stored_for(shown, 6))
    tile = coded(np.repeat(stored[..., None], 3, axis=-1), "-q", "95")
    h, w = stored.shape
    write_heif(out("heic", "exif-6.heic"), [tile], grid=(1, 1, w, h), exif=exif_orientation(6))
    write_heif(out("heic", "irot-and-exif-6.heic"), [tile], grid=(1, 1, w, h), irot=3, exif=exif_orientation(6))


def webp_fixtures():
    rgb = rgb_pattern()
    rgba = np.concatenate([rgb, alpha_pattern()[..., None]], axis=-1)
    with tempfile.TemporaryDirectory() as tmp:
        png, png_a = os.path.join(tmp, "rgb.png"), os.path.join(tmp, "rgba.png")
        Image.fromarray(rgb).save(png)
        Image.fromarray(rgba).save(png_a)
        run("cwebp", "-q", "95", png, "-o", out("webp", "lossy.webp"))
        run("cwebp", "-lossless", png, "-o", out("webp", "lossless.webp"))
        run("cwebp", "-lossless", "-exact", png_a, "-o", out("webp", "alpha-lossless.webp"))
        run("cwebp", "-q", "95", "-alpha_q", "100", "-exact", png_a, "-o", out("webp", "alpha-lossy.webp"))
        # An animation: the first frame is the pattern, the second its negative.
        neg = os.path.join(tmp, "neg.png")
        Image.fromarray(255 - rgb).save(neg)
        run("img2webp", "-lossless", png, neg, "-o", out("webp", "animated.webp"))
        # EXIF orientation 6 on a stored (turned) quadrant picture.
        q = os.path.join(tmp, "q.png")
        Image.fromarray(np.ascontiguousarray(stored_for(quadrant_image(), 6))).save(q)
        plain = os.path.join(tmp, "q.webp")
        run("cwebp", "-lossless", q, "-o", plain)
        exif = os.path.join(tmp, "exif.bin")
        with open(exif, "wb") as f:
            f.write(exif_orientation(6))
        run("webpmux", "-set", "exif", exif, plain, "-o", out("webp", "exif-6.webp"))


def heic_webp_malformed():
    heic = open(out("heic", "grid.heic"), "rb").read()
    webp = open(out("webp", "lossy.webp"), "rb").read()
    with open(out("malformed", "truncated.heic"), "wb") as f:
        f.write(heic[: len(heic) * 7 // 10])
    with open(out("malformed", "truncated.webp"), "wb") as f:
        f.write(webp[: len(webp) * 6 // 10])
    # Tiles whose first NAL unit header is damaged: libde265 refuses the data. (Damage deeper in a
    # slice is concealed by libde265 and not reported through libheif 1.15: see RELIABILITY.md.)
    hvcc, w, h, data = coded_image(heic)
    bad = bytearray(data)
    bad[4] = 0xFE
    write_heif(out("malformed", "bad-hevc.heic"), [(hvcc, w, h, bytes(bad))] * 6, grid=(2, 3, 180, 100))
    # An HEVC configuration whose sequence parameter set claims more bytes than its box holds:
    # libheif 1.15 crashes on it, so Seer refuses it before libheif sees it.
    at, arrays = 8 + 23, []
    for _ in range(hvcc[8 + 22]):
        count = int.from_bytes(hvcc[at + 1:at + 3], "big")
        at += 3
        for _ in range(count):
            length = int.from_bytes(hvcc[at:at + 2], "big")
            arrays.append((hvcc[at - 3 if not arrays else at] & 0x3F, at, length))
            at += 2 + length
    sps_at = arrays[1][1]
    bad_hvcc = bytearray(hvcc)
    bad_hvcc[sps_at:sps_at + 2] = (arrays[1][2] + 500).to_bytes(2, "big")
    write_heif(out("malformed", "bad-hvcc.heic"), [(bytes(bad_hvcc), w, h, data)] * 6, grid=(2, 3, 180, 100))
    # A grid that says it is 60000×60000: refused from the boxes.
    tile = coded(np.repeat(grid_pattern(64, 64)[..., None], 3, axis=-1), "-q", "50")
    write_heif(out("malformed", "huge.heic"), [tile], grid=(1, 1, 60000, 60000))
    # A lossless WebP whose header says 16384×16384 (268 megapixels) over a few bytes of data.
    bits = (16384 - 1) | (16384 - 1) << 14
    vp8l = b"\x2f" + bits.to_bytes(4, "little") + bytes(27)
    body = b"WEBP" + b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
    with open(out("malformed", "huge.webp"), "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)
    # AVIF: recognised, still not decoded.
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "in.png")
        Image.fromarray(gray_pattern()).save(png)
        run("heif-enc", "-A", "-q", "50", "-o", out("malformed", "image.avif"), png)


if __name__ == "__main__":
    png_fixtures()
    jpeg_fixtures()
    orientation_fixtures()
    malformed_fixtures()
    heic_fixtures()
    webp_fixtures()
    heic_webp_malformed()
