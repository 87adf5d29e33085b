#!/usr/bin/env bash
# The SQLite store's figures (Benchmarks/pg/run.sh measures the same on PostgreSQL), release builds,
# temporary databases:
#   1. batch verify + save, codes/s: `seer verify --mode batch --payload-file` of N signed demo codes
#      (pg-bench codes) in one process, into a fresh database with their registry imported; R runs,
#      each checked to have saved every code once as authentic; median;
#   2. history search over a synthetic history of S scans (pg-bench fill): median, p95 and most ms of
#      each query of pg-bench search's set, suggestions and statistics.
# Prints one JSON object.
#   Benchmarks/verify/run.sh [--codes 1000] [--scans 100000] [--repeats 5]     (--scans 0: verify only)
set -euo pipefail
cd "$(dirname "$0")/../.."
codes=1000 scans=100000 repeats=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --codes) codes=$2; shift 2 ;;
    --scans) scans=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    *) echo "usage: $0 [--codes N] [--scans N] [--repeats N]" >&2; exit 64 ;;
  esac
done
swift build -c release --product seer >&2
swift build -c release --package-path Benchmarks --product pg-bench >&2
seer=$(swift build -c release --show-bin-path)/seer
bench=$(swift build -c release --package-path Benchmarks --show-bin-path)/pg-bench

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bench" codes --count "$codes" --out "$work"
now() { date +%s.%N; }
runs=()
for run in $(seq 1 "$repeats"); do
  db=$work/verify-$run.sqlite
  "$seer" registry import --db "$db" "$work/registry.json" >/dev/null
  start=$(now)
  "$seer" verify --mode batch --format json --payload-file "$work/all.txt" --db "$db" >"$work/verify.out"
  runs+=("$(echo "$codes / ($(now) - $start)" | bc -l)")
  saved=$(sqlite3 "$db" "SELECT count(*) || ' ' || count(DISTINCT payload) || ' ' || sum(verdict = 'authentic') FROM scan")
  [[ "$saved" == "$codes $codes $codes" ]] || { echo "run $run: saved/distinct/authentic = $saved, expected $codes each" >&2; exit 1; }
  echo "run $run: ${runs[-1]} codes/s" >&2
  rm -f "$db" "$db-wal" "$db-shm"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

search=null
if [[ "$scans" -gt 0 ]]; then
  "$bench" fill --db "$work/history.sqlite" --scans "$scans"
  search=$("$bench" search --db "$work/history.sqlite")
fi

printf '{"codes": %d, "codesPerSecond": [%s], "medianCodesPerSecond": %.0f, "runs": %d,\n "loadAverage": "%s",\n "history": %s}\n' \
  "$codes" "$(printf '%.0f, ' "${runs[@]}" | sed 's/, $//')" "$(median "${runs[@]}")" "$repeats" "$(cut -d' ' -f1-3 /proc/loadavg)" "$search"
