#!/bin/sh
# Regenerates the pictures of doc/txc-layout.md: sh doc/img/make.sh (after make).
set -e
cd "$(dirname "$0")/../.."
L=${TXC_BIN:-bin}/txc-layout
$L --buffer R examples/reg_roundtrip.tx --svg doc/img/reg_roundtrip.svg
for s in 32x32b 16x64b 16x128b 16x256b; do
  $L "tcgen05_atom_layout(\"$s\", (128, 16), \"float32\")" --shape 128,16 --svg "doc/img/tcgen05_$s.svg"
done
