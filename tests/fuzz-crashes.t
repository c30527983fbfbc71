#!/bin/sh
# Every input that once crashed or hung a program under `make fuzz`, kept by
# tests/fuzz/keep.sh in tests/fuzz/crashes/NAME/, run again through target
# NAME's command line (tests/fuzz/targets) with the programs of $TXC_BIN.
# Each run ends within FUZZ_CRASH_TIMEOUT seconds (60) with status 0 or 1,
# no sanitizer report and no internal error, and a rejection says "error:".
# With FUZZ_PENDING=1 the inputs of tests/fuzz/pending/ (bugs found but not
# fixed yet) run too.
. "$(dirname "$0")/lib.sh"
TARGETS=$TOP/tests/fuzz/targets
LIMIT=${FUZZ_CRASH_TIMEOUT:-60}
dirs=$TOP/tests/fuzz/crashes
inputs=0

# Every program the fuzz targets name is built (a renamed program or a
# typo in tests/fuzz/targets would stop make fuzz).
for prog in $(awk '!/^#/ && NF { print $4 }' "$TARGETS" | sort -u); do
  check "tests/fuzz/targets: $prog is a program of \$TXC_BIN" [ -x "$TXC_BIN/$prog" ]
done
[ "${FUZZ_PENDING:-0}" = 1 ] && dirs="$dirs $TOP/tests/fuzz/pending"

for d in $dirs; do
  for t in "$d"/*/; do
    [ -d "$t" ] || continue
    name=$(basename "$t")
    line=$(grep "^$name " "$TARGETS") || { not_ok "${t#"$TOP"/}: no target '$name' in tests/fuzz/targets"; continue; }
    set -- $line
    shift 3
    prog=$1
    shift
    args=$(echo "$*" | sed "s|%T|$TMP|g")
    for f in "$t"*; do
      [ -f "$f" ] || continue
      inputs=$((inputs + 1))
      what="$name ${f#"$TOP"/}"
      case " $args " in
        *" @@ "*) timeout "$LIMIT" "$TXC_BIN/$prog" $(echo "$args" | sed "s|@@|$f|") >/dev/null 2>"$TMP/err" ;;
        *) timeout "$LIMIT" "$TXC_BIN/$prog" $args <"$f" >/dev/null 2>"$TMP/err" ;;
      esac
      rc=$?
      if [ $rc = 124 ]; then
        not_ok "$what: still running after $LIMIT s"
      elif [ $rc != 0 ] && [ $rc != 1 ]; then
        not_ok "$what: exit status $rc"
        tail -15 "$TMP/err" | diag
      elif grep -q "Sanitizer\|runtime error\|internal error" "$TMP/err"; then
        not_ok "$what: a sanitizer report or an internal error"
        tail -15 "$TMP/err" | diag
      elif [ $rc = 1 ] && ! grep -q "error:" "$TMP/err"; then
        not_ok "$what: exit 1 without an 'error:' message"
        tail -5 "$TMP/err" | diag
      else
        ok "$what: exit $rc"
      fi
    done
  done
done
[ $inputs = 0 ] && skip "kept inputs" "none in tests/fuzz/crashes/ yet"
done_testing
