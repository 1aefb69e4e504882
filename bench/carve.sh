#!/usr/bin/env bash
# Benchmark: `blockscope carve` against `cat IMAGE > /dev/null` on a warm page
# cache. The image is built from FILE (a relation file full of pages): 256 MiB
# of random bytes, FILE, 256 MiB of zeros, then FILE again shifted by one
# sector (its pages at odd 512-byte offsets, a second copy of every block),
# so the scan meets junk, pages, nothing, and duplicates. carve runs with
# --dry-run (scan and group; what writing the groups costs is the filesystem's)
# and with --out into a fresh directory. The median of RUNS runs, peak RSS
# from /usr/bin/time. Not run by CI.
#
# Usage: bench/carve.sh FILE [IMAGE]
#   FILE: a relation file, e.g. the 1 GiB pgbench_accounts segment that
#   bench/verify.sh builds (any relation file with data checksums serves).
#   IMAGE: where to build the image (default: a temp file, removed after).
# Environment: RUNS (default 5), BLOCKSCOPE (default target/release/blockscope,
#   built with cargo build --release when missing).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FILE="${1:?usage: bench/carve.sh FILE [IMAGE]}"
RUNS="${RUNS:-5}"
BIN="${BLOCKSCOPE:-$REPO/target/release/blockscope}"
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$BIN" ] || (cd "$REPO" && cargo build --release)
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
IMAGE="${2:-$TMP/disk.img}"

{
    head -c $((256 << 20)) /dev/urandom
    cat "$FILE"
    head -c $((256 << 20)) /dev/zero
    head -c 512 /dev/urandom
    cat "$FILE"
} > "$IMAGE"
SIZE=$(stat -c %s "$IMAGE")
cat "$IMAGE" > /dev/null # warm the page cache

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# median elapsed and CPU (user + system) seconds and max RSS (KB) of RUNS
# runs of "$@" (output to /dev/null): on a shared machine the elapsed time
# follows the load, the CPU time much less.
measure() {
    local times=() cpus=() rss=0 out e u s m
    for i in $(seq "$RUNS"); do
        rm -rf "$TMP/out"
        out=$( { /usr/bin/time -f '%e %U %S %M' "${@//@OUT@/$TMP/out}" > /dev/null; } 2>&1 | tail -n 1)
        read -r e u s m <<<"$out"
        times+=("$e")
        cpus+=("$(echo "$u + $s" | bc -l)")
        [ "$m" -gt "$rss" ] && rss="$m"
    done
    local t c
    t=$(median "${times[@]}")
    c=$(median "${cpus[@]}")
    printf '%-18s %6.2f s elapsed %7.0f MB/s  %6.2f s CPU  %5d MB peak RSS\n' "$NAME" "$t" \
        "$(echo "$SIZE / 1048576 / $t" | bc -l)" "$c" $((rss / 1024))
}

echo "image: $SIZE bytes ($(basename "$FILE") twice, random bytes, zeros); runs: $RUNS"
NAME="cat > /dev/null" measure cat "$IMAGE"
NAME="carve --dry-run" measure "$BIN" carve "$IMAGE" --dry-run -q
NAME="carve --out DIR" measure "$BIN" carve "$IMAGE" --out @OUT@ -q
"$BIN" carve "$IMAGE" --dry-run -q
