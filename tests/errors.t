#!/usr/bin/env bash
# Bad inputs: tests/errors/NAME.tx (or NAME.gen, a script that writes the
# input to stdout) with the exact expected diagnostics in NAME.err, written
# by hand from the rule the input breaks. The input's leading comment lines
# may say what reads it (tests/README.md):
#   # program: PROGRAM [OPTION...]   txc-parse (the default), a pass
#                                    (txc-align ... txc-lower, txc-cuda, txc-ptx) or
#                                    the driver (txc --stop-after=PASS ...)
#   # target: ARCH                   the target (txc-parse --target,
#                                    txc-cuda and txc-ptx --arch, txc --arch)
# For each: exit status 1, the expected text on stderr, nothing on stdout,
# and no output file left by -o.
# UPDATE=1 never rewrites a .err file: a mismatch shows the diff, and a
# change to a diagnostic is written into its .err file by hand.
. "$(dirname "$0")/lib.sh"
cd "$TOP/tests/errors" || exit 1
[ "${UPDATE:-0}" = 1 ] && echo "# UPDATE=1: errors.t leaves the hand-written .err files alone"

# directive FILE KEY: the value of "# KEY: VALUE" among FILE's leading comment lines.
directive() { awk -v k="# $2: " '!/^#/ { exit } index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$1"; }

for e in *.err; do
  name=${e%.err}
  if [ -f "$name.gen" ]; then
    bash "$name.gen" >"$TMP/$name.tx"; dir=$TMP
  else
    dir=.
  fi
  program=$(directive "$dir/$name.tx" program); program=${program:-txc-parse}
  target=$(directive "$dir/$name.tx" target)
  read -r prog opts <<<"$program"
  case $prog in
  txc-parse) arch=${target:+--target=$target} ;;
  txc-cuda | txc-ptx) arch=${target:+--arch=$target} ;;
  txc) arch=${target:+--arch=$target} ;;
  txc-align | txc-vectorize | txc-partition | txc-dispatch | txc-lower)
    arch=
    [ -z "$target" ] || { not_ok "$name: '# target:' is not an option of $prog"; continue; } ;;
  *) not_ok "$name: '# program: $program' names no program of txc"; continue ;;
  esac
  # shellcheck disable=SC2086 # the options are words
  (cd "$dir" && "$TXC_BIN/$prog" $opts $arch "$name.tx" -o "$TMP/out.tx" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  if [ $rc = 1 ] && [ ! -s "$TMP/stdout" ] && [ ! -e "$TMP/out.tx" ]; then
    ok "$name: $prog exits 1, no output"
  else
    not_ok "$name: $prog exits 1, no output (got $rc)"; diag <"$TMP/stderr"
  fi
  rm -f "$TMP/out.tx"
  same_text "$name: diagnostics" "$e" "$TMP/stderr"
done
done_testing
