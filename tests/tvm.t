#!/usr/bin/env bash
# Kernels written the way TVM's own tests write them (tests/tvm/*.tx, each
# ours, in TVM's spelling): txc-parse accepts each unchanged; each is
# emulated before and after the whole pipeline with the same result, and,
# where nvcc is installed, its CUDA compiles.
. "$(dirname "$0")/lib.sh"
export PATH=$PATH:/usr/local/cuda/bin
for f in "$TOP"/tests/tvm/*.tx; do
  name=$(basename "$f" .tx)
  if ! "$TXC_BIN/txc-parse" "$f" -o "$TMP/$name.parsed" 2>"$TMP/err"; then
    not_ok "$name: parses and verifies"; diag <"$TMP/err"; continue
  fi
  ok "$name: parses and verifies"
  grep -q '^@T.prim_func' "$f" || continue
  if ! "$TXC_BIN/txc" --emit=ir "$f" -o "$TMP/$name.low" 2>"$TMP/err"; then
    not_ok "$name: lowers"; diag <"$TMP/err"; continue
  fi
  ok "$name: lowers"
  "$TXC_BIN/txc-emu" "$f" >"$TMP/a" 2>"$TMP/err" || { not_ok "$name: emulated"; diag <"$TMP/err"; continue; }
  "$TXC_BIN/txc-emu" "$TMP/$name.low" >"$TMP/b" 2>>"$TMP/err" || { not_ok "$name: lowered, emulated"; diag <"$TMP/err"; continue; }
  same_file "$name: the same result before and after lowering" "$TMP/a" "$TMP/b"
  if command -v nvcc >/dev/null; then
    check "$name: nvcc compiles its CUDA" "$TXC_BIN/txc" --emit=ptx "$f" -o "$TMP/$name.ptx"
  else
    skip "$name: nvcc compiles its CUDA" "no nvcc"
  fi
done
done_testing
