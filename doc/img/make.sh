#!/bin/sh
# Regenerates the pictures of doc/txc-layout.md: sh doc/img/make.sh (after make).
set -e
cd "$(dirname "$0")/../.."
L=${TXC_BIN:-bin}/txc-layout
$L --buffer R examples/reg_roundtrip.tx --svg doc/img/reg_roundtrip.svg
# one picture per shape of ir/tcgen05.def
for s in $(sed -n 's/^TCGEN05_SHAPE([A-Z0-9_]*, *"\([^"]*\)".*/\1/p' ir/tcgen05.def); do
  $L "tcgen05_atom_layout(\"$s\", (128, 16), \"float32\")" --shape 128,16 --svg "doc/img/tcgen05_$s.svg"
done
