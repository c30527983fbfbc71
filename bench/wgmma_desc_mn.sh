#!/bin/sh
# Builds and runs bench/wgmma_desc_mn.cu on a Hopper GPU (sm_90a): the
# MN-major (transposed) operand layouts of txc's tcgen05 emulator,
# checked through wgmma.mma_async with tnspB (see the .cu's comment). Prints a
# PASS/FAIL line per case and a summary; exits non-zero on a failure.
# (nvcc 13's -arch=sm_90a alone compiles the PTX for sm_90, where wgmma is
# refused: the -gencode names sm_90a for both.)
set -e
here=$(dirname "$0")
out=${TMPDIR:-/tmp}/wgmma_desc_mn.$$
PATH=$PATH:/usr/local/cuda/bin
nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o "$out" "$here/wgmma_desc_mn.cu"
rc=0
"$out" || rc=$?
rm -f "$out"
exit $rc
