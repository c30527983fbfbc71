#!/usr/bin/env bash
# bench/jit-time.sh [EXAMPLE.tx...]: on a GPU machine, the three ways from
# txc-ptx's PTX to a loaded kernel, for each example: ptxas (a process, the
# driver's --emit=cubin) then cuModuleLoadData of the cubin, against
# cuModuleLoadData of the PTX, which the driver's JIT compiles
# (CUDA_CACHE_DISABLE=1: no cache). Milliseconds, medians of N (default 10).
set -u
cd "$(dirname "$0")/.." || exit 1
CUDA=${CUDA:-/usr/local/cuda}
N=${N:-10}
[ $# -gt 0 ] || set -- examples/copy_tile.tx examples/tma_ring.tx examples/ldgsts_load.tx
TMP=$(mktemp -d "${TMPDIR:-/tmp}/txc-jit.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
${CC:-cc} -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$CUDA/include" -o "$TMP/jitload" bench/jitload.c -ldl || exit 1
for ex in "$@"; do
  name=$(basename "$ex" .tx)
  bin/txc "$ex" --emit=ptx -o "$TMP/$name.ptx" --arch sm_90a || continue
  bin/txc "$ex" --emit=cubin -o "$TMP/$name.cubin" --arch sm_90a || continue
  ts=""
  for i in $(seq "$N"); do
    t0=$(date +%s%N)
    "$CUDA/bin/ptxas" -arch=sm_90a -o "$TMP/p.cubin" "$TMP/$name.ptx"
    ts="$ts $(( ($(date +%s%N) - t0) / 1000 ))"
  done
  ptxas_ms=$(echo $ts | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }')
  echo "$name: ptxas $ptxas_ms ms; $(CUDA_CACHE_DISABLE=1 "$TMP/jitload" "$TMP/$name.ptx" "$TMP/$name.cubin" "$N")"
done
