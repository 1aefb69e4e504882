#!/usr/bin/env bash
# Benchmark: `blockscope wal` against pg_waldump listing the same WAL.
#
# Makes about 1 GB of WAL in a throw-away PostgreSQL 15 cluster (initdb -k,
# no TCP, Unix socket in a private temp dir, WAL archived, always stopped):
# pgbench -i at scale 20, then pgbench until the archive holds WAL_MB of
# segments. Then both tools list every record of the archive to /dev/null,
# alternately, RUNS times each (hyperfine when installed, else `time`);
# page cache warm. Peak RSS of blockscope from /usr/bin/time -v. Not run by CI.
#
# Usage: bench/wal.sh [WORK_DIR]   (kept when given, else a temp dir removed)
# Environment: RUNS (default 3), WAL_MB (default 1024), PG_BIN (default
# Debian's PostgreSQL 15).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-3}"
WAL_MB="${WAL_MB:-1024}"
BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
log() { printf '%s\n' "$*" >&2; }
die() { log "bench: $*"; exit 2; }
# shellcheck source=../fixtures/postgres/initdb.sh
. "$REPO/fixtures/postgres/initdb.sh"
PG_BIN="$BIN"
[ -x "$PG_BIN/pgbench" ] || die "no pgbench in $PG_BIN"

(cd "$REPO" && cargo build --release --quiet)
BS="$REPO/target/release/blockscope"

if [ -n "${1:-}" ] && [ -d "$1/archive" ] && [ "$(ls "$1/archive" | wc -l)" -gt 0 ]; then
    ARCHIVE="$1/archive"
    log "bench: reusing $ARCHIVE"
else
    new_work walbench
    trap_cleanup
    mkdir -p "$WORK/sock" "$WORK/archive"
    chmod 700 "$WORK/sock"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$WORK/sock" "$WORK/archive"; fi
    init_cluster "$PG_BIN" "$WORK/data" "$WORK/sock" $((20000 + RANDOM % 20000))
    cat >>"$WORK/data/postgresql.conf" <<CONF
wal_level = replica
archive_mode = on
archive_command = 'cp %p $WORK/archive/%f'
max_wal_size = 4GB
CONF
    start_server
    PORT="$(sed -n 's/^port = //p' "$WORK/data/postgresql.conf" | tail -n 1)"
    as_pg "$PG_BIN/pgbench" -h "$WORK/sock" -p "$PORT" -U postgres -i -s 20 -q postgres >/dev/null 2>&1
    while [ "$(du -sm "$WORK/archive" | cut -f1)" -lt "$WAL_MB" ]; do
        as_pg "$PG_BIN/pgbench" -h "$WORK/sock" -p "$PORT" -U postgres -n -T 20 -c 2 postgres >/dev/null 2>&1
    done
    stop_server fast
    ARCHIVE="$WORK/archive"
    if [ -n "${1:-}" ]; then
        mkdir -p "$1/archive" && cp "$ARCHIVE"/0* "$1/archive/" && ARCHIVE="$1/archive"
    fi
fi

FIRST="$(ls "$ARCHIVE" | grep -E '^[0-9A-F]{24}$' | head -n 1)"
LAST="$(ls "$ARCHIVE" | grep -E '^[0-9A-F]{24}$' | tail -n 1)"
MB="$(du -sm "$ARCHIVE" | cut -f1)"
RECORDS="$("$BS" wal "$ARCHIVE" | wc -l)"
log "bench: $MB MB of WAL ($FIRST..$LAST), $RECORDS records, $(nproc) cores"
cat "$ARCHIVE"/* >/dev/null

WALDUMP="$PG_BIN/pg_waldump -p $ARCHIVE $FIRST $LAST"
OURS="$BS wal $ARCHIVE"
if command -v hyperfine >/dev/null; then
    hyperfine --runs "$RUNS" -N --ignore-failure -n pg_waldump "$WALDUMP" -n "blockscope wal" "$OURS" \
        --output null
else
    for i in $(seq "$RUNS"); do
        for name in pg_waldump blockscope; do
            cmd="$WALDUMP"
            [ "$name" = blockscope ] && cmd="$OURS"
            start=$(date +%s.%N)
            $cmd >/dev/null 2>&1 || true
            end=$(date +%s.%N)
            printf '%-12s run %d: %.2f s (%.0f MB/s)\n' "$name" "$i" "$(echo "$end - $start" | bc)" \
                "$(echo "$MB / ($end - $start)" | bc -l)"
        done
    done
fi
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v $OURS 2>&1 >/dev/null | grep -E 'Maximum resident|Elapsed' | sed 's/^\s*/blockscope wal: /'
fi
