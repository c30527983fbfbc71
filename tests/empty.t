#!/usr/bin/env bash
# A module without a kernel is valid IR (doc/txir.md, sections 5 and 10):
# txc-parse and every pass print it (an empty file prints nothing), while
# the programs that need a kernel (txc-cuda, txc-ptx, txc-emu, txc-run, and so the
# driver's CUDA) refuse it, saying so.
. "$(dirname "$0")/lib.sh"
: >"$TMP/empty.tx"
printf 'from tvm.script import tirx as T\n\nn = 4\n' >"$TMP/consts.tx"
for p in txc-parse txc-align txc-vectorize txc-partition txc-dispatch txc-lower; do
  "$TXC_BIN/$p" "$TMP/empty.tx" >"$TMP/out" 2>"$TMP/err"; rc=$?
  check "$p: an empty file is accepted and prints nothing" [ "$rc $(wc -c <"$TMP/out") $(wc -c <"$TMP/err")" = "0 0 0" ]
  "$TXC_BIN/$p" "$TMP/consts.tx" >"$TMP/out" 2>"$TMP/err"; rc=$?
  check "$p: a module of constants prints them" [ "$rc $(grep -cx 'n = 4' "$TMP/out")" = "0 1" ]
done
for p in txc-cuda txc-ptx txc-emu; do
  "$TXC_BIN/$p" "$TMP/empty.tx" >"$TMP/out" 2>"$TMP/err"; rc=$?
  check "$p: an empty file is refused" [ "$rc $(wc -c <"$TMP/out")" = "1 0" ]
  check "$p: as having no kernel" grep -q "^$p: error: '$TMP/empty.tx' has no kernel: write one with @T.prim_func" "$TMP/err"
done
"$TXC_BIN/txc" "$TMP/consts.tx" -o "$TMP/out.cu" 2>"$TMP/err"; rc=$?
check "txc: no CUDA from a module without a kernel" [ "$rc $(ls "$TMP" | grep -c 'out\.cu')" = "1 0" ]
check "txc: says why" grep -q "has no kernel" "$TMP/err"
check "txc: naming the file" grep -q "^txc-cuda: error: '$TMP/consts.tx' has no kernel: write one with @T.prim_func" "$TMP/err"
"$TXC_BIN/txc" --emit=ptx --arch=sm_90a "$TMP/empty.tx" -o "$TMP/out.ptx" 2>"$TMP/err"; rc=$?
check "txc --emit=ptx: an empty file is refused, naming it" [ "$rc $(ls "$TMP" | grep -c 'out\.ptx') $(grep -c "^txc-ptx: error: '$TMP/empty.tx' has no kernel" "$TMP/err")" = "1 0 1" ]
"$TXC_BIN/txc" --emit=ptx --dump-dir="$TMP/dumps" "$TMP/consts.tx" -o "$TMP/out.ptx" 2>"$TMP/err"; rc=$?
check "txc --dump-dir: a module without a kernel is refused by the piped backend, naming the file (its #@ comments)" \
  [ "$rc $(ls "$TMP" | grep -c 'out\.ptx') $(grep -c "^txc-ptx: error: '$TMP/consts.tx' has no kernel" "$TMP/err") $(ls "$TMP/dumps" | wc -l)" = "1 0 1 6" ]
"$TXC_BIN/txc" --emit=ptx --dump-dir="$TMP/dumps2" "$TMP/empty.tx" -o "$TMP/out.ptx" 2>"$TMP/err"; rc=$?
check "txc --dump-dir: an empty file is refused by the piped backend, naming the file" \
  [ "$rc $(ls "$TMP" | grep -c 'out\.ptx') $(grep -c "^txc-ptx: error: '$TMP/empty.tx' has no kernel" "$TMP/err")" = "1 0 1" ]
check "txc --dump-dir: each dump of the empty module is the one #@ comment that names its file" \
  [ "$(cat "$TMP"/dumps2/* | sort -u)" = "#@ $TMP/empty.tx:1" ]
"$TXC_BIN/txc-parse" --locations "$TMP/empty.tx" | "$TXC_BIN/txc-align" --locations | "$TXC_BIN/txc-ptx" >"$TMP/out" 2>"$TMP/err"; rc=$?
check "txc-parse --locations | txc-align --locations | txc-ptx: the empty file named at the pipeline's end" \
  [ "$rc $(grep -c "^txc-ptx: error: '$TMP/empty.tx' has no kernel" "$TMP/err")" = "1 1" ]
"$TXC_BIN/txc-ptx" <"$TMP/consts.tx" >"$TMP/out" 2>"$TMP/err"; rc=$?
check "txc-ptx: standard input without location comments is named <stdin>" \
  [ "$rc $(grep -c "^txc-ptx: error: '<stdin>' has no kernel" "$TMP/err")" = "1 1" ]
"$TXC_BIN/txc" --emit=ir "$TMP/consts.tx" -o "$TMP/out.tx" 2>"$TMP/err"; rc=$?
check "txc --emit=ir: the constants, lowered (unchanged)" [ "$rc $(grep -cx 'n = 4' "$TMP/out.tx")" = "0 1" ]
done_testing
