#!/usr/bin/env bash
# Every example, every layout-family kernel and every FileCheck program
# through the whole pipeline: lowered by txc, run on the emulator, and its
# parameters compared element by element (.npy bytes) with the emulator run
# of the program as written; the CUDA compiled for its target with nvcc.
# Programs whose copies no registered variant runs yet (copy_async, TMA,
# tcgen05: later work) are skipped with the reason txc gives.
. "$(dirname "$0")/lib.sh"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || NVCC=
for f in "$TOP"/examples/*.tx "$TOP"/tests/layouts/*.tx "$TOP"/tests/check/seed*.tx; do
  name=${f#$TOP/}
  arch=sm_90a
  grep -q tcgen05 "$f" && arch=sm_100a
  if ! "$TXC_BIN/txc" --arch=$arch --emit=ir "$f" -o "$TMP/low.tx" 2>"$TMP/err"; then
    if grep -qE "no variant of .*copy_async can run this copy|for copy_async; the variants are:" "$TMP/err"; then
      skip "$name: lowered" "its copy_async needs TMA or tcgen05, not registered yet"
      continue
    fi
    not_ok "$name: lowered"; diag <"$TMP/err"; continue
  fi
  ok "$name: lowered"
  # scalar parameters: their values from a comment line `# txc-run: --arg N=V ...`
  args=$(sed -n 's/^# txc-run: //p' "$f")
  if ! "$TXC_BIN/txc-emu" --dump "$f" $args >"$TMP/dump" 2>"$TMP/err"; then
    if grep -q "is not emulated yet" "$TMP/err"; then
      skip "$name: emulated, lowered = as written" "$(grep -o '[^:]*is not emulated yet' "$TMP/err" | head -1)"
    else
      not_ok "$name: emulated"; diag <"$TMP/err"
    fi
    params=none
  else
    params=$(awk '{print $1}' "$TMP/dump")
  fi
  if [ -z "$params" ]; then
    skip "$name: emulated, lowered = as written" "the kernel has no parameters to compare"
    params=none
  fi
  src_out= low_out=
  for p in ${params/none/}; do
    src_out="$src_out --out $p=$TMP/src-$p.npy"
    low_out="$low_out --out $p=$TMP/low-$p.npy"
  done
  if [ "$params" = none ]; then
    :
  elif "$TXC_BIN/txc-emu" "$f" $args $src_out >/dev/null 2>"$TMP/err" &&
     "$TXC_BIN/txc-emu" "$TMP/low.tx" $args $low_out >/dev/null 2>>"$TMP/err"; then
    same=1
    for p in $params; do cmp -s "$TMP/src-$p.npy" "$TMP/low-$p.npy" || { same=0; echo "parameter $p differs" | diag; }; done
    [ -n "$params" ] || same=0
    [ $same = 1 ] && ok "$name: emulated, lowered = as written ($(echo $params | wc -w) parameters)" ||
      not_ok "$name: emulated, lowered = as written"
  else
    not_ok "$name: emulated"; diag <"$TMP/err"
  fi
  if [ -z "$NVCC" ]; then
    skip "$name: CUDA compiles for $arch" "no nvcc"
  elif "$TXC_BIN/txc" --arch=$arch --emit=cubin "$f" -o "$TMP/k.cubin" 2>"$TMP/err"; then
    ok "$name: CUDA compiles for $arch"
  else
    not_ok "$name: CUDA compiles for $arch"; diag <"$TMP/err"
  fi
done
done_testing
