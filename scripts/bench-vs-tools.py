#!/usr/bin/env python3
"""Checks that `seer bench` scores exactly as ../shared/tools does, on a sample of ../shared/testdata.

For each collection (qr-photos, qr-boofcv, barcodes, plates) it links the first N photos of every
folder (with their truth) into a sample folder, scores Seer there with the shared tool (one `seer scan`
process per photo, as the tools' README runs it) and with `seer bench --format csv --jobs 1`, and
compares every photo's outcome and the totals. Both sides read codes with a 60-second time budget per photo
(--budget), far above any photo's need, so that what Seer reads does not depend on the machine's load.
Exit status 1 on any difference.

    scripts/bench-vs-tools.py [--seer .build/release/seer] [--per-folder 2] [--only qr,boofcv,barcodes,plates]

Needs python3 with pillow (the tools read image sizes with it); skips when ../shared is absent.
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.normpath(os.path.join(ROOT, '..', 'shared'))
TOOLS = os.path.join(SHARED, 'tools')
DATA = os.path.join(SHARED, 'testdata')
IMAGE_EXTS = ('.png', '.jpg', '.jpeg')
# The code reader's time budget per photo (ms), on both sides: far above any photo's need, so that what
# Seer reads does not depend on the machine's load and both sides read the same codes.
BUDGET = 60000


def sample(src, dst, per_folder, with_txt=True):
    """Links the first photos of each folder of src (and their .txt) into dst."""
    for folder in sorted(os.listdir(src)):
        fsrc = os.path.join(src, folder)
        if not os.path.isdir(fsrc):
            continue
        os.makedirs(os.path.join(dst, folder), exist_ok=True)
        photos = [f for f in sorted(os.listdir(fsrc)) if f.lower().endswith(IMAGE_EXTS)][:per_folder]
        for f in photos:
            os.symlink(os.path.join(fsrc, f), os.path.join(dst, folder, f))
            txt = os.path.splitext(f)[0] + '.txt'
            if with_txt and os.path.exists(os.path.join(fsrc, txt)):
                os.symlink(os.path.join(fsrc, txt), os.path.join(dst, folder, txt))
        truth = os.path.join(fsrc, 'truth.csv')
        if os.path.exists(truth):
            with open(truth, newline='') as fh:
                rows = list(csv.DictReader(fh))
            keep = [r for r in rows if r['file'] in photos]
            with open(os.path.join(dst, folder, 'truth.csv'), 'w', newline='') as fh:
                w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
                w.writeheader()
                w.writerows(keep)


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode not in (0, 2):
        sys.exit(f'failed ({p.returncode}): {" ".join(argv)}\n{p.stderr[-2000:]}')
    return p.stdout


def bench(seer, path, extra):
    out = run([seer, 'bench', path, '--peers', 'none', '--format', 'csv', '--jobs', '1', '--budget', str(BUDGET)] + extra)
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r['reader'] == 'seer']
    return {(r['category'], os.path.basename(r['file'])): r for r in rows}


def compare(name, tool, ours, fields):
    """tool, ours: {(set, image): {field: value}}; fields: names compared."""
    bad = 0
    if set(tool) != set(ours):
        print(f'{name}: photos differ: tool only {sorted(set(tool) - set(ours))}, bench only {sorted(set(ours) - set(tool))}')
        bad += 1
    totals_t = {f: 0 for f in fields}
    totals_o = {f: 0 for f in fields}
    for k in sorted(set(tool) & set(ours)):
        t = {f: str(tool[k][f]) for f in fields}
        o = {f: str(ours[k][f]) for f in fields}
        for f in fields:
            totals_t[f] += int(t[f])
            totals_o[f] += int(o[f])
        if t != o:
            bad += 1
            print(f'{name}: {k[0]}/{k[1]}: tool {t}, bench {o}')
    status = 'same' if bad == 0 else f'{bad} DIFFERENCES'
    print(f'{name}: {len(tool)} photos; tool {totals_t}; seer bench {totals_o}: {status}')
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seer', default=os.path.join(ROOT, '.build', 'release', 'seer'))
    ap.add_argument('--per-folder', type=int, default=2)
    ap.add_argument('--only', default='qr,boofcv,barcodes,plates')
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print(f'skipped: no {DATA}')
        return
    seer = os.path.abspath(a.seer)
    only = set(a.only.split(','))
    tmp = tempfile.mkdtemp(prefix='bench-vs-tools-')
    bad = 0
    try:
        if 'qr' in only:
            s = os.path.join(tmp, 'qr-photos')
            sample(os.path.join(DATA, 'qr-photos'), s, a.per_folder)
            out = os.path.join(tmp, 'out-qr')
            run([sys.executable, os.path.join(TOOLS, 'score_codes.py'), '--dataset', 'qr', '--data', s, '--peers', 'none',
                 '--json-key', 'text', '--cmd', f'seer={seer} scan --format json --budget {BUDGET} {{png}}', '--out', out, '--quiet'])
            with open(os.path.join(out, 'results.csv'), newline='') as fh:
                tool = {}
                for r in csv.DictReader(fh):
                    st = r['status']
                    tool[(r['set'], r['image'])] = {'correct': int(st == 'correct'), 'wrong': int(st == 'wrong'), 'missed': int(st == 'none')}
            bad += compare('qr-photos', tool, bench(seer, s, []), ['correct', 'wrong', 'missed'])
        if 'boofcv' in only:
            s = os.path.join(tmp, 'qr-boofcv')
            sample(os.path.join(DATA, 'qr-boofcv'), s, a.per_folder)
            out = os.path.join(tmp, 'out-boofcv')
            run([sys.executable, os.path.join(TOOLS, 'score_codes.py'), '--dataset', 'boofcv', '--data', s, '--peers', 'none',
                 '--cmd', f'seer={sys.executable} {os.path.join(TOOLS, "seer_stored.py")} {seer} {{}} --budget {BUDGET}', '--out', out, '--quiet'])
            with open(os.path.join(out, 'results.csv'), newline='') as fh:
                tool = {(r['set'], r['image']): {'correct': r['decoded'], 'false': r['fp'], 'duplicates': r['dup'], 'unlocated': r['unlocated'],
                                                 'expected_count': r['n_gt']} for r in csv.DictReader(fh)}
            bad += compare('qr-boofcv', tool, bench(seer, s, []), ['expected_count', 'correct', 'false', 'duplicates', 'unlocated'])
        if 'barcodes' in only:
            s = os.path.join(tmp, 'barcodes')
            sample(os.path.join(DATA, 'barcodes'), s, a.per_folder)
            out = os.path.join(tmp, 'out-barcodes')
            run([sys.executable, os.path.join(TOOLS, 'score_barcodes.py'), '--decoders', 'none', '--data', s,
                 '--cmd', f'seer={seer} scan --format json --symbologies all --budget {BUDGET} {{}}', '--out', out])
            with open(os.path.join(out, 'results.csv'), newline='') as fh:
                tool = {}
                for r in csv.DictReader(fh):
                    st = r['status']
                    tool[(r['set'], r['image'])] = {'correct': int(st == 'correct'), 'wrong': int(st == 'wrong'), 'missed': int(st == 'none'),
                                                    'false': int(r['n_symbols']) if st == 'fp' else 0}
            bad += compare('barcodes', tool, bench(seer, s, []), ['correct', 'wrong', 'missed', 'false'])
        if 'plates' in only:
            s = os.path.join(tmp, 'plates')
            sample(os.path.join(DATA, 'plates'), s, a.per_folder)
            tool = {}
            for region in sorted(os.listdir(s)):
                out = os.path.join(tmp, 'out-plates-' + region)
                run([sys.executable, os.path.join(TOOLS, 'score_plates.py'), '--data', s, '--sets', region, '--peers', 'none',
                     '--json-keys', 'text', '--cmd', f'seer={seer} scan --read plates --region {region} --format json {{}}', '--out', out])
                with open(os.path.join(out, 'results.csv'), newline='') as fh:
                    for r in csv.DictReader(fh):
                        tool[(r['set'], r['file'])] = {'correct': r['exact'], 'within1': r['within1']}
            bad += compare('plates', tool, bench(seer, s, ['--read', 'plates']), ['correct', 'within1'])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
