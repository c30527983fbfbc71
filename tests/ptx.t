#!/usr/bin/env bash
# The PTX backend (txc-ptx) against the CUDA one, without a GPU. For every
# examples/*.tx and tests/tvm/*.tx kernel that txc lowers and txc-cuda
# compiles for its target (sm_100a where it uses tcgen05, else sm_90a),
# and every hand-lowered tests/cuda/*.tx (its first ARCH):
#   - txc-ptx writes PTX with nothing on stderr, and ptxas -arch=ARCH
#     assembles it;
#   - its data-movement instructions agree with those of nvcc -ptx on
#     txc-cuda's CUDA C, whose loops are first given txc-ptx's unrolling
#     (tests/ptxops --unroll): the inline-asm instructions (cp.async*,
#     cp.async.bulk*, mbarrier.*, fence.*, tcgen05.*, bar*, tensormap.*,
#     elect) are the same sequence in order, and the ld/st.global/shared
#     move as many bytes per kind; tests/ptxops says exactly what is
#     compared and why. For examples/ the comparison is --exact: the same
#     bytes and, where no element is accessed one at a time, the same
#     count of each ld/st.
# Then the driver's --emit=ptx / --emit=cubin / --backend, and txc-ptx's
# command line. The unsupported cases are error tests (tests/errors/ptx_*).
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
PTX=$TXC_BIN/txc-ptx
CUDA_DIR=${CUDA_HOME:-/usr/local/cuda}
NVCC=$(command -v nvcc || { [ -x "$CUDA_DIR/bin/nvcc" ] && echo "$CUDA_DIR/bin/nvcc"; })
PTXAS=$(command -v ptxas || { [ -x "$CUDA_DIR/bin/ptxas" ] && echo "$CUDA_DIR/bin/ptxas"; })

# compare NAME IR ARCH [--exact]: the checks above on a lowered program.
compare() {
  local name=$1 ir=$2 a=$3 exact=${4:-} base=$TMP/$(basename "${2%.*}")
  if ! "$TXC_BIN/txc-cuda" --arch="$a" "$ir" -o "$base.cu" 2>/dev/null; then
    skip "$name: txc-ptx for $a" "txc-cuda does not compile it either"
    return
  fi
  "$PTX" --arch="$a" "$ir" -o "$base.ptx" 2>"$TMP/stderr"; rc=$?
  if [ $rc = 0 ] && [ ! -s "$TMP/stderr" ]; then
    ok "$name: txc-ptx writes PTX for $a"
  else
    not_ok "$name: txc-ptx writes PTX for $a"; diag <"$TMP/stderr"; return
  fi
  if [ -z "$PTXAS" ]; then
    skip "$name: ptxas -arch=$a" "no ptxas"
  elif "$PTXAS" -arch="$a" -o "$base.cubin" "$base.ptx" >"$TMP/ptxas" 2>&1 && [ ! -s "$TMP/ptxas" ]; then
    ok "$name: ptxas -arch=$a assembles it"
  else
    not_ok "$name: ptxas -arch=$a assembles it"; head -20 "$TMP/ptxas" | diag
  fi
  if [ -z "$NVCC" ]; then
    skip "$name: the same data movement as nvcc's PTX" "no nvcc"
    return
  fi
  perl tests/ptxops --unroll <"$base.cu" >"$base.unrolled.cu"
  if ! "$NVCC" -arch="$a" -ptx -o "$base.nvcc.ptx" "$base.unrolled.cu" >"$TMP/nvcc" 2>&1; then
    not_ok "$name: nvcc -ptx on txc-cuda's CUDA"; head -20 "$TMP/nvcc" | diag; return
  fi
  # shellcheck disable=SC2086 # --exact or nothing
  if perl tests/ptxops $exact "$base.nvcc.ptx" "$base.ptx" >"$TMP/why" 2>&1; then
    ok "$name: the same data movement as nvcc's PTX ($(cat "$TMP/why"))"
  else
    not_ok "$name: the same data movement as nvcc's PTX"; diag <"$TMP/why"
  fi
}

for f in examples/*.tx tests/tvm/*.tx; do
  a=sm_90a
  grep -q tcgen05 "$f" && a=sm_100a
  ir=$TMP/$(basename "${f%.tx}").ir
  if ! "$TXC_BIN/txc" --arch="$a" --emit=ir "$f" -o "$ir" 2>/dev/null; then
    skip "$f: txc-ptx for $a" "txc does not lower it"
    continue
  fi
  case $f in examples/*) compare "$f" "$ir" "$a" --exact ;; *) compare "$f" "$ir" "$a" ;; esac
done
for f in tests/cuda/*.tx; do
  archs=$(sed -n 's/^# ARCH: //p' "$f"); archs=${archs:-sm_90a}
  cp "$f" "$TMP/cuda_$(basename "$f")"
  compare "$f" "$TMP/cuda_$(basename "$f")" "${archs%% *}"
done

# ---- tests/ptxops itself: a difference is found ----
printf '\tcp.async.commit_group;\n\tbar.sync 0;\n' >"$TMP/a.ptx"
printf '\tbar.sync 0;\n\tcp.async.commit_group;\n' >"$TMP/b.ptx"
check "ptxops: two asm instructions in another order differ" eval '! perl tests/ptxops "$TMP/a.ptx" "$TMP/b.ptx" >/dev/null'
printf '\tld.global.v4.u32 {%%r1, %%r2, %%r3, %%r4}, [%%rd1];\n' >"$TMP/a.ptx"
printf '\tld.global.v2.u32 {%%r1, %%r2}, [%%rd1];\n' >"$TMP/b.ptx"
check "ptxops: fewer bytes loaded in txc-ptx's text differ" eval '! perl tests/ptxops "$TMP/a.ptx" "$TMP/b.ptx" >/dev/null'
printf '\tld.global.v2.u32 {%%r1, %%r2}, [%%rd1];\n\tld.global.v2.u32 {%%r1, %%r2}, [%%rd1+8];\n' >"$TMP/b.ptx"
check "ptxops: without element accesses, another vector width differs" \
  eval '! perl tests/ptxops "$TMP/a.ptx" "$TMP/b.ptx" >/dev/null'
printf '\tld.global.u32 %%r1, [%%rd1]; // element\n\tld.global.u32 %%r1, [%%rd1+4]; // element\n\tld.global.u32 %%r1, [%%rd1+8]; // element\n\tld.global.u32 %%r1, [%%rd1+12]; // element\n' >"$TMP/b.ptx"
check "ptxops: nvcc's merged element loads agree" eval 'perl tests/ptxops "$TMP/a.ptx" "$TMP/b.ptx" >/dev/null'
check "ptxops --exact: so do the same bytes" eval 'perl tests/ptxops --exact "$TMP/a.ptx" "$TMP/b.ptx" >/dev/null'
printf '\tld.global.u32 %%r1, [%%rd1]; // element\n' >"$TMP/b.ptx"
check "ptxops --exact: but not fewer bytes" eval '! perl tests/ptxops --exact "$TMP/b.ptx" "$TMP/a.ptx" >/dev/null' 
printf '// ---- kernels\n  for (int f = 0; f < 8; ++f) {\n  for (int f = 0; f < 17; ++f) {\n  #pragma unroll\n  for (int k = 0; k < 32; k += 2) {\n  for (int k = 0; k < n; ++k) {\n' |
  perl tests/ptxops --unroll >"$TMP/loops.cu"
printf '// ---- kernels\n  #pragma unroll\n  for (int f = 0; f < 8; ++f) {\n  #pragma unroll 1\n  for (int f = 0; f < 17; ++f) {\n  #pragma unroll\n  for (int k = 0; k < 32; k += 2) {\n  #pragma unroll 1\n  for (int k = 0; k < n; ++k) {\n' >"$TMP/loops.want"
same_text "ptxops --unroll: txc-ptx's rule (16 trips for range, 256 for T.unroll, constant bounds)" "$TMP/loops.want" "$TMP/loops.cu"

# ---- the driver ----
ex=examples/copy_tile.tx
"$TXC_BIN/txc" --emit=ir "$ex" -o "$TMP/ct.ir" && "$PTX" "$TMP/ct.ir" -o "$TMP/ct.direct.ptx"
"$TXC_BIN/txc" --emit=ptx "$ex" -o "$TMP/ct.ptx" 2>"$TMP/err"; rc=$?
check "txc --emit=ptx runs the passes and txc-ptx" eval '[ $rc = 0 ] && [ ! -s "$TMP/err" ]'
check "and writes what txc-ptx writes (but for the source named in the header)" \
  cmp -s <(tail -n +2 "$TMP/ct.ptx") <(tail -n +2 "$TMP/ct.direct.ptx")
"$TXC_BIN/txc" --emit=ptx "$ex" >"$TMP/ct.stdout.ptx"; rc=$?
check "txc --emit=ptx writes to standard output without -o" eval '[ $rc = 0 ] && cmp -s "$TMP/ct.ptx" "$TMP/ct.stdout.ptx"'
"$TXC_BIN/txc" -v --emit=ptx "$ex" -o "$TMP/v.ptx" 2>"$TMP/err"
check "-v shows txc-ptx as the last stage" grep -q "txc-ptx --arch=sm_90a > " "$TMP/err"
"$TXC_BIN/txc" --backend=ptx --emit=cu "$ex" -o "$TMP/x.cu" 2>"$TMP/err"; rc=$?
check "--backend=ptx with --emit=cu exits 2" eval '[ $rc = 2 ] && grep -q "writes PTX, not CUDA C" "$TMP/err"'
"$TXC_BIN/txc" --backend=llvm --emit=ptx "$ex" -o "$TMP/x.ptx" 2>"$TMP/err"; rc=$?
check "an unknown --backend exits 2" eval '[ $rc = 2 ] && grep -q "unknown --backend .llvm. (expected ptx or cuda)" "$TMP/err"'
"$TXC_BIN/txc" --help >"$TMP/help"
check "--help names --backend" grep -q -- "--backend=NAME" "$TMP/help"
"$TXC_BIN/txc" --emit=cu "$ex" -o "$TMP/ct.cu"
check "--emit=cu still writes txc-cuda's CUDA" grep -q "Generated by txc-cuda" "$TMP/ct.cu"
if [ -n "$PTXAS" ]; then
  "$TXC_BIN/txc" -v --time-passes --emit=cubin "$ex" -o "$TMP/ct.cubin" 2>"$TMP/err"; rc=$?
  check "txc --emit=cubin through txc-ptx and ptxas" eval '[ $rc = 0 ] && [ "$(head -c 4 "$TMP/ct.cubin" | od -An -c | tr -d " ")" = "177ELF" ]'
  check "-v prints the ptxas command" grep -Eq "/ptxas -arch=sm_90a -o [^ ]*/kernel.cubin [^ ]*/kernel.ptx$" "$TMP/err"
  check "--time-passes shows the ptx stage and ptxas" eval 'grep -Eq "^  ptx +[0-9.]+ +[0-9.]+( +[0-9.]+)?$" "$TMP/err" && grep -Eq "^  ptxas +[0-9.]+ +[0-9.]+$" "$TMP/err"'
  check "and no nvcc" eval '! grep -q nvcc "$TMP/err"'
else
  skip "txc --emit=cubin through txc-ptx and ptxas" "no ptxas"
fi
if [ -n "$NVCC" ]; then
  "$TXC_BIN/txc" -v --backend=cuda --emit=ptx "$ex" -o "$TMP/nv.ptx" 2>"$TMP/err"; rc=$?
  check "--backend=cuda --emit=ptx goes through txc-cuda and nvcc" \
    eval '[ $rc = 0 ] && grep -q "txc-cuda --arch=sm_90a" "$TMP/err" && grep -q "Generated by NVIDIA NVVM Compiler" "$TMP/nv.ptx"'
else
  skip "--backend=cuda --emit=ptx goes through txc-cuda and nvcc" "no nvcc"
fi

# ---- txc-ptx's command line ----
"$PTX" --help >"$TMP/help"; rc=$?
check "txc-ptx --help exits 0 and names --arch" eval '[ $rc = 0 ] && grep -q -- "--arch ARCH" "$TMP/help"'
"$PTX" --arch sm_75 "$TMP/ct.ir" >/dev/null 2>"$TMP/err"; rc=$?
check "an unknown --arch exits 2" eval '[ $rc = 2 ] && grep -q "unknown architecture .sm_75." "$TMP/err"'
"$PTX" --frobnicate "$TMP/ct.ir" >/dev/null 2>&1; rc=$?
check "an unknown option exits 2" [ $rc = 2 ]
"$PTX" <"$TMP/ct.ir" >"$TMP/stdin.ptx"; rc=$?
check "standard input is read, with the same PTX" eval '[ $rc = 0 ] && cmp -s <(tail -n +2 "$TMP/stdin.ptx") <(tail -n +2 "$TMP/ct.direct.ptx")'
check "the header names the target's PTX version and target" \
  eval 'grep -qx ".version 8.6" "$TMP/stdin.ptx" && grep -qx ".target sm_90a" "$TMP/stdin.ptx" && grep -qx ".address_size 64" "$TMP/stdin.ptx"'
check "the entry has txc-cuda's name, two .u64 buffer parameters and .maxntid 128" \
  eval 'grep -qx ".visible .entry copy_tile(" "$TMP/stdin.ptx" && [ "$(grep -c "^	.param .u64 copy_tile_param_[01]" "$TMP/stdin.ptx")" = 2 ] && grep -qx ".maxntid 128, 1, 1" "$TMP/stdin.ptx"'
"$PTX" "$TMP/ct.ir" >"$TMP/again.ptx"
check "the output is deterministic" cmp -s "$TMP/ct.direct.ptx" "$TMP/again.ptx"
echo old >"$TMP/keep.ptx"
"$PTX" tests/errors/ptx_unlowered.tx -o "$TMP/keep.ptx" 2>/dev/null; rc=$?
check "a failed run exits 1 and leaves an existing output alone" eval '[ $rc = 1 ] && grep -qx old "$TMP/keep.ptx"'
"$PTX" "$TMP/ct.ir" -o /nonexistent/dir/out.ptx 2>/dev/null; rc=$?
check "an unwritable output exits 1" [ $rc = 1 ]
done_testing
