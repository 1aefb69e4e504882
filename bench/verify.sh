#!/usr/bin/env bash
# Benchmark: blockscope verify and show --format ndjson on a 1 GiB relation
# segment written by a real PostgreSQL server, against pg_checksums --check,
# pg_filedump -k / -i and cat. Page cache warm; medians of several runs
# (hyperfine); peak RSS from /usr/bin/time -v. Not run by CI: it builds a
# 1 GiB table and takes several minutes.
#
# Usage: bench/verify.sh [WORK_DIR]
#   WORK_DIR (default: a new temp dir) keeps the cluster between runs: a second
#   run reuses it instead of running pgbench -i again. Needs ~1.5 GB of disk.
# Environment: SCALE (pgbench scale, default 80: pgbench_accounts ≈ 1.07 GB,
#   so its first segment file is a full 1 GiB), RUNS (default 7),
#   SLOW_RUNS (default 3, for pg_filedump -i and show --format ndjson).
#
# Installs what it needs from Debian's packages when run as root:
# postgresql, postgresql-filedump, hyperfine, time.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCALE="${SCALE:-80}"
RUNS="${RUNS:-7}"
SLOW_RUNS="${SLOW_RUNS:-3}"
PG_PORT=55442

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

newest_bindir() {
    local b
    for b in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
        [ -x "$b/initdb" ] && [ -x "$b/pgbench" ] && printf '%s\n' "$b"
    done | tail -n 1
}

# --- tools -------------------------------------------------------------------------
missing=()
[ -n "$(newest_bindir)" ] || missing+=(postgresql postgresql-contrib)
command -v pg_filedump >/dev/null || missing+=(postgresql-filedump)
command -v hyperfine >/dev/null || missing+=(hyperfine)
[ -x /usr/bin/time ] || missing+=(time)
command -v python3 >/dev/null || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: install them, or run as root"
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y "${missing[@]}" </dev/null
fi
PG_BIN="$(newest_bindir)"
[ -n "$PG_BIN" ] || die "no PostgreSQL binaries"

log "building blockscope (release)"
(cd "$REPO" && cargo build --release --quiet)
BS="$REPO/target/release/blockscope"

# --- a 1 GiB relation segment -------------------------------------------------------
if [ -n "${1:-}" ]; then
    WORK="$1"
    mkdir -p "$WORK"
    keep=1
else
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/blockscope-bench.XXXXXX")"
    keep=0
fi
WORK="$(cd "$WORK" && pwd)"
DATA="$WORK/data"
if [ "$(id -u)" -eq 0 ]; then
    getent passwd postgres >/dev/null || die "running as root, but there is no postgres user"
    chown postgres: "$WORK"
    as_pg() { (cd "$WORK" && runuser -u postgres -- "$@"); }
else
    as_pg() { (cd "$WORK" && "$@"); }
fi
running=0
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ "$running" -eq 1 ]; then
        as_pg "$PG_BIN/pg_ctl" -D "$DATA" -w -t 60 stop -m fast >/dev/null 2>&1 ||
            log "WARNING: could not stop the server"
    fi
    [ "$keep" -eq 1 ] || rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ ! -f "$WORK/relation" ]; then
    rm -rf "$DATA"
    log "initdb -k and pgbench -i -s $SCALE (a minute or two)"
    as_pg "$PG_BIN/initdb" -k -D "$DATA" -U postgres --auth=trust >"$WORK/initdb.log" 2>&1 ||
        { cat "$WORK/initdb.log" >&2; die "initdb failed"; }
    cat >>"$DATA/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = $PG_PORT
fsync = off
autovacuum = off
max_wal_size = 4GB
CONF
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w -t 60 start >/dev/null
    running=1
    # Tables, data, vacuum (hint bits, visibility map); no primary keys.
    as_pg "$PG_BIN/pgbench" -h "$WORK" -p "$PG_PORT" -U postgres -i -I dtgv -q -s "$SCALE" postgres \
        >"$WORK/pgbench.log" 2>&1 || { cat "$WORK/pgbench.log" >&2; die "pgbench -i failed"; }
    as_pg "$PG_BIN/psql" -X -q -At -h "$WORK" -p "$PG_PORT" -U postgres -d postgres \
        -c "CHECKPOINT" -c "SELECT pg_relation_filepath('pgbench_accounts')" >"$WORK/relation"
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -w -t 60 stop -m fast >/dev/null
    running=0
fi
REL="$DATA/$(tail -n 1 "$WORK/relation")"
SEG="$REL"
[ -f "$SEG" ] || die "$SEG is missing"
SIZE=$(stat -c %s "$SEG")
[ "$SIZE" -eq $((1 << 30)) ] || log "note: the first segment is $SIZE bytes, not 1 GiB (SCALE too small?)"

# pg_checksums checks whole clusters: give it one that holds only this segment
# (the real pg_control, a hard link to the file), so every tool reads the same bytes.
ONLY="$WORK/only-segment"
rm -rf "$ONLY"
mkdir -p "$ONLY/global" "$ONLY/base/5" "$ONLY/pg_tblspc"
cp "$DATA/global/pg_control" "$ONLY/global/"
cp "$DATA/PG_VERSION" "$ONLY/"
ln "$SEG" "$ONLY/base/5/$(basename "$SEG")"
[ "$(id -u)" -eq 0 ] && chown -R postgres: "$ONLY" && chmod 700 "$ONLY"
PGCK=("$PG_BIN/pg_checksums" --check -D "$ONLY")
if [ "$(id -u)" -eq 0 ]; then PGCK=(runuser -u postgres -- "${PGCK[@]}"); fi

log "checking that every tool agrees the segment is clean"
"$BS" verify "$SEG" >/dev/null || die "blockscope verify found problems"
"${PGCK[@]}" >/dev/null || die "pg_checksums found problems"

cat "$SEG" >/dev/null; cat "$SEG" >/dev/null   # warm the page cache

q() { printf '%q ' "$@"; }
declare -a NAMES CMDS
add() { NAMES+=("$1"); CMDS+=("$2"); }
add "cat > /dev/null" "cat $(q "$SEG")> /dev/null"
add "blockscope verify" "$(q "$BS" verify "$SEG")> /dev/null"
add "pg_checksums --check" "$(q "${PGCK[@]}")> /dev/null"
add "pg_filedump -k" "$(q pg_filedump -k "$SEG")> /dev/null"
add "blockscope verify -j 1" "$(q "$BS" verify -j 1 "$SEG")> /dev/null"
add "blockscope show -f ndjson" "$(q "$BS" show --format ndjson "$SEG")> /dev/null"
add "pg_filedump -i" "$(q pg_filedump -i "$SEG")> /dev/null"

RESULTS="$WORK/results"
mkdir -p "$RESULTS"
for i in "${!NAMES[@]}"; do
    runs="$RUNS"
    case "${NAMES[$i]}" in *ndjson*|*"filedump -i"*) runs="$SLOW_RUNS" ;; esac
    log "timing ${NAMES[$i]} ($runs runs)"
    hyperfine --style none --warmup 1 --runs "$runs" --export-json "$RESULTS/$i.json" \
        "${CMDS[$i]}" >/dev/null 2>&1 || die "hyperfine failed on: ${CMDS[$i]}"
    /usr/bin/time -v bash -c "${CMDS[$i]}" 2>"$RESULTS/$i.time" >/dev/null ||
        die "failed: ${CMDS[$i]}"
done

NAMES_FILE="$RESULTS/names"
printf '%s\n' "${NAMES[@]}" >"$NAMES_FILE"
python3 - "$RESULTS" "$SIZE" "$(nproc)" "$("$PG_BIN/postgres" --version)" <<'PY'
import json, os, re, sys
results, size, cores, pgver = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
names = open(os.path.join(results, "names")).read().splitlines()
rows = []
for i, name in enumerate(names):
    r = json.load(open(os.path.join(results, "%d.json" % i)))["results"][0]
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                    open(os.path.join(results, "%d.time" % i)).read())
    tv = open(os.path.join(results, "%d.time" % i)).read()
    cpu = sum(float(re.search(r"%s time \(seconds\): ([0-9.]+)" % k, tv).group(1)) for k in ("User", "System"))
    rows.append((name, r["median"], r["min"], r["max"], int(rss.group(1)) / 1024 if rss else float("nan"), cpu))
t = {name: med for name, med, *_ in rows}
load = open("/proc/loadavg").read().split()[:3]
print("1 GiB segment (%d bytes), %s cores, %s; page cache warm; median wall time of"
      " hyperfine runs; CPU = user+system of one extra run; load average at the end %s"
      % (size, cores, pgver, " ".join(load)))
print()
print("| command | median s | min–max s | MB/s (median) | CPU s | peak RSS MB |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name, med, lo, hi, rss, cpu in rows:
    print("| `%s` | %.3f | %.3f–%.3f | %.0f | %.2f | %.1f |" % (name, med, lo, hi, size / med / 1e6, cpu, rss))
print()
def ratio(a, b):
    return t[a] / t[b]
print("- verify vs cat: %.2f× the time of `cat` (target ≤ 2×)" % ratio("blockscope verify", "cat > /dev/null"))
print("- verify vs pg_checksums: %.2f× faster (target ≥ 1×)" % ratio("pg_checksums --check", "blockscope verify"))
print("- verify vs pg_filedump -k: %.2f× faster" % ratio("pg_filedump -k", "blockscope verify"))
print("- show --format ndjson vs pg_filedump -i: %.2f× faster (target ≥ 5×)"
      % ratio("pg_filedump -i", "blockscope show -f ndjson"))
PY
