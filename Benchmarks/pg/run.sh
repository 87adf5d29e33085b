#!/usr/bin/env bash
# The PostgreSQL store's figures, against a throw-away PostgreSQL 15 with its durable defaults
# (fsync and synchronous commit on; scripts/postgres start --durable), release builds:
#   1. batch verify + save, codes/s: `seer verify --mode batch --payload-file` with all the codes in
#      one process, then half each in two processes at once (wall time until both are done);
#      fresh databases each round, rounds interleaved, medians;
#   2. history search over a synthetic history (pg-bench fill, then VACUUM ANALYZE): median ms of
#      each query of pg-bench search's set.
#   Benchmarks/pg/run.sh [--codes 20000] [--scans 1000000] [--rounds 3]     (--scans 0: verify only)
set -euo pipefail
cd "$(dirname "$0")/../.."
codes=20000 scans=1000000 rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --codes) codes=$2; shift 2 ;;
    --scans) scans=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 [--codes N] [--scans N] [--rounds N]" >&2; exit 64 ;;
  esac
done
swift build -c release --product seer >&2
swift build -c release --package-path Benchmarks --product pg-bench >&2
seer=$(swift build -c release --show-bin-path)/seer
bench=$(swift build -c release --package-path Benchmarks --show-bin-path)/pg-bench

read -r url folder < <(scripts/postgres start --durable)
[[ -n "${url:-}" ]] || { echo "could not start PostgreSQL" >&2; exit 1; }
work=$(mktemp -d)
trap 'scripts/postgres stop "$folder"; rm -rf "$work"' EXIT
server=${url%/postgres}
echo "PostgreSQL at $url (durable); $(nproc) cores" >&2

"$bench" codes --count "$codes" --out "$work"
fresh() {
  psql -q "$url" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
  "$seer" registry import --db "$server/$1" "$work/registry.json" >/dev/null
}
now() { date +%s.%N; }
one=() two=()
for round in $(seq 1 "$rounds"); do
  fresh bench_one
  start=$(now)
  "$seer" verify --mode batch --format json --payload-file "$work/all.txt" --db "$server/bench_one" >"$work/one.out"
  one+=("$(echo "$codes / ($(now) - $start)" | bc -l)")
  fresh bench_two
  start=$(now)
  "$seer" verify --mode batch --format json --payload-file "$work/part-0.txt" --db "$server/bench_two" >"$work/two-0.out" &
  first=$!
  "$seer" verify --mode batch --format json --payload-file "$work/part-1.txt" --db "$server/bench_two" >"$work/two-1.out"
  wait "$first"
  two+=("$(echo "$codes / ($(now) - $start)" | bc -l)")
  # Every code saved once and authentic, in both set-ups.
  for db in bench_one bench_two; do
    saved=$(psql -tA "$server/$db" -c "SELECT count(*) || ' ' || count(DISTINCT payload) || ' ' || count(*) FILTER (WHERE verdict = 'authentic') FROM scan")
    [[ "$saved" == "$codes $codes $codes" ]] || { echo "round $round $db: saved/distinct/authentic = $saved, expected $codes each" >&2; exit 1; }
  done
  echo "round $round: one process ${one[-1]} codes/s, two processes ${two[-1]} codes/s" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m1=$(median "${one[@]}") m2=$(median "${two[@]}")

search=null
if [[ "$scans" -gt 0 ]]; then
  psql -q "$url" -c "CREATE DATABASE bench_history" >/dev/null
  "$bench" fill --db "$server/bench_history" --scans "$scans"
  psql -q "$server/bench_history" -c "VACUUM ANALYZE scan" >/dev/null
  search=$("$bench" search --db "$server/bench_history")
fi

printf '{"codes": %d, "oneProcessCodesPerSecond": %.0f, "twoProcessesCodesPerSecond": %.0f, "speedup": %.2f, "rounds": %d,\n "loadAverage": "%s",\n "history": %s}\n' \
  "$codes" "$m1" "$m2" "$(echo "$m2 / $m1" | bc -l)" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)" "$search"
