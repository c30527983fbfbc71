#!/usr/bin/env bash
# bench/sanitize.sh [DIR]: issue 14's cross-check of the emulator's checker
# against NVIDIA's compute-sanitizer, on a GPU machine (the H100 kinds:
# compute-sanitizer has been seen failing on the H200s). For every kernel
# of KERNELS (default: every kernel of the Hopper examples, every kernel
# of tests/race/race.tx, the planted bugs and their fixed twins, and those
# of tests/asyncbugs/async.tx but expect_tx_more), in one run:
#   - the emulator's verdict: txc-emu (race checking on), "clean" or its
#     first error line;
#   - compute-sanitizer's memcheck, racecheck, synccheck and initcheck on
#     the kernel's cubin, launched once by txc-run --no-check: the number
#     of errors (racecheck: hazards) each reports.
# The first step checks that the sanitizer works on this machine: racecheck
# must see hazards in tests/race/race.tx's copy_no_sync (the issue's bug),
# else the script stops (exit 2) rather than print a table of zeros.
# Prints a table; the logs and the table (sanitize.tsv) go to DIR (default
# a new temporary directory; on the device machine: "$OUT").
#
# A bug the sanitizer reports (a count above 0 in any column) must be one
# the emulator reports too; the script ends with the kernels where it is
# not (exit 1 if any).
#
# Environment: KERNELS (lines "FILE KERNEL [txc-run options...]"), ARCH
# (default sm_90a), TOOLS (default "memcheck racecheck synccheck
# initcheck"), LIMIT (seconds a run, default 120).
set -u
cd "$(dirname "$0")/.."
DIR=${1:-$(mktemp -d "${TMPDIR:-/tmp}/txc-san.XXXXXX")}
mkdir -p "$DIR" || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/txc-san-work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ARCH=${ARCH:-sm_90a}
TOOLS=${TOOLS:-memcheck racecheck synccheck initcheck}
LIMIT=${LIMIT:-120}
export PATH=$PATH:${CUDA:-/usr/local/cuda}/bin
SAN=$(command -v compute-sanitizer) || { echo "compute-sanitizer is not here" >&2; exit 2; }
LOG=$DIR/sanitize.log
: >"$LOG"

# kernels of a file: the defs after @T.prim_func
kernels_of() { awk '/^@T\.prim_func/ { p = 1; next } p && /^def / { sub(/^def /, ""); sub(/\(.*/, ""); print; p = 0 }' "$1"; }

if [ -z "${KERNELS:-}" ]; then
  KERNELS=$(
    for f in examples/*.tx; do
      grep -q tcgen05 "$f" && continue
      args=$(sed -n 's/^# txc-run: //p' "$f")
      for k in $(kernels_of "$f"); do echo "$f $k $args"; done
    done
    [ -f tests/race/race.tx ] && for k in $(kernels_of tests/race/race.tx); do echo "tests/race/race.tx $k"; done
    # the Hopper-runnable async misuses (tests/asyncbugs.t), but for
    # expect_tx_more, whose phase never completes: it hangs on the GPU
    # until LIMIT, once per tool
    [ -f tests/asyncbugs/async.tx ] && for k in $(kernels_of tests/asyncbugs/async.tx); do
      [ "$k" = expect_tx_more ] || echo "tests/asyncbugs/async.tx $k"
    done
  )
fi

# compiles FILE once (txc --emit=ir and --emit=cubin): $ir, $cubin
compile() {
  local f=$1 key
  key=$(echo "$f" | tr '/.' '__')
  ir=$WORK/$key.ir cubin=$WORK/$key.cubin
  [ -f "$cubin" ] && return 0
  bin/txc --emit=ir --arch "$ARCH" "$f" -o "$ir" >>"$LOG" 2>&1 &&
    bin/txc --emit=cubin --arch "$ARCH" "$f" -o "$cubin" >>"$LOG" 2>&1
}

# sanitize TOOL FILE KERNEL ARGS...: $n, the errors (or hazards) it reports; "-" if it did not run
sanitize() {
  local tool=$1 f=$2 k=$3 out
  shift 3
  out=$WORK/san.out
  timeout "$LIMIT" "$SAN" --tool "$tool" --print-limit 10 bin/txc-run "$ir" --kernel "$k" --cubin "$cubin" \
    --no-check "$@" >"$out" 2>&1
  { echo "---- $tool $f $k"; tail -30 "$out"; } >>"$LOG"
  if [ "$tool" = racecheck ]; then # the hazards found, errors and warnings (not only those displayed)
    n=$(sed -n 's/.*RACECHECK SUMMARY: [0-9]* hazards* displayed (\([0-9]*\) errors*, \([0-9]*\) warnings*).*/\1 \2/p' "$out" |
        head -1 | awk '{ print $1 + $2 }')
  else
    n=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$out" | head -1)
  fi
  [ -n "$n" ] || n=-
}

echo "sanitize: $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null), $("$SAN" --version | head -2 | tail -1)" | tee -a "$LOG"
command -v nvidia-smi >/dev/null && echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee -a "$LOG"

# the sanitizer works here: racecheck sees the issue's bug
if ! compile tests/race/race.tx; then
  echo "tests/race/race.tx does not compile (see $LOG)" >&2
  exit 2
fi
sanitize racecheck tests/race/race.tx copy_no_sync
if [ "$n" = - ] || [ "$n" -eq 0 ]; then
  echo "compute-sanitizer racecheck saw no hazard in copy_no_sync (got '$n'): it does not work on this machine" >&2
  tail -20 "$WORK/san.out" >&2
  exit 2
fi
echo "check: racecheck sees $n hazards in tests/race/race.tx copy_no_sync: the sanitizer works here"

TSV=$DIR/sanitize.tsv
printf 'file\tkernel\temulator' >"$TSV"
for t in $TOOLS; do printf '\t%s' "$t" >>"$TSV"; done
printf '\n' >>"$TSV"
missed=
while read -r f k args; do
  [ -n "$f" ] || continue
  if ! compile "$f"; then
    printf '%s\t%s\tdoes not compile\n' "$f" "$k" >>"$TSV"
    continue
  fi
  # the emulator's verdict (on the source, with race checking on)
  if bin/txc-emu --kernel "$k" "$f" $args >/dev/null 2>"$WORK/emu.err"; then
    emu=clean
  else
    emu=$(head -1 "$WORK/emu.err" | sed 's/^[^ ]*: error: //' | cut -c1-90)
  fi
  row="$f	$k	$emu"
  found=0
  for t in $TOOLS; do
    sanitize "$t" "$f" "$k" $args
    row="$row	$n"
    [ "$n" != - ] && [ "$n" -gt 0 ] && found=1
  done
  echo "$row" >>"$TSV"
  echo "$row"
  if [ $found = 1 ] && [ "$emu" = clean ]; then missed="$missed $f:$k"; fi
done <<<"$KERNELS"

echo
column -t -s "$(printf '\t')" "$TSV" 2>/dev/null || cat "$TSV"
echo "(log and table: $LOG, $TSV)"
if [ -n "$missed" ]; then
  echo "the sanitizer reports, the emulator does not:$missed"
  exit 1
fi
echo "every kernel the sanitizer reports, the emulator reports too"
