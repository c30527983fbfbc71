#!/usr/bin/env bash
# elect.sync and tensor maps in memory (doc/txir.md, "elect.sync" and
# "Tensor maps in memory"): T.ptx.elect_sync(), T.cuda.copy_tensormap,
# T.ptx.tensormap.replace (each field), tensormap.cp_fenceproxy,
# fence.proxy_tensormap, and the bulk tensor copies through a map in global
# memory. Every expectation is computed here: elect.sync elects the lowest
# active lane of each warp (the PTX ISA: one leader among the active
# threads of membermask; txc passes __activemask()); the PTX of each
# tensormap.replace form is written out from the PTX ISA; the emulator's
# 128-byte encoding of a map is the one doc/txir.md lays out, encoded here
# in Perl from the T.tensormap line. ptxas checks need nvcc (else SKIP).
. "$(dirname "$0")/lib.sh"
EMU=$TXC_BIN/txc-emu
PARSE=$TXC_BIN/txc-parse
CUDA=$TXC_BIN/txc-cuda
D=$TOP/tests/tmreplace
export NPYPL=$TOP/tests/emu/npy.pl
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })

pl() { perl -e 'require $ENV{NPYPL};' -e "$1" -- "${@:2}"; }
# run PROGRAM ARGS...: sets $rc, stdout in $TMP/out, stderr in $TMP/err.
run() { rc=0; "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?; }
ran() { [ "$rc" = 0 ] && return; { echo "exit $rc"; cat "$TMP/err"; } | diag; return 1; }
# first_error TEXT: exit 1, and the first line of stderr is TEXT.
first_error() {
  [ "$rc" = 1 ] && [ "$(head -1 "$TMP/err")" = "$1" ] && return
  { echo "want exit 1 and: $1"; echo "got ($rc):"; head -3 "$TMP/err"; } | diag; return 1
}
# ptxas ARCH FILE.cu NAME: nvcc -cubin for ARCH without a warning (SKIP without nvcc)
ptxas() {
  if [ -z "$NVCC" ]; then skip "$3: nvcc -arch=$1" "no nvcc"; return; fi
  if "$NVCC" -arch="$1" -cubin -Werror all-warnings -o "$TMP/x.cubin" "$2" >"$TMP/nvcc" 2>&1; then
    ok "$3: nvcc -arch=$1 -cubin"
  else
    not_ok "$3: nvcc -arch=$1 -cubin"; head -20 "$TMP/nvcc" | diag
  fi
}

# ---- elect.sync ---------------------------------------------------------------
# bit 1: every thread; bit 2: threads with t % 3 == 1; bit 4: t % 32 >= 5.
# The elected one of each group in each warp: its lowest thread.
run "$EMU" --out A="$TMP/el.npy" "$D/elect.tx"
check "elect: runs" ran
check "elect: in each warp (80 threads, the last warp of 16), exactly the lowest active thread of each condition" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @a = unpack("l<*", $d); my @w = (0) x 80;
  my @cond = (sub { 1 }, sub { $_[0] % 3 == 1 }, sub { $_[0] % 32 >= 5 });
  for my $c (0 .. 2) { for my $warp (0 .. 2) {
    my ($first) = grep { $cond[$c]->($_) } $warp * 32 .. ($warp * 32 + 31 < 80 ? $warp * 32 + 31 : 79);
    $w[$first] += 1 << $c if defined $first } }
  for (0 .. 79) { if ($a[$_] != $w[$_]) { print STDERR "A[$_] = $a[$_], want $w[$_]\n"; exit 1 } } exit 0' "$TMP/el.npy"
run "$EMU" --kernel value --out B="$TMP/ev.npy" "$D/elect.tx"
check "elect: a value assigned: 1 in threads 1 and 33 (the lowest odd ones of each warp)" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @a = unpack("l<*", $d);
  exit((grep { $a[$_] != ($_ == 1 || $_ == 33 ? 1 : 0) } 0 .. 63) ? 1 : 0)' "$TMP/ev.npy"
run "$PARSE" "$D/elect.tx"
check "elect: T.cuda.elect_sync() (TVM) is T.ptx.elect_sync()" bash -c "! grep -q 'T.cuda.elect_sync' '$TMP/out' && [ \$(grep -c 'T.ptx.elect_sync()' '$TMP/out') = 4 ]"
run "$CUDA" "$D/elect.tx"
check "elect: CUDA: elect.sync _|p over __activemask(), as a bool" grep -qF \
  'asm volatile("{ .reg .pred p; elect.sync _|p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(e) : "r"(__activemask()));' "$TMP/out"
check "elect: CUDA: the conditions call it" grep -qF 'if (txc_elect_sync()) {' "$TMP/out"
cp "$TMP/out" "$TMP/elect.cu"
ptxas sm_90a "$TMP/elect.cu" "elect"
ptxas sm_90 "$TMP/elect.cu" "elect"
run "$CUDA" --arch sm_80 "$D/elect.tx"
check "elect: sm_80 is refused" first_error "$D/elect.tx:15:8: error: T.ptx.elect_sync() needs sm_90; the target is sm_80"

# ---- tensormap.replace, field by field --------------------------------------------
# Each kernel copies A_map (A: 64 x 64 float32, dims [64, 64], strides
# [256], box [64, 32]) into shared M and global Gm, replaces one field in
# both, and copies M to R. The encoding (doc/txir.md): "txcTMAP1", bytes
# 8-13 elemtype (CUtensorMapDataType: float32 7), rank - 1, interleave,
# swizzle mode, fill mode, L2 promotion mode (128 bytes: 2); 16 the
# parameter the address is in (1 + its index: A 1, B 2), 24 the byte
# offset; 32 five uint32 dims; 56 four uint64 strides of dimensions 1-4; 88
# five uint16 box extents; 98 five uint8 element strides.
perl -e '
  my $d = shift;
  my @f = (  # field, bits, ord, value (text), value (number), PTX operand text
    ["global_address", 64, undef, "T.address_of(B[1, 0])", undef],
    ["rank", 32, undef, "0", 0], ["box_dim", 32, 1, "8", 8], ["global_dim", 32, 0, "48", 48],
    ["global_stride", 64, 0, "512", 512], ["element_stride", 32, 1, "2", 2], ["elemtype", 32, undef, "6", 6],
    ["interleave_layout", 32, undef, "1", 1], ["swizzle_mode", 32, undef, "3", 3], ["fill_mode", 32, undef, "1", 1]);
  my %imm = map { $_ => 1 } qw(elemtype interleave_layout swizzle_mode fill_mode);
  for my $f (@f) {
    my ($name, $bits, $ord, $vt, $v) = @$f;
    my $ops = (defined $ord ? "$ord, " : "") . $vt;
    open my $o, ">", "$d/f_$name.tx" or die;
    print $o "from tvm.script import tirx as T\n\n\n\@T.prim_func\n",
      "def k(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"), R: T.Buffer((32,), \"uint32\"),\n",
      "      Gm: T.Buffer((32,), \"uint32\")):\n",
      "    A_map = T.tensormap(A, dims=[64, 64], strides=[256], box=[64, 32])\n",
      "    T.device_entry()\n    tid = T.thread_id([32])\n    M = T.alloc_shared([32], \"uint32\", align=128)\n",
      "    if tid == 0:\n        T.cuda.copy_tensormap(M, A_map)\n",
      "        T.ptx.tensormap.replace(\"$name\", M, $ops)\n",
      "        T.cuda.copy_tensormap(Gm, A_map)\n",
      "        T.ptx.tensormap.replace(\"$name\", Gm, $ops)\n",
      "    T.cuda.warp_sync()\n    R[tid] = M[tid]\n";
    close $o;
    # the encoding of A_map, then the field replaced
    my @b = (0) x 128;
    my $put = sub { my ($at, $n, $x) = @_; for (0 .. $n - 1) { $b[$at + $_] = $x % 256; $x = int($x / 256) } };
    @b[0 .. 7] = map { ord } split //, "txcTMAP1";
    @b[8 .. 13] = (7, 1, 0, 0, 0, 2);
    $put->(16, 4, 1); $put->(24, 8, 0);
    $put->(32, 4, 64); $put->(36, 4, 64); $put->(56, 8, 256); $put->(88, 2, 64); $put->(90, 2, 32);
    @b[98, 99] = (1, 1);
    if ($name eq "global_address") { $put->(16, 4, 2); $put->(24, 8, 256) }
    elsif ($name eq "rank") { $b[9] = $v }
    elsif ($name eq "box_dim") { $put->(88 + 2 * $ord, 2, $v) }
    elsif ($name eq "global_dim") { $put->(32 + 4 * $ord, 4, $v) }
    elsif ($name eq "global_stride") { $put->(56 + 8 * $ord, 8, $v) }
    elsif ($name eq "element_stride") { $b[98 + $ord] = $v }
    else { $b[{ elemtype => 8, interleave_layout => 10, swizzle_mode => 11, fill_mode => 12 }->{$name}] = $v }
    open $o, ">", "$d/f_$name.hex" or die; print $o unpack("H*", pack("C*", @b)), "\n"; close $o;
    # the PTX: tensormap.replace.tile.FIELD.SPACE.b1024.bBITS [%0], {ord, }(value|%1);
    open $o, ">", "$d/f_$name.ptx" or die;
    for my $sp ("shared::cta", "global") {
      print $o "tensormap.replace.tile.$name.$sp.b1024.b$bits [%0], ", (defined $ord ? "$ord, " : ""),
        ($imm{$name} ? $v : "%1"), ";\n" }
    close $o;
  }' "$TMP"
for f in global_address rank box_dim global_dim global_stride element_stride elemtype interleave_layout swizzle_mode fill_mode; do
  run "$EMU" --out R="$TMP/r.npy" --out Gm="$TMP/g.npy" "$TMP/f_$f.tx"
  check "replace $f: the emulator runs it" ran
  check "replace $f: the map in shared memory holds the encoding with $f replaced" pl '
    my (undef, $r) = npy_get($ARGV[0]); open my $h, "<", $ARGV[1] or die; my $w = <$h>; chomp $w;
    my $g = unpack("H*", $r); exit 0 if $g eq $w; print STDERR "got  $g\nwant $w\n"; exit 1' "$TMP/r.npy" "$TMP/f_$f.hex"
  check "replace $f: the map in global memory too" pl '
    my (undef, $r) = npy_get($ARGV[0]); open my $h, "<", $ARGV[1] or die; my $w = <$h>; chomp $w;
    exit(unpack("H*", $r) eq $w ? 0 : 1)' "$TMP/g.npy" "$TMP/f_$f.hex"
  run "$CUDA" "$TMP/f_$f.tx"
  cp "$TMP/out" "$TMP/f_$f.cu"
  check "replace $f: CUDA: the PTX of the shared::cta and the global form" \
    bash -c "while read -r l; do grep -qF \"asm volatile(\\\"\$l\\\"\" '$TMP/f_$f.cu' || { echo \"missing: \$l\"; exit 1; }; done <'$TMP/f_$f.ptx'"
  ptxas sm_90a "$TMP/f_$f.cu" "replace $f"
  run "$CUDA" --arch sm_100a "$TMP/f_$f.tx"
  cp "$TMP/out" "$TMP/f100_$f.cu"
  ptxas sm_100a "$TMP/f100_$f.cu" "replace $f"
done
run "$CUDA" --arch sm_90 "$TMP/f_rank.tx"
check "replace: sm_90 (without a) is refused" first_error "$TMP/f_rank.tx:13:9: error: T.ptx.tensormap.replace() needs sm_90a; the target is sm_90"

# ---- maps in global memory: loads and stores through them -------------------------
pl 'npy_put($ARGV[0], "<f4", [64, 64], pack("f<*", map { $_ * 0.5 - 7 } 0 .. 4095))' "$TMP/a.npy"
run "$EMU" --kernel stride --in A="$TMP/a.npy" --out C="$TMP/c.npy" --out Out="$TMP/o.npy" "$D/emu.tx"
check "stride: runs" ran
check "stride: global_stride 512 and global_dim 32: Out row r is A's row 2r" pl '
  my (undef, $o) = npy_get($ARGV[0]); my @o = unpack("f<*", $o);
  for my $r (0 .. 31) { for my $c (0 .. 63) { my $w = (2 * $r * 64 + $c) * 0.5 - 7;
    if ($o[$r * 64 + $c] != $w) { print STDERR "Out[$r, $c] = $o[$r * 64 + $c], want $w\n"; exit 1 } } } exit 0' "$TMP/o.npy"
check "stride: s2g through a map moved to C (global_address): C is Out" bash -c "cmp -s <(tail -c 8192 '$TMP/o.npy') <(tail -c 8192 '$TMP/c.npy')"
pl 'npy_put($ARGV[0], "<f4", [48, 64], pack("f<*", map { 1000 + $_ } 0 .. 3071))' "$TMP/b.npy"
run "$EMU" --in A="$TMP/a.npy" --in B="$TMP/b.npy" --out Out="$TMP/eo.npy" --out G="$TMP/eg.npy" "$TOP/examples/tma_replace.tx"
check "examples/tma_replace.tx: runs" ran
check "examples/tma_replace.tx: Out rows 0-47 are B, rows 48-63 zeros (past global_dim 48)" pl '
  my (undef, $o) = npy_get($ARGV[0]); my @o = unpack("f<*", $o);
  for my $i (0 .. 4095) { my $w = $i < 3072 ? 1000 + $i : 0;
    if ($o[$i] != $w) { printf STDERR "Out[%d, %d] = %s, want %s\n", $i / 64, $i % 64, $o[$i], $w; exit 1 } } exit 0' "$TMP/eo.npy"
check "examples/tma_replace.tx: G zeroed at the end" pl 'my (undef, $g) = npy_get($ARGV[0]); exit($g eq "\0" x 256 ? 0 : 1)' "$TMP/eg.npy"
run "$CUDA" "$TOP/examples/tma_replace.tx"
cp "$TMP/out" "$TMP/ex.cu"
check "examples/tma_replace.tx: CUDA: the load takes the global map's address" grep -qF 'txc_tma_load_2d(&S[0], &bar[0], &G[bx * 32], 0, bx * 32);' "$TMP/ex.cu"
check "examples/tma_replace.tx: CUDA: cp_fenceproxy and the acquire" bash -c "
  grep -qF 'tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;' '$TMP/ex.cu' &&
  grep -qF 'fence.proxy.tensormap::generic.acquire.gpu [%0], 128;' '$TMP/ex.cu'"
ptxas sm_90a "$TMP/ex.cu" "examples/tma_replace.tx"
run "$CUDA" --arch sm_100a "$TOP/examples/tma_replace.tx"
cp "$TMP/out" "$TMP/ex100.cu"
ptxas sm_100a "$TMP/ex100.cu" "examples/tma_replace.tx"

# ---- the emulator's refusals (tests/tmreplace/bad.tx) ---------------------------
B=$D/bad.tx
L="T.ptx.cp_async.bulk.tensor.g2c"
emu_bad() { run "$EMU" --kernel "$1" "$B"; check "emulator refuses $1" first_error "$B:$2: error: thread (cta 0, thread 0): $3"; }
emu_bad nofence 22:88 "$L: missing fence.proxy.tensormap: the tensor map at byte 0 of global buffer 'G' was not acquired by this thread (T.ptx.fence.proxy_tensormap) since it was last written"
emu_bad otherthread 42:88 "$L: missing fence.proxy.tensormap: the tensor map at byte 0 of global buffer 'G' was not acquired by this thread (T.ptx.fence.proxy_tensormap) since it was last written"
emu_bad stale 63:88 "$L: missing fence.proxy.tensormap: the tensor map at byte 0 of global buffer 'G' was not acquired by this thread (T.ptx.fence.proxy_tensormap) since it was last written"
emu_bad garbage 77:88 "$L: the tensor map at byte 0 of global buffer 'G' holds no tensor map (the emulator knows the maps T.cuda.copy_tensormap wrote, and copies of them)"
emu_bad replace_garbage 87:41 "T.ptx.tensormap.replace: the tensor map at byte 0 of shared buffer 'M' holds no tensor map (the emulator knows the maps T.cuda.copy_tensormap wrote, and copies of them)"
emu_bad partial 99:9 "T.ptx.tensormap.cp_fenceproxy is .sync.aligned: all 32 threads of warp 0 execute it together; 1 do here"
emu_bad badbox 119:88 "$L: the tensor map at byte 0 of global buffer 'G' has a box row of 12 bytes (box_dim 3 of 4-byte elements), not a multiple of 16"
emu_bad rank 138:88 "$L: the tensor map at byte 0 of global buffer 'G' has rank 2; the copy names rank 3"
emu_bad misaligned 151:35 "T.ptx.tensormap.cp_fenceproxy: the destination, byte 16 of global buffer 'G', is not aligned to 64 bytes"

# ---- sema's refusals --------------------------------------------------------------
# bad LINE EXPECTED: a kernel whose last line is LINE; txc-parse's first error.
bad() {
  cat >"$TMP/bad.tx" <<EOF
from tvm.script import tirx as T


@T.prim_func
def k(A: T.Buffer((64, 64), "float32"), G: T.Buffer((32,), "uint32")):
    A_map = T.tensormap(A, dims=[64, 64], strides=[256], box=[64, 32])
    T.device_entry()
    tid = T.thread_id([32])
    M = T.alloc_shared([32], "uint32", align=128)
    S = T.alloc_shared([2048], "float32", align=128)
    bar = T.alloc_shared([1], "uint64")
    R = T.alloc_local([32], "uint32")
    U = T.alloc_shared([32], "uint32")
    $1
EOF
  run "$PARSE" "$TMP/bad.tx"
  check "refused: $1" first_error "$TMP/bad.tx:14:$2"
}
bad 'T.ptx.tensormap.replace("boxdim", M, 1, 16)' '29: error: tensormap.replace has no field "boxdim"; the fields are global_address, rank, box_dim, global_dim, global_stride, element_stride, elemtype, interleave_layout, swizzle_mode, fill_mode'
bad 'T.ptx.tensormap.replace("box_dim", M, 16)' '5: error: tensormap.replace of "box_dim" takes (field, map, ord, value), not 3 operands'
bad 'T.ptx.tensormap.replace("rank", M, 1, 2)' '5: error: tensormap.replace of "rank" takes (field, map, value), not 4 operands'
bad 'T.ptx.tensormap.replace("box_dim", M, 5, 16)' '43: error: the ord of "box_dim" is a dimension, 0 to 4, not 5'
bad 'T.ptx.tensormap.replace("global_stride", M, 4, 512)' '49: error: the ord of "global_stride" is a stride (of dimension ord + 1), 0 to 3, not 4'
bad 'T.ptx.tensormap.replace("box_dim", M, tid, 8)' '43: error: the ord of tensormap.replace is a constant (PTX takes an immediate)'
bad 'T.ptx.tensormap.replace("box_dim", M, 1, 300)' '46: error: the value of "box_dim" is the box'"'"'s extent in dimension ord (1 to 256), not 300'
bad 'T.ptx.tensormap.replace("element_stride", M, 1, 9)' '53: error: the value of "element_stride" is the element stride in dimension ord (1 to 8), not 9'
bad 'T.ptx.tensormap.replace("elemtype", M, tid)' '44: error: the value of "elemtype" is a constant (PTX takes an immediate)'
bad 'T.ptx.tensormap.replace("elemtype", M, 13)' '44: error: the value of "elemtype" is the element type, as CUtensorMapDataType (0 U8 ... 9 BF16, 10 F32 with FTZ, 11 TF32, 12 TF32 with FTZ), not 13'
bad 'T.ptx.tensormap.replace("swizzle_mode", M, 4)' '48: error: the value of "swizzle_mode" is the swizzle (0 none, 1 32 bytes, 2 64 bytes, 3 128 bytes), not 4'
bad 'T.ptx.tensormap.replace("interleave_layout", M, 3)' '53: error: the value of "interleave_layout" is the interleave (0 none, 1 16 bytes, 2 32 bytes), not 3'
bad 'T.ptx.tensormap.replace("fill_mode", M, 2)' '45: error: the value of "fill_mode" is the out-of-bounds fill (0 zeros, 1 NaN), not 2'
bad 'T.ptx.tensormap.replace("global_stride", M, 0, 100)' '52: error: the value of "global_stride" is a byte stride, a multiple of 16, not 100'
bad 'T.ptx.tensormap.replace("global_dim", M, 0, 0)' '49: error: the value of "global_dim" is the tensor'"'"'s extent in dimension ord (1 to 2^32 - 1), not 0'
bad 'T.ptx.tensormap.replace("rank", M, 5)' '40: error: the value of "rank" is the rank minus 1 (0 to 4), not 5'
bad 'T.ptx.tensormap.replace("rank", M, T.float32(1))' '40: error: the value of "rank" is a 32-bit integer, not float32'
bad 'T.ptx.tensormap.replace("box_dim", R, 0, 8)' '40: error: T.ptx.tensormap.replace() takes a tensor map in shared or global memory; '"'"'R'"'"' is in local memory'
bad 'T.ptx.tensormap.replace("global_address", M, T.address_of(M[0]))' '50: error: the value of "global_address" is an address in global memory; '"'"'M'"'"' is in shared memory'
bad 'T.ptx.tensormap.replace("global_address", M, 5)' '50: error: the value of "global_address" is an address (T.address_of(x)) or a 64-bit integer, not int'
bad 'T.ptx.tensormap.replace("rank", U, 1)' '37: error: T.ptx.tensormap.replace(): a tensor map in shared memory is 128-byte aligned; allocate '"'"'U'"'"' with align=128'
bad 'T.ptx.tensormap.cp_fenceproxy(M, M)' '35: error: T.ptx.tensormap.cp_fenceproxy() takes a tensor map in global memory; '"'"'M'"'"' is in shared memory'
bad 'T.ptx.tensormap.cp_fenceproxy(G, G)' '38: error: T.ptx.tensormap.cp_fenceproxy() copies a tensor map from shared memory; '"'"'G'"'"' is in global memory'
bad 'T.ptx.tensormap.cp_fenceproxy(G, M, 64)' '41: error: T.ptx.tensormap.cp_fenceproxy() moves a whole tensor map: its size is 128 bytes, not 64'
bad 'T.ptx.fence.proxy_tensormap(M)' '33: error: T.ptx.fence.proxy_tensormap() takes a tensor map in global memory; '"'"'M'"'"' is in shared memory'
bad 'T.ptx.fence.proxy_tensormap(G, 256)' '36: error: T.ptx.fence.proxy_tensormap() moves a whole tensor map: its size is 128 bytes, not 256'
bad 'T.cuda.copy_tensormap(M, G)' '30: error: T.cuda.copy_tensormap() copies a kernel-parameter tensor map (T.tensormap), not a buffer'
bad 'T.cuda.copy_tensormap(R, A_map)' '27: error: T.cuda.copy_tensormap() takes a tensor map in shared or global memory; '"'"'R'"'"' is in local memory'
bad 'T.ptx.cp_async.bulk.tensor.g2c(2, T.address_of(S[0]), T.address_of(bar[0]), M, 0, 0)' '81: error: T.ptx.cp_async.bulk.tensor.g2c() takes a tensor map in global memory; '"'"'M'"'"' is in shared memory'
bad 'T.ptx.cp_async.bulk.tensor.g2c(6, T.address_of(S[0]), T.address_of(bar[0]), G, 0, 0)' '36: error: T.ptx.cp_async.bulk.tensor.g2c() takes rank 1 to 5, not 6'
bad 'T.ptx.cp_async.bulk.tensor.g2c(2, T.address_of(S[0]), T.address_of(bar[0]), G, 0)' '5: error: T.ptx.cp_async.bulk.tensor.g2c() gives 1 coordinate for rank 2'
bad 'T.ptx.cp_async.bulk.tensor.s2g(2, T.address_of(S[0]), T.float32(1), 0, 0)' '59: error: T.ptx.cp_async.bulk.tensor.s2g() takes a tensor map (T.tensormap) or the global address of one here, not float32'
bad 'T.ptx.elect_sync()' '5: error: the result of T.ptx.elect_sync() is not used: it is a boolean, as in `if T.ptx.elect_sync():`'
bad 'T.ptx.elect_sync(tid, tid, 0xFFFFFFFF)' '5: error: T.ptx.elect_sync(d, p, membermask), TVM'"'"'s form with outputs, is not supported: txc'"'"'s T.ptx.elect_sync() is a boolean over the active threads, as in `if T.ptx.elect_sync():`'
bad 'x = tid >= 3 and T.ptx.elect_sync()' '22: error: T.ptx.elect_sync() where only some threads evaluate it (the right of '"'"'and'"'"' or '"'"'or'"'"', a branch of '"'"'x if c else y'"'"'): elect.sync chooses among the threads that reach it, which txc does not follow inside an expression; make it the condition of an inner `if`'
bad 'x = 1 if tid > 3 else T.cast(T.ptx.elect_sync(), "int32")' '34: error: T.ptx.elect_sync() where only some threads evaluate it (the right of '"'"'and'"'"' or '"'"'or'"'"', a branch of '"'"'x if c else y'"'"'): elect.sync chooses among the threads that reach it, which txc does not follow inside an expression; make it the condition of an inner `if`'
bad 'x = T.ptx.elect_sync(1)' '9: error: T.ptx.elect_sync() takes 0 positional arguments but 1 was given'
bad 'T.ptx.tensormap.replace.tile.rank.shared__cta.b1024.b64(M, 1)' '5: error: the PTX instruction "tensormap.replace.tile.rank.shared::cta.b1024.b64": txc does not emit .b64 there; it takes .b32 (tensormap.replace.tile.(rank|elemtype|interleave_layout|swizzle_mode|fill_mode)[.global|shared::cta].b1024.b32)'
bad 'T.ptx.tensormap.replace.tile.box_dim.shared__cta.b1024.b32(M, 8)' '5: error: the PTX instruction "tensormap.replace.tile.box_dim.shared::cta.b1024.b32" takes 3 operands ([addr], ord, new_val), not 2'

# ---- TVM's spellings: the PTX dialect rewrites them into txc's builtins ----------
cat >"$TMP/d.tx" <<'EOF'
from tvm.script import tirx as T


@T.prim_func
def k(A: T.Buffer((64, 64), "float32"), G: T.Buffer((32,), "uint32")):
    A_map = T.tensormap(A, dims=[64, 64], strides=[256], box=[64, 32])
    T.device_entry()
    tid = T.thread_id([32])
    M = T.alloc_shared([32], "uint32", align=128)
    T.cuda.copy_tensormap(M, A_map)
    T.ptx.tensormap.replace.tile.elemtype.global_.b1024.b32(G, 7)
    T.ptx.tensormap.replace.tile.box_dim.b1024.b32(M, 1, 16)
    T.ptx.tensormap.replace.tile.global_stride.shared__cta.b1024.b64(M, 0, 512)
    T.ptx["tensormap.replace.tile.global_address.shared::cta.b1024.b64"](M, T.address_of(A[0, 0]))
    T.ptx.tensormap.cp_fenceproxy.global_.shared__cta.tensormap__generic.release.gpu.sync.aligned(G, M, 128)
    T.ptx.fence.proxy.tensormap__generic.acquire.gpu(G, 128)
EOF
cat >"$TMP/d.want" <<'EOF'
    T.cuda.copy_tensormap(M, A_map)
    T.ptx.tensormap.replace("elemtype", G, 7)
    T.ptx.tensormap.replace("box_dim", M, 1, 16)
    T.ptx.tensormap.replace("global_stride", M, 0, 512)
    T.ptx.tensormap.replace("global_address", M, T.address_of(A[0, 0]))
    T.ptx.tensormap.cp_fenceproxy(G, M, 128)
    T.ptx.fence.proxy_tensormap(G, 128)
EOF
run "$PARSE" "$TMP/d.tx"
tail -7 "$TMP/out" >"$TMP/d.got"
same_text "the PTX dialect's tensormap instructions become txc's builtins" "$TMP/d.want" "$TMP/d.got"
done_testing
