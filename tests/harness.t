#!/usr/bin/env bash
# The test scripts themselves: the failure a script exists to catch makes
# it print "not ok", never a missing test point or a SKIP, and UPDATE=1
# never rewrites an expectation written by hand. Each script runs here on
# programs made to fail: a TXC_BIN directory in which one program is a
# shell script.
. "$(dirname "$0")/lib.sh"

# fake DIR PROG BODY: DIR holds the programs under test, but PROG is a shell
# script with BODY (which may run the real one as $REAL).
fake() {
  if [ ! -d "$1" ]; then
    mkdir -p "$1"
    for p in "$TXC_BIN"/txc*; do ln -s "$p" "$1/"; done
  fi
  rm "$1/$2"
  printf '#!/bin/sh\nREAL=%s\n%s\n' "$TXC_BIN/$2" "$3" >"$1/$2"
  chmod +x "$1/$2"
}
# has PATTERN: the last script's output has a line matching PATTERN.
has() {
  grep -q "$1" "$TMP/out" && return
  { echo "no line matches: $1"; tail -20 "$TMP/out"; } | diag
  return 1
}

fake "$TMP/loc" txc-parse 'for a; do
  [ "$a" = --locations ] && { echo "txc-parse: error: made to fail" >&2; exit 1; }
done
exec "$REAL" "$@"'
TXC_BIN=$TMP/loc bash "$TOP/tests/roundtrip.t" >"$TMP/out" 2>&1
check "roundtrip.t: txc-parse --locations failing is a failing test point" \
  has "^not ok .*printing with locations is a fixed point"

# txc-dispatch passes every mutation on, so that each reaches txc-lower
fake "$TMP/segv" txc-dispatch 'exec cat "$@"'
fake "$TMP/segv" txc-lower 'ulimit -c 0; kill -SEGV $$'
TXC_BIN=$TMP/segv FUZZ_ROUNDS=1 perl "$TOP/tests/fuzz-passes.t" >"$TMP/out" 2>&1
check "fuzz-passes.t: a SIGSEGV in the middle of txc-dispatch | txc-lower | txc-cuda is a crash" \
  has "^not ok .* after partition -> txc-dispatch: 1 mutations, no crash"

CC=false CUDA=/nonexistent PATH=/usr/bin:/bin bash "$TOP/tests/run.t" >"$TMP/out" 2>&1
check "run.t: a fake CUDA driver that does not build is a failure" has "^not ok .*fake driver: tests/run/fakecuda.c builds"
check "run.t: and not a skip" eval '! grep -q "SKIP.*fake driver" "$TMP/out"'

# A CHECK that does not hold is a failing test point of check.t and cuda.t.
fake "$TMP/empty" txc-lower 'exit 0'
TXC_BIN=$TMP/empty perl "$TOP/tests/check.t" >"$TMP/out" 2>&1
check "check.t: an output without the CHECKed lines is a failure" has "^not ok .* - edit_dispatch.tx: txc-lower"
# (only cta_copy.tx gets an empty output: the others fail, so that nvcc runs on one file alone)
fake "$TMP/empty" txc-cuda 'case "$*" in *cta_copy.tx*) ;; *) exit 1 ;; esac
while [ $# -gt 1 ]; do [ "$1" = -o ] && : >"$2"; shift; done'
TXC_BIN=$TMP/empty bash "$TOP/tests/cuda.t" >"$TMP/out" 2>&1
check "cuda.t: an output without the CHECKed lines is a failure" has "^not ok .* - cta_copy.tx: its 17 CHECK lines hold for sm_90a"

# A pass whose output changes is a failing test point of golden.t, which
# names the pass; UPDATE=1 is not set, so nothing is rewritten.
sum() { find "$TOP/tests/golden/passes" -type f | sort | xargs cat | cksum; }
before=$(sum)
fake "$TMP/vec" txc-vectorize '"$REAL" "$@" | sed "s/vec=8/vec=4/"'
TXC_BIN=$TMP/vec bash "$TOP/tests/golden.t" >"$TMP/out" 2>&1
check "golden.t: a changed vec= is a failure at its pass" has "^not ok .* - sm_90a/copy_tile/03-vectorize.tx"
check "golden.t: and the golden files stay as they are" [ "$(sum)" = "$before" ]

# errors.t runs on a copy of its files, so that a regression cannot damage them.
mkdir -p "$TMP/tree/tests"
cp -R "$TOP/tests/lib.sh" "$TOP/tests/errors.t" "$TOP/tests/errors" "$TMP/tree/tests/"
fake "$TMP/wrong" txc-parse 'echo "txc-parse: error: not the expected text" >&2; exit 1'
UPDATE=1 TXC_BIN=$TMP/wrong bash "$TMP/tree/tests/errors.t" >"$TMP/out" 2>&1
check "errors.t with UPDATE=1: other diagnostics fail" has "^not ok .*: diagnostics"
if diff -rq "$TOP/tests/errors" "$TMP/tree/tests/errors" >"$TMP/diff"; then
  ok "errors.t with UPDATE=1: the .err files written by hand stay as they are"
else
  not_ok "errors.t with UPDATE=1: the .err files written by hand stay as they are"; head -10 "$TMP/diff" | diag
fi
done_testing
