#!/usr/bin/env bash
# make install into a staging root (DESTDIR) and make uninstall: the
# installed txc runs the installed passes, found next to itself, on an
# installed example. It installs the build under test (bin/, or build-san/
# with SAN=1) and never builds: a stale build is a failure that says so.
. "$(dirname "$0")/lib.sh"
case $TXC_BIN in
"$TOP/bin") san=0 ;;
"$TOP/build-san/bin") san=1 ;;
*)
  skip "make install" "TXC_BIN is neither bin/ nor build-san/bin"
  done_testing
  exit
  ;;
esac
# the make running this test (make check) must not hand its options down
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" SAN=$san "$@"; }
if ! mk -q all; then
  not_ok "the build in $TXC_BIN is up to date (run make first)"
  done_testing
  exit
fi
ROOT=$TMP/root
P=$ROOT/opt/txc
DOC=$P/share/doc/txc
PROGRAMS="txc txc-parse txc-align txc-vectorize txc-partition txc-dispatch txc-lower txc-cuda txc-emu txc-layout"

mk install DESTDIR="$ROOT" PREFIX=/opt/txc >"$TMP/log" 2>&1
if [ $? = 0 ]; then ok "make install DESTDIR=... PREFIX=/opt/txc"; else not_ok "make install"; diag <"$TMP/log"; fi
missing=
for p in $PROGRAMS; do [ -x "$P/bin/$p" ] || missing="$missing $p"; done
check "the programs are in PREFIX/bin${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "the unit tests are not installed" [ ! -e "$P/bin/txc-unittest" ]
check "the documentation is in PREFIX/share/doc/txc, links kept" \
  eval '[ -f "$DOC/README.md" ] && [ -f "$DOC/doc/txir.md" ] && [ -f "$DOC/doc/img/reg_roundtrip.svg" ]'
check "the examples are in PREFIX/share/txc/examples" \
  [ "$(ls "$P/share/txc/examples")" = "$(cd "$TOP/examples" && ls -- *.tx)" ]

# The installed driver alone: no TXC_BIN, a PATH without the build, run from elsewhere.
ex=$P/share/txc/examples/reg_roundtrip.tx
if (cd "$TMP" && env -u TXC_BIN PATH=/usr/bin:/bin "$P/bin/txc" -v --emit=ir "$ex" -o installed.tx 2>pipeline); then
  ok "the installed txc --emit=ir runs"
else
  not_ok "the installed txc --emit=ir runs"; diag <"$TMP/pipeline"
fi
check "it runs the installed passes" grep -q "^$P/bin/txc-parse .* | $P/bin/txc-lower --target=sm_90a > installed.tx\$" "$TMP/pipeline"
"$TXC_BIN/txc" --emit=ir "$ex" -o "$TMP/built.tx"
check "its output is that of the build" cmp -s "$TMP/built.tx" "$TMP/installed.tx"

mk uninstall DESTDIR="$ROOT" PREFIX=/opt/txc >"$TMP/log" 2>&1
if [ $? = 0 ]; then ok "make uninstall"; else not_ok "make uninstall"; diag <"$TMP/log"; fi
check "uninstall removes every installed file" [ -z "$(find "$ROOT" ! -type d)" ]
check "and the directories of txc's own" eval '[ ! -e "$DOC" ] && [ ! -e "$P/share/txc" ]'
done_testing
