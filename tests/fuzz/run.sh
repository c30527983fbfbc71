#!/bin/sh
# tests/fuzz/run.sh: the fuzzing campaign of `make fuzz` (see README.md,
# Tests). For each target of tests/fuzz/targets, one after another: the
# seeds (tests/fuzz/seeds.sh) minimized with afl-cmin, then afl-fuzz for
# TIME seconds with the dictionary tests/fuzz/txc.dict, then its final
# statistics into STATS/NAME.txt and STATS/summary.txt.
#
# Why AFL++ with its fork server on the programs as they are: each program
# is a short process that reads one file, keeps global state and leaves
# through exit(1) on bad input. AFL++ runs exactly the binary users run,
# with no harness and no change to the programs; a crash is a signal, an
# ASan report or a UBSan trap, and a hang is a run over the timeout. The
# fork server pays for a fork and an exit per input: about 700 inputs a
# second on each program here (about 1500 without the sanitizers, which
# are worth the price: an out-of-bounds read or a signed overflow that the
# plain program survives becomes a crash). libFuzzer or AFL++'s persistent
# mode would run faster in one process, but need an entry point that
# neither exits nor keeps state between inputs: a harness per program,
# which would no longer be the program users run, and every global of the
# library reset between inputs, where one missed gives crashes that no
# user can have.
#
# usage: tests/fuzz/run.sh [--bin DIR] [--out DIR] [--stats DIR] [--time S]
#                          [--timeout MS] [NAME...]
#   --bin      the instrumented programs (build-fuzz/bin, from make fuzz)
#   --out      afl-fuzz's output: DIR/NAME/afl/default/{crashes,hangs,queue}
#   --stats    where the final statistics go (tests/fuzz/stats)
#   --time     seconds of fuzzing per target (1200)
#   --timeout  a run longer than this many milliseconds is a hang (1000)
#   NAME       the targets (default: every one of tests/fuzz/targets)
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$TOP/build-fuzz/bin OUT=$TOP/build-fuzz/out STATS=$TOP/tests/fuzz/stats TIME=1200 TIMEOUT=1000
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --stats) STATS=$2; shift 2 ;;
    --time) TIME=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -*) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
case $OUT in /*) ;; *) OUT=$(pwd)/$OUT ;; esac
case $STATS in /*) ;; *) STATS=$(pwd)/$STATS ;; esac
command -v afl-fuzz >/dev/null || { echo "run.sh: afl-fuzz not found: apt-get install afl++" >&2; exit 1; }

TARGETS=$TOP/tests/fuzz/targets
names=$(awk '!/^#/ && NF { print $1 }' "$TARGETS")
[ $# -gt 0 ] && names=$*
for n in $names; do
  grep -q "^$n " "$TARGETS" || { echo "run.sh: no target '$n' in tests/fuzz/targets (there are: $(echo $(awk '!/^#/ && NF { print $1 }' "$TARGETS")))" >&2; exit 2; }
done

# AFL++'s own sanitizer settings, plus a cap on one allocation so that a
# layout of 2^40 elements fails as the programs' "out of memory" (exit 1)
# instead of taking the machine's memory.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:malloc_context_size=0:symbolize=0:allocator_may_return_null=1:detect_odr_violation=0:handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:handle_sigill=0:max_allocation_size_mb=1024
unset UBSAN_OPTIONS
# No status screen (make's output is not a terminal), no CPU pinning (the
# machine is shared), no check of the CPU frequency governor.
export AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1

mkdir -p "$OUT" "$STATS"
echo "fuzz: seeds into $OUT/seeds"
sh "$TOP/tests/fuzz/seeds.sh" "$BIN" "$OUT/seeds" | sed 's/^/fuzz: /'

# field FILE KEY: one value of afl-fuzz's fuzzer_stats.
field() { sed -n "s/^$2 *: //p" "$1" 2>/dev/null | head -1; }

total=$(echo $names | wc -w)
i=0
for n in $names; do
  i=$((i + 1))
  set -- $(grep "^$n " "$TARGETS")
  kinds=$2 tmo=$3
  shift 3
  [ "$tmo" = - ] && tmo=$TIMEOUT
  dir=$OUT/$n
  rm -rf "$dir/seeds" "$dir/in" "$dir/afl.prev"
  [ -d "$dir/afl" ] && mv "$dir/afl" "$dir/afl.prev"
  mkdir -p "$dir/seeds" "$dir/tmp"
  for k in $(echo "$kinds" | tr ',' ' '); do
    for f in "$OUT/seeds/$k"/*; do cp "$f" "$dir/seeds/$k.$(basename "$f")"; done
  done
  prog=$1
  shift
  cmd="$BIN/$prog $(echo "$*" | sed "s|%T|$dir/tmp|g")"

  echo "fuzz: [$i/$total] $n: $cmd"
  if afl-cmin -i "$dir/seeds" -o "$dir/in" -t "$tmo" -- $cmd >"$dir/cmin.log" 2>&1 && [ -n "$(ls "$dir/in")" ]; then
    echo "fuzz: [$i/$total] $n: $(ls "$dir/seeds" | wc -l) seeds, $(ls "$dir/in" | wc -l) after afl-cmin"
  else
    echo "fuzz: [$i/$total] $n: afl-cmin failed (see $dir/cmin.log); fuzzing all $(ls "$dir/seeds" | wc -l) seeds"
    rm -rf "$dir/in"
    cp -r "$dir/seeds" "$dir/in"
  fi
  echo "fuzz: [$i/$total] $n: fuzzing for $TIME s, until $(date -d "+$TIME sec" +%H:%M:%S); log $dir/afl.log"
  afl-fuzz -i "$dir/in" -o "$dir/afl" -x "$TOP/tests/fuzz/txc.dict" -t "$tmo" -V "$TIME" -- $cmd >"$dir/afl.log" 2>&1 &
  pid=$!
  stats=$dir/afl/default/fuzzer_stats
  # afl-fuzz rewrites fuzzer_stats about once a minute: print each new one.
  shown=0
  while kill -0 $pid 2>/dev/null; do
    sleep 5
    t=$(field "$stats" run_time)
    if [ "${t:-0}" -gt "$shown" ]; then
      shown=$t
      echo "fuzz: [$i/$total] $n: $(field "$stats" run_time) s, $(field "$stats" execs_done) execs, $(field "$stats" corpus_count) paths, $(field "$stats" saved_crashes) crashes, $(field "$stats" saved_hangs) hangs"
    fi
  done
  if ! wait $pid || [ ! -f "$stats" ]; then
    echo "fuzz: [$i/$total] $n: afl-fuzz failed; the end of $dir/afl.log:" >&2
    tail -20 "$dir/afl.log" >&2
    exit 1
  fi

  crashes=$(field "$stats" saved_crashes) hangs=$(field "$stats" saved_hangs)
  {
    echo "# make fuzz: the final statistics of afl-fuzz on one target (tests/fuzz/targets)"
    echo "target:          $n"
    echo "command:         $prog $* (input: $(case " $* " in *" @@ "*) echo file ;; *) echo stdin ;; esac))"
    echo "fuzzer:          AFL++ $(field "$stats" afl_version | sed "s/^++//"), ASan + UBSan, dictionary tests/fuzz/txc.dict"
    echo "finished:        $(date -u -d "@$(field "$stats" last_update)" '+%Y-%m-%d %H:%M UTC')"
    echo "run time:        $(field "$stats" run_time) s"
    echo "execs:           $(field "$stats" execs_done)"
    echo "execs per s:     $(field "$stats" execs_per_sec)"
    echo "seeds:           $(ls "$dir/in" | wc -l) (after afl-cmin, of $(ls "$dir/seeds" | wc -l))"
    echo "paths:           $(field "$stats" corpus_count) ($(field "$stats" corpus_found) found)"
    echo "crashes:         $crashes"
    echo "hangs:           $hangs (timeout $tmo ms)"
    echo "stability:       $(field "$stats" stability)"
    echo "edges:           $(field "$stats" edges_found) of $(field "$stats" total_edges) ($(field "$stats" bitmap_cvg))"
    echo "cycles:          $(field "$stats" cycles_done)"
  } >"$STATS/$n.txt"
  echo "fuzz: [$i/$total] $n: done: $(field "$stats" execs_done) execs, $(field "$stats" execs_per_sec)/s, $crashes crashes, $hangs hangs; statistics in ${STATS#"$TOP"/}/$n.txt"
  for f in "$dir"/afl/default/crashes/id:* "$dir"/afl/default/hangs/id:*; do
    [ -f "$f" ] && echo "fuzz:   $f"
  done
  [ "$crashes$hangs" = 00 ] || echo "fuzz:   keep one as a test: tests/fuzz/keep.sh $n FILE"
done

# The table of every target's last statistics.
{
  printf '# make fuzz: the last run of each target (details in NAME.txt beside this file)\n'
  printf '%-20s %10s %12s %10s %8s %8s %6s %10s  %s\n' target "time (s)" execs "execs/s" paths crashes hangs stability finished
  for f in "$STATS"/*.txt; do
    [ "$(basename "$f")" = summary.txt ] && continue
    v() { sed -n "s/^$1: *//p" "$f" | sed 's/ .*//'; }
    printf '%-20s %10s %12s %10s %8s %8s %6s %10s  %s\n' "$(v target)" "$(v 'run time')" "$(v execs)" \
      "$(v 'execs per s')" "$(v paths)" "$(v crashes)" "$(v hangs)" "$(v stability)" \
      "$(sed -n 's/^finished: *//p' "$f")"
  done
} >"$STATS/summary.txt"
echo "fuzz: summary in ${STATS#"$TOP"/}/summary.txt"
cat "$STATS/summary.txt"
