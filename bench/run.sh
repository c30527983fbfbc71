#!/usr/bin/env bash
# bench/run.sh [DIR]: build txc, compile every synchronous-copy example to a
# cubin through the whole pipeline, run each on the GPU with txc-run (every
# element checked against the emulator), time the 4096 x 4096 kernels against
# cuMemcpyDtoD, and print a table. Needs the repository, the CUDA Toolkit
# and a GPU, nothing else. Logs and the table go to DIR (default: a new
# temporary directory); on the device machine: bench/run.sh "$OUT".
#
# Environment: ARCH (default sm_90a), REPS (timed launches, default 50),
# LIMIT (seconds for one txc-run, default 300: the emulator checks the
# 4096 x 4096 kernels element by element; the examples that mention 4096
# are timed), EXAMPLES (the .tx files to run;
# default: every example with no copy_async and no tcgen05).
set -u
cd "$(dirname "$0")/.."
DIR=${1:-$(mktemp -d "${TMPDIR:-/tmp}/txc-bench.XXXXXX")}
mkdir -p "$DIR" || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/txc-bench-work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ARCH=${ARCH:-sm_90a}
REPS=${REPS:-50}
LIMIT=${LIMIT:-300}
CUDA=${CUDA:-/usr/local/cuda}
export PATH=$PATH:$CUDA/bin
LOG=$DIR/bench.log
: >"$LOG"
say() { echo "$*" | tee -a "$LOG"; }

say "bench: $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
if command -v nvidia-smi >/dev/null; then
  say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
fi
say "nvcc: $(nvcc --version 2>/dev/null | tail -1)"

# The build runs flex and bison; a machine without them can use a carried
# build/gen (the generated parser), made newer than its sources here.
if ! command -v flex >/dev/null || ! command -v bison >/dev/null; then
  if [ -f build/gen/lex.c ] && [ -f build/gen/parse.c ] && [ -f build/gen/parse.h ]; then
    say "bench: no flex or bison here: using the carried build/gen"
    touch build/gen/parse.c build/gen/parse.h build/gen/lex.c
  else
    say "bench: flex or bison is missing and there is no build/gen to use instead"
    exit 1
  fi
fi
if ! make >>"$LOG" 2>&1; then
  tail -30 "$LOG"
  say "bench: make failed (the log: $LOG)"
  exit 1
fi

if [ -z "${EXAMPLES:-}" ]; then
  # every example txc compiles for this target (those whose copy_async
  # needs TMA or tcgen05 stop at dispatch: listed, not run)
  EXAMPLES=
  for ex in examples/*.tx; do
    if bin/txc --emit=ir --arch "$ARCH" "$ex" -o "$WORK/probe.tx" >"$WORK/why" 2>&1; then
      EXAMPLES="$EXAMPLES $ex"
    else
      say "bench: not run: $ex ($(grep -m1 -o 'error: .*' "$WORK/why"))"
    fi
  done
fi

# row EXAMPLE KERNEL CHECK US GBS COPYGBS RATIO
ROWS=$DIR/bench.tsv
printf 'example\tkernel\tcheck\tus\tGB/s\tmemcpy GB/s\tratio\n' >"$ROWS"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"; }
# verdict STATUS: what a txc-run exit status means
verdict() {
  case $1 in
  0) echo PASS ;; 1) echo FAIL ;; 3) echo NO-GPU ;; 124) echo TIMEOUT ;; *) echo "ERROR($1)" ;;
  esac
}

failed=0
for ex in $EXAMPLES; do
  name=$(basename "$ex" .tx)
  cubin=$WORK/$name.cubin
  say "== $ex"
  if ! bin/txc "$ex" --emit=cubin -o "$cubin" --arch "$ARCH" >>"$LOG" 2>&1; then
    say "bench: txc could not compile $ex"
    row "$name" - COMPILE-FAIL - - - -
    failed=1
    continue
  fi
  # txc-run runs the lowered IR (a TMA kernel takes its tensor maps from
  # there), checked against the emulation of the source
  ir=$WORK/$name.ir
  if ! bin/txc "$ex" --emit=ir -o "$ir" --arch "$ARCH" >>"$LOG" 2>&1; then
    say "bench: txc could not lower $ex"
    row "$name" - COMPILE-FAIL - - - -
    failed=1
    continue
  fi
  # a kernel with scalar parameters names their values in a comment line
  # `# txc-run: --arg NAME=VALUE ...`
  args=$(sed -n 's/^# txc-run: //p' "$ex")
  timeout "$LIMIT" bin/txc-run "$ir" --ref "$ex" --cubin "$cubin" $args >"$WORK/check" 2>&1
  rc=$?
  cat "$WORK/check" >>"$LOG"
  head -12 "$WORK/check"
  check=$(verdict $rc)
  [ $rc = 0 ] || failed=1
  kernel=$(sed -n 's/^\(PASS\|FAIL\|RAN\) kernel \([^:]*\):.*/\2/p' "$WORK/check" | head -1)
  us=- gbs=- cgbs=- ratio=-
  if grep -q '(4096, 4096)\|^N = 4096' "$ex" && [ $rc != 3 ]; then
    timeout "$LIMIT" bin/txc-run "$ir" --cubin "$cubin" --no-check --time "$REPS" $args >"$WORK/time" 2>&1
    trc=$?
    cat "$WORK/time" >>"$LOG"
    cat "$WORK/time"
    line=$(grep '^time kernel' "$WORK/time")
    if [ $trc = 0 ] && [ -n "$line" ]; then
      # time kernel K: median X us over N launches, G GB/s; cuMemcpyDtoD M GB/s; ratio R
      read -r us gbs cgbs ratio < <(echo "$line" |
        sed 's/.*median \([0-9.]*\) us over [0-9]* launches, \([0-9]*\) GB\/s; cuMemcpyDtoD \([0-9]*\) GB\/s; ratio \([0-9.]*\)$/\1 \2 \3 \4/')
    else
      say "bench: timing $ex failed ($(verdict $trc))"
      us="$(verdict $trc)"
      failed=1
    fi
  fi
  row "$name" "${kernel:--}" "$check" "$us" "$gbs" "$cgbs" "$ratio"
done

echo
echo "kernels run by txc-run, checked bit for bit against the emulator; timed: median of $REPS launches"
column -t -s "$(printf '\t')" "$ROWS" 2>/dev/null || cat "$ROWS"
echo "(log and table: $LOG, $ROWS)"
exit $failed
