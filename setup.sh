#!/bin/sh
# Installs what the build needs (flex, bison, make, a C compiler, Perl's
# prove) where it is missing, builds txc, and runs it on an example.
# Usage: ./setup.sh [EXAMPLE]   (default: examples/reg_roundtrip.tx)
set -e
cd "$(dirname "$0")"
need=""
command -v flex >/dev/null 2>&1 || need="$need flex"
command -v bison >/dev/null 2>&1 || need="$need bison"
command -v make >/dev/null 2>&1 || need="$need make"
command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
command -v prove >/dev/null 2>&1 || need="$need perl"
[ -f /usr/include/stdio.h ] || need="$need libc6-dev" # a cc without the C library's headers
if [ -n "$need" ]; then
  echo "setup: installing$need"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
fi
make -j"$(nproc 2>/dev/null || echo 2)"
example=${1:-examples/reg_roundtrip.tx}
out=${TMPDIR:-/tmp}/txc-setup.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
echo "setup: bin/txc -v --emit=ir $example   (the lowered IR)"
bin/txc -v --emit=ir "$example"
echo "setup: bin/txc $example   (the CUDA)"
bin/txc "$example" -o "$out/kernel.cu"
cat "$out/kernel.cu"
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$ptxas" ]; then
  echo "setup: bin/txc --emit=cubin $example (txc-ptx, then ptxas), then bin/txc-run (checks every element against the emulator)"
  bin/txc --emit=cubin "$example" -o "$out/kernel.cubin"
  bin/txc-run "$example" --cubin "$out/kernel.cubin" || [ $? = 3 ]   # 3: no GPU here
else
  echo "setup: no ptxas (CUDA Toolkit): no cubin; bin/txc-emu runs the program on the CPU instead"
  bin/txc-emu --dump "$example"
fi
