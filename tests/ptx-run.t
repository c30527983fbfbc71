#!/usr/bin/env bash
# The PTX backend on the GPU: for every Hopper example (examples/*.tx that
# do not use tcgen05, for sm_90a), the cubin of txc-ptx and ptxas
# (txc --emit=cubin) runs with txc-run and its result equals the emulator's
# bit for bit (txc-run --ref SRC, as bench/run.sh checks the kernels); so
# does the cubin of txc-cuda and nvcc (--backend=cuda), from the same seeded
# data, so both give the same result. txc-run exits 3 without a GPU: then
# each run is a SKIP. Without ptxas (or nvcc, for the CUDA path) the points
# are SKIPs too.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
CUDA_DIR=${CUDA_HOME:-/usr/local/cuda}
PTXAS=$(command -v ptxas || { [ -x "$CUDA_DIR/bin/ptxas" ] && echo "$CUDA_DIR/bin/ptxas"; })
NVCC=$(command -v nvcc || { [ -x "$CUDA_DIR/bin/nvcc" ] && echo "$CUDA_DIR/bin/nvcc"; })
# CUDA under AddressSanitizer needs the shadow gap unprotected; the driver's
# own allocations are not ours to report (as tests/run.t).
export ASAN_OPTIONS="$ASAN_OPTIONS:protect_shadow_gap=0"
printf 'leak:libcuda\nleak:libnvidia\n' >"$TMP/lsan.supp"
export LSAN_OPTIONS="suppressions=$TMP/lsan.supp"
LIMIT=${LIMIT:-300}

# runs NAME IR SRC CUBIN: txc-run against the emulator (with the values of
# the source's scalar parameters, from its '# txc-run:' line); exit 3 is a SKIP
runs() {
  timeout "$LIMIT" "$TXC_BIN/txc-run" "$2" --ref "$3" --cubin "$4" $(sed -n 's/^# txc-run: //p' "$3") >"$TMP/out" 2>&1; rc=$?
  if [ $rc = 3 ]; then
    skip "$1" "no GPU"
  elif [ $rc = 0 ] && grep -q "^PASS kernel" "$TMP/out"; then
    ok "$1"
  else
    not_ok "$1 (txc-run exit $rc)"; head -20 "$TMP/out" | diag
  fi
}

for ex in examples/*.tx; do
  grep -q tcgen05 "$ex" && continue
  name=$(basename "$ex" .tx)
  ir=$TMP/$name.ir
  if ! "$TXC_BIN/txc" --emit=ir "$ex" -o "$ir" 2>"$TMP/err"; then
    not_ok "$ex: txc lowers it"; diag <"$TMP/err"; continue
  fi
  if [ -z "$PTXAS" ]; then
    skip "$ex: the txc-ptx cubin passes on the GPU" "no ptxas"
  elif "$TXC_BIN/txc" --emit=cubin "$ex" -o "$TMP/$name.ptx.cubin" 2>"$TMP/err"; then
    runs "$ex: the txc-ptx cubin passes on the GPU, bit for bit" "$ir" "$ex" "$TMP/$name.ptx.cubin"
  else
    not_ok "$ex: txc --emit=cubin (txc-ptx, ptxas)"; diag <"$TMP/err"
  fi
  if [ -z "$NVCC" ]; then
    skip "$ex: the txc-cuda cubin passes on the GPU" "no nvcc"
  elif "$TXC_BIN/txc" --backend=cuda --emit=cubin "$ex" -o "$TMP/$name.cuda.cubin" 2>"$TMP/err"; then
    runs "$ex: the txc-cuda cubin passes on the GPU, bit for bit" "$ir" "$ex" "$TMP/$name.cuda.cubin"
  else
    not_ok "$ex: txc --backend=cuda --emit=cubin (txc-cuda, nvcc)"; diag <"$TMP/err"
  fi
done
done_testing
