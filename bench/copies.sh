#!/usr/bin/env bash
# bench/copies.sh [COPIES...]: the compile-time scaling table of the pass
# chain (issue 13, item 4). For each N (default 1 10 100 1000 10000) it
# writes one kernel of N tile copies (bench/copies.pl: distinct regions,
# a let-bound name per corner, 8 shared buffers), runs each program of the
# chain on the previous one's output with the options the driver gives it
# (--locations but for the last), and prints the user CPU milliseconds
# each took (the least of REPS runs, default 3: the machine is shared;
# small kernels are run 1000 / N times in a row and the time divided), the
# sum, and the sum's growth from the size before (10 is linear, 100
# quadratic). No GPU needed, nvcc not run.
#
# Environment: TXC_BIN (default bin/), REPS, LIMIT (seconds for one
# program, default 600).
set -u
cd "$(dirname "$0")/.."
BIN=${TXC_BIN:-bin}
LIMIT=${LIMIT:-600}
REPS=${REPS:-3}
[ $# -gt 0 ] || set -- 1 10 100 1000 10000
WORK=$(mktemp -d "${TMPDIR:-/tmp}/txc-copies.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
progs="txc-parse txc-align txc-vectorize txc-partition txc-dispatch txc-lower txc-cuda"

# run PROG ARGS...: $t the least over REPS of the user CPU seconds of one
# run, each measured over K runs in a row (K = 100 / N, at least 1: the
# kernel samples user time in ticks of a few milliseconds); $rc its status
run() {
  local TIMEFORMAT=%3U i j u
  t=
  for ((i = 0; i < REPS; i++)); do
    if [ "$K" = 1 ]; then
      u=$( { time timeout "$LIMIT" "$@" >"$WORK/stdout" 2>"$WORK/err"; } 2>&1 ); rc=$?
    else
      u=$( { time for ((j = 0; j < K; j++)); do "$@" >"$WORK/stdout" 2>"$WORK/err" || exit $?; done; } 2>&1 ); rc=$?
    fi
    [ $rc = 0 ] || { tail -c 200 "$WORK/err" >&2; return; }
    u=$(echo "$u / $K" | bc -l)
    if [ -z "$t" ] || [ "$(echo "$u < $t" | bc)" = 1 ]; then t=$u; fi
  done
}

echo "user CPU milliseconds of each program (least of $REPS runs); total; (xN) its growth"
printf '| %-7s' copies
for p in $progs; do printf '| %-13s' "$p"; done
printf '| %-16s|\n' total
printf '|---------'; for p in $progs; do printf '|---------------'; done; printf '|------------------|\n'
last=
for n in "$@"; do
  perl bench/copies.pl "$n" >"$WORK/in.tx"
  K=$((1000 / n)); [ $K -ge 1 ] || K=1
  printf '| %-7s' "$n"
  prev=$WORK/in.tx
  sum=0
  for p in $progs; do
    loc=--locations; [ "$p" = txc-cuda ] && loc=   # as txc runs them
    run "$BIN/$p" $loc "$prev" -o "$WORK/$p.out"
    if [ "$rc" != 0 ]; then printf '| %-13s' "exit $rc"; sum=; break; fi
    printf '| %-13s' "$(printf '%.1f' "$(echo "$t * 1000" | bc -l)")"
    sum=$(echo "$sum + $t" | bc -l)
    prev=$WORK/$p.out
  done
  if [ -n "$sum" ]; then
    ms=$(printf '%.1f' "$(echo "$sum * 1000" | bc -l)")
    if [ -n "$last" ] && [ "$(echo "$last > 0" | bc)" = 1 ]; then
      printf '| %-16s|\n' "$ms (x$(printf '%.1f' "$(echo "$sum / $last" | bc -l)"))"
    else
      printf '| %-16s|\n' "$ms"
    fi
  else
    printf '\n'
  fi
  last=$sum
done
