#!/usr/bin/env bash
# Compile time, source -> cubin, per example: the PTX path (the passes,
# txc-ptx, ptxas: txc --emit=cubin) against the nvcc path (the passes,
# txc-cuda, nvcc: txc --backend=cuda --emit=cubin), from txc --time-passes.
# Each is run once, cold in the sense that neither ptxas nor nvcc keeps a
# cache: the first run of each example is the one measured (REPS=N runs it N
# times and prints the median instead). Milliseconds, wall clock:
#   chain  the pass chain through the backend (its last stage's exit)
#   ptxas  / nvcc  the tool after it
#   total  the driver's whole run
# The driver's JIT path (cuModuleLoadData of the PTX) needs a GPU and is
# not measured here.
#
#   bench/compile-time.sh [EXAMPLE.tx...]    (default: examples/*.tx)
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${REPS:-1}
[ $# -gt 0 ] || set -- examples/*.tx
TMP=$(mktemp -d "${TMPDIR:-/tmp}/txc-ct.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# stage FILE NAME: the wall ms of the row NAME of a --time-passes table
stage() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

printf '%-24s %-8s | %8s %8s %8s | %8s %8s %8s\n' example arch "chain" "ptxas" "total" "chain" "nvcc" "total"
printf '%-24s %-8s | %26s | %26s\n' "" "" "PTX path (txc-ptx)" "nvcc path (txc-cuda)"
for ex in "$@"; do
  a=sm_90a
  grep -q tcgen05 "$ex" && a=sm_100a
  : >"$TMP/p.chain"; : >"$TMP/p.tool"; : >"$TMP/p.total"
  : >"$TMP/c.chain"; : >"$TMP/c.tool"; : >"$TMP/c.total"
  ok=1
  for _ in $(seq "$REPS"); do
    if bin/txc --time-passes --arch="$a" --emit=cubin "$ex" -o "$TMP/x.cubin" 2>"$TMP/t"; then
      stage "$TMP/t" ptx >>"$TMP/p.chain"; stage "$TMP/t" ptxas >>"$TMP/p.tool"; stage "$TMP/t" total >>"$TMP/p.total"
    else
      ok=0
    fi
    if bin/txc --time-passes --backend=cuda --arch="$a" --emit=cubin "$ex" -o "$TMP/y.cubin" 2>"$TMP/t"; then
      stage "$TMP/t" cuda >>"$TMP/c.chain"; stage "$TMP/t" nvcc >>"$TMP/c.tool"; stage "$TMP/t" total >>"$TMP/c.total"
    fi
  done
  [ $ok = 1 ] || { printf '%-24s %-8s | %26s |\n' "$(basename "$ex")" "$a" "does not compile"; continue; }
  printf '%-24s %-8s | %8s %8s %8s | %8s %8s %8s\n' "$(basename "$ex")" "$a" \
    "$(median <"$TMP/p.chain")" "$(median <"$TMP/p.tool")" "$(median <"$TMP/p.total")" \
    "$(median <"$TMP/c.chain")" "$(median <"$TMP/c.tool")" "$(median <"$TMP/c.total")"
done
