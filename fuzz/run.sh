#!/usr/bin/env bash
# Run every fuzz target for a while, seeded from the fixtures.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default 600 s, all targets)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). The machine has a stable
# toolchain only; RUSTC_BOOTSTRAP=1 lets cargo-fuzz use the sanitizer flags.
# Crashes land in fuzz/artifacts/TARGET/; turn each into a regression test in
# tests/fuzz_regressions.rs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/.."
seconds="${1:-600}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(cd "$here" && RUSTC_BOOTSTRAP=1 cargo fuzz list)
fi
export RUSTC_BOOTSTRAP=1

seed() {
  local target="$1" dir="$here/corpus/$1"
  mkdir -p "$dir"
  case "$target" in
    input_decoders|show_pipeline|oracle_trace)
      cp "$root"/fixtures/inputs/*.txt "$root"/fixtures/inputs/samples/*.txt \
         "$root"/fixtures/reference/blog-postgres/*.txt "$dir"/ 2>/dev/null || true
      ;;
  esac
  case "$target" in
    input_decoders) ;;
    attrs)
      # A column list, a NUL byte, then a page: the fixtures' own column lists.
      python3 - "$root" "$dir" <<'PY'
import json, glob, os, sys
root, out = sys.argv[1], sys.argv[2]
for f in glob.glob(os.path.join(root, "fixtures/postgres/heap/*.json")):
    d = json.load(open(f))
    cols = ",".join(c["type"] for c in d["columns"] if not c["attisdropped"])
    page = open(f[:-5] + ".page", "rb").read()
    open(os.path.join(out, os.path.basename(f)[:-5]), "wb").write(cols.encode() + b"\0" + page)
PY
      ;;
    oracle_trace)
      # The published dumps of every release: table blocks and the
      # space-management bodies (segment headers, bitmap and undo blocks).
      cp "$root"/fixtures/reference/blog-oracle/*.bin "$root"/fixtures/oracle/trace/*.trc \
         "$root"/fixtures/oracle/blocks/*.trc "$dir"/ 2>/dev/null || true ;;
    oracle_*) cp "$root"/fixtures/reference/blog-oracle/*.bin "$dir"/ 2>/dev/null || true ;;
    *) for f in "$root"/fixtures/postgres/*/*.page; do
         cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"
       done ;;
  esac
}

cd "$here"
for t in "${targets[@]}"; do
  seed "$t"
  echo "== $t: ${seconds}s"
  cargo fuzz run "$t" "corpus/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    2>&1 | tee "$here/artifacts-$t.log" | grep -E "^(stat::|==|#[0-9]+ *DONE|SUMMARY|Done)" || true
done
