#!/usr/bin/env bash
# Kernels written the way TVM's own tests write them (each ours, in TVM's
# spelling):
# - tests/tvm/*.tx: txc-parse accepts each unchanged, and its canonical
#   form (TVM's spellings rewritten into txc's) is a fixed point; a kernel is emulated
#   before and after the whole pipeline with the same result, where nvcc
#   is installed its CUDA compiles, and where there is a GPU it runs there
#   bit for bit as on the emulator. A kernel whose leading comments say
#   "# target: sm_100a" (tcgen05) is parsed, lowered and compiled for
#   sm_100a (ptxas checks it) and not run: no Blackwell GPU here.
# - tests/tvm/parse/*.tx: constructs txc cannot lower yet (Blackwell, TMA):
#   txc-parse --target sm_100a accepts each unchanged.
# - tests/tvm/same/NAME.tvm.tx and NAME.txc.tx: TVM's spelling and txc's own
#   spelling of one kernel lower to the same CUDA.
. "$(dirname "$0")/lib.sh"
export PATH=$PATH:/usr/local/cuda/bin
for f in "$TOP"/tests/tvm/*.tx; do
  name=$(basename "$f" .tx)
  arch=$(awk '!/^#/ { exit } /^# target: / { print $3; exit }' "$f")
  if ! "$TXC_BIN/txc-parse" ${arch:+--target "$arch"} "$f" -o "$TMP/$name.parsed" 2>"$TMP/err"; then
    not_ok "$name: parses and verifies"; diag <"$TMP/err"; continue
  fi
  ok "$name: parses and verifies"
  # TVM's spellings print as txc's, and that text prints as itself
  "$TXC_BIN/txc-parse" ${arch:+--target "$arch"} "$TMP/$name.parsed" -o "$TMP/$name.again" 2>"$TMP/err"
  same_text "$name: its canonical form is a fixed point" "$TMP/$name.parsed" "$TMP/$name.again"
  grep -Eq '^@T\.(prim_func|function)' "$f" || continue
  if ! "$TXC_BIN/txc" ${arch:+--arch "$arch"} --emit=ir "$f" -o "$TMP/$name.low" 2>"$TMP/err"; then
    not_ok "$name: lowers"; diag <"$TMP/err"; continue
  fi
  ok "$name: lowers"
  read -r -a args < <(sed -n 's/^# txc-emu-args://p' "$f" | head -1)
  "$TXC_BIN/txc-emu" "${args[@]}" "$f" >"$TMP/a" 2>"$TMP/err" || { not_ok "$name: emulated"; diag <"$TMP/err"; continue; }
  "$TXC_BIN/txc-emu" "${args[@]}" "$TMP/$name.low" >"$TMP/b" 2>>"$TMP/err" || { not_ok "$name: lowered, emulated"; diag <"$TMP/err"; continue; }
  same_text "$name: the same result before and after lowering" "$TMP/a" "$TMP/b"
  if ! command -v nvcc >/dev/null; then
    skip "$name: nvcc compiles its CUDA" "no nvcc"; skip "$name: on the GPU" "no nvcc"; continue
  fi
  if ! "$TXC_BIN/txc" ${arch:+--arch "$arch"} --emit=cubin "$f" -o "$TMP/$name.cubin" 2>"$TMP/err"; then
    not_ok "$name: nvcc compiles its CUDA"; diag <"$TMP/err"; continue
  fi
  ok "$name: nvcc compiles its CUDA${arch:+ for $arch}"
  if [ "$arch" = sm_100a ]; then skip "$name: on the GPU" "sm_100a: no Blackwell GPU"; continue; fi
  # bit for bit against the emulator, on random data (txc-run exits 3 without a GPU);
  # a kernel with TMA copies launches from its lowered IR, whose tensor maps
  # are the cubin's parameters, against the source's emulation (--ref)
  run=("$f")
  grep -q 'T\.tensormap(' "$TMP/$name.low" && run=("$TMP/$name.low" --ref "$f")
  "$TXC_BIN/txc-run" "${args[@]}" "${run[@]}" --cubin "$TMP/$name.cubin" >"$TMP/out" 2>&1; rc=$?
  case $rc in
    0) ok "$name: on the GPU, the same as the emulator" ;;
    3) skip "$name: on the GPU" "no GPU" ;;
    *) not_ok "$name: on the GPU, the same as the emulator (exit $rc)"; diag <"$TMP/out" ;;
  esac
done
for f in "$TOP"/tests/tvm/parse/*.tx; do
  [ -e "$f" ] || continue
  name=parse/$(basename "$f" .tx)
  if "$TXC_BIN/txc-parse" --target sm_100a "$f" -o "$TMP/out.tx" 2>"$TMP/err"; then
    ok "$name: parses and verifies for sm_100a"
    "$TXC_BIN/txc-parse" --target sm_100a "$TMP/out.tx" -o "$TMP/again.tx" 2>"$TMP/err"
    same_text "$name: its canonical form is a fixed point" "$TMP/out.tx" "$TMP/again.tx"
  else
    not_ok "$name: parses and verifies for sm_100a"; diag <"$TMP/err"
  fi
done
for f in "$TOP"/tests/tvm/same/*.tvm.tx; do
  [ -e "$f" ] || continue
  base=${f%.tvm.tx}; name=same/$(basename "$base")
  if ! "$TXC_BIN/txc" --emit=cu "$f" -o "$TMP/tvm.cu" 2>"$TMP/err" ||
     ! "$TXC_BIN/txc" --emit=cu "$base.txc.tx" -o "$TMP/txc.cu" 2>>"$TMP/err"; then
    not_ok "$name: both spellings compile"; diag <"$TMP/err"; continue
  fi
  # the file names in comments differ; the code must not
  sed -i '/^\/\/ /d' "$TMP/tvm.cu" "$TMP/txc.cu"
  same_text "$name: TVM's spelling and txc's lower to the same CUDA" "$TMP/txc.cu" "$TMP/tvm.cu"
done
done_testing
