#!/usr/bin/env bash
# Where the one slow history search on PostgreSQL spends its time: a word that matches as a prefix
# (`radiance:*`) and a frequent category with no scan in common. A throw-away PostgreSQL 15 with its
# durable defaults; the store's schema from `seer db migrate`; N scans of `pg-bench fill`'s
# distribution written by one INSERT … SELECT (no release build needed: only the server works here);
# then the store's own statement for the search (the index path, as PostgresStore.history runs it)
# and the same with the exact lexeme, `EXPLAIN ANALYZE` R times each: median, least and most ms.
#   Benchmarks/pg/prefix-search.sh [--scans 1000000] [--repeats 21]     (needs a built seer)
set -euo pipefail
cd "$(dirname "$0")/../.."
scans=1000000 repeats=21
while [[ $# -gt 0 ]]; do
  case "$1" in
    --scans) scans=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    *) echo "usage: $0 [--scans N] [--repeats R]" >&2; exit 64 ;;
  esac
done
seer=$(swift build --show-bin-path)/seer
[[ -x "$seer" ]] || { echo "build seer first (swift build --product seer)" >&2; exit 1; }
read -r url folder < <(scripts/postgres start --durable)
[[ -n "${url:-}" ]] || { echo "could not start PostgreSQL" >&2; exit 1; }
trap 'scripts/postgres stop "$folder"' EXIT
db=${url%/postgres}/prefix_search
psql -q "$url" -c "CREATE DATABASE prefix_search"
"$seer" db migrate --db "$db" >&2
psql -q "$db" <<SQL
INSERT INTO scan(time, device, mode, sourceFile, symbology, payload, format, gtin, serial, lot, expiry, productName, brand,
    category, verdict, reasons, country)
SELECT extract(epoch FROM now()) - 90 * 86400 + i * (90 * 86400.0 / $scans), 'device-' || (i % 200), 'batch',
    'shelf-' || (i % 1000) || '.jpg', 'qrcode', 'https://id.example.com/01/09506000134352/21/S' || (100000 + i) || '?17=281231',
    'digitalLink', '09506000134352', 'S' || (100000 + i), 'L' || (i % 50), '281231',
    (ARRAY['Radiance Serum 30 ml', 'Night Cream 50 ml', 'Ceramic Brake Pads', 'Plain Soap', 'Oil Filter', 'Sun Lotion'])[i % 6 + 1],
    (ARRAY['acme', 'acme', 'globex', 'plainco', 'globex', 'acme'])[i % 6 + 1],
    (ARRAY['cosmetics', 'cosmetics', 'autoparts', 'household', 'autoparts', 'cosmetics'])[i % 6 + 1],
    (ARRAY['authentic', 'counterfeit', 'suspicious', 'unknown'])[(i / 7) % 4 + 1],
    (ARRAY['["validSignature","registeredSerial"]', '["badSignature"]', '["cloneSuspected","tooManyScans"]',
        '["unknownProduct","unsigned"]'])[(i / 7) % 4 + 1],
    (ARRAY['DE', 'FR', 'NL', 'US'])[i % 4 + 1]
FROM generate_series(0, $scans - 1) AS i;
VACUUM ANALYZE scan;
SQL
echo "$(psql -tA "$db" -c "SELECT count(*) FROM scan") scans; 'radiance' in $(psql -tA "$db" -c "SELECT count(*) FROM scan WHERE search @@ 'radiance:*'::tsquery"), category autoparts in $(psql -tA "$db" -c "SELECT count(*) FROM scan WHERE search @@ '#c=autoparts'::tsquery")"
probe() {
  local name=$1 tsquery=$2
  for _ in $(seq 1 "$repeats"); do
    psql -tA "$db" -c "BEGIN" -c "SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)" \
      -c "EXPLAIN ANALYZE SELECT * FROM scan WHERE scan.search @@ '$tsquery'::tsquery AND lower(scan.category) = lower('autoparts') ORDER BY scan.id DESC LIMIT 51 OFFSET 0" \
      -c "COMMIT" | awk '/Execution Time/ { print $3 }'
  done | sort -g | awk -v name="$name" '{ v[NR] = $1 } END { printf "%s: median %.1f ms, least %.1f, most %.1f (%d runs)\n", name, v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}
probe "prefix ('radiance':*) & '#c=autoparts'" "(''radiance'':*) & ''#c=autoparts''"
probe "exact ('radiance') & '#c=autoparts'" "(''radiance'') & ''#c=autoparts''"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
