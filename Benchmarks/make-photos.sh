#!/usr/bin/env bash
# Makes the benchmark photos in $SEER_BENCH_DIR (default /tmp/seer-bench):
#   photo-12mp.jpg  a 4032×3024 JPEG at quality 95, 4:2:0, as phone cameras write them
#   photo-12mp.png  the same picture as an 8-bit RGB PNG
# The picture is a real 12-MP phone photo from ../shared/testdata when that folder is there
# (re-encoded, so the file is as large as a phone's own), else a synthetic textured scene.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${SEER_BENCH_DIR:-/tmp/seer-bench}
mkdir -p "$out"
src="$here/../../shared/testdata/qr-boofcv/close/image005.jpg"
if [[ -f "$src" ]]; then
  djpeg -pnm "$src" > "$out/photo.ppm"
else
  python3 - "$out/photo.ppm" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(7)
h, w = 3024, 4032
y, x = np.mgrid[0:h, 0:w]
base = (128 + 60 * np.sin(x / 37.0) * np.cos(y / 53.0)).astype(np.float32)
img = np.stack([base + rng.normal(0, 18, (h, w)) for _ in range(3)], -1).clip(0, 255).astype(np.uint8)
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h)); f.write(img.tobytes())
PY
fi
cjpeg -quality 95 -sample 2x2 -optimize "$out/photo.ppm" > "$out/photo-12mp.jpg"
python3 -c "
import sys
from PIL import Image
Image.open('$out/photo.ppm').save('$out/photo-12mp.png', compress_level=6)
" 2>/dev/null || pnmtopng "$out/photo.ppm" > "$out/photo-12mp.png"
rm -f "$out/photo.ppm"
ls -l "$out"
