#!/usr/bin/env bash
# Decoding a 12-MP photo to grey: `seer decode` against libjpeg-turbo's own `djpeg`, whole processes,
# side by side in one interleaved run, in full and DCT-scaled to 1/4; then peak memory of each.
# Needs: apt libjpeg-turbo-progs time; python3; photos from make-photos.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root="$here/.."
dir=${SEER_BENCH_DIR:-/tmp/seer-bench}
[[ -f "$dir/photo-12mp.jpg" ]] || "$here/make-photos.sh" >/dev/null
photo="$dir/photo-12mp.jpg"
(cd "$root" && swift build -c release --product seer --static-swift-stdlib -Xlinker -no-pie >&2)
seer="$root/.build/release/seer"
runs=${RUNS:-60}

# Interleaved (djpeg, seer, djpeg 1/4, seer 1/4, djpeg, …): a machine whose speed drifts slows each
# command alike. Whole processes, output to /dev/null, medians and their ratios.
python3 "$here/interleaved.py" --runs "$runs" \
  -- djpeg -grayscale -outfile /dev/null "$photo" \
  -- "$seer" decode -o /dev/null "$photo" \
  -- djpeg -grayscale -scale 1/4 -outfile /dev/null "$photo" \
  -- "$seer" decode --scale 1/4 -o /dev/null "$photo" | tee "$dir/decode-vs-djpeg.md"

echo
echo "Peak resident memory (KiB):"
for cmd in "djpeg -grayscale -outfile /dev/null $photo" "$seer decode -o /dev/null $photo" \
           "$seer decode --scale 1/4 -o /dev/null $photo" "$seer decode -o $dir/out.png $photo" "$seer --version"; do
  kib=$(/usr/bin/time -f "%M" $cmd 2>&1 >/dev/null | tail -1)
  printf '  %8s  %s\n' "$kib" "${cmd/$root\//}"
done
