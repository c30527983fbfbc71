#!/usr/bin/env bash
# bench/passes.sh [SIZES...]: how the time of each program grows with the
# length of a kernel. For each size N (default 10000 100000 1000000) it
# writes one kernel of N statements (bench/long_kernel.pl), runs each
# program of the pipeline on the previous one's output, and prints the
# user CPU seconds each took, then the ratio to the size before: 10 is
# linear, 100 quadratic. No GPU needed.
#
# Environment: TXC_BIN (default bin/), LIMIT (seconds for one program,
# default 600).
set -u
cd "$(dirname "$0")/.."
BIN=${TXC_BIN:-bin}
LIMIT=${LIMIT:-600}
[ $# -gt 0 ] || set -- 10000 100000 1000000
WORK=$(mktemp -d "${TMPDIR:-/tmp}/txc-passes.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
progs="txc-parse txc-align txc-vectorize txc-partition txc-dispatch txc-lower txc-cuda"

kernel() { perl bench/long_kernel.pl "$1"; }

# run PROG ARGS...: runs it under the limit; $rc its status, $t the CPU
# seconds it spent in user mode (the page faults of its memory, which the
# kernel counts as system time, vary several-fold from run to run on a
# virtual machine; user time is the work the program does).
run() {
  local TIMEFORMAT=%3U
  t=$( { time timeout "$LIMIT" "$@" >"$WORK/stdout" 2>"$WORK/err"; } 2>&1 ); rc=$?
  [ $rc = 0 ] || rc=$(tail -c 200 "$WORK/err" >&2; echo $rc)
}

echo "user CPU seconds of each program, and (xN) the growth from the size before"
printf '%-10s' statements
for p in $progs; do printf ' %14s' "$p"; done
printf ' %14s\n' 'txc-emu'
declare -A last
for n in "$@"; do
  kernel "$n" >"$WORK/in.tx"
  printf '%-10s' "$n"
  prev=$WORK/in.tx
  for p in $progs txc-emu; do
    if [ "$p" = txc-emu ]; then
      run "$BIN/$p" --max-steps 100000000000 "$prev"
    else
      run "$BIN/$p" "$prev" -o "$WORK/$p.out"
    fi
    if [ "$rc" != 0 ]; then
      printf ' %14s' "exit $rc"
    elif [ -n "${last[$p]:-}" ]; then
      printf ' %6.2f (x%4.1f)' "$t" "$(echo "$t / ${last[$p]}" | bc -l)"
    else
      printf ' %14.2f' "$t"
    fi
    last[$p]=$t
    [ "$p" = txc-cuda ] || prev=$WORK/$p.out
  done
  printf '\n'
done
