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
# quadratic). Then the driver on the same kernel, source to PTX in one
# process (txc --emit=ptx: txc-ptx's text is the output, ptxas is not
# run): its user CPU milliseconds, its user + system milliseconds (the
# system time is mostly the kernel handing out zeroed pages), and its
# growth. No GPU needed, nvcc not run.
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
# txc-ptx reads txc-lower's output too: timed beside txc-cuda, outside the total

# run PROG ARGS...: $t the least over REPS of the user CPU seconds of one
# run, each measured over K runs in a row (K = 100 / N, at least 1: the
# kernel samples user time in ticks of a few milliseconds), $ts the least
# user + system seconds; $rc its status
run() {
  local TIMEFORMAT='%3U %3S' i j u s
  t= ts=
  for ((i = 0; i < REPS; i++)); do
    if [ "$K" = 1 ]; then
      u=$( { time timeout "$LIMIT" "$@" >"$WORK/stdout" 2>"$WORK/err"; } 2>&1 ); rc=$?
    else
      u=$( { time for ((j = 0; j < K; j++)); do "$@" >"$WORK/stdout" 2>"$WORK/err" || exit $?; done; } 2>&1 ); rc=$?
    fi
    [ $rc = 0 ] || { tail -c 200 "$WORK/err" >&2; return; }
    s=$(echo "(${u% *} + ${u#* }) / $K" | bc -l)
    u=$(echo "${u% *} / $K" | bc -l)
    if [ -z "$t" ] || [ "$(echo "$u < $t" | bc)" = 1 ]; then t=$u; fi
    if [ -z "$ts" ] || [ "$(echo "$s < $ts" | bc)" = 1 ]; then ts=$s; fi
  done
}
ms() { printf '%.1f' "$(echo "$1 * 1000" | bc -l)"; }

echo "user CPU milliseconds of each program (least of $REPS runs); total; (xN) its growth"
printf '| %-7s' copies
for p in $progs; do printf '| %-13s' "$p"; done
printf '| %-16s| %-9s| %-16s| %-13s| %-14s|\n' total txc-ptx 'piped to PTX' 'txc user' 'txc user+sys'
printf '|---------'; for p in $progs; do printf '|---------------'; done
printf '|------------------|----------|------------------|---------------|----------------|\n'
last= lastin=
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
    [ "$p" = txc-cuda ] && tcuda=$t
    prev=$WORK/$p.out
  done
  if [ -n "$sum" ]; then
    if [ -n "$last" ] && [ "$(echo "$last > 0" | bc)" = 1 ]; then
      printf '| %-16s' "$(ms "$sum") (x$(printf '%.1f' "$(echo "$sum / $last" | bc -l)"))"
    else
      printf '| %-16s' "$(ms "$sum")"
    fi
    # txc-ptx on txc-lower's output; the pipeline to PTX is the chain with it
    run "$BIN/txc-ptx" "$WORK/txc-lower.out" -o "$WORK/txc-ptx.out"
    if [ "$rc" = 0 ]; then
      printf '| %-9s| %-16s' "$(ms "$t")" "$(ms "$(echo "$sum - $tcuda + $t" | bc -l)")"
    else
      printf '| %-9s| %-16s' "exit $rc" -
    fi
  else
    printf '| - | - | - '
  fi
  last=$sum
  # the driver, source -> PTX in one process
  run "$BIN/txc" --emit=ptx "$WORK/in.tx" -o "$WORK/out.ptx"
  if [ "$rc" = 0 ]; then
    grow=
    [ -n "$lastin" ] && [ "$(echo "$lastin > 0" | bc)" = 1 ] && grow=" (x$(printf '%.1f' "$(echo "$t / $lastin" | bc -l)"))"
    printf '| %-13s| %-14s|\n' "$(ms "$t")$grow" "$(ms "$ts")"
    lastin=$t
  else
    printf '| exit %-8s| - |\n' "$rc"
    lastin=
  fi
done
