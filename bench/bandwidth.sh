#!/usr/bin/env bash
# bench/bandwidth.sh [DIR]: issue 13's bandwidth table. On a GPU machine, in
# one run: copies a whole float16 tensor of 1 GiB and of 4 GiB (ROWS x 16384)
# with each copy variant txc has for Hopper (gmem_smem, reg, ldgsts, tma),
# each kernel from bench/copykernel.pl in the configurations of CONFIGS
# below; every kernel is compiled by txc, run by txc-run, its result checked
# against its source (txc-run --expect B=A: B must end equal to A's initial
# data and A unchanged, every element; B starts as other random data), and
# timed against cuMemcpyDtoD in the same process, in turns (txc-run --time).
# Then Triton's rows (bench/triton_copy.py), where Python has Triton.
# Prints one table; logs and the table go to DIR (default: a new temporary
# directory; on the device machine: bench/bandwidth.sh "$OUT").
#
# Environment: SIZES (GiB, default "1 4"), REPS (timed launches of each,
# default 20), COLS (the tensor's columns, default 16384: the rows are
# SIZE / (COLS x 2 bytes)), ONLY (a regular expression: the configurations to run, by
# name), ARCH (default sm_90a), TXC (the driver, default bin/txc), BACKEND
# (txc's --backend: ptx, the default, txc-ptx and ptxas; or cuda, txc-cuda
# and nvcc).
set -u
cd "$(dirname "$0")/.."
DIR=${1:-$(mktemp -d "${TMPDIR:-/tmp}/txc-bw.XXXXXX")}
mkdir -p "$DIR" || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/txc-bw-work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SIZES=${SIZES:-1 4}
REPS=${REPS:-20}
ARCH=${ARCH:-sm_90a}
TXC=${TXC:-bin/txc}
ONLY=${ONLY:-.}
BACKEND=${BACKEND:-ptx}
COLS=${COLS:-16384}
export PATH=$PATH:${CUDA:-/usr/local/cuda}/bin
LOG=$DIR/bandwidth.log
: >"$LOG"
say() { echo "$*" | tee -a "$LOG"; }

# name variant keys...: the kernels (bench/copykernel.pl's keys); the
# environment's CONFIGS, in the same form, replaces them
CONFIGS=${CONFIGS:-"
gmem_smem_16x512      gmem_smem TR=16 TC=512 THREADS=128
gmem_smem_8x256       gmem_smem TR=8 TC=256 THREADS=128
reg_16x256            reg TR=16 TC=256 THREADS=256
reg_8x256             reg TR=8 TC=256 THREADS=128
ldgsts_8x256          ldgsts TR=8 TC=256 THREADS=128 L=1 S=1
ldgsts_32x256         ldgsts TR=32 TC=256 THREADS=256 L=1 S=1
tma_8x128             tma TR=8 TC=128 THREADS=128 L=1 S=1
tma_16x256            tma TR=16 TC=256 THREADS=128 L=1 S=1
"}

say "bandwidth: $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (modified)'), backend $BACKEND"
command -v nvidia-smi >/dev/null &&
  say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader 2>&1 | head -1)"
ROWS=$DIR/bandwidth.tsv
printf 'kernel\tGiB\tcheck\tus\tGB/s\tmemcpy GB/s\tratio\n' >"$ROWS"
failed=0
for gib in $SIZES; do
  rows=$((gib * 1073741824 / (COLS * 2)))
  echo "$CONFIGS" | while read -r name variant keys; do
    [ -n "$name" ] || continue
    echo "$name" | grep -Eq "$ONLY" || continue
    k=$WORK/$name-$gib
    if ! perl bench/copykernel.pl "$variant" "$rows" "$COLS" $keys >"$k.tx" 2>>"$LOG" ||
       ! "$TXC" "$k.tx" --emit=ir --arch "$ARCH" -o "$k.ir" >>"$LOG" 2>&1 ||
       ! "$TXC" "$k.tx" --emit=cubin --backend="$BACKEND" --arch "$ARCH" -o "$k.cubin" >>"$LOG" 2>&1; then
      say "$name ${gib} GiB: does not compile (see $LOG)"
      printf '%s\t%s\tCOMPILE-FAIL\t-\t-\t-\t-\n' "$name" "$gib" >>"$ROWS"
      continue
    fi
    # a kernel of symbolic row count (copykernel.pl's DYN=1) copies all of them
    args=; case " $keys " in *" DYN=1 "*) args="--arg m=$rows" ;; esac
    bin/txc-run "$k.ir" --cubin "$k.cubin" --expect B=A $args --time "$REPS" >"$k.out" 2>&1
    rc=$?
    cat "$k.out" >>"$LOG"
    check=$(case $rc in 0) echo PASS ;; 1) echo FAIL ;; 3) echo NO-GPU ;; *) echo "ERROR($rc)" ;; esac)
    line=$(grep '^time kernel' "$k.out")
    us=- gbs=- cgbs=- ratio=-
    [ -n "$line" ] && read -r us gbs cgbs ratio < <(echo "$line" |
      sed 's/.*median \([0-9.]*\) us over [0-9]* launches, \([0-9]*\) GB\/s; cuMemcpyDtoD \([0-9]*\) GB\/s; ratio \([0-9.]*\)$/\1 \2 \3 \4/')
    say "$name ${gib} GiB: $check $(head -1 "$k.out" | cut -c1-100) | $line"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$gib" "$check" "$us" "$gbs" "$cgbs" "$ratio" >>"$ROWS"
  done
done
grep -q 'FAIL\|ERROR' "$ROWS" && failed=1

# Triton's rows, from the same kind of measurement in its own process
if python3 -c 'import triton, torch' 2>/dev/null; then
  python3 bench/triton_copy.py --gib $SIZES --cols "$COLS" --reps "$REPS" >"$WORK/triton" 2>&1
  cat "$WORK/triton" >>"$LOG"
  cat "$WORK/triton"
  sed -n 's/^time kernel \([^:]*\): median \([0-9.]*\) us, \([0-9]*\) GB\/s; cuMemcpyDtoD \([0-9]*\) GB\/s; ratio \([0-9.]*\); check \(.*\)$/\1\t-\t\6\t\2\t\3\t\4\t\5/p' \
    "$WORK/triton" >>"$ROWS"
else
  say "triton: python3 with triton and torch is not here; no Triton rows"
fi

echo
echo "each kernel checked against its source (every element), then timed: median of $REPS, in turns with cuMemcpyDtoD"
column -t -s "$(printf '\t')" "$ROWS" 2>/dev/null || cat "$ROWS"
echo "(log and table: $LOG, $ROWS)"
exit $failed
