#!/usr/bin/env bash
# Benchmark: blockscope export --format copy against pg_filedump -D, and
# blockscope show --format ndjson against pg_filedump -i, on one 1 GiB
# pgbench_accounts segment (aid int, bid int, abalance int, filler char(84)).
# All four commands in one hyperfine run, so they share whatever else the
# machine is doing and the ratios stay fair; page cache warm; output to
# /dev/null. Peak RSS and CPU time from one extra run under /usr/bin/time -v.
# Not run by CI.
#
# Usage: bench/export.sh SEGMENT
#   SEGMENT: the first segment file of pgbench_accounts, e.g. WORK_DIR/data/base/5/16396
#   after `bench/verify.sh WORK_DIR` (which builds it with pgbench -i and keeps it).
# Environment: RUNS (hyperfine runs of each command, default 3).
# Needs pg_filedump (Debian: postgresql-filedump), hyperfine, python3 and /usr/bin/time.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEG="${1:?usage: bench/export.sh SEGMENT (a pgbench_accounts segment file)}"
RUNS="${RUNS:-3}"
[ -f "$SEG" ] || { echo "bench: $SEG: no such file" >&2; exit 2; }
for tool in pg_filedump hyperfine python3; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is needed" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed" >&2; exit 2; }

(cd "$REPO" && cargo build --release --quiet)
BS="$REPO/target/release/blockscope"
SIZE=$(stat -c %s "$SEG")
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

q() { printf '%q ' "$@"; }
COLS="aid int,bid int,abalance int,filler char(84)"
NAMES=("pg_filedump -D" "blockscope export copy" "pg_filedump -i" "blockscope show ndjson")
CMDS=(
    "$(q pg_filedump -D int,int,int,charN "$SEG")> /dev/null"
    "$(q "$BS" export "$SEG" --columns "$COLS" --format copy)> /dev/null"
    "$(q pg_filedump -i "$SEG")> /dev/null"
    "$(q "$BS" show --format ndjson "$SEG")> /dev/null"
)

cat "$SEG" >/dev/null # warm the page cache
args=()
for i in "${!NAMES[@]}"; do args+=(-n "${NAMES[$i]}" "${CMDS[$i]}"); done
hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$OUT/hyperfine.json" "${args[@]}" >&2
for i in "${!NAMES[@]}"; do
    /usr/bin/time -v bash -c "${CMDS[$i]}" 2>"$OUT/$i.time" >/dev/null
done

printf '%s\n' "${NAMES[@]}" >"$OUT/names"
python3 - "$OUT" "$SIZE" "$(nproc)" <<'PY'
import json, os, re, sys
out, size, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = open(os.path.join(out, "names")).read().splitlines()
results = json.load(open(os.path.join(out, "hyperfine.json")))["results"]
rows, t = [], {}
for i, (name, r) in enumerate(zip(names, results)):
    tv = open(os.path.join(out, "%d.time" % i)).read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", tv).group(1)) / 1024
    cpu = sum(float(re.search(r"%s time \(seconds\): ([0-9.]+)" % k, tv).group(1))
              for k in ("User", "System"))
    rows.append((name, r["median"], r["min"], r["max"], cpu, rss))
    t[name] = r["median"]
load = open("/proc/loadavg").read().split()[:3]
print("1 GiB segment (%d bytes), %s cores, one hyperfine run of all four (median of"
      " its runs), page cache warm, output to /dev/null; CPU = user+system and peak RSS"
      " of one extra run; load average at the end %s" % (size, cores, " ".join(load)))
print()
print("| command | median s | min–max s | MB/s (median) | CPU s | peak RSS MB |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name, med, lo, hi, cpu, rss in rows:
    print("| `%s` | %.2f | %.2f–%.2f | %.0f | %.2f | %.1f |"
          % (name, med, lo, hi, size / med / 1e6, cpu, rss))
print()
print("- export --format copy vs pg_filedump -D: %.2f× faster (target ≥ 5×)"
      % (t["pg_filedump -D"] / t["blockscope export copy"]))
print("- show --format ndjson vs pg_filedump -i: %.2f× faster (target ≥ 5×)"
      % (t["pg_filedump -i"] / t["blockscope show ndjson"]))
PY
