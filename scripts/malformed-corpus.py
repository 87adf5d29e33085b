#!/usr/bin/env python3
"""Writes a corpus of malformed and hostile image files, made from the committed fixtures in
TestImages/, into OUTDIR (several hundred files; nothing here is committed as a binary).

    python3 scripts/malformed-corpus.py OUTDIR [--bombs]

Standard library only. Every file is deterministic (fixed seeds). Kinds:
  trunc-*     every seed cut at a spread of lengths
  flip-*      bytes flipped in the header and in the data
  length-*    JPEG segment, PNG chunk, HEIF box and RIFF chunk lengths that lie
  crc-*       PNG chunk CRCs that do not match
  dims-*      frame, IHDR, ispe and VP8 sizes that lie (bigger, smaller, zero)
  prog-*      progressive JPEG scan tricks (bogus progressions, impossible parameters, repeats)
  exif-*      EXIF blocks with loops, huge counts and offsets out of range (JPEG, PNG, HEIC, WebP)
  poly-*      polyglots: one format's signature in front of another's data, archives appended
  damage-*    the damaged-data conditions Seer must call `corrupt` (bad Huffman code, stray bytes
              before a marker after entropy data, a frame that lies about its size, zero
              quantisers, an arithmetic-coding marker on Huffman data, a PNG palette shorter than
              its indices)
  bomb-*      small files that ask for huge work or memory: a progressive JPEG of 10 000×10 000
              with ~1 000 / 1 201 / 20 001 near-empty scans, a 10 000×10 000 16-bit RGBA PNG of
              zeros, huge headers, a HEIC grid of 16 384×16 384 from one tile (--bombs adds the
              slow-to-write ones: the 20 001-scan JPEG and the 16-bit PNG)
  bound-*     work and memory that must stay bounded, and valid files at the edges: HEIC grids
              whose tiles do not cover their output, grid chains 8 to 64 deep, PNGs whose text
              chunks inflate to 63 MB each, PNGs 1 000 001 pixels wide or tall, an animated WebP
              canvas of 100 megapixels holding one 1×1 frame, frames whose ANMF size lies

manifest.tsv lists each file with what it must give: `corrupt`, `tooLarge`, `decodes` (a valid
image), or `any` (a typed error or a valid image).
"""
import os
import random
import struct
import sys
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "TestImages")
SEEDS = {
    "baseline": "decode/baseline-420.jpg",
    "progressive": "decode/progressive.jpg",
    "restart": "decode/restart.jpg",
    "exif": "orientation/jpeg-6.jpg",
    "png-rgb": "decode/rgb8.png",
    "png-interlaced": "decode/gray8-interlaced.png",
    "png-palette": "decode/palette.png",
    "png-exif": "orientation/png-6.png",
    "heic-grid": "heic/grid.heic",
    "heic-rot": "heic/orientation-6.heic",
    "webp-lossy": "webp/lossy.webp",
    "webp-lossless": "webp/lossless.webp",
    "webp-anim": "webp/animated.webp",
}


class Corpus:
    def __init__(self, out):
        self.out = out
        self.manifest = []
        os.makedirs(out, exist_ok=True)

    def add(self, name, data, expect="any"):
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(data)
        self.manifest.append((name, expect))

    def finish(self):
        with open(os.path.join(self.out, "manifest.tsv"), "w") as f:
            for name, expect in self.manifest:
                f.write(f"{name}\t{expect}\n")
        return len(self.manifest)


def read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


def ext(seed):
    return {"png": ".png", "hei": ".heic", "web": ".webp"}.get(seed[:3], ".jpg")


# ---------- structure helpers ----------
def jpeg_segments(data):
    """(marker, offset of the marker, length field value) for each header segment up to SOS."""
    at, out = 2, []
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        out.append((marker, at, length))
        if marker == 0xDA:
            break
        at += 2 + length
    return out


def png_chunks(data):
    at, out = 8, []
    while at + 12 <= len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        out.append((data[at + 4:at + 8], at, length))
        at += 12 + length
    return out


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def heif_boxes(data, start=0, end=None, depth=0):
    """(type, offset, size) of top-level boxes and of meta's and iprp/ipco's children."""
    end = len(data) if end is None else end
    at, out = start, []
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8:
            break
        out.append((kind, at, size))
        if kind == b"meta" and depth < 2:
            out += heif_boxes(data, at + 12, at + size, depth + 1)
        elif kind in (b"iprp", b"ipco") and depth < 3:
            out += heif_boxes(data, at + 8, at + size, depth + 1)
        at += size
    return out


def riff_chunks(data):
    at, out = 12, []
    while at + 8 <= len(data):
        kind = data[at:at + 4]
        size = struct.unpack("<I", data[at + 4:at + 8])[0]
        out.append((kind, at, size))
        at += 8 + size + (size & 1)
    return out


def tiff(entries, ifd_offset=8, next_ifd=0, count_override=None):
    """A big-endian TIFF block with one IFD of (tag, type, count, value) entries."""
    body = b"MM\x00\x2a" + struct.pack(">I", ifd_offset)
    body += b"\x00" * (ifd_offset - len(body))
    n = count_override if count_override is not None else len(entries)
    body += struct.pack(">H", n)
    for tag, typ, count, value in entries:
        body += struct.pack(">HHI", tag, typ, count) + value
    return body + struct.pack(">I", next_ifd)


ORIENT6 = (0x0112, 3, 1, struct.pack(">HH", 6, 0))


def exif_blocks():
    """EXIF/TIFF blocks that loop, overrun or lie."""
    return {
        "self-loop": tiff([ORIENT6], next_ifd=8),
        "ifd-past-end": tiff([ORIENT6], ifd_offset=8)[:8].replace(struct.pack(">I", 8), struct.pack(">I", 0x7FFFFFF0)),
        "huge-count": tiff([ORIENT6], count_override=0xFFFF),
        "orientation-99": tiff([(0x0112, 3, 1, struct.pack(">HH", 99, 0))]),
        "orientation-long-type": tiff([(0x0112, 4, 1, struct.pack(">I", 6))]),
        "orientation-huge-count": tiff([(0x0112, 3, 0x7FFFFFFF, struct.pack(">I", 0x10))]),
        "subifd-loop": tiff([(0x8769, 4, 1, struct.pack(">I", 8)), ORIENT6]),
        "bad-byte-order": b"XX\x00\x2a" + tiff([ORIENT6])[4:],
        "empty": b"",
        "short": b"MM\x00",
    }


# ---------- kinds ----------
def truncations(c, seeds):
    for seed, data in seeds.items():
        n = len(data)
        points = sorted({1, 2, 3, 4, 8, 12, 16, 20, 30, n // 10, n // 4, n // 3, n // 2, 2 * n // 3, 3 * n // 4, 9 * n // 10, n - 2, n - 1})
        for p in points:
            if 0 < p < n:
                c.add(f"trunc-{seed}-{p}{ext(seed)}", data[:p])


def flips(c, seeds):
    rng = random.Random(0x5EE5)
    for seed, data in seeds.items():
        for i in range(8):
            b = bytearray(data)
            region = min(len(b), 256) if i < 4 else len(b)
            for _ in range(1 + i % 3):
                at = rng.randrange(region)
                b[at] ^= 1 << rng.randrange(8)
            c.add(f"flip-{seed}-{i}{ext(seed)}", bytes(b))


def lengths(c, seeds):
    for seed in ("baseline", "progressive"):
        data = seeds[seed]
        for marker, at, length in jpeg_segments(data):
            for label, value in (("plus1", length + 1), ("minus1", length - 1), ("zero", 0), ("one", 1), ("max", 0xFFFF)):
                b = bytearray(data)
                b[at + 2:at + 4] = struct.pack(">H", value & 0xFFFF)
                c.add(f"length-{seed}-{marker:02x}-{at}-{label}.jpg", bytes(b))
    for seed in ("png-rgb", "png-palette"):
        data = seeds[seed]
        for kind, at, length in png_chunks(data):
            for label, value in (("plus1", length + 1), ("minus1", max(0, length - 1)), ("huge", 0x7FFFFFFF), ("over31", 0x80000000)):
                b = bytearray(data)
                b[at:at + 4] = struct.pack(">I", value)
                c.add(f"length-{seed}-{kind.decode('latin1')}-{label}.png", bytes(b))
    for seed in ("heic-grid", "heic-rot"):
        data = seeds[seed]
        for kind, at, size in heif_boxes(data):
            for label, value in (("plus1", size + 1), ("minus1", size - 1), ("zero", 0), ("large", 1), ("huge", 0xFFFFFFF0)):
                b = bytearray(data)
                b[at:at + 4] = struct.pack(">I", value)
                c.add(f"length-{seed}-{kind.decode('latin1')}-{at}-{label}.heic", bytes(b))
    for seed in ("webp-lossy", "webp-anim"):
        data = seeds[seed]
        for label, value in (("riff-small", 4), ("riff-huge", 0xFFFFFFF0)):
            b = bytearray(data)
            b[4:8] = struct.pack("<I", value)
            c.add(f"length-{seed}-{label}.webp", bytes(b))
        for kind, at, size in riff_chunks(data):
            for label, value in (("plus1", size + 1), ("zero", 0), ("huge", 0xFFFFFFF0)):
                b = bytearray(data)
                b[at + 4:at + 8] = struct.pack("<I", value)
                c.add(f"length-{seed}-{kind.decode('latin1').strip()}-{at}-{label}.webp", bytes(b))


def crcs(c, seeds):
    for seed in ("png-rgb", "png-interlaced", "png-palette", "png-exif"):
        data = seeds[seed]
        for kind, at, length in png_chunks(data):
            b = bytearray(data)
            crc_at = at + 8 + length
            if crc_at + 4 <= len(b):
                b[crc_at] ^= 0x55
                c.add(f"crc-{seed}-{kind.decode('latin1')}.png", bytes(b))


def dims(c, seeds):
    for seed in ("baseline", "progressive", "restart"):
        data = seeds[seed]
        sof = next(at for marker, at, _ in jpeg_segments(data) if marker in (0xC0, 0xC1, 0xC2))
        h, w = struct.unpack(">HH", data[sof + 5:sof + 9])
        for label, (nh, nw) in {"zero-h": (0, w), "zero-w": (h, 0), "half-h": (h // 2, w), "half-w": (h, w // 2),
                                "double-h": (h * 2, w), "double-w": (h, w * 2), "huge": (65500, 65500),
                                "100mp": (10000, 10000)}.items():
            b = bytearray(data)
            b[sof + 5:sof + 9] = struct.pack(">HH", nh, nw)
            # A smaller frame leaves entropy data unused: damage Seer must call corrupt.
            expect = "corrupt" if label in ("half-h", "half-w") else "any"
            c.add(f"dims-{seed}-{label}.jpg", bytes(b), expect)
    for seed in ("png-rgb", "png-interlaced"):
        data = seeds[seed]
        w, h = struct.unpack(">II", data[16:24])
        for label, (nw, nh) in {"zero": (0, h), "half-h": (w, h // 2), "double-h": (w, h * 2), "double-w": (w * 2, h),
                                "huge": (0x7FFFFFFF, 0x7FFFFFFF), "wide": (1 << 24, 1)}.items():
            b = bytearray(data)
            body = b[12:16] + struct.pack(">II", nw, nh) + b[24:29]
            b[16:24] = struct.pack(">II", nw, nh)
            b[29:33] = struct.pack(">I", zlib.crc32(bytes(body)) & 0xFFFFFFFF)
            c.add(f"dims-{seed}-{label}.png", bytes(b))
    for seed in ("heic-grid", "heic-rot"):
        data = seeds[seed]
        at = 0
        while True:
            at = data.find(b"ispe", at + 1)
            if at < 0:
                break
            for label, (w, h) in {"zero": (0, 0), "small": (8, 8), "huge": (60000, 60000), "max": (0xFFFFFFFF, 0xFFFFFFFF)}.items():
                b = bytearray(data)
                b[at + 8:at + 16] = struct.pack(">II", w, h)
                c.add(f"dims-{seed}-ispe{at}-{label}.heic", bytes(b))
    data = seeds["webp-lossy"]
    vp8 = data.find(b"VP8 ")
    if vp8 > 0:
        for label, (w, h) in {"zero": (0, 0), "double": (128, 96), "max": (16383, 16383)}.items():
            b = bytearray(data)
            b[vp8 + 14:vp8 + 18] = struct.pack("<HH", w, h)
            c.add(f"dims-webp-lossy-{label}.webp", bytes(b))
    data = seeds["webp-lossless"]
    vp8l = data.find(b"VP8L")
    if vp8l > 0:
        for label, (w, h) in {"double": (128, 96), "max": (16384, 16384)}.items():
            b = bytearray(data)
            bits = (w - 1) | (h - 1) << 14 | (struct.unpack("<I", bytes(b[vp8l + 9:vp8l + 13]))[0] & 0xF0000000)
            b[vp8l + 9:vp8l + 13] = struct.pack("<I", bits)
            c.add(f"dims-webp-lossless-{label}.webp", bytes(b))


# ---------- progressive JPEG construction ----------
class Bits:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value, count):
        for i in range(count - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc = self.n = 0

    def zeros(self, count):
        """`count` zero bits, fast for long runs."""
        while count and self.n:
            self.put(0, 1)
            count -= 1
        self.out += bytes(count // 8)
        self.put(0, count % 8)

    def flush(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)
        return bytes(self.out)


def segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def eob_scan(blocks):
    """AC scan data that codes `blocks` blocks as end-of-band runs (symbol r<<4 has code r, 4 bits)."""
    bits = Bits()
    left = blocks
    while left:
        run = min(left, 32767)
        r = run.bit_length() - 1
        bits.put(r, 4)
        bits.put(run - (1 << r), r)
        left -= run
    return bits.flush()


def progressive_jpeg(width, height, scans, tables=None, scan_list=None, arith=False, quant=1):
    """A greyscale progressive JPEG whose AC scans are end-of-band runs: cheap bytes, full passes.
    `scans` AC scans follow the DC scan, cycling coefficient by coefficient through a first scan
    (Al 13) and its refinements down to Al 0, then again from a first scan: a progression libjpeg
    accepts without warning."""
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    out = b"\xff\xd8"
    out += segment(0xDB, b"\x00" + bytes([quant]) * 64)
    out += segment(0xC2 if not arith else 0xCA, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
    out += segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")  # DC: one code of length 1
    out += segment(0xC4, b"\x10" + bytes([0, 0, 0, 15] + [0] * 12) + bytes(r << 4 for r in range(15)))
    dc = Bits()
    dc.zeros(blocks)
    out += segment(0xDA, b"\x01\x01\x00" + bytes([0, 0, 0x00])) + dc.flush()
    data = eob_scan(blocks)
    plan = scan_list or []
    if not plan:
        k, a = 1, None
        while len(plan) < scans:
            if a is None:
                plan.append((k, k, 0, 13))
                a = 13
            else:
                plan.append((k, k, a, a - 1))
                a -= 1
                if a == 0:
                    a = None
                    k = k % 63 + 1
    for ss, se, ah, al in plan:
        out += segment(0xDA, b"\x01\x01\x00" + bytes([ss, se, (ah << 4) | al])) + data
    return out + b"\xff\xd9"


def progressive(c, seeds):
    w = h = 64
    tricks = {
        "repeat-first": [(1, 63, 0, 0), (1, 63, 0, 0)] * 3,
        "refine-without-first": [(1, 63, 1, 0)],
        "al-too-big": [(1, 63, 0, 14)],
        "ah-not-al-plus-1": [(1, 5, 0, 8), (1, 5, 8, 3)],
        "ss-after-se": [(10, 5, 0, 0)],
        "se-past-63": [(1, 70, 0, 0)],
        "ac-with-dc": [(0, 63, 0, 0)],
        "dc-refine-first": [(0, 0, 1, 0)],
        "many-tiny": [(k, k, 0, 0) for k in range(1, 64)] * 2,
    }
    for label, plan in tricks.items():
        c.add(f"prog-{label}.jpg", progressive_jpeg(w, h, 0, scan_list=plan))
    c.add("prog-ok-900-small.jpg", progressive_jpeg(64, 64, 900))
    c.add("prog-1001-small.jpg", progressive_jpeg(64, 64, 1001))
    # A scan for a component the frame does not have.
    jpeg = progressive_jpeg(w, h, 2)
    at = jpeg.index(b"\xff\xda", jpeg.index(b"\xff\xda") + 2)
    b = bytearray(jpeg)
    b[at + 5] = 7
    c.add("prog-unknown-component.jpg", bytes(b))


def exifs(c, seeds):
    jpeg = seeds["baseline"]
    png = seeds["png-rgb"]
    webp = seeds["webp-lossless"]
    for label, block in exif_blocks().items():
        app1 = segment(0xE1, b"Exif\x00\x00" + block)
        c.add(f"exif-jpeg-{label}.jpg", jpeg[:2] + app1 + jpeg[2:])
        chunks = png_chunks(png)
        idat = next(at for kind, at, _ in chunks if kind == b"IDAT")
        c.add(f"exif-png-{label}.png", png[:idat] + png_chunk(b"eXIf", block) + png[idat:])
        # WebP: an extended header with the EXIF flag and an EXIF chunk after the image.
        w, h = 64, 48
        vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0x08, 0, 0, 0]) + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
        chunk = b"EXIF" + struct.pack("<I", len(block)) + block + (b"\x00" if len(block) & 1 else b"")
        body = b"WEBP" + vp8x + webp[12:] + chunk
        c.add(f"exif-webp-{label}.webp", b"RIFF" + struct.pack("<I", len(body)) + body)
    # HEIC: the Exif item's TIFF offset points outside the item, or to itself.
    heic = read("heic/exif-6.heic")
    item = heic.rfind(b"MM\x00\x2a") - 4
    for label, value in (("offset-past-end", 0x7FFFFFF0), ("offset-negative", 0xFFFFFFFF), ("offset-into-self", 0)):
        b = bytearray(heic)
        b[item:item + 4] = struct.pack(">I", value)
        c.add(f"exif-heic-{label}.heic", bytes(b))
    b = bytearray(heic)
    t = item + 4
    b[t + 4:t + 8] = struct.pack(">I", 0)  # IFD at the header itself
    c.add("exif-heic-ifd-at-header.heic", bytes(b))


def polyglots(c, seeds):
    jpeg, png, heic, webp = seeds["baseline"], seeds["png-rgb"], seeds["heic-grid"], seeds["webp-lossy"]
    zip_tail = b"PK\x03\x04" + bytes(26) + b"PK\x05\x06" + bytes(18)
    c.add("poly-jpeg-then-zip.jpg", jpeg + zip_tail)
    c.add("poly-png-then-jpeg.png", png + jpeg)
    c.add("poly-jpeg-then-png.jpg", jpeg + png)
    c.add("poly-soi-then-png.jpg", b"\xff\xd8" + png)
    c.add("poly-png-sig-then-jpeg.png", png[:8] + jpeg)
    c.add("poly-gif-header-then-jpeg.jpg", b"GIF89a" + jpeg)
    c.add("poly-riff-webp-then-png.webp", b"RIFF" + struct.pack("<I", len(png) + 4) + b"WEBP" + png)
    c.add("poly-ftyp-heic-then-jpeg.heic", heic[:heic.index(b"meta") - 4] + jpeg)
    c.add("poly-heic-then-jpeg.heic", heic + jpeg)
    c.add("poly-webp-then-jpeg.webp", webp + jpeg)
    c.add("poly-html-in-jpeg-comment.jpg", jpeg[:2] + segment(0xFE, b"<html><script>alert(1)</script></html>") + jpeg[2:])
    c.add("poly-pdf-header.jpg", b"%PDF-1.4\n" + jpeg)
    c.add("poly-zeros.jpg", bytes(4096))
    c.add("poly-ff-run.jpg", b"\xff" * 4096)


def damage(c, seeds):
    """The damaged-data conditions of issue 13, each of which Seer must refuse as corrupt."""
    jpeg = seeds["baseline"]
    sos = next(at for marker, at, _ in jpeg_segments(jpeg) if marker == 0xDA)
    start = sos + 2 + struct.unpack(">H", jpeg[sos + 2:sos + 4])[0]
    end = jpeg.rindex(b"\xff\xd9")
    # Entropy data overwritten with bytes no Huffman code starts with: lost sync ("bad Huffman code").
    for i, at in enumerate((start + 40, start + (end - start) // 2, end - 60)):
        b = bytearray(jpeg)
        b[at:at + 24] = b"\xfe\xfd" * 12
        c.add(f"damage-bad-huffman-{i}.jpg", bytes(b), "corrupt")
    # A run of one-bits (stuffed 0xFF bytes) inside the entropy data: no Huffman code is that long,
    # libjpeg's "bad Huffman code".
    for i, at in enumerate((start + 10, start + 200, (start + end) // 2)):
        c.add(f"damage-huffman-code-{i}.jpg", jpeg[:at] + b"\xff\x00" * 12 + jpeg[at:], "corrupt")
    # Stray bytes before the end marker: entropy data the frame has no room for.
    c.add("damage-extraneous-before-eoi.jpg", jpeg[:end] + b"\x12\x34\x56\x78" * 8 + jpeg[end:], "corrupt")
    prog = seeds["progressive"]
    second = prog.index(b"\xff\xda", prog.index(b"\xff\xda") + 2)
    c.add("damage-extraneous-before-sos.jpg", prog[:second] + b"\x12\x34\x56\x78" * 8 + prog[second:], "corrupt")
    # Zero quantisers.
    for marker, at, length in jpeg_segments(jpeg):
        if marker == 0xDB:
            b = bytearray(jpeg)
            pos = at + 4
            while pos < at + 2 + length:
                precision = b[pos] >> 4
                size = 64 * (2 if precision else 1)
                b[pos + 1:pos + 1 + size] = bytes(size)
                pos += 1 + size
            c.add(f"damage-zero-quantisers-{at}.jpg", bytes(b), "corrupt")
    # An arithmetic-coding frame marker (SOF9) over Huffman-coded data.
    sof = next(at for marker, at, _ in jpeg_segments(jpeg) if marker == 0xC0)
    b = bytearray(jpeg)
    b[sof + 1] = 0xC9
    c.add("damage-arithmetic-marker.jpg", bytes(b), "corrupt")
    b = bytearray(prog)
    sof = next(at for marker, at, _ in jpeg_segments(prog) if marker == 0xC2)
    b[sof + 1] = 0xCA
    c.add("damage-arithmetic-marker-progressive.jpg", bytes(b), "corrupt")
    # A frame header that lies about its size (smaller: data left over).
    for label, (dh, dw) in {"height": (2, 1), "width": (1, 2)}.items():
        sof = next(at for marker, at, _ in jpeg_segments(jpeg) if marker == 0xC0)
        h, w = struct.unpack(">HH", jpeg[sof + 5:sof + 9])
        b = bytearray(jpeg)
        b[sof + 5:sof + 9] = struct.pack(">HH", h // dh, w // dw)
        c.add(f"damage-frame-lies-{label}.jpg", bytes(b), "corrupt")
    # A PNG palette shorter than the indices its pixels use (palette.png uses indices 0-15).
    png = seeds["png-palette"]
    for entries in (1, 4, 15):
        chunks = png_chunks(png)
        plte = next((at, length) for kind, at, length in chunks if kind == b"PLTE")
        body = png[plte[0] + 8:plte[0] + 8 + plte[1]][: 3 * entries]
        c.add(f"damage-short-palette-{entries}.png", png[:plte[0]] + png_chunk(b"PLTE", body) + png[plte[0] + 12 + plte[1]:], "corrupt")


def bombs(c, slow):
    # ~1 000 scans over a 10 000×10 000 frame: each scan a full pass over 1.56 M blocks.
    c.add("bomb-progressive-1000-scans.jpg", progressive_jpeg(10000, 10000, 999), "tooLarge")
    c.add("bomb-progressive-1201-scans.jpg", progressive_jpeg(10000, 10000, 1200), "tooLarge")
    c.add("bomb-progressive-40-scans.jpg", progressive_jpeg(10000, 10000, 40), "tooLarge")
    if slow:
        c.add("bomb-progressive-20001-scans.jpg", progressive_jpeg(10000, 10000, 20000), "tooLarge")
        # 10 000×10 000 RGBA, 16 bits: 800 MB of zero rows in a 0.8 MB zlib stream.
        z = zlib.compressobj(9)
        row = bytes(1 + 10000 * 8)
        idat = b"".join(z.compress(row) for _ in range(10000)) + z.flush()
        ihdr = struct.pack(">IIBBBBB", 10000, 10000, 16, 6, 0, 0, 0)
        c.add("bomb-png-16bit-rgba-100mp.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b""))
    # Headers that ask for more than the pixel limit.
    c.add("bomb-jpeg-65500.jpg", progressive_jpeg(65500, 65500, 0, scan_list=[(1, 63, 0, 0)])[:600], "tooLarge")
    ihdr = struct.pack(">IIBBBBB", 50000, 50000, 8, 0, 0, 0, 0)
    c.add("bomb-png-50000.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(bytes(4096))) + png_chunk(b"IEND", b""), "tooLarge")
    bits = (16384 - 1) | (16384 - 1) << 14
    vp8l = b"\x2f" + bits.to_bytes(4, "little") + bytes(64)
    body = b"WEBP" + b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
    c.add("bomb-webp-16384.webp", b"RIFF" + struct.pack("<I", len(body)) + body, "tooLarge")
    # A HEIC grid that spreads one 64×64 tile over 16 384×16 384 pixels.
    sys.path.insert(0, ROOT)
    from heifmux import coded_image, write_heif
    tile = coded_image(read("heic/grid.heic"))
    path = os.path.join(c.out, "bomb-heic-grid-16384.heic")
    c.add("bomb-heic-grid-16384.heic", write_heif(path, [tile], grid=(1, 1, 16384, 16384)), "tooLarge")


def vp8l_solid(width, height, argb=(255, 40, 90, 160)):
    """A lossless WebP bitstream (VP8L) of one colour: five one-symbol prefix codes, so each pixel
    takes no bits and any size costs 13 bytes."""
    value, count = 0, 0

    def put(v, n):
        nonlocal value, count
        value |= v << count
        count += n
    put(0x2F, 8)
    put(width - 1, 14)
    put(height - 1, 14)
    put(1, 1)  # alpha is used
    put(0, 3)  # version
    put(0, 1)  # no transform
    put(0, 1)  # no colour cache
    put(0, 1)  # no meta prefix codes
    a, r, g, b = argb
    for symbol in (g, r, b, a, 0):
        put(1, 1)  # simple code
        put(0, 1)  # one symbol
        put(1, 1)  # of 8 bits
        put(symbol, 8)
    return value.to_bytes((count + 7) // 8, "little")


def riff_chunk(kind, body):
    return kind + struct.pack("<I", len(body)) + body + (b"\0" if len(body) & 1 else b"")


def animated_webp(canvas, frames):
    """An animated WebP: frames are (x, y, ANMF width, ANMF height, VP8L bitstream)."""
    le24 = lambda v: struct.pack("<I", v)[:3]
    body = b"WEBP" + riff_chunk(b"VP8X", bytes([0x12, 0, 0, 0]) + le24(canvas[0] - 1) + le24(canvas[1] - 1))
    body += riff_chunk(b"ANIM", struct.pack("<IH", 0xFFFFFFFF, 0))
    for x, y, w, h, bitstream in frames:
        header = le24(x // 2) + le24(y // 2) + le24(w - 1) + le24(h - 1) + le24(100) + b"\x02"
        body += riff_chunk(b"ANMF", header + riff_chunk(b"VP8L", bitstream))
    return b"RIFF" + struct.pack("<I", len(body)) + body


def heif_grid_chain(tile, depth):
    """A HEIC whose primary image is a 1×1 grid of a 1×1 grid … (`depth` grids) of one HEVC tile."""
    from heifmux import box, full_box
    hvcc, w, h, coded = tile
    ispe = full_box("ispe", 0, 0, struct.pack(">II", w, h))
    properties = [hvcc, ispe]
    items = [(1, b"hvc1", coded)] + [(i, b"grid", struct.pack(">BBBBHH", 0, 0, 0, 0, w, h)) for i in range(2, depth + 2)]
    associations = {1: [(1, True), (2, False)]}
    associations.update({i: [(2, False)] for i in range(2, depth + 2)})
    refs = b"".join(box("dimg", struct.pack(">HHH", i, 1, i - 1)) for i in range(2, depth + 2))
    primary = depth + 1
    hdlr = full_box("hdlr", 0, 0, struct.pack(">I4s12s", 0, b"pict", b"\0" * 12) + b"\0")
    pitm = full_box("pitm", 0, 0, struct.pack(">H", primary))
    iinf = full_box("iinf", 0, 0, struct.pack(">H", len(items)) + b"".join(
        full_box("infe", 2, 0, struct.pack(">HH4s", i, 0, t) + b"\0") for i, t, _ in items))
    iref = full_box("iref", 0, 0, refs)
    ipma = b""
    for item in sorted(associations):
        ipma += struct.pack(">HB", item, len(associations[item]))
        ipma += bytes((0x80 if essential else 0) | index for index, essential in associations[item])
    iprp = box("iprp", box("ipco", b"".join(properties)) + full_box("ipma", 0, 0, struct.pack(">I", len(associations)) + ipma))
    ftyp = box("ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heicmiaf")

    def meta(offsets):
        iloc = full_box("iloc", 0, 0, bytes([0x44, 0]) + struct.pack(">H", len(items)) + b"".join(
            struct.pack(">HHHII", i, 0, 1, offsets[i], len(d)) for i, _, d in items))
        return full_box("meta", 0, 0, hdlr + pitm + iloc + iinf + iref + iprp)

    at = len(ftyp) + len(meta({i: 0 for i, _, _ in items})) + 8
    offsets = {}
    for i, _, d in items:
        offsets[i] = at
        at += len(d)
    return ftyp + meta(offsets) + box("mdat", b"".join(d for _, _, d in items))


def bounds(c, seeds):
    sys.path.insert(0, ROOT)
    from heifmux import coded_image, write_heif
    tile = coded_image(seeds["heic-grid"])  # 64×64
    # Grids whose tiles do not cover the output they declare: the rest would be uninitialised memory.
    path = os.path.join(c.out, "bound-heic-grid-uncovered-1x1.heic")
    c.add("bound-heic-grid-uncovered-1x1.heic", write_heif(path, [tile], grid=(1, 1, 100, 100)), "corrupt")
    path = os.path.join(c.out, "bound-heic-grid-uncovered-2x2.heic")
    c.add("bound-heic-grid-uncovered-2x2.heic", write_heif(path, [tile] * 4, grid=(2, 2, 140, 128)), "corrupt")
    path = os.path.join(c.out, "bound-heic-grid-covered-2x2.heic")
    c.add("bound-heic-grid-covered-2x2.heic", write_heif(path, [tile] * 4, grid=(2, 2, 120, 100)), "decodes")
    # Grids of grids: 8 levels of references are allowed, more are not.
    for depth in (2, 8):
        c.add(f"bound-heic-grid-chain-{depth}.heic", heif_grid_chain(tile, depth), "decodes")
    for depth in (9, 16, 64):
        c.add(f"bound-heic-grid-chain-{depth}.heic", heif_grid_chain(tile, depth), "corrupt")
    # Text chunks that inflate to 63 MB each, twenty of them before the image data.
    png = seeds["png-rgb"]
    ihdr_end = 8 + 8 + 13 + 4
    text = zlib.compress(bytes(63 << 20), 9)
    ztxt = png_chunk(b"zTXt", b"Comment\0\0" + text)
    itxt = png_chunk(b"iTXt", b"Comment\0\x01\0\0\0" + text)
    c.add("bound-png-ztxt-20x63mb.png", png[:ihdr_end] + ztxt * 20 + png[ihdr_end:], "decodes")
    c.add("bound-png-itxt-20x63mb.png", png[:ihdr_end] + itxt * 20 + png[ihdr_end:], "decodes")
    # Valid PNGs wider or taller than libpng's default limit of 1 000 000 (1 megapixel in all).
    for label, (w, h) in (("wide", (1000001, 1)), ("tall", (1, 1000001))):
        raw = b"".join(b"\0" + bytes((x * 7 + y * 3) & 0xFF for x in range(w)) for y in range(h)) if w > 1 else \
            b"".join(bytes((0, (y * 5) & 0xFF)) for y in range(h))
        ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
        c.add(f"bound-png-{label}-1000001.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""), "decodes")
    # One 1×1 frame on a canvas just under the pixel limit; a control animation; ANMF sizes that lie.
    c.add("bound-webp-anim-canvas-100mp.webp", animated_webp((9999, 9999), [(0, 0, 1, 1, vp8l_solid(1, 1))]), "decodes")
    c.add("bound-webp-anim-two-frames.webp", animated_webp((64, 64), [(0, 0, 64, 64, vp8l_solid(64, 64)), (2, 2, 32, 32, vp8l_solid(32, 32))]), "decodes")
    c.add("bound-webp-anim-anmf-larger.webp", animated_webp((64, 64), [(0, 0, 64, 64, vp8l_solid(32, 32))]), "corrupt")
    c.add("bound-webp-anim-anmf-smaller.webp", animated_webp((64, 64), [(0, 0, 16, 16, vp8l_solid(32, 32))]), "corrupt")
    c.add("bound-webp-anim-second-frame-lies.webp", animated_webp((64, 64), [(0, 0, 64, 64, vp8l_solid(64, 64)), (0, 0, 64, 64, vp8l_solid(8, 8))]), "corrupt")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    c = Corpus(sys.argv[1])
    seeds = {name: read(rel) for name, rel in SEEDS.items()}
    truncations(c, seeds)
    flips(c, seeds)
    lengths(c, seeds)
    crcs(c, seeds)
    dims(c, seeds)
    progressive(c, seeds)
    exifs(c, seeds)
    polyglots(c, seeds)
    damage(c, seeds)
    bombs(c, "--bombs" in sys.argv[2:])
    bounds(c, seeds)
    print(f"{c.finish()} files in {c.out}")


if __name__ == "__main__":
    main()
