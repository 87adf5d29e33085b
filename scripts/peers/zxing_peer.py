#!/usr/bin/env python3
"""zxing-cpp as a peer of `seer bench`, through its Python package (never a dependency of Seer).

    pip install zxing-cpp pillow numpy

  zxing_peer.py --version     prints "zxing-cpp VERSION" (exit 1 when the packages are missing)
  zxing_peer.py --serve       reads one JSON request per line on stdin:
                                {"path": FILE, "formats": "qr" | "linear" | "qr,linear", "repeat": N}
                              and answers one JSON line per request:
                                {"symbols": [{"text", "format", "corners": [[x, y] * 4]}],
                                 "ms": decode call, fastest of N, "load_ms": Pillow load + grey, "error"}
  zxing_peer.py FILE...       the same answers for files named on the command line (QR only).

The photo is loaded with Pillow, alpha flattened onto white, converted to 8-bit grey ("L"); corners are
in its stored pixel grid (no EXIF orientation). QR texts are read with TextMode.Plain, 1-D codes with
the default (HRI), as ../shared/tools does. One untimed warm-up call at start.
"""
import json
import sys
import time


def load(path):
    import numpy as np
    from PIL import Image
    with Image.open(path) as im:
        im.load()
        if im.mode in ('RGBA', 'LA', 'PA') or (im.mode == 'P' and 'transparency' in im.info):
            im = im.convert('RGBA')
            bg = Image.new('RGBA', im.size, (255, 255, 255, 255))
            im = Image.alpha_composite(bg, im)
        return np.ascontiguousarray(np.asarray(im.convert('L'), dtype=np.uint8))


def reader(formats):
    import zxingcpp
    F = zxingcpp.BarcodeFormat
    kinds = set(formats.split(','))
    if kinds == {'qr'}:
        fmt, opts = F.QRCode, {'text_mode': zxingcpp.TextMode.Plain}
    elif kinds == {'linear'}:
        fmt, opts = F.AllLinear, {}
    else:
        fmt, opts = F.AllLinear | F.QRCode, {}

    def read(img):
        return zxingcpp.read_barcodes(img, formats=fmt, **opts)
    return read


def answer(req, readers):
    out = {'symbols': [], 'ms': None, 'load_ms': None, 'error': None}
    try:
        t0 = time.perf_counter()
        img = load(req['path'])
        out['load_ms'] = (time.perf_counter() - t0) * 1000
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        out['error'] = f'load: {e}'
        return out
    formats = req.get('formats', 'qr')
    if formats not in readers:
        readers[formats] = reader(formats)
    read = readers[formats]
    best, res = None, None
    for _ in range(max(1, int(req.get('repeat', 1)))):
        t0 = time.perf_counter()
        try:
            r = read(img)
        except Exception as e:  # noqa: BLE001
            out['error'] = f'{type(e).__name__}: {e}'
            return out
        dt = (time.perf_counter() - t0) * 1000
        if res is None:
            res = r
        best = dt if best is None else min(best, dt)
    out['ms'] = best
    for b in res:
        p = b.position
        corners = [[float(q.x), float(q.y)] for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]
        fmt = b.format.name if hasattr(b.format, 'name') else str(b.format)
        out['symbols'].append({'text': b.text, 'format': fmt, 'corners': corners})
    return out


def main():
    args = sys.argv[1:]
    try:
        import numpy  # noqa: F401
        import PIL  # noqa: F401
        import zxingcpp  # noqa: F401
        from importlib.metadata import version
    except ImportError as e:
        print(f'missing: {e.name} (pip install zxing-cpp pillow numpy)', file=sys.stderr)
        sys.exit(1)
    if args == ['--version']:
        print('zxing-cpp ' + version('zxing-cpp'))
        return
    readers = {}
    import numpy as np
    reader('qr')(np.full((64, 64), 255, np.uint8))  # warm-up, untimed
    if args == ['--serve']:
        for line in sys.stdin:
            if not line.strip():
                continue
            print(json.dumps(answer(json.loads(line), readers), ensure_ascii=False), flush=True)
        return
    for path in args:
        print(json.dumps(answer({'path': path}, readers), ensure_ascii=False))


if __name__ == '__main__':
    main()
