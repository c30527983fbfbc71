#!/usr/bin/env bash
# The conventions every program shares: --help, usage errors, files.
. "$(dirname "$0")/lib.sh"
ex=$TOP/examples/ldgsts_load.tx
for p in txc-parse txc; do
  "$TXC_BIN/$p" --help >"$TMP/help" 2>&1; rc=$?
  check "$p --help exits 0" [ $rc = 0 ]
  check "$p --help says usage" grep -q "^usage: $p" "$TMP/help"
  "$TXC_BIN/$p" --frobnicate >"$TMP/out" 2>&1; rc=$?
  check "$p: an unknown option exits 2" [ $rc = 2 ]
  check "$p: and says so" grep -q "unknown option '--frobnicate'" "$TMP/out"
done
"$TXC_BIN/txc-parse" "$TMP/missing.tx" 2>"$TMP/err"; rc=$?
check "a missing input exits 1" [ $rc = 1 ]
check "and names the file" grep -q "cannot read '$TMP/missing.tx'" "$TMP/err"
"$TXC_BIN/txc-parse" <"$ex" >"$TMP/stdin.tx"; rc=$?
"$TXC_BIN/txc-parse" "$ex" -o "$TMP/file.tx"
check "stdin in, stdout out: same as file in, file out" cmp -s "$TMP/stdin.tx" "$TMP/file.tx"
"$TXC_BIN/txc-parse" - <"$ex" >"$TMP/dash.tx"
check "'-' reads stdin" cmp -s "$TMP/dash.tx" "$TMP/file.tx"
"$TXC_BIN/txc-parse" "$ex" "$ex" 2>"$TMP/err"; rc=$?
check "two inputs are a usage error" [ $rc = 2 ]
"$TXC_BIN/txc-parse" "$ex" --target sm_75 2>"$TMP/err"; rc=$?
check "an unknown target is a usage error" [ $rc = 2 ]
"$TXC_BIN/txc-parse" "$TOP/examples/tcgen05_copy.tx" --target=sm_90a >/dev/null 2>"$TMP/err"; rc=$?
check "tcgen05 on sm_90a is refused" [ $rc = 1 ]
check "with the reason" grep -q "needs sm_100a; the target is sm_90a" "$TMP/err"
"$TXC_BIN/txc-parse" "$TOP/examples/tcgen05_copy.tx" --target=sm_100a >/dev/null; rc=$?
check "tcgen05 on sm_100a is accepted" [ $rc = 0 ]
echo 'x = (' >"$TMP/bad.tx"
echo old >"$TMP/keep.tx"
"$TXC_BIN/txc-parse" "$TMP/bad.tx" -o "$TMP/keep.tx" 2>/dev/null
check "a failed run leaves an existing output file alone" grep -qx old "$TMP/keep.tx"
check "and leaves no temporary file" [ "$(ls "$TMP" | grep -c tmp)" = 0 ]
"$TXC_BIN/txc-parse" "$ex" -o /nonexistent/dir/out.tx 2>"$TMP/err"; rc=$?
check "an unwritable output exits 1" [ $rc = 1 ]
head -c 300000000 /dev/zero | tr '\0' '#' >"$TMP/huge.tx"
"$TXC_BIN/txc-parse" "$TMP/huge.tx" 2>"$TMP/err"; rc=$?
check "a 300 MB input is refused" [ $rc = 1 ]
check "as too large" grep -q "larger than 256 MiB" "$TMP/err"
# doc_table FLAG HEADER WHAT: doc/txir.md's table that starts with the line
# matching HEADER (a Perl pattern) is what txc-parse FLAG prints.
doc_table() {
  "$TXC_BIN/txc-parse" "$1" >"$TMP/gen.md"
  perl -ne "print if /^$2/ .. /^\$/" "$TOP/doc/txir.md" | sed '/^$/d' >"$TMP/doc.md"
  same_file "doc/txir.md's table of $3 is what txc-parse $1 prints" "$TMP/gen.md" "$TMP/doc.md"
}
doc_table --intrinsics '\| name \| operands' builtins
doc_table --tvm '\| TVM spelling \| in txc' "TVM's spellings"
doc_table --ptx '\| PTX instruction \|' 'the PTX dialect'
doc_table --variants '\| op \| variant \| priority' variants
doc_table --plans '\| keyword \| kind \| families' 'plan fields'
doc_table --tcgen05 '\| shape \| lanes a warp reaches' 'tcgen05 shapes'
done_testing
