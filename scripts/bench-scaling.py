#!/usr/bin/env python3
"""Cost per photo as photos grow from 0.3 to 12 MP, and throughput at 1 and 2 jobs, with `seer bench`.

Takes N photos of at least 11 MP from ../shared/testdata/qr-boofcv (one per category in turn,
nominal first), resamples each
to every size (Pillow, Lanczos, JPEG quality 92, EXIF kept) with its BoofCV corners scaled the same
way, one folder per size, and runs

    seer bench OUT --peers none --jobs 1 --repeat R --throughput-jobs 1,2 --format json

Prints a Markdown table (per size: median wall ms, of it decoding and recognition, CPU ms, codes read)
and writes an SVG plot of milliseconds against megapixels (--svg).

    scripts/bench-scaling.py [--seer .build/release/seer] [--photos 4] [--repeat 3] [--svg docs/bench-scaling.svg]

Needs python3 with pillow; skips when ../shared/testdata is absent.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.normpath(os.path.join(ROOT, '..', 'shared', 'testdata', 'qr-boofcv'))
SIZES = [0.3, 0.75, 1.5, 3, 6, 12]


def read_corner_lines(path):
    with open(path, encoding='utf-8') as fh:
        return fh.read().splitlines()


def scale_truth(lines, f):
    out = []
    for ln in lines:
        parts = ln.split()
        if not parts or ln.lstrip().startswith('#') or parts == ['SETS']:
            out.append(ln)
        else:
            out.append(' '.join(f'{float(v) * f:.3f}' for v in parts))
    return out


def make(photos, out, sizes):
    from PIL import Image
    for mp in sizes:
        folder = os.path.join(out, f'{mp:g}mp')
        os.makedirs(folder, exist_ok=True)
        for src in photos:
            with Image.open(src) as im:
                w, h = im.size
                f = (mp * 1e6 / (w * h)) ** 0.5
                size = (max(1, round(w * f)), max(1, round(h * f)))
                exif = im.info.get('exif')
                small = im.resize(size, Image.LANCZOS) if size != (w, h) else im.copy()
                name = os.path.basename(os.path.dirname(src)) + '-' + os.path.basename(src)
                kw = {'quality': 92}
                if exif:
                    kw['exif'] = exif
                small.save(os.path.join(folder, name), 'JPEG', **kw)
                fx = size[0] / w
            lines = scale_truth(read_corner_lines(os.path.splitext(src)[0] + '.txt'), fx)
            with open(os.path.join(folder, os.path.splitext(name)[0] + '.txt'), 'w', encoding='utf-8') as fh:
                fh.write('\n'.join(lines) + '\n')


def svg(rows, path):
    W, H, L, B, T, R = 520, 300, 56, 40, 28, 20
    import math
    lo, hi = math.log10(min(r['mp'] for r in rows)) - 0.1, math.log10(max(r['mp'] for r in rows)) + 0.1
    ymax = max(r['ms'] for r in rows) * 1.15
    def x(v): return L + (math.log10(v) - lo) / (hi - lo) * (W - L - R)
    def y(v): return T + (1 - v / ymax) * (H - T - B)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
         '<rect width="100%" height="100%" fill="#fff"/>',
         '<style>text{font:12px sans-serif}</style>',
         f'<text x="{W / 2}" y="18" text-anchor="middle" font-weight="bold">seer bench: cost per photo against size (1 job)</text>',
         f'<line x1="{L}" y1="{y(0)}" x2="{W - R}" y2="{y(0)}" stroke="#333"/>',
         f'<line x1="{L}" y1="{y(0)}" x2="{L}" y2="{T}" stroke="#333"/>']
    for k in range(5):
        v = ymax * k / 4
        s.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#eee"/>')
        s.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
    for r in rows:
        s.append(f'<text x="{x(r["mp"]):.1f}" y="{y(0) + 16}" text-anchor="middle">{r["mp"]:g}</text>')
    s.append(f'<text x="{(L + W - R) / 2}" y="{H - 6}" text-anchor="middle">megapixels (log scale)</text>')
    s.append(f'<text x="14" y="{(T + H - B) / 2}" transform="rotate(-90 14 {(T + H - B) / 2})" text-anchor="middle">median ms per photo</text>')
    for key, colour, label in (('ms', '#1f77b4', 'total'), ('decode', '#2ca02c', 'file + decoding'), ('recognition', '#d62728', 'recognition')):
        pts = ' '.join(f'{x(r["mp"]):.1f},{y(r[key]):.1f}' for r in rows)
        s.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>')
        for r in rows:
            s.append(f'<circle cx="{x(r["mp"]):.1f}" cy="{y(r[key]):.1f}" r="3" fill="{colour}"/>')
    for i, (colour, label) in enumerate((('#1f77b4', 'total'), ('#2ca02c', 'file + decoding'), ('#d62728', 'recognition'))):
        s.append(f'<text x="{L + 12}" y="{T + 16 + 15 * i}" fill="{colour}">■ {label}</text>')
    s.append('</svg>')
    with open(path, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(s) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seer', default=os.path.join(ROOT, '.build', 'release', 'seer'))
    ap.add_argument('--photos', type=int, default=4)
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--svg', default=None)
    ap.add_argument('--keep', default=None, help='make the folders here and keep them')
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print(f'skipped: no {DATA}')
        return
    from PIL import Image
    # The first photos of at least 11 MP of each category in turn (nominal first), until there are enough.
    categories = ['nominal'] + sorted(c for c in os.listdir(DATA) if c != 'nominal' and os.path.isdir(os.path.join(DATA, c)))
    pools = []
    for c in categories:
        big = []
        for name in sorted(os.listdir(os.path.join(DATA, c))):
            p = os.path.join(DATA, c, name)
            if name.endswith('.jpg'):
                with Image.open(p) as im:
                    if im.size[0] * im.size[1] >= 11e6:
                        big.append(p)
        pools.append(big)
    photos = []
    while len(photos) < a.photos and any(pools):
        for pool in pools:
            if pool and len(photos) < a.photos:
                photos.append(pool.pop(0))
    out = a.keep or tempfile.mkdtemp(prefix='seer-scaling-')
    try:
        make(photos, out, SIZES)
        p = subprocess.run([os.path.abspath(a.seer), 'bench', out, '--peers', 'none', '--jobs', '1', '--repeat', str(a.repeat),
                            '--throughput-jobs', '1,2', '--format', 'json'], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(p.stderr)
        report = json.loads(p.stdout)
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)
    seer = report['readers'][0]
    rows = []
    for c in seer['categories']:
        t = c['totals']
        rows.append({'mp': float(c['category'].rstrip('mp')), 'ms': t['latency']['median'], 'decode': t['decode']['median'],
                     'recognition': t['recognition']['median'], 'cpu': t.get('cpuMedian'), 'p95': t['latency']['p95'],
                     'correct': t['correct'], 'expected': t['expected']})
    rows.sort(key=lambda r: r['mp'])
    print(f'{len(photos)} photos of qr-boofcv, each resampled to every size; seer bench --jobs 1 --repeat {a.repeat}; medians of each column\n')
    print('| MP | median ms | of it file + decoding | recognition | CPU ms | p95 ms | ms per MP | codes read |')
    print('|---:|---:|---:|---:|---:|---:|---:|---:|')
    for r in rows:
        print(f"| {r['mp']:g} | {r['ms']:.1f} | {r['decode']:.1f} | {r['recognition']:.1f} | {r['cpu'] or 0:.1f} | {r['p95']:.1f} | "
              f"{r['ms'] / r['mp']:.1f} | {r['correct']}/{r['expected']} |")
    print()
    print('Throughput over all sizes: ' + ', '.join(f"{t['jobs']} job{'s' if t['jobs'] > 1 else ''} {t['photosPerSecond']:.2f} photos/s"
                                                   for t in report['throughput']))
    if a.svg:
        svg(rows, a.svg)
        print(f'\nwrote {a.svg}', file=sys.stderr)


if __name__ == '__main__':
    main()
