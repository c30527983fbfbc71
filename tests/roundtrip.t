#!/usr/bin/env bash
# Every example and every golden IR file: txc-parse accepts it, prints the
# golden canonical form (tests/golden/NAME.tx; UPDATE=1 rewrites it), and
# that form is a fixed point: print(parse(print(parse(x)))) == print(parse(x)).
. "$(dirname "$0")/lib.sh"
for f in "$TOP"/examples/*.tx; do
  name=$(basename "$f" .tx)
  golden=$TOP/tests/golden/$name.tx
  if "$TXC_BIN/txc-parse" "$f" -o "$TMP/$name.tx" 2>"$TMP/err"; then
    ok "$name: parses and verifies"
  else
    not_ok "$name: parses and verifies"; diag <"$TMP/err"; continue
  fi
  [ -f "$golden" ] || { [ "${UPDATE:-0}" = 1 ] && cp "$TMP/$name.tx" "$golden"; }
  same_file "$name: canonical form is tests/golden/$name.tx" "$golden" "$TMP/$name.tx"
done
# With --locations (as the driver runs the passes) the #@ FILE:LINE comments
# keep the user's lines, and printing is still a fixed point.
for f in "$TOP"/examples/*.tx; do
  name=$(basename "$f" .tx)
  point="$name: printing with locations is a fixed point"
  if "$TXC_BIN/txc-parse" --locations "$f" -o "$TMP/loc1.tx" 2>"$TMP/err" &&
    "$TXC_BIN/txc-parse" --locations "$TMP/loc1.tx" -o "$TMP/loc2.tx" 2>"$TMP/err"; then
    check "$point" cmp -s "$TMP/loc1.tx" "$TMP/loc2.tx"
  else
    not_ok "$point (txc-parse --locations failed)"; diag <"$TMP/err"
  fi
done
for g in "$TOP"/tests/golden/*.tx; do
  name=$(basename "$g" .tx)
  if "$TXC_BIN/txc-parse" "$g" -o "$TMP/again-$name.tx" 2>"$TMP/err"; then
    same_file "golden $name: printing is a fixed point" "$g" "$TMP/again-$name.tx"
  else
    not_ok "golden $name: parses"; diag <"$TMP/err"
  fi
done
# TVM's spellings (tests/tvm): printed as written (--no-verify), and as
# sema rewrites them (splats, getattr, builtins and f-strings in kernels
# written out), both are fixed points.
for f in "$TOP"/tests/tvm/*.tx "$TOP"/tests/tvm/*/*.tx; do
  [ -e "$f" ] || continue
  name=tvm/${f#"$TOP"/tests/tvm/}
  for mode in --no-verify --target=sm_100a; do
    if "$TXC_BIN/txc-parse" $mode "$f" -o "$TMP/p1.tx" 2>"$TMP/err" &&
      "$TXC_BIN/txc-parse" $mode "$TMP/p1.tx" -o "$TMP/p2.tx" 2>"$TMP/err"; then
      check "$name: printing ($mode) is a fixed point" cmp -s "$TMP/p1.tx" "$TMP/p2.tx"
    else
      not_ok "$name: printing ($mode) is a fixed point (txc-parse failed)"; diag <"$TMP/err"
    fi
  done
done
done_testing
