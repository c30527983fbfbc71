#!/usr/bin/env bash
# tests/filecheck, the CHECK matcher of check.t and cuda.t, on outputs made
# to pass and to fail each directive as tests/README.md describes it.
. "$(dirname "$0")/lib.sh"
FC=$TOP/tests/filecheck

# fc NAME STATUS CHECKS OUTPUT [ARGS]: filecheck ARGS on a file of CHECKS
# (lines, \n-separated) with OUTPUT on stdin exits STATUS.
fc() {
  printf '%b\n' "$3" >"$TMP/t.tx"
  printf '%b' "$4" | perl "$FC" ${5:+$5} "$TMP/t.tx" >"$TMP/why" 2>&1
  local rc=$?
  if [ $rc = "$2" ]; then ok "$1"; else not_ok "$1 (exit $rc, not $2)"; diag <"$TMP/why"; fi
}

out='first line\n  for i in range(4):\n    a  =  b\nlast [x] line\n'
fc "CHECK: a substring of a line" 0 '# CHECK: for i in range' "$out"
fc "CHECK: no line holds it" 1 '# CHECK: while' "$out"
fc "CHECK: in order" 0 '# CHECK: first\n# CHECK: range(4)\n# CHECK: last' "$out"
fc "CHECK: out of order" 1 '# CHECK: range(4)\n# CHECK: first' "$out"
fc "CHECK: a line matches once" 1 '# CHECK: line\n# CHECK: first' 'first line\n'
fc "CHECK-NEXT: the next line" 0 '# CHECK: first\n# CHECK-NEXT: for i' "$out"
fc "CHECK-NEXT: not a later line" 1 '# CHECK: first\n# CHECK-NEXT: a  =' "$out"
fc "CHECK-NEXT first: the first line" 0 '# CHECK-NEXT: first line' "$out"
fc "CHECK-NEXT first: not the second" 1 '# CHECK-NEXT: for i' "$out"
fc "CHECK-NEXT after the last line" 1 '# CHECK: last\n# CHECK-NEXT: line' "$out"
fc "CHECK-NOT: no line holds it" 0 '# CHECK-NOT: while' "$out"
fc "CHECK-NOT: the whole output, before the CHECKs" 1 '# CHECK: last\n# CHECK-NOT: first' "$out"
fc "CHECK-NOT: the whole output, after the CHECKs" 1 '# CHECK-NOT: last\n# CHECK: first' "$out"
fc "CHECK-COUNT-2: exactly 2 lines" 0 '# CHECK-COUNT-2: line' "$out"
fc "CHECK-COUNT-1: not 2" 1 '# CHECK-COUNT-1: line' "$out"
fc "CHECK-COUNT-3: not 2" 1 '# CHECK-COUNT-3: line' "$out"
fc "spaces count: one is not two" 1 '# CHECK: a = b' "$out"
fc "spaces count: two match two" 0 '# CHECK: a  =  b' "$out"
fc "leading spaces are part of the text" 0 '# CHECK:   for i' "$out"
fc "leading spaces are part of the text (too many)" 1 '# CHECK:    for i' "$out"
fc "literal text, not a pattern: [x]" 0 '# CHECK: [x]' "$out"
fc "literal text, not a pattern: . is a dot" 1 '# CHECK: range.4' "$out"
fc "literal text, not a pattern: ^" 1 '# CHECK: ^first' "$out"
fc "case counts" 1 '# CHECK: First' "$out"
fc "empty output" 1 '# CHECK: x' ''
fc "empty output, CHECK-NOT" 0 '# CHECK-NOT: x' ''
fc "other comment lines are not checks" 0 '# CHECKs below:\n# ARCH: sm_80\n# CHECK: first' "$out"
fc "a misspelt directive is an error" 2 '# CHECK-NXT: first' "$out"
fc "no space after the colon is an error" 2 '# CHECK:first' "$out"
fc "nothing to match is an error" 2 '# CHECK: ' "$out"
fc "CHECK-COUNT-0 is an error" 2 '# CHECK-COUNT-0: while' "$out"
fc "RUN groups: the first by default" 0 '# RUN: a\n# CHECK: first\n# RUN: b\n# CHECK: while' "$out"
fc "RUN groups: --run 2 takes the second's checks" 1 '# RUN: a\n# CHECK: first\n# RUN: b\n# CHECK: while' "$out" "--run 2"
fc "RUN groups: a group's checks only" 0 '# RUN: a\n# CHECK-NOT: first\n# RUN: b\n# CHECK: first' "$out" "--run 2"
fc "RUN groups: no third group" 2 '# RUN: a\n# CHECK: first\n# RUN: b\n# CHECK: first' "$out" "--run 3"
fc "a CHECK before the first RUN is an error" 2 '# CHECK: first\n# RUN: a\n# CHECK: first' "$out"

# The reasons: each failed check with its line, the ordered ones up to the
# first that fails, the counted ones all.
printf '# CHECK: first\n# CHECK: while\n# CHECK: last\n# CHECK-NOT: range\n' >"$TMP/t.tx"
printf "$out" | perl "$FC" "$TMP/t.tx" >"$TMP/why"
printf '%s\n' "$TMP/t.tx:2: CHECK: while: no line holds it from line 2 on" \
  "$TMP/t.tx:4: CHECK-NOT: range: 1 line holds it, not 0" \
  "  line 2:   for i in range(4):" >"$TMP/want"
same_text "the reasons name the checks that fail, and the lines" "$TMP/want" "$TMP/why"
done_testing
