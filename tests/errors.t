#!/usr/bin/env bash
# Bad inputs: tests/errors/NAME.tx (or NAME.gen, a script that writes the
# input to stdout) with the exact expected diagnostics in NAME.err, written
# by hand from the rule the input breaks. For each: exit status 1, the
# expected text on stderr, nothing on stdout, and no output file left by -o.
# UPDATE=1 never rewrites a .err file: a mismatch shows the diff, and a
# change to a diagnostic is written into its .err file by hand.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/errors" || exit 1
[ "${UPDATE:-0}" = 1 ] && echo "# UPDATE=1: errors.t leaves the hand-written .err files alone"
for e in *.err; do
  name=${e%.err}
  if [ -f "$name.gen" ]; then
    bash "$name.gen" >"$TMP/$name.tx"; input=$TMP/$name.tx; shown=$name.tx
    (cd "$TMP" && "$TXC_BIN/txc-parse" "$name.tx" -o "$TMP/out.tx" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  else
    # a first line `# target: ARCH` checks the input for that target
    input=$name.tx; target=$(sed -n '1s/^# target: //p' "$input")
    "$TXC_BIN/txc-parse" ${target:+--target "$target"} "$input" -o "$TMP/out.tx" >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
  fi
  if [ $rc = 1 ] && [ ! -s "$TMP/stdout" ] && [ ! -e "$TMP/out.tx" ]; then
    ok "$name: exit status 1, no output"
  else
    not_ok "$name: exit status 1, no output (got $rc)"; diag <"$TMP/stderr"
  fi
  rm -f "$TMP/out.tx"
  same_text "$name: diagnostics" "$e" "$TMP/stderr"
done
done_testing
