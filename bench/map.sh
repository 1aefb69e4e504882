#!/usr/bin/env bash
# Benchmark: `blockscope map` (term, svg, json) against `blockscope verify` on
# the same relation file: map runs verify's per-block check in the same pass,
# so it should take about as long. Page cache warm; the median of RUNS runs
# and the peak RSS of each, from /usr/bin/time. Not run by CI.
#
# Usage: bench/map.sh FILE
#   FILE: a relation file, e.g. the 1 GiB first segment of pgbench_accounts
#   that bench/verify.sh builds (map also reads its further segments N.1…,
#   which verify given FILE alone does not).
# Environment: RUNS (default 5), BLOCKSCOPE (default target/release/blockscope,
#   built with cargo build --release when missing).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FILE="${1:?usage: bench/map.sh FILE}"
RUNS="${RUNS:-5}"
BIN="${BLOCKSCOPE:-$REPO/target/release/blockscope}"
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$BIN" ] || (cd "$REPO" && cargo build --release)

cat "$FILE" > /dev/null # warm the page cache

# median seconds and max RSS (KB) of RUNS runs of blockscope "$@"
measure() {
    local times=() rss=0 out
    for _ in $(seq "$RUNS"); do
        out=$( { /usr/bin/time -f '%e %M' "$BIN" "$@" > /dev/null; } 2>&1 | tail -n 1)
        times+=("${out% *}")
        [ "${out#* }" -gt "$rss" ] && rss="${out#* }"
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v rss="$rss" -v what="$*" \
        '{ t[NR] = $1 } END { printf "%-40s median %6.2f s   peak RSS %6.1f MB\n", what, t[int((NR + 1) / 2)], rss / 1024 }'
}

measure verify "$FILE" || true
measure map "$FILE" || true
measure map --format svg "$FILE" || true
measure map --format json "$FILE" || true
