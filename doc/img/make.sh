#!/bin/sh
# Regenerates the pictures of doc/txc-layout.md: sh doc/img/make.sh (after make).
set -e
cd "$(dirname "$0")/../.."
L=${TXC_BIN:-bin}/txc-layout
$L --buffer R examples/reg_roundtrip.tx --svg doc/img/reg_roundtrip.svg
# one picture per shape of ir/tcgen05.def: the registers of a warpgroup
for s in $(sed -n 's/^TCGEN05_SHAPE([A-Z0-9_]*, *"\([^"]*\)".*/\1/p' ir/tcgen05.def); do
  $L "tcgen05_atom_layout(\"$s\", (128, 16), \"float32\")" --shape 128,16 --svg "doc/img/tcgen05_$s.svg"
done
# tensor memory: seed 000's 128 x 8 float16 tile (two elements per 32-bit
# column), and the 64-row datapaths F (sub-slab 1) and B
$L 'TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)])' --dtype float16 --svg doc/img/tmem_seed000.svg
$L 'tmem_datapath_layout("F", 64, 8, sub_slab=1)' --shape 64,8 --svg doc/img/tmem_F_sub1.svg
$L 'tmem_datapath_layout("B", 64, 8)' --shape 64,8 --svg doc/img/tmem_B.svg
