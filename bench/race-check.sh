#!/usr/bin/env bash
# The emulator's race checker (runtime/emu-race.c): elements per second of
# txc-emu with the checker on (the default) and off (--no-race-check), on a
# few examples, as written and lowered (txc --arch=sm_100a --emit=ir: per-thread loads and
# stores instead of tile copies). Elements: the sum of every parameter's
# elements (txc-emu --dump), over the best wall time of N runs (default 3).
# No GPU. Usage: bench/race-check.sh [N]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${TXC_BIN:-$top/bin}
n=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
best() { # best wall seconds of $n runs of txc-emu "$@"
  local b= t s e
  for _ in $(seq "$n"); do
    s=$(date +%s.%N)
    "$bin/txc-emu" "$@" >/dev/null
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
printf '| %-32s | %12s | %9s | %9s | %12s | %12s | %8s |\n' kernel elements "on s" "off s" "on elem/s" "off elem/s" slowdown
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ---------------------------------- -------------- ----------- ----------- -------------- -------------- ----------
for ex in copy_tile matmul_accumulate tma_ring; do
  src=$top/examples/$ex.tx
  "$bin/txc" --arch=sm_100a --emit=ir "$src" -o "$tmp/$ex.low.tx"
  for f in "$src" "$tmp/$ex.low.tx"; do
    name=$ex; [ "$f" = "$src" ] || name="$ex (lowered)"
    elems=$("$bin/txc-emu" --dump "$f" | awk '{ s += $(NF - 1) } END { print s }')
    on=$(best "$f")
    off=$(best --no-race-check "$f")
    printf '| %-32s | %12d | %9.3f | %9.3f | %12.3g | %12.3g | %8.2f |\n' "$name" "$elems" "$on" "$off" \
      "$(echo "$elems / $on" | bc -l)" "$(echo "$elems / $off" | bc -l)" "$(echo "$on / $off" | bc -l)"
  done
done
