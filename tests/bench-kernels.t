#!/usr/bin/env bash
# The kernels of bench/bandwidth.sh (bench/copykernel.pl), at a size the
# emulator runs in a moment: each of its default configurations, and the
# multi-stage and multi-tile forms, compiles through the whole chain, and
# the emulator of the lowered kernel ends with B equal to A (txc-emu prints
# each buffer's checksum; B starts as other random data) -- the same check
# bench/bandwidth.sh makes on the GPU with txc-run --expect B=A. With nvcc,
# the default configurations also become cubins for sm_90a.
. "$(dirname "$0")/lib.sh"
ROWS=128 COLS=1024
configs=$(sed -n '/^CONFIGS=\${CONFIGS:-"/,/^"}/p' "$TOP/bench/bandwidth.sh" | sed '1d;$d')
check "bench/bandwidth.sh lists its configurations" [ -n "$configs" ]
extra="ldgsts_s3 ldgsts TR=16 TC=256 THREADS=128 L=4 S=3
tma_s2 tma TR=16 TC=128 THREADS=32 L=4 S=2
gmem_smem_l2 gmem_smem TR=16 TC=256 THREADS=128 L=2
reg_l4 reg TR=8 TC=128 THREADS=64 L=4"
have_nvcc=false
command -v "${CUDA:-/usr/local/cuda}/bin/nvcc" >/dev/null 2>&1 && have_nvcc=true
while read -r name variant keys; do
  [ -n "$name" ] || continue
  k=$TMP/$name
  if ! perl "$TOP/bench/copykernel.pl" "$variant" $ROWS $COLS $keys >"$k.tx" 2>"$k.err"; then
    not_ok "$name: copykernel.pl writes it"; diag <"$k.err"; continue
  fi
  if ! "$TXC_BIN/txc" "$k.tx" --emit=ir -o "$k.ir" 2>"$k.err"; then
    not_ok "$name: compiles to lowered IR"; diag <"$k.err"; continue
  fi
  ok "$name: compiles to lowered IR"
  "$TXC_BIN/txc-emu" "$k.ir" >"$k.sum" 2>"$k.err"
  a=$(sed -n 's/^A //p' "$k.sum") b=$(sed -n 's/^B //p' "$k.sum")
  if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$name: the emulator copies A into B"; else
    not_ok "$name: the emulator copies A into B (A $a, B $b)"; diag <"$k.err"; fi
  if $have_nvcc && echo "$configs" | grep -q "^$name "; then
    check "$name: a cubin for sm_90a" "$TXC_BIN/txc" "$k.tx" --emit=cubin -o "$k.cubin" --arch sm_90a
  fi
done <<<"$configs
$extra"
# the generator's own checks
perl "$TOP/bench/copykernel.pl" tma 128 1000 >/dev/null 2>"$TMP/e"
check "copykernel.pl refuses a size that is not a multiple of the tile" grep -q "multiple of TR" "$TMP/e"
perl "$TOP/bench/copykernel.pl" ldgsts 128 1024 L=1 S=2 >/dev/null 2>"$TMP/e"
check "copykernel.pl refuses fewer tiles than stages" grep -q "L must be at least S" "$TMP/e"
done_testing
