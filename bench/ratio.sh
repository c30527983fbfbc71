#!/usr/bin/env bash
# bench/ratio.sh [BIN...]: issue 13's growth goal, measured: the CPU time
# (user + system, exact: bench/cputime.c) of txc, source to PTX in one
# process (ptxas not run), on the 10-copy and the 1000-copy kernels of
# bench/copies.pl, and the ratio of the 1000-copy time to the 10-copy
# time (goal: 20 or less), from the least and from the median of the runs.
# The two kernels' runs are taken in turns (bench/cputime.c), so that a
# noisy stretch of the host falls on both.
# Each BIN (default bin) is a directory holding a txc; several are
# measured in alternating rounds, so that a comparison of two trees sees
# the same machine. No GPU needed.
#
# Environment: ROUNDS (default 3), RUNS10 (runs of the 10-copy kernel a
# round, default 200), RUNS1000 (default 30), ARCH (default sm_90a).
set -u
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3} RUNS10=${RUNS10:-200} RUNS1000=${RUNS1000:-30} ARCH=${ARCH:-sm_90a}
[ $# -gt 0 ] || set -- bin
bins=("$@")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/txc-ratio.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
${CC:-cc} -O2 -std=c11 -o "$WORK/cputime" bench/cputime.c || exit 1
perl bench/copies.pl 10 >"$WORK/c10.tx" && perl bench/copies.pl 1000 >"$WORK/c1000.tx" || exit 1
echo "txc CPU ms (user + system), source to PTX: least and median of $RUNS10 runs (10 copies) and $RUNS1000 (1000 copies)"
echo "| round | txc | 10 copies | 1000 copies | ratio (least) | ratio (median) |"
echo "|---|---|---|---|---|---|"
for ((r = 1; r <= ROUNDS; r++)); do
  for b in "${bins[@]}"; do
    # the two kernels in turns (cputime's "::"), over the same stretch of time
    both=$("$WORK/cputime" "$RUNS10" "$b/txc" --emit=ptx --arch="$ARCH" "$WORK/c10.tx" -o "$WORK/o10.ptx" :: \
      "$RUNS1000" "$b/txc" --emit=ptx --arch="$ARCH" "$WORK/c1000.tx" -o "$WORK/o1000.ptx") || exit 1
    { read -r s1 s2; read -r l1 l2; } <<<"$both"
    printf '| %d | %s | %.2f / %.2f | %.1f / %.1f | %.1f | %.1f |\n' "$r" "$b" "$s1" "$s2" "$l1" "$l2" \
      "$(awk -v a="$l1" -v b="$s1" 'BEGIN { print a / b }')" "$(awk -v a="$l2" -v b="$s2" 'BEGIN { print a / b }')"
  done
done
