#!/usr/bin/env bash
# Benchmark: blockscope infer on a 1 GiB relation (page cache warm): the
# wall time of a few runs and the peak RSS of one. infer reads at most 512
# pages spread over the file, so the time should not grow with the size.
# Not run by CI.
#
# Usage: bench/infer.sh [FILE]
#   FILE: a heap relation segment (e.g. a pgbench_accounts segment kept by
#   bench/verify.sh). Without it a 1 GiB file is made in a temp dir from the
#   export fixture's page (ten types, TOAST pointers, NULLs) repeated.
# Environment: RUNS (default 5); BLOCKSCOPE: a binary to time instead of a
# fresh release build.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-5}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
if [ $# -gt 0 ]; then
    FILE="$1"
else
    FILE="$OUT/rel"
    PAGE="$REPO/fixtures/postgres/export/data/base/5/16384"
    # 8 KiB × 2^17 = 1 GiB
    python3 - "$PAGE" "$FILE" <<'PY'
import sys
page = open(sys.argv[1], "rb").read(8192)
with open(sys.argv[2], "wb") as f:
    chunk = page * 1024
    for _ in range(128):
        f.write(chunk)
PY
fi
[ -f "$FILE" ] || { echo "bench: $FILE: no such file" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed" >&2; exit 2; }

if [ -n "${BLOCKSCOPE:-}" ]; then
    BS="$BLOCKSCOPE"
else
    (cd "$REPO" && cargo build --release --quiet)
    BS="$REPO/target/release/blockscope"
fi
cat "$FILE" >/dev/null # warm the page cache
echo "infer $(stat -c %s "$FILE") bytes: $("$BS" infer "$FILE" | head -1)"
for i in $(seq "$RUNS"); do
    /usr/bin/time -f "run $i: %e s wall, %U s user, %M KiB peak RSS" "$BS" infer "$FILE" >/dev/null
done
