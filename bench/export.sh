#!/usr/bin/env bash
# Benchmark: blockscope export --format copy against pg_filedump -D, and
# blockscope show --format ndjson against pg_filedump -i, on one 1 GiB
# pgbench_accounts segment (aid int, bid int, abalance int, filler char(84)).
# One run of each, side by side, page cache warm; wall time, throughput and
# peak RSS from /usr/bin/time -v. Not run by CI.
#
# Usage: bench/export.sh SEGMENT
#   SEGMENT: the first segment file of pgbench_accounts, e.g. WORK_DIR/data/base/5/16396
#   after `bench/verify.sh WORK_DIR` (which builds it with pgbench -i and keeps it).
# Needs pg_filedump (Debian: postgresql-filedump) and /usr/bin/time.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEG="${1:?usage: bench/export.sh SEGMENT (a pgbench_accounts segment file)}"
[ -f "$SEG" ] || { echo "bench: $SEG: no such file" >&2; exit 2; }
command -v pg_filedump >/dev/null || { echo "bench: pg_filedump is needed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed" >&2; exit 2; }

(cd "$REPO" && cargo build --release --quiet)
BS="$REPO/target/release/blockscope"
SIZE=$(stat -c %s "$SEG")
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

cat "$SEG" >/dev/null # warm the page cache
run() { # NAME COMMAND…
    local name="$1"
    shift
    /usr/bin/time -v "$@" >/dev/null 2>"$OUT/$name.time"
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$OUT/$name.time" |
        awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/$name.time")
    printf '%-28s %8.2f s %9.0f MB/s %8.1f MB peak RSS\n' "$name" "$wall" \
        "$(echo "$SIZE / 1048576 / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
COLS="aid int,bid int,abalance int,filler char(84)"
run "pg_filedump -D" pg_filedump -D int,int,int,charN "$SEG"
run "blockscope export copy" "$BS" export "$SEG" --columns "$COLS" --format copy
run "pg_filedump -i" pg_filedump -i "$SEG"
run "blockscope show ndjson" "$BS" show --format ndjson "$SEG"
