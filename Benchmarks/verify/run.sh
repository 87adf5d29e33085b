#!/usr/bin/env bash
# Measures batch verify+save of demo codes (codes/s, decoding excluded) and history search over a
# large history (ms), in release, in temporary databases. Prints one JSON object.
#   Benchmarks/verify/run.sh [--codes 1000] [--scans 100000] [--repeats 5]
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product seer >&2
exec .build/release/seer registry bench "$@"
