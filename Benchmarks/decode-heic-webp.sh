#!/usr/bin/env bash
# Decoding a 12-MP HEIC (an iPhone-style grid of 512×512 tiles) and a 12-MP WebP to grey: `seer decode`
# against each library's own command-line decoder, whole processes, side by side in one interleaved run.
# Same output for both: the decoded samples written raw to a file in /dev/shm (heif-convert writes
# YUV 4:2:0 as .y4m, dwebp -yuv the YUV planes; seer the grey plane as PGM).
# Needs: apt libheif-examples webp libjpeg-turbo-progs; pip pillow; photos from make-photos.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
dir=${SEER_BENCH_DIR:-/tmp/seer-bench}
[[ -f "$dir/photo-12mp.png" ]] || "$here/make-photos.sh" >/dev/null
[[ -f "$dir/photo-12mp.heic" && -f "$dir/photo-12mp.webp" ]] || python3 "$here/formats/make-heic-webp.py" "$dir" >&2
(cd "$root" && swift build -c release --product seer --static-swift-stdlib >&2)
seer="$root/.build/release/seer"
runs=${RUNS:-40}
out=/dev/shm/seer-bench-$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

python3 "$here/interleaved.py" --runs "$runs" \
  -- heif-convert --quiet "$dir/photo-12mp.heic" "$out/a.y4m" \
  -- "$seer" decode -o "$out/b.pgm" "$dir/photo-12mp.heic" \
  -- dwebp -quiet -yuv "$dir/photo-12mp.webp" -o "$out/c.yuv" \
  -- "$seer" decode -o "$out/d.pgm" "$dir/photo-12mp.webp"

echo
echo "Peak resident memory (KiB):"
for cmd in "heif-convert --quiet $dir/photo-12mp.heic $out/a.y4m" "$seer decode -o $out/b.pgm $dir/photo-12mp.heic" \
           "dwebp -quiet -yuv $dir/photo-12mp.webp -o $out/c.yuv" "$seer decode -o $out/d.pgm $dir/photo-12mp.webp"; do
  kib=$(/usr/bin/time -f "%M" $cmd 2>&1 >/dev/null | tail -1)
  printf '  %8s  %s\n' "$kib" "${cmd//$root\//}"
done
