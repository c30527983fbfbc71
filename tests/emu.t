#!/usr/bin/env bash
# txc-emu, the CPU emulator. Inputs are .npy files written here (Perl,
# tests/emu/npy.pl); every expected output is computed here from what the
# program must do, never taken from txc-emu's own output. The programs are
# the synchronous examples and tests/emu/*.tx (lowered ones written by
# hand, since txc-lower is not the emulator's to trust).
. "$(dirname "$0")/lib.sh"
EMU=$TXC_BIN/txc-emu
D=$TOP/tests/emu
X=$TOP/examples
export NPYPL=$D/npy.pl

# pl CODE ARGS...: Perl with the .npy helpers loaded.
pl() { perl -e 'require $ENV{NPYPL};' -e "$1" -- "${@:2}"; }
# run ARGS...: txc-emu; sets $rc, stdout in $TMP/out, stderr in $TMP/err.
run() { rc=0; "$EMU" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?; }
# ran: the last run succeeded (else shows its stderr).
ran() { [ "$rc" = 0 ] && return; { echo "exit $rc"; cat "$TMP/err"; } | diag; return 1; }
# fails TEXT: exit 1, nothing on stdout, stderr holds TEXT.
fails() {
  [ "$rc" = 1 ] && [ ! -s "$TMP/out" ] && grep -qF -- "$1" "$TMP/err" && return
  { echo "want exit 1 and: $1"; echo "got ($rc):"; cat "$TMP/out" "$TMP/err"; } | diag
  return 1
}
# stderr_is FILE: stderr is exactly the expected text in FILE.
stderr_is() { cmp -s "$1" "$TMP/err" && return; diff -u "$1" "$TMP/err" | diag; return 1; }
# same_data A.npy B.npy: the arrays' bytes are equal.
same_data() { pl 'my (undef, $a) = npy_get($ARGV[0]); my (undef, $b) = npy_get($ARGV[1]); exit($a eq $b ? 0 : 1)' "$1" "$2"; }
# hashes_equal P Q: the report gives parameters P and Q the same hash.
hashes_equal() {
  local p q
  p=$(awk -v n="$1" '$1 == n { print $2 }' "$TMP/out"); q=$(awk -v n="$2" '$1 == n { print $2 }' "$TMP/out")
  [ -n "$p" ] && [ "$p" = "$q" ]
}

# ---- examples: the synchronous ones, checked element by element --------------

n=$((4096 * 4096 * 2))
{ pl 'print npy_bytes("<f2", [4096, 4096], "")'; head -c $n /dev/urandom; } >"$TMP/big.npy"
for ex in copy_tile copy_tile_swizzled; do
  run --in A="$TMP/big.npy" --out B="$TMP/$ex.npy" "$X/$ex.tx"
  check "$ex: runs" ran
  check "$ex: B is A, bit for bit (NaN patterns included)" same_data "$TMP/big.npy" "$TMP/$ex.npy"
  check "$ex: B is written as <f2 (4096, 4096)" \
    pl 'my ($h) = npy_get($ARGV[0]); exit($h =~ /^\{.descr.: .<f2., .fortran_order.: False, .shape.: \(4096, 4096\), \}\s*$/ ? 0 : 1)' "$TMP/$ex.npy"
  run "$X/$ex.tx"
  check "$ex: with random data, B's hash is A's" hashes_equal A B
done

run --out B="$TMP/rr.npy" "$X/reg_roundtrip.tx"
check "reg_roundtrip: runs" ran
check "reg_roundtrip: B[i, k] == i * 100 + k + 1 for all 256 elements" pl '
  my ($h, $d) = npy_get($ARGV[0]); my @v = unpack("f<*", $d);
  exit 1 unless @v == 256;
  for my $i (0..31) { for my $k (0..7) { exit 1 if $v[$i * 8 + $k] != $i * 100 + $k + 1 } }' "$TMP/rr.npy"
check "the printed hash is the 64-bit FNV-1a of the bytes" pl '
  my (undef, $d) = npy_get($ARGV[0]); use integer; my $h = 0xcbf29ce484222325;
  for my $c (unpack("C*", $d)) { $h ^= $c; $h *= 0x100000001b3 }
  no integer; open my $f, "<", $ARGV[1]; my $line = <$f>;
  exit($line eq sprintf("B %016x\n", $h) ? 0 : 1)' "$TMP/rr.npy" "$TMP/out"

# every example without asynchronous copies or PTX builtins runs
for f in "$X"/*.tx; do
  grep -qE 'copy_async|T\.ptx\.' "$f" && continue
  run "$f" $(sed -n 's/^# txc-run: //p' "$f") # the values of its scalar parameters
  check "$(basename "$f"): runs to the end" ran
done

# seed 001 as written (copy_async, dispatch="ldgsts") and lowered by hand
# (4 x T.ptx.cp_async of 16 bytes per thread): B is A, bit for bit
pl 'srand(1); npy_put($ARGV[0], "<f2", [128, 32], pack("v*", map { int(rand(65536)) } 1..4096))' "$TMP/ld_a.npy"
run --in A="$TMP/ld_a.npy" --out B="$TMP/ld_b.npy" "$X/ldgsts_load.tx"
check "ldgsts_load (copy_async, cp.async kind): runs" ran
check "ldgsts_load: B is A, bit for bit" same_data "$TMP/ld_a.npy" "$TMP/ld_b.npy"
run --in A="$TMP/ld_a.npy" --out B="$TMP/ld_lb.npy" "$D/lowered_ldgsts.tx"
check "ldgsts_load lowered by hand (T.ptx.cp_async, commit, wait): runs" ran
check "ldgsts_load lowered by hand: B is A, bit for bit" same_data "$TMP/ld_a.npy" "$TMP/ld_lb.npy"
# seed 000 as written: Tx.wg.copy_async registers -> tensor memory ->
# registers (the tile op, runtime/emu-tmem.c): B is A, bit for bit
pl 'npy_put($ARGV[0], "<f2", [128, 8], pack("v*", map { ($_ * 40503 + 11) & 0xffff } 0..1023))' "$TMP/tc_a.npy"
run --in A="$TMP/tc_a.npy" --out B="$TMP/tc_b.npy" "$X/tcgen05_roundtrip.tx"
check "tcgen05_roundtrip (Tx.wg.copy_async through tensor memory): runs" ran
check "tcgen05_roundtrip: B is A, bit for bit" same_data "$TMP/tc_a.npy" "$TMP/tc_b.npy"
# seed 004's demonstration as written (the tcgen05_cp tile op, commit,
# wait, the tcgen05_ldst tile op) and lowered (four .128x256b copies with a
# 128B-swizzle descriptor each, commit, wait; tcgen05.ld): B is A, bit for bit
pl 'npy_put($ARGV[0], "<f4", [128, 32], pack("V*", map { ($_ * 2654435761 + 7) & 0x3fffffff } 0..4095))' "$TMP/tcc_a.npy"
run --in A="$TMP/tcc_a.npy" --out B="$TMP/tcc_s.npy" "$X/tcgen05_copy.tx"
check "tcgen05_copy as written (tile ops): runs" ran
check "tcgen05_copy as written: B is A, bit for bit" same_data "$TMP/tcc_a.npy" "$TMP/tcc_s.npy"
"$TXC_BIN/txc" --arch=sm_100a --emit=ir "$X/tcgen05_copy.tx" -o "$TMP/tcc_low.tx"
run --in A="$TMP/tcc_a.npy" --out B="$TMP/tcc_b.npy" "$TMP/tcc_low.tx"
check "tcgen05_copy lowered (tcgen05_cp, commit, wait, tcgen05.ld): runs" ran
check "tcgen05_copy lowered: B is A, bit for bit" same_data "$TMP/tcc_a.npy" "$TMP/tcc_b.npy"
# seed 002: copy_async through tma (a load completing on the mbarrier, a
# store in the bulk group), with every float16 bit pattern of A kept
pl 'npy_put($ARGV[0], "<f2", [64, 64], pack("v*", map { ($_ * 40503 + 11) & 0xffff } 0..4095))' "$TMP/tls_a.npy"
run --in A="$TMP/tls_a.npy" --out B="$TMP/tls_b.npy" "$X/tma_load_store.tx"
check "tma_load_store (copy_async through tma): runs" ran
check "tma_load_store: B is A, bit for bit" same_data "$TMP/tls_a.npy" "$TMP/tls_b.npy"

# ---- tests/emu: layouts, grids, registers ------------------------------------

# A[r, c] = r * 1000 + c, so that every element is distinct
pl 'my @a; for my $r (0..63) { push @a, map { $r * 1000 + $_ } 0..95 }
    npy_put($ARGV[0], "<f4", [64, 96], pack("f<*", @a))' "$TMP/t_a.npy"
run --in A="$TMP/t_a.npy" --out B="$TMP/t_b.npy" "$D/transpose.tx"
check "transpose: runs on a 3 x 2 grid" ran
check "transpose: B[c, r] == A[r, c]" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("f<*", $d); exit 1 unless @b == 6144;
  for my $c (0..95) { for my $r (0..63) { exit 1 if $b[$c * 64 + $r] != $r * 1000 + $c } }' "$TMP/t_b.npy"

run --kernel swizzle --out B="$TMP/s_b.npy" "$D/swizzle.tx"
check "swizzle: runs" ran
check "swizzle: the storage holds L at swizzle(L) (ComposeLayout(3, 3, 3), tirx.md formula)" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("v*", $d); exit 1 unless @b == 512;
  for my $l (0..511) { exit 1 if $b[swz(3, 3, 3, $l)] != $l }' "$TMP/s_b.npy"
check "swizzle: which is not the identity" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("v*", $d); exit($b[64] != 64 ? 0 : 1)' "$TMP/s_b.npy"

# A's bits are (i * 40503) mod 2^16: all kinds of float16, NaNs included
pl 'npy_put($ARGV[0], "<f2", [16, 128], pack("v*", map { ($_ * 40503) & 0xffff } 0..2047))' "$TMP/m_a.npy"
run --kernel mma --in A="$TMP/m_a.npy" --out C="$TMP/m_c.npy" "$D/swizzle.tx"
check "mma_shared_layout: runs" ran
check "mma_shared_layout(float16, 3, (16, 128)): column blocks of 64, 128-byte swizzle; element loads keep NaN bits" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @c = unpack("v*", $d); exit 1 unless @c == 2048;
  for my $r (0..15) { for my $k (0..127) {
    my $a = ($k >> 6) * 1024 + $r * 64 + ($k & 63);
    exit 1 if $c[swz(3, 3, 3, $a)] != (($r * 128 + $k) * 40503 & 0xffff) } }' "$TMP/m_c.npy"

pl 'npy_put($ARGV[0], "<f2", [256, 64], pack("v*", map { ($_ * 40503) & 0xffff } 0..16383))' "$TMP/l_a.npy"
run --in A="$TMP/l_a.npy" --out B="$TMP/l_b.npy" "$D/lowered_copy.tx"
check "lowered copy (pointer_offset, copy_bytes): runs" ran
check "lowered copy: B is A" same_data "$TMP/l_a.npy" "$TMP/l_b.npy"

run --out B="$TMP/lr.npy" "$D/lowered_regs.tx"
check "lowered register round trip: runs" ran
check "lowered register round trip: B[i, k] == i * 100 + k + 1" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @v = unpack("f<*", $d); exit 1 unless @v == 256;
  for my $i (0..255) { exit 1 if $v[$i] != int($i / 8) * 100 + $i % 8 + 1 }' "$TMP/lr.npy"

pl 'npy_put($ARGV[0], "<f2", [32, 64], pack("v*", map { ($_ * 7919 + 3) & 0xffff } 0..2047))' "$TMP/z_a.npy"
run --in A="$TMP/z_a.npy" --out B="$TMP/z_b.npy" "$D/lowered_swizzle.tx"
check "lowered swizzled load: runs" ran
check "lowered swizzled load: the hand-written XOR agrees with the layout (B is A)" same_data "$TMP/z_a.npy" "$TMP/z_b.npy"

pl 'npy_put($ARGV[0], "<f2", [256, 8], pack("v*", map { $_ * 3 + 1 } 0..2047))' "$TMP/w_a.npy"
run --kernel wg --in A="$TMP/w_a.npy" --out B="$TMP/w_b.npy" "$D/regs.tx"
check "warpgroup register copy: tid_in_wg is relative to each warpgroup (B is A)" same_data "$TMP/w_a.npy" "$TMP/w_b.npy"
pl 'npy_put($ARGV[0], "<f4", [8, 32], pack("f<*", 0..255))' "$TMP/i_a.npy"
run --kernel interleaved --in A="$TMP/i_a.npy" --out B="$TMP/i_b.npy" "$D/regs.tx"
check "interleaved register layout: lane l holds column l (B[l * 8 + i] == A[i, l])" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("f<*", $d);
  for my $l (0..31) { for my $i (0..7) { exit 1 if $b[$l * 8 + $i] != $i * 32 + $l } }' "$TMP/i_b.npy"
pl 'npy_put($ARGV[0], "<i4", [64, 16], pack("l<*", map { -$_ * 12345 } 0..1023))' "$TMP/r_a.npy"
run --kernel rows --in A="$TMP/r_a.npy" --out B="$TMP/r_b.npy" "$D/regs.tx"
check "thread-scope copies through registers: B is A" same_data "$TMP/r_a.npy" "$TMP/r_b.npy"
pl 'npy_put($ARGV[0], "<f4", [32, 4], pack("f<*", map { $_ + 0.5 } 0..127))' "$TMP/p_a.npy"
run --kernel spread --in A="$TMP/p_a.npy" --out B="$TMP/p_b.npy" "$D/regs.tx"
check "a warp-level register layout in a CTA copy: every warp holds it" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("f<*", $d); exit 1 unless @b == 256;
  for my $t (0..63) { for my $j (0..3) { exit 1 if $b[$t * 4 + $j] != ($t % 32) * 4 + $j + 0.5 } }' "$TMP/p_b.npy"
run --kernel back --out B="$TMP/k_b.npy" "$D/regs.tx"
check "registers -> global, one warp copy per warp" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("s<*", $d); exit 1 unless @b == 256;
  for my $r (0..63) { for my $j (0..3) { exit 1 if $b[$r * 4 + $j] != ($r % 32) * 10 + $j } }' "$TMP/k_b.npy"

run --kernel poison --out B="$TMP/po_b.npy" --out C="$TMP/po_c.npy" "$D/misc.tx"
check "unwritten shared memory reads as 0xAB" pl '
  my (undef, $d) = npy_get($ARGV[0]); exit($d eq "\xAB" x 64 ? 0 : 1)' "$TMP/po_b.npy"
check "unwritten registers read as 0xAB" pl '
  my (undef, $d) = npy_get($ARGV[0]); exit($d eq "\xAB" x 128 ? 0 : 1)' "$TMP/po_c.npy"
run --kernel loops --out B="$TMP/lo_b.npy" "$D/misc.tx"
check "per-thread trip counts and both branches of an if" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("l<*", $d);
  for my $t (0..63) { exit 1 if $b[$t] != $t + 1000 * ($t % 2) }' "$TMP/lo_b.npy"
run --kernel grid --out B="$TMP/g_b.npy" "$D/misc.tx"
check "a 2 x 2 x 2 grid: the CTA ids per dimension" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("l<*", $d);
  for my $z (0..1) { for my $y (0..1) { for my $x (0..1) {
    exit 1 if $b[$z * 4 + $y * 2 + $x] != $x + 10 * $y + 100 * $z } } }' "$TMP/g_b.npy"
run --kernel buffers "$D/misc.tx"
check "T.Buffer parameters, every barrier, fences, a cluster copy: B's hash is A's" hashes_equal A B
run --kernel nothing "$D/misc.tx"
check "two parameters of one run get different random data" pl '
  open my $f, "<", $ARGV[0]; my @l = <$f>; exit(@l == 2 && (split " ", $l[0])[1] ne (split " ", $l[1])[1] ? 0 : 1)' "$TMP/out"

# ---- scalar semantics, against values worked out by hand ------------------------

pl 'npy_put($ARGV[0], "<i4", [16], pack("l<*", -7, 2, 7, -2, 200, 100, 0, 0x40000000, 4, 2049, 2051, 70000, 0, 0, 0, 0))' "$TMP/x.npy"
pl 'my @y = (
    0xC02CCCCD,                    #  0: -2.7
    unpack("V", pack("f<", 3e10)), #  1
    0x7FC00000,                    #  2: NaN
    0x3F800000,                    #  3: 1.0
    unpack("V", pack("f<", 65504)),  #  4
    unpack("V", pack("f<", 65520)),  #  5
    0x3F800000 | 1 << 12,          #  6: 1 + 2^-11
    0x3F800000 | 3 << 12,          #  7: 1 + 3 * 2^-11
    (127 - 24) << 23,              #  8: 2^-24
    (127 - 25) << 23,              #  9: 2^-25
    (127 - 25) << 23 | 1 << 22,    # 10: 3 * 2^-26
    0x80000000,                    # 11: -0.0
    0x3F800000 | 1 << 12 | 1,      # 12: 1 + 2^-11 + 2^-23
    unpack("V", pack("f<", 2048)), # 13
    unpack("V", pack("f<", 3)),    # 14
    unpack("V", pack("f<", -5.5)), # 15
    0x3F800000 | 1 << 15,          # 16: 1 + 2^-8
    0x3F800000 | 3 << 15,          # 17: 1 + 3 * 2^-8
    0x7F7FFFFF,                    # 18: the largest float
    unpack("V", pack("f<", 448)),      # 19
    unpack("V", pack("f<", 1000)),     # 20
    (127 - 9) << 23,                   # 21: 2^-9
    unpack("V", pack("f<", 1.0625)),   # 22
    unpack("V", pack("f<", 1.1875)),   # 23
    unpack("V", pack("f<", 57344)),    # 24
    unpack("V", pack("f<", 1e6)),      # 25
    unpack("V", pack("f<", 1.125)),    # 26
    unpack("V", pack("f<", 1.375)),    # 27
    unpack("V", pack("f<", -1000)),    # 28
    0, 0, 0);
  npy_put($ARGV[0], "<f4", [32], pack("V*", @y))' "$TMP/y.npy"
run --in X="$TMP/x.npy" --in Y="$TMP/y.npy" --out O="$TMP/o.npy" --out H="$TMP/h.npy" \
    --out G="$TMP/g.npy" --out E="$TMP/e.npy" --out F="$TMP/f.npy" "$D/arith.tx"
check "arith: runs" ran
# expect FILE FORMAT VALUES...: the array holds exactly these values.
expect() {
  pl 'my ($file, $fmt, @want) = @ARGV; @want = map { /^0x/ ? hex : $_ } @want;
      my (undef, $d) = npy_get($file); my @got = unpack($fmt, $d);
      my $bad = join ", ", map { "[$_] $got[$_] want $want[$_]" } grep { $got[$_] != $want[$_] } 0..$#want;
      exit 0 if !$bad && @got == @want; print STDERR "$bad\n"; exit 1' "$@" 2>&1 | diag
  return "${PIPESTATUS[0]}"
}
check "integers: floor // and %, wrapping, shifts, min/max, select, float -> int" expect "$TMP/o.npy" "q<*" \
  -4 1 -1 -4 -56 -56 4294967295 -56 -4 15 0 -7 2 -7 -2 2147483647 0 0 6 4 249 505 1 -1
check "float16: round to nearest even, overflow, subnormals, -0, NaN, int -> half" expect "$TMP/h.npy" "v*" \
  0x3C00 0x7BFF 0x7C00 0x3C00 0x3C02 0x0001 0x0000 0x0001 0x8000 0x7FFF 0x3C01 0x6800 0x6802 0x6800 0x6802 0x7C00
check "bfloat16: ties to even, overflow to infinity" expect "$TMP/g.npy" "v*" \
  0x3F80 0x3F82 0x7F80 0xC02D 0x7FFF 0xC0E0 0x8000 0x3F80
check "float8_e4m3fn: saturating, subnormal, NaN, ties to even" expect "$TMP/e.npy" "C*" \
  0x38 0x7E 0x7E 0xFE 0x01 0x7F 0x38 0x3A
check "float8_e5m2: saturating, ties to even" expect "$TMP/f.npy" "C*" \
  0x3C 0x7B 0x7B 0x3C 0x3E 0x7F 0xE4 0x18
check "bfloat16 and float8 are written as raw bits: <u2 and |u1" pl '
  my ($g) = npy_get($ARGV[0]); my ($e) = npy_get($ARGV[1]);
  exit($g =~ /.descr.: .<u2./ && $e =~ /.descr.: .\|u1./ ? 0 : 1)' "$TMP/g.npy" "$TMP/e.npy"

# ---- asynchronous copies: cp.async groups, poison, zero-fill -------------------------

# A[i] = i * 1000 + 1; shared memory is filled with 5 before each copy, so
# that 0xAB comes from the copy's poison; POISON is 0xABABABAB as an int32
POISON=$(perl -e 'print unpack("l<", "\xAB" x 4)')
pl 'npy_put($ARGV[0], "<i4", [128], pack("l<*", map { $_ * 1000 + 1 } 0..127))' "$TMP/cp_a.npy"
a_vals() { perl -e 'print join " ", map { $_ * 1000 + 1 } 0..127'; }
poison() { perl -e 'print join " ", ($ARGV[0]) x $ARGV[1]' -- "$POISON" "$1"; }
run --unchecked-async --kernel early --in A="$TMP/cp_a.npy" --out B="$TMP/cp_b.npy" --out C="$TMP/cp_c.npy" "$D/cp_async.tx"
check "cp.async: runs" ran
check "cp.async: shared memory read after commit_group, before wait_group, is 0xAB" \
  expect "$TMP/cp_b.npy" "l<*" $(poison 128)
check "cp.async: element 37 read before the wait is 0xABABABAB, not 5 or A[37]" \
  pl 'my (undef, $d) = npy_get($ARGV[0]); exit(substr($d, 37 * 4, 4) eq "\xAB\xAB\xAB\xAB" ? 0 : 1)' "$TMP/cp_b.npy"
check "cp.async: after wait_group(0) it is A" expect "$TMP/cp_c.npy" "l<*" $(a_vals)

run --unchecked-async --kernel two_groups --in A="$TMP/cp_a.npy" --out B="$TMP/g2_b.npy" --out C="$TMP/g2_c.npy" \
    --out D="$TMP/g2_d.npy" "$D/cp_async.tx"
check "two groups: runs" ran
check "two groups, wait_group(1): the first group's data is there" expect "$TMP/g2_b.npy" "l<*" $(a_vals)
check "two groups, wait_group(1): the second group's is still poisoned" expect "$TMP/g2_c.npy" "l<*" $(poison 128)
check "two groups, then wait_group(0): the second group's data is there" expect "$TMP/g2_d.npy" "l<*" $(a_vals)

run --kernel zfill --in A="$TMP/cp_a.npy" --out B="$TMP/zf_b.npy" --out C="$TMP/zf_c.npy" \
    --out D="$TMP/zf_d.npy" "$D/cp_async.tx"
check "zero-fill: runs (an empty group, a copy never waited for, a masked source out of bounds)" ran
check "src_size 4 of a 16-byte copy: 4 bytes of A, then 12 zero bytes" expect "$TMP/zf_b.npy" "l<*" \
  $(perl -e 'print join " ", map { $_ % 4 ? 0 : $_ * 1000 + 1 } 0..127')
check "predicate tid < 16: A for threads 0-15, 16 zero bytes for the others" expect "$TMP/zf_c.npy" "l<*" \
  $(perl -e 'print join " ", map { $_ < 64 ? $_ * 1000 + 1 : 0 } 0..127')
check "an 8-byte .ca copy with src_size 4: A[2t], then 0" expect "$TMP/zf_d.npy" "l<*" \
  $(perl -e 'print join " ", map { $_ % 2 ? 0 : $_ * 1000 + 1 } 0..63')

# A[i] = i + 1
pl 'npy_put($ARGV[0], "<i4", [64], pack("l<*", 1..64))' "$TMP/si_a.npy"
run --unchecked-async --kernel shared_item --in A="$TMP/si_a.npy" --out P="$TMP/si_p.npy" --out B="$TMP/si_b.npy" \
    --out C="$TMP/si_c.npy" "$D/cp_async.tx"
check "warp copy_async: runs" ran
check "warp copy_async: its destination is poisoned at issue" expect "$TMP/si_p.npy" "l<*" $(poison 64)
check "warp copy_async: one item per warp, performed by lane 0's wait_group" expect "$TMP/si_b.npy" "l<*" \
  $(perl -e 'print join " ", 1..64')
check "warp copy_async: the other lanes' wait_group retires it again and copies nothing" \
  expect "$TMP/si_c.npy" "l<*" $(perl -e 'print join " ", (7) x 64')
pl 'npy_put($ARGV[0], "<i4", [32, 4], pack("l<*", 1..128))' "$TMP/tg_a.npy"
run --unchecked-async --kernel tile_groups --in A="$TMP/tg_a.npy" --out B="$TMP/tg_b.npy" --out C="$TMP/tg_c.npy" \
    --out D="$TMP/tg_d.npy" "$D/cp_async.tx"
check "thread copy_async in two groups: runs" ran
check "thread copy_async, wait_group(1): the first group's data is there" \
  expect "$TMP/tg_b.npy" "l<*" $(perl -e 'print join " ", 1..128')
check "thread copy_async, wait_group(1): the second group's is still poisoned" \
  expect "$TMP/tg_c.npy" "l<*" $(poison 128)
check "thread copy_async, wait_group(0): the second group's data is there" \
  expect "$TMP/tg_d.npy" "l<*" $(perl -e 'print join " ", 1..128')

# ---- mbarriers, named barriers, vector shared-memory accesses ------------------------

run --kernel phases --out F="$TMP/ph_f.npy" "$D/mbarrier.tx"
check "mbarriers: runs" ran
check "mbarriers: per thread, phase 0 not done, then done; phase 1 not done, then done" \
  expect "$TMP/ph_f.npy" "L<*" $(perl -e 'print join " ", (0, 1, 0, 1) x 64')
pl 'npy_put($ARGV[0], "<f4", [32, 4], pack("f<*", map { $_ + 0.5 } 0..127))' "$TMP/vs_a.npy"
run --kernel vec_shared --in A="$TMP/vs_a.npy" --out B="$TMP/vs_b.npy" "$D/mbarrier.tx"
check "st/ld.shared.v4.f32: runs" ran
check "st/ld.shared.v4.f32: the four floats of each thread come back reversed" \
  pl 'my (undef, $d) = npy_get($ARGV[0]); my @g = unpack("f<*", $d);
      my @w = map { my $t = int($_ / 4); 4 * $t + 3 - $_ % 4 + 0.5 } 0..127;
      exit((grep { $g[$_] != $w[$_] } 0..127) ? 1 : 0)' "$TMP/vs_b.npy"

# ---- TMA: bulk tensor copies through tensor maps (tests/emu/tma.tx) ---------------
#
# ptx.md's definitions, written out here: n_0 = box_0, n_i = ceil(box_i /
# estride_i); box element j is tensor element x_0 = c_0 + j_0, x_i = c_i +
# j_i * estride_i, filled (0, or 0x7FF7 per 16 bits in NaN mode) unless 0 <=
# x_i < dims_i; it is at shared byte swz(dst + j_0 * esize + pitch * (j_1 +
# n_1 * (j_2 + ...))), pitch = n_0 * esize or the swizzle span, swz(A) = A ^
# (((A >> 7) & m) << 4), m = 1, 3, 7 for 32, 64, 128 bytes.
T=$D/tma.tx
export TMA_PL='
sub swz_abs { my ($sw, $a) = @_; my $m = $sw ? $sw / 16 - 1 : 0; return $a ^ ((($a >> 7) & $m) << 4) }
sub same_list { my ($got, $want) = @_; return 0 unless @$got == @$want;
  for my $i (0 .. $#$want) { if ($got->[$i] != $want->[$i]) {
    printf STDERR "element %d: got %#x, want %#x\n", $i, $got->[$i], $want->[$i]; return 0 } } return 1 }
'
tp() { perl -e 'require $ENV{NPYPL}; eval $ENV{TMA_PL}; die $@ if $@;' -e "$1" -- "${@:2}" 2>&1 | diag; return "${PIPESTATUS[0]}"; }

pl 'npy_put($ARGV[0], "<f2", [64, 64], pack("v*", map { ($_ * 40503) & 0xffff } 0..4095))' "$TMP/tt_a.npy"
run --kernel swz_tile --in A="$TMP/tt_a.npy" --out B="$TMP/tt_b.npy" --out R="$TMP/tt_r.npy" "$T"
check "TMA 64 x 64 float16 load and store, 128-byte swizzle: runs" ran
check "TMA load + store: B is A, bit for bit" same_data "$TMP/tt_a.npy" "$TMP/tt_b.npy"
check "TMA load, 128-byte swizzle: shared byte P holds logical byte swz(P) of the box (row-major A)" tp '
  my (undef, $a) = npy_get($ARGV[0]); my (undef, $r) = npy_get($ARGV[1]);
  my @a = unpack("v*", $a); my @r = unpack("v*", $r); my @w;
  for (my $p = 0; $p < 8192; $p += 2) { my $l = swz_abs(128, $p); $w[$p / 2] = $a[int($l / 128) * 64 + ($l % 128) / 2] }
  exit(same_list(\@r, \@w) ? 0 : 1)' "$TMP/tt_a.npy" "$TMP/tt_r.npy"
check "TMA load, 128-byte swizzle: the raw tile is not A (the swizzle moved bytes)" \
  pl 'my (undef, $a) = npy_get($ARGV[0]); my (undef, $r) = npy_get($ARGV[1]); exit($a ne $r ? 0 : 1)' "$TMP/tt_a.npy" "$TMP/tt_r.npy"

pl 'npy_put($ARGV[0], "<f2", [16, 64], pack("v*", map { ($_ * 7919 + 3) & 0xffff } 0..1023))' "$TMP/sw_a.npy"
for sw in 0 32 64 128; do
  run --kernel swz$sw --in A="$TMP/sw_a.npy" --out R="$TMP/sw_r$sw.npy" "$T"
  check "TMA swizzle $sw, 8 x 8 float16 box at (8, 4) to shared byte 128: runs" ran
  check "TMA swizzle $sw: rows of 16 bytes at pitch $([ $sw = 0 ] && echo 16 || echo $sw), swizzled on the absolute address, padding untouched" tp '
    my ($sw) = $ARGV[2]; my (undef, $a) = npy_get($ARGV[0]); my (undef, $r) = npy_get($ARGV[1]);
    my @a = unpack("v*", $a); my @r = unpack("v*", $r); my @w = (0x5555) x 1024;
    my $pitch = $sw ? $sw : 16;
    for my $j1 (0..7) { for my $j0 (0..7) {
      my $p = swz_abs($sw, 128 + $j0 * 2 + $pitch * $j1); $w[$p / 2] = $a[(4 + $j1) * 64 + 8 + $j0] } }
    exit(same_list(\@r, \@w) ? 0 : 1)' "$TMP/sw_a.npy" "$TMP/sw_r$sw.npy" $sw
done
check "TMA swizzle: the four modes give four different placements" \
  pl 'my %h; for (@ARGV) { my (undef, $d) = npy_get($_); $h{$d} = 1 } exit(keys %h == 4 ? 0 : 1)' "$TMP"/sw_r{0,32,64,128}.npy

# out of bounds: (kernel, descr, pack, A's rows, cols, box cols, rows, c0, c1, fill word)
pl 'npy_put($ARGV[0], "<f2", [16, 32], pack("v*", map { ($_ * 40503 + 7) & 0xffff } 0..511))' "$TMP/ob_a2.npy"
pl 'npy_put($ARGV[0], "<f4", [16, 32], pack("V*", map { ($_ * 2654435761 + 5) & 0xffffffff } 0..511))' "$TMP/ob_a4.npy"
for c in "oob_zero v ob_a2 16 8 -8 12 0" "oob_nan v ob_a2 16 8 -8 12 0x7FF7" "oob_nan32 V ob_a4 8 8 -4 12 0x7FF77FF7"; do
  set -- $c
  run --kernel $1 --in A="$TMP/$3.npy" --out R="$TMP/$1.npy" "$T"
  check "TMA $1: a box hanging past the left and bottom edges: runs" ran
  check "TMA $1: elements outside 32 x 16 are $8, the others A's" tp '
    my ($f, $af, $fmt, $b0, $b1, $c0, $c1, $fill) = @ARGV; $fill = hex $fill if $fill =~ /^0x/i;
    my (undef, $a) = npy_get($af); my (undef, $r) = npy_get($f); my @a = unpack("$fmt*", $a); my @r = unpack("$fmt*", $r);
    my @w; for my $j1 (0 .. $b1 - 1) { for my $j0 (0 .. $b0 - 1) { my ($x0, $x1) = ($c0 + $j0, $c1 + $j1);
      push @w, ($x0 >= 0 && $x0 < 32 && $x1 >= 0 && $x1 < 16) ? $a[$x1 * 32 + $x0] : $fill } }
    exit(same_list(\@r, \@w) ? 0 : 1)' "$TMP/$1.npy" "$TMP/$3.npy" $2 $4 $5 $6 $7 $8
done
check "TMA oob_zero: the fill is zero bits (6 of 8 rows out, 8 of 16 columns)" \
  pl 'my (undef, $r) = npy_get($ARGV[0]); my @r = unpack("v*", $r); exit((grep { $_ == 0 } @r) >= 96 ? 0 : 1)' "$TMP/oob_zero.npy"

pl 'npy_put($ARGV[0], "<f2", [32, 16], pack("v*", map { $_ * 3 + 1 } 0..511))' "$TMP/es_a.npy"
run --kernel estride --in A="$TMP/es_a.npy" --out R="$TMP/es_r.npy" "$T"
check "TMA element stride 2 in dimension 1 (box 8 x 7: ceil(7 / 2) = 4 rows, 64 bytes on the mbarrier): runs" ran
check "TMA element stride 2: rows 3, 5, 7, 9 of columns 8-15" tp '
  my (undef, $a) = npy_get($ARGV[0]); my (undef, $r) = npy_get($ARGV[1]); my @a = unpack("v*", $a); my @r = unpack("v*", $r);
  my @w; for my $j1 (0..3) { for my $j0 (0..7) { push @w, $a[(3 + 2 * $j1) * 16 + 8 + $j0] } }
  exit(same_list(\@r, \@w) ? 0 : 1)' "$TMP/es_a.npy" "$TMP/es_r.npy"

pl 'npy_put($ARGV[0], "<f4", [3, 4, 5, 6, 8], pack("f<*", map { $_ + 0.5 } 0..2879))' "$TMP/b5_a.npy"
run --kernel box5d --in A="$TMP/b5_a.npy" --out R="$TMP/b5_r.npy" "$T"
check "TMA 5-D box 4 x 3 x 2 x 2 x 2 at (4, 4, 4, 3, 2): runs" ran
check "TMA 5-D box: each element from A where in bounds (dims 8, 6, 5, 4, 3), else 0" tp '
  my (undef, $r) = npy_get($ARGV[0]); my @r = unpack("f<*", $r); my @d = (8, 6, 5, 4, 3); my @c = (4, 4, 4, 3, 2);
  my @w; for my $j4 (0..1) { for my $j3 (0..1) { for my $j2 (0..1) { for my $j1 (0..2) { for my $j0 (0..3) {
    my @x = ($c[0] + $j0, $c[1] + $j1, $c[2] + $j2, $c[3] + $j3, $c[4] + $j4);
    my $in = !grep { $x[$_] >= $d[$_] } 0..4;
    push @w, $in ? (((($x[4] * 4 + $x[3]) * 5 + $x[2]) * 6 + $x[1]) * 8 + $x[0]) + 0.5 : 0 } } } } }
  exit(same_list(\@r, \@w) && (grep { $_ == 0 } @w) && (grep { $_ != 0 } @w) ? 0 : 1)' "$TMP/b5_r.npy"

pl 'npy_put($ARGV[0], "<i4", [16, 16], pack("l<*", map { $_ * 7 + 1 } 0..255))' "$TMP/so_a.npy"
pl 'npy_put($ARGV[0], "<i4", [12, 20], pack("l<*", map { -$_ - 1 } 0..239))' "$TMP/so_b.npy"
for k in store_oob reduce_add; do
  run --kernel $k --in A="$TMP/so_a.npy" --in B="$TMP/so_b.npy" --out B="$TMP/$k.npy" "$T"
  check "TMA $k, a 16 x 16 box at (8, -4) of a 20 x 12 tensor: runs" ran
  check "TMA $k: in-bounds elements $([ $k = store_oob ] && echo "are the tile's" || echo "are old + the tile's"), the others untouched" tp '
    my ($f, $add) = @ARGV; my (undef, $r) = npy_get($f); my @r = unpack("l<*", $r);
    my @b = map { -$_ - 1 } 0..239;
    for my $j1 (0..15) { for my $j0 (0..15) { my ($x0, $x1) = (8 + $j0, -4 + $j1);
      next unless $x0 < 20 && $x1 >= 0 && $x1 < 12; my $v = $j1 * 16 * 7 + $j0 * 7 + 1;
      $b[$x1 * 20 + $x0] = $add ? $b[$x1 * 20 + $x0] + $v : $v } }
    exit(same_list(\@r, \@b) ? 0 : 1)' "$TMP/$k.npy" $([ $k = reduce_add ] && echo 1 || echo 0)
done

# the reductions on uint32, as PTX defines them: min, max (unsigned), inc
# (old >= src ? 0 : old + 1), dec (old == 0 || old > src ? src : old - 1),
# and, or, xor
RA="0 1 2 3 5 5 5 5 4294967295 7 100 2147483648 9 3 0 1"
RB="0 1 5 3 5 0 6 4 4294967295 8 99 1 9 2 7 0"
pl 'npy_put($ARGV[0], "<u4", [4, 4], pack("V*", split " ", $ARGV[1]))' "$TMP/ro_a.npy" "$RA"
pl 'npy_put($ARGV[0], "<u4", [7, 4, 4], pack("V*", (split " ", $ARGV[1]) x 7))' "$TMP/ro_b.npy" "$RB"
run --kernel reduce_ops --in A="$TMP/ro_a.npy" --in B="$TMP/ro_b.npy" --out B="$TMP/ro_r.npy" "$T"
check "TMA reductions min, max, inc, dec, and, or, xor on uint32: runs" ran
check "TMA reductions: each as PTX defines it, on the unsigned bits" tp '
  my ($f, $ra, $rb) = @ARGV; my @s = split " ", $ra; my @o = split " ", $rb; my (undef, $r) = npy_get($f);
  my @r = unpack("V*", $r); my @w;
  my @ops = (sub { $_[0] < $_[1] ? $_[0] : $_[1] }, sub { $_[0] > $_[1] ? $_[0] : $_[1] },
             sub { $_[0] >= $_[1] ? 0 : $_[0] + 1 }, sub { $_[0] == 0 || $_[0] > $_[1] ? $_[1] : $_[0] - 1 },
             sub { $_[0] & $_[1] }, sub { $_[0] | $_[1] }, sub { $_[0] ^ $_[1] });
  for my $op (@ops) { push @w, map { $op->($o[$_], $s[$_]) & 0xffffffff } 0..15 }
  exit(same_list(\@r, \@w) ? 0 : 1)' "$TMP/ro_r.npy" "$RA" "$RB"

run --unchecked-async --kernel missing_wait --in A="$TMP/so_a.npy" --out R="$TMP/mw_r.npy" --out R2="$TMP/mw_r2.npy" "$T"
check "TMA missing wait: runs" ran
check "TMA missing wait: the tile read before try_wait is poison (0xAB), not A" \
  pl 'my (undef, $a) = npy_get($ARGV[0]); my (undef, $r) = npy_get($ARGV[1]); exit($r ne $a && $r eq "\xAB" x 1024 ? 0 : 1)' \
  "$TMP/so_a.npy" "$TMP/mw_r.npy"
check "TMA missing wait: read after try_wait it is A" same_data "$TMP/so_a.npy" "$TMP/mw_r2.npy"

run --unchecked-async --kernel overwrite --in A="$TMP/so_a.npy" --out B="$TMP/ow_b.npy" "$T"
check "TMA store whose source is overwritten before wait_group.read: runs" ran
check "TMA store whose source is overwritten before wait_group.read: B holds the new data (7), not A" \
  pl 'my (undef, $b) = npy_get($ARGV[0]); exit($b eq pack("l<*", (7) x 256) ? 0 : 1)' "$TMP/ow_b.npy"

pl 'npy_put($ARGV[0], "<i4", [32, 16], pack("l<*", map { $_ * 3 + 2 } 0..511))' "$TMP/tp_a.npy"
run --kernel two_phases --in A="$TMP/tp_a.npy" --out B="$TMP/tp_b.npy" --out C="$TMP/tp_c.npy" "$T"
check "TMA two phases of one mbarrier (a load issued before its expect_tx, a prefetch): runs" ran
check "TMA two phases: phase 0 brings rows 0-15 of A" expect "$TMP/tp_b.npy" "l<*" $(perl -e 'print join " ", map { $_ * 3 + 2 } 0..255')
check "TMA two phases: phase 1 brings rows 16-31" expect "$TMP/tp_c.npy" "l<*" $(perl -e 'print join " ", map { $_ * 3 + 2 } 256..511')

run --unchecked-async --kernel src_store --in A="$TMP/so_a.npy" --out B="$TMP/ss_b.npy" --out R="$TMP/ss_r.npy" "$T"
check "copy_async through tma, load and store: runs" ran
check "copy_async through tma: the tile read before the wait is poison" \
  pl 'my (undef, $r) = npy_get($ARGV[0]); exit($r eq "\xAB" x 1024 ? 0 : 1)' "$TMP/ss_r.npy"
check "copy_async through tma: the store performed at wait_group reads rows 0-7 of A, rows 8-15 overwritten with 7" \
  expect "$TMP/ss_b.npy" "l<*" $(perl -e 'print join " ", map { $_ < 128 ? $_ * 7 + 1 : 7 } 0..255')

# ---- errors: at the statement, naming the thread ----------------------------------

pl 'npy_put($ARGV[0], "<i4", [2], pack("l<*", 1000, 0))' "$TMP/bad_x.npy"
# bad KERNEL: runs that kernel of bad.tx (from tests/emu, so that the file
# name in the diagnostics is short); the expected stderr follows on stdin.
BADF=bad.tx
bad() {
  local k=$1; shift
  cat >"$TMP/want"
  rc=0; (cd "$D" && "$EMU" --kernel "$k" "$@" "$BADF") >"$TMP/out" 2>"$TMP/err" || rc=$?
  check "$k: exit 1, no output" eval '[ "$rc" = 1 ] && [ ! -s "$TMP/out" ]'
  check "$k: the diagnostic" stderr_is "$TMP/want"
}
# ---- shared memory an asynchronous copy still owns ----------------------------------
# The kernels above that read or overwrite it (run with --unchecked-async to
# show the poison) are errors without the option: a missing wait, a TMA
# store's source written before wait_group.read.
BADF=cp_async.tx
bad early <<'EOF'
cp_async.tx:26:26: error: thread (cta 0, thread 0): this reads byte 0 of shared buffer 'S', which the asynchronous copy at cp_async.tx:23 (thread 0) has not written yet: wait for it first with cp.async.wait_group (the issuing thread), then a barrier for the others
            B[tid * 4 + i] = S[tid * 4 + i]
                             ^
EOF
BADF=tma.tx
bad missing_wait <<'EOF'
tma.tx:338:18: error: thread (cta 0, thread 0): this reads byte 0 of shared buffer 'S', which the asynchronous copy at tma.tx:336 (thread 0) has not written yet: wait for its mbarrier's phase first
        R[tid * 2] = S[tid * 2]
                     ^
EOF
bad overwrite <<'EOF'
tma.tx:369:13: error: thread (cta 0, thread 0): this writes byte 0 of shared buffer 'S', the source of the TMA store at tma.tx:366 (thread 0), which may not have read it yet: wait with T.ptx.cp_async.bulk.wait_group(N, read=True) first
                S[k] = 7
                ^
EOF
bad src_store <<'EOF'
tma.tx:420:5: error: thread (cta 0, thread 0): this reads byte 0 of shared buffer 'S', which the asynchronous copy at tma.tx:419 (thread 0) has not written yet: wait for its mbarrier's phase first
        Tx.copy(R[tid, :], S[tid, :])
        ^~~~~~~
EOF
BADF=bad.tx
bad oob_copy_bytes <<'EOF'
bad.tx:16:23: error: thread (cta 0, thread 17): T.cuda.copy_bytes of 16 bytes: the destination, byte 2272 of global buffer 'B' (512 bytes), is out of bounds
        T.cuda.copy_bytes(dst, src, 16)
                          ^~~
EOF
bad misaligned <<'EOF'
bad.tx:26:53: error: thread (cta 0, thread 5): T.cuda.copy_bytes of 16 bytes: the source, byte 82 of shared buffer 'A_smem' (shared byte 82), is not aligned to 16 bytes
        T.cuda.copy_bytes(T.pointer_offset(B, tid * 8), T.pointer_offset(A_smem, tid * 8 + (1 if tid == 5 else 0)), 16)
                                                        ^~~~~~~~~~~~~~~~
EOF
bad divergent_barrier <<'EOF'
bad.tx:34:9: error: thread (cta 0, thread 0): barrier in divergent code: 1 of the CTA's 128 threads reach it
            T.cuda.cta_sync()
            ^~~~~~~~~~~~~~~
EOF
bad divergent_warp_copy <<'EOF'
bad.tx:44:9: error: thread (cta 0, thread 40): collective copy with inactive threads: 24 of the 32 threads of warp 1 are active
            Tx.warp.copy(B[:, :], A[:, :])
            ^~~~~~~~~~~~
EOF
bad region_disagree <<'EOF'
bad.tx:52:18: error: thread (cta 0, thread 1): the threads of warp 0 disagree on region B[tid, :]: dimension 0 starts at 0 in thread 0, at 1 here
        Tx.warp.copy(B[tid, :], A[0, :])
                     ^
EOF
bad other_thread <<'EOF'
bad.tx:61:14: error: thread (cta 0, thread 0): element (1, 0) of 'R' is held in the registers of another thread
        B[tid] = R[(tid + 1) % 32, 0]
                 ^
EOF
bad oob_index --in X="$TMP/bad_x.npy" <<'EOF'
bad.tx:69:7: error: thread (cta 0, thread 0): index 1000 is out of bounds for dimension 0 of 'B' (extent 64)
        B[X[0] + tid] = T.float32(0)
          ^
EOF
bad oob_region --in X="$TMP/bad_x.npy" <<'EOF'
bad.tx:79:20: error: thread (cta 0, thread 0): region B[k : k + 8] is out of bounds: dimension 0 covers 1000:1008 but 'B' has extent 64
        Tx.copy(S0[:], B[k : k + 8])
                       ^
EOF
bad divzero --in X="$TMP/bad_x.npy" <<'EOF'
bad.tx:87:19: error: thread (cta 0, thread 0): integer division by zero
        B[tid] = X[0] // X[1]
                      ^~
EOF
bad forever --max-steps 100000 <<'EOF'
bad.tx:95:9: error: thread (cta 0, thread 0): stopped after 100000 statement executions (the step limit; see --max-steps)
            for j in range(1000000):
            ^~~
EOF
bad tmem <<'EOF'
bad.tx:106:5: error: thread (cta 0, thread 0): tensor memory is emulated only through the T.ptx.tcgen05 builtins and Tx.wg.copy_async to or from registers (tcgen05_ldst), not here
        Tx.cta.copy(tm[:, :], A[:, :])
        ^~~~~~~~~~~
EOF
bad warp_sync <<'EOF'
bad.tx:114:9: error: thread (cta 0, thread 0): warp barrier in divergent code: 8 of the 32 threads of warp 0 reach it
            T.cuda.warp_sync()
            ^~~~~~~~~~~~~~~~
EOF
bad cp_misaligned <<'EOF'
bad.tx:130:55: error: thread (cta 0, thread 5): T.ptx.cp_async of 16 bytes: the source, byte 84 of global buffer 'A', is not aligned to 16 bytes
        T.ptx.cp_async(T.pointer_offset(A_smem, tid * 8), T.pointer_offset(A, tid * 8 + (2 if tid == 5 else 0)), 16)
                                                          ^~~~~~~~~~~~~~~~
EOF
bad cp_shared_src <<'EOF'
bad.tx:139:55: error: thread (cta 0, thread 0): T.ptx.cp_async: the source, byte 0 of shared buffer 'B_smem', is not in global memory (cp.async copies global -> shared)
        T.ptx.cp_async(T.pointer_offset(A_smem, tid * 8), T.pointer_offset(B_smem, tid * 8), 16)
                                                          ^~~~~~~~~~~~~~~~
EOF
bad cp_global_dst <<'EOF'
bad.tx:147:20: error: thread (cta 0, thread 0): T.ptx.cp_async: the destination, byte 0 of global buffer 'B', is not in shared memory (cp.async copies global -> shared)
        T.ptx.cp_async(T.pointer_offset(B, tid * 8), T.pointer_offset(A, tid * 8), 16)
                       ^~~~~~~~~~~~~~~~
EOF
bad cp_oob <<'EOF'
bad.tx:163:20: error: thread (cta 0, thread 31): T.ptx.cp_async of 16 bytes: the destination, byte 512 of shared buffer 'A_smem' (512 bytes), is out of bounds
        T.ptx.cp_async(T.pointer_offset(A_smem, tid * 8 + 8), T.pointer_offset(A, tid * 8), 16)
                       ^~~~~~~~~~~~~~~~
EOF
bad cp_src_size <<'EOF'
bad.tx:179:105: error: thread (cta 0, thread 16): T.ptx.cp_async of 16 bytes: the source size is 17, not from 0 to 16 (-1: all)
        T.ptx.cp_async(T.pointer_offset(A_smem, tid * 8), T.pointer_offset(A, tid * 8), 16, T.uint64(0), 0, tid + 1)
                                                                                                            ^~~
EOF
bad copy_async_inactive <<'EOF'
bad.tx:188:9: error: thread (cta 0, thread 0): collective copy with inactive threads: 1 of the 128 threads of the CTA are active
            Tx.cta.copy_async(A_smem[:, :], A[:, :])
            ^~~~~~~~~~~~~~~~~
EOF
bad mbar_never <<'EOF'
bad.tx:200:5: error: thread (cta 0, thread 0): T.ptx.mbarrier.try_wait: the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 1 of 129 arrivals and 0 transaction bytes pending, and in lockstep no other thread can arrive before this wait is run
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
        ^~~~~~~~~~~~~~~~~~~~~~~
EOF
# (every thread writes bar[0], a write-write race the race checker reports
# first: tests/race.t; here the uninitialized mbarrier is the point)
bad mbar_uninit --no-race-check <<'EOF'
bad.tx:210:27: error: thread (cta 0, thread 0): T.ptx.mbarrier.arrive: the mbarrier is not initialized
        T.ptx.mbarrier.arrive(T.address_of(bar[0]))
                              ^~~~~~~~~~~~
EOF
bad named_partial <<'EOF'
bad.tx:217:5: error: thread (cta 0, thread 0): T.ptx.barrier.sync: barrier 1 counts 64 threads, but 128 reach it together; the emulator runs a named barrier only as a barrier of the threads that reach it
        T.ptx.barrier.sync(1, 64)
        ^~~~~~~~~~~~~~~~~~
EOF
# TMA faults and wrong byte counts (tests/emu/tma_bad.tx)
BADF=tma_bad.tx
bad expect_many <<'EOF'
tma_bad.tx:21:5: error: thread (cta 0, thread 0): T.ptx.mbarrier.try_wait: the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and 8192 transaction bytes pending, and in lockstep no other thread can arrive before this wait is run
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
        ^~~~~~~~~~~~~~~~~~~~~~~
EOF
bad expect_few <<'EOF'
tma_bad.tx:37:5: error: thread (cta 0, thread 0): T.ptx.mbarrier.try_wait: the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and -4096 transaction bytes pending, and in lockstep no other thread can arrive before this wait is run
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
        ^~~~~~~~~~~~~~~~~~~~~~~
EOF
bad inner_coord <<'EOF'
tma_bad.tx:51:92: error: thread (cta 0, thread 0): T.ptx.cp_async.bulk.tensor.g2c: the innermost coordinate 4 times the element size 2 is 8 bytes, not a multiple of 16 (an illegal-instruction fault on the GPU)
            T.ptx.cp_async.bulk.tensor.g2c(2, T.address_of(S[0]), T.address_of(bar[0]), A_map, 4, 0)
                                                                                               ^
EOF
bad past_shared <<'EOF'
tma_bad.tx:65:43: error: thread (cta 0, thread 0): T.ptx.cp_async.bulk.tensor.g2c: the box of tensor map 'A_map' takes 16384 bytes of shared memory; from byte 0 they run outside shared buffer 'S' (8192 bytes)
            T.ptx.cp_async.bulk.tensor.g2c(2, T.address_of(S[0]), T.address_of(bar[0]), A_map, 0, 0)
                                              ^~~~~~~~~~~~
EOF
bad red_float <<'EOF'
tma_bad.tx:79:9: error: thread (cta 0, thread 0): T.ptx.cp_async.bulk.tensor.s2g_reduce: red_op "xor" combines integers; tensor map 'A_map' holds float16
            T.ptx.cp_async.bulk.tensor.s2g_reduce(2, T.address_of(S[0]), A_map, 0, 0, red_op="xor")
            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
EOF
bad copy_async_tma <<'EOF'
tma_bad.tx:94:5: error: thread (cta 0, thread 0): T.ptx.mbarrier.try_wait: the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and -8192 transaction bytes pending, and in lockstep no other thread can arrive before this wait is run
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
        ^~~~~~~~~~~~~~~~~~~~~~~
EOF
BADF=bad.tx
run --kernel oob_copy_bytes --out B="$TMP/never.npy" "$D/bad.tx"
check "a failed run writes no --out file" [ ! -e "$TMP/never.npy" ]

# ---- the command line ---------------------------------------------------------------

run --help
check "--help exits 0 and shows usage" grep -q "^usage: txc-emu" "$TMP/out"
run --frobnicate "$D/misc.tx"
check "an unknown option exits 2" [ "$rc" = 2 ]
run --in A "$D/lowered_copy.tx"
check "--in without NAME=FILE exits 2" [ "$rc" = 2 ]
run --seed x "$D/lowered_copy.tx"
check "a bad --seed exits 2" [ "$rc" = 2 ]
SP=$TOP/tests/tvm/scalar_params.tx
run "$SP"
check "a kernel with scalar parameters and no --arg exits 2" [ "$rc" = 2 ]
check "and names the first one" grep -q "kernel 'kernel' has the scalar parameter 'flag' (int32): give its value with --arg flag=INTEGER" "$TMP/err"
run --arg flag=1 --arg n=0x "$SP"
check "--arg n=0x exits 2" [ "$rc" = 2 ]
check "and says why" grep -q -- "--arg n=0x: not an integer of int64" "$TMP/err"
run --arg flag=1 --arg flag=0 --arg n=1 "$SP"
check "--arg twice exits 2" [ "$rc" = 2 ]
# C[t] = sum of t + i for i < n; B's top rows from A's bottom rows when flag is 1, else its top rows
for a in "0 4" "1 3" "7 0"; do
  set -- $a
  run --arg flag=$1 --arg "n=$2" --out C="$TMP/sc.npy" --out A="$TMP/sa.npy" --out B="$TMP/sb.npy" "$SP"
  check "scalar parameters flag=$1 n=$2: ran" ran
  check "scalar parameters flag=$1 n=$2: the loop ran n times" pl '
    my (undef, $d) = npy_get($ARGV[0]); my @c = unpack("q<*", $d); my $n = $ARGV[1];
    for my $t (0 .. 127) { exit 1 if $c[$t] != $n * $t + $n * ($n - 1) / 2 } exit 0' "$TMP/sc.npy" "$2"
  check "scalar parameters flag=$1 n=$2: the copy flag picks" pl '
    my (undef, $a) = npy_get($ARGV[0]); my (undef, $b) = npy_get($ARGV[1]); my $row = 32 * 64;
    exit(substr($b, 0, $row) eq substr($a, $ARGV[2] == 1 ? $row : 0, $row) ? 0 : 1)' "$TMP/sa.npy" "$TMP/sb.npy" "$1"
done
run --in Q="$TMP/l_a.npy" "$D/lowered_copy.tx"
check "--in of a parameter the kernel lacks" fails "txc-emu: error: kernel 'lowered_copy' has no parameter 'Q' (its parameters: A, B)"
run --in A="$TMP/t_a.npy" "$D/lowered_copy.tx"
check "--in with the wrong dtype" fails "'$TMP/t_a.npy' holds '<f4' data (float32), but the parameter is float16, stored as '<f2'"
pl 'npy_put($ARGV[0], "<f2", [64, 256], "\0" x 32768)' "$TMP/shape.npy"
run --in A="$TMP/shape.npy" "$D/lowered_copy.tx"
check "--in with the wrong shape" fails "'$TMP/shape.npy' has shape (64, 256), but the parameter has shape (256, 64)"
head -c 1000 "$TMP/l_a.npy" >"$TMP/short.npy"
run --in A="$TMP/short.npy" "$D/lowered_copy.tx"
check "--in of a truncated file" fails "is truncated"
echo hello >"$TMP/text.npy"
run --in A="$TMP/text.npy" "$D/lowered_copy.tx"
check "--in of a file that is no .npy" fails "is not a .npy file"
run --in A="$TMP/l_b.npy" --out B="$TMP/l_b2.npy" "$D/lowered_copy.tx"
check "a file txc-emu wrote reads back with --in" same_data "$TMP/l_a.npy" "$TMP/l_b2.npy"
run --in A="$TMP/missing.npy" "$D/lowered_copy.tx"
check "--in of a missing file" fails "cannot read '$TMP/missing.npy'"
run --kernel nosuch "$D/regs.tx"
check "--kernel names a kernel the file lacks" fails "has no kernel named 'nosuch' (it has: wg, interleaved, rows, spread, back)"
run "$TMP/missing.tx"
check "a missing program exits 1" [ "$rc" = 1 ]
run "$D/lowered_copy.tx"
cp "$TMP/out" "$TMP/seed1"
check "the report: one line per parameter, name and 16 hex digits" \
  pl 'open my $f, "<", $ARGV[0]; my @l = <$f>; exit(@l == 2 && $l[0] =~ /^A [0-9a-f]{16}\n$/ && $l[1] =~ /^B [0-9a-f]{16}\n$/ ? 0 : 1)' "$TMP/out"
run "$D/lowered_copy.tx"
check "the same seed gives the same data" cmp -s "$TMP/seed1" "$TMP/out"
run --seed 2 "$D/lowered_copy.tx"
differ() { ! cmp -s "$1" "$2"; }
check "another seed gives other data" differ "$TMP/seed1" "$TMP/out"
run --dump "$D/lowered_copy.tx"
check "--dump: name, dtype, shape, elements, hash" \
  pl 'open my $f, "<", $ARGV[0]; my @l = <$f>; exit($l[0] =~ /^A float16 \(256, 64\) 16384 [0-9a-f]{16}\n$/ ? 0 : 1)' "$TMP/out"
run -o "$TMP/report" "$D/lowered_copy.tx"
check "-o writes the report to a file" cmp -s "$TMP/seed1" "$TMP/report"
run --trace "$D/lowered_copy.tx"
check "--trace: each statement with its CTA and threads, on stderr" \
  grep -q "^cta 1, threads 0-127: 22: T.cuda.copy_bytes(g_ptr, s_ptr, 16)$" "$TMP/err"
# ---- clusters: CTAs run together, TMA multicast (tests/emu/cluster.tx) ---------
# A[i, j] = (64 i + j) * 40503 + 7 (16 bits); a cluster of N CTAs: rank r
# loads rows 64r/N .. and multicasts them to the CTAs of the mask; each CTA
# writes its whole tile S to its 64 rows of B.
pl 'npy_put($ARGV[0], "<f2", [64, 64], pack("v*", map { ($_ * 40503 + 7) & 0xffff } 0..4095))' "$TMP/cl_a.npy"
# cl_rows B.npy ROWS SPEC: B has ROWS rows of 64; SPEC lists "first:count:what",
# what "a0" (A's rows from 0 on), "a32" (from 32 on) or "poison" (0xAB bytes).
cl_rows() {
  pl 'my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("v*", $d); exit 1 unless @b == $ARGV[1] * 64;
    for my $s (split / /, $ARGV[2]) { my ($f, $c, $w) = split /:/, $s;
      for my $i (0 .. $c - 1) { for my $j (0..63) {
        my $want = $w eq "poison" ? 0xABAB : ((64 * ($i + substr($w, 1)) + $j) * 40503 + 7) & 0xffff;
        exit 1 if $b[($f + $i) * 64 + $j] != $want } } } exit 0' "$@"
}
run --kernel mc2 --in A="$TMP/cl_a.npy" --out B="$TMP/cl_b.npy" "$D/cluster.tx"
check "multicast, 2 CTAs: runs" ran
check "multicast, 2 CTAs: each CTA holds both halves (B = A, A)" cl_rows "$TMP/cl_b.npy" 128 "0:64:a0 64:64:a0"
run --kernel mc4 --in A="$TMP/cl_a.npy" --out B="$TMP/cl_b4.npy" "$D/cluster.tx"
check "multicast, 4 CTAs: runs" ran
check "multicast, 4 CTAs: each CTA holds all four quarters (B = A, A, A, A)" \
  cl_rows "$TMP/cl_b4.npy" 256 "0:64:a0 64:64:a0 128:64:a0 192:64:a0"
# rank 1 expects 4096 bytes: its phase completes with its own half (rows
# 32..63) and it reads rank 0's half before it lands: 0xAB
run --kernel expect_small --in A="$TMP/cl_a.npy" --out B="$TMP/cl_bs.npy" "$D/cluster.tx"
check "multicast, a receiver's expect_tx too small: runs" ran
check "multicast, a receiver's expect_tx too small: its partner's half reads as poison" \
  cl_rows "$TMP/cl_bs.npy" 128 "0:64:a0 64:32:poison 96:32:a32"
# rank 1 reads S without waiting: both halves are still poison
run --unchecked-async --kernel no_wait --in A="$TMP/cl_a.npy" --out B="$TMP/cl_bw.npy" "$D/cluster.tx"
check "multicast, a receiver without its wait: runs" ran
check "multicast, a receiver without its wait: its whole tile reads as poison" \
  cl_rows "$TMP/cl_bw.npy" 128 "0:64:a0 64:64:poison"
pl 'npy_put($ARGV[0], "<f2", [128, 64], pack("v*", map { ($_ * 40503 + 11) & 0xffff } 0..8191))' "$TMP/mc_a.npy"
run --in A="$TMP/mc_a.npy" --out B="$TMP/cl_b1.npy" "$X/tma_multicast.tx"
check "tma_multicast (copy_async with cta_mask=): runs" ran
check "tma_multicast: B's 64-row blocks are both clusters' tiles, each twice" pl '
  my (undef, $a) = npy_get($ARGV[0]); my (undef, $b) = npy_get($ARGV[1]); my @a = unpack("v*", $a); my @b = unpack("v*", $b);
  exit 1 unless @a == 128 * 64 && @b == 256 * 64;
  for my $bx (0..3) { for my $i (0..63) { for my $j (0..63) {
    exit 1 if $b[(64 * $bx + $i) * 64 + $j] != $a[(64 * int($bx / 2) + $i) * 64 + $j] } } } exit 0' "$TMP/mc_a.npy" "$TMP/cl_b1.npy"
"$TXC_BIN/txc" --emit=ir "$X/tma_multicast.tx" -o "$TMP/mc.ir.tx" 2>"$TMP/err"
run --in A="$TMP/mc_a.npy" --out B="$TMP/cl_b2.npy" "$TMP/mc.ir.tx"
check "tma_multicast lowered (g2c with cta_mask=): the same B" same_data "$TMP/cl_b1.npy" "$TMP/cl_b2.npy"
BADF=cluster.tx
# 16384 expected, 8192 received: rank 1's phase never completes; rank 0
# waits at the final cluster barrier for it
bad expect_large <<'EOF'
cluster.tx:101:5: error: thread (cta 0, thread 0): T.cuda.cluster_sync: deadlock: 1 of the cluster's 2 CTAs reach this cluster barrier, and no other can any more (cta rank 1: threads 0-31 wait at line 98, where the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and 8192 transaction bytes pending)
        T.cuda.cluster_sync()
        ^~~~~~~~~~~~~~~~~~~
EOF
bad no_sync <<'EOF'
cluster.tx:141:72: error: thread (cta 0, thread 0): T.ptx.cp_async.bulk.tensor.g2c (multicast to cta rank 1): the mbarrier is not initialized
            T.ptx.cp_async.bulk.tensor.g2c(2, T.address_of(S[cb * 32, 0]), T.address_of(bar[0]), A_map, 0, cb * 32, cta_mask=3)
                                                                           ^~~~~~~~~~~~
EOF
bad uninit <<'EOF'
cluster.tx:162:41: error: thread (cta 1, thread 0): T.ptx.mbarrier.arrive_expect_tx: the mbarrier is not initialized
            T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[0]), 8192)
                                            ^~~~~~~~~~~~
EOF
bad mask_runtime <<'EOF'
cluster.tx:185:122: error: thread (cta 1, thread 0): T.ptx.cp_async.bulk.tensor.g2c: the CTA mask 0x4 names cta rank 2, but the cluster has 2 CTAs
            T.ptx.cp_async.bulk.tensor.g2c(2, T.address_of(S[cb * 32, 0]), T.address_of(bar[0]), A_map, 0, cb * 32, cta_mask=1 << (cb * 2))
                                                                                                                             ^
EOF
# the receiver that reads without its wait (run above with
# --unchecked-async): its own half is still the load's, an error at the read
bad no_wait <<'EOF'
cluster.tx:123:50: error: thread (cta 1, thread 16): this reads byte 4096 of shared buffer 'S', which the asynchronous copy at cluster.tx:119 (thread 0 of cta rank 1) has not written yet: wait for its mbarrier's phase first
            B[bx * 64 + tid * 2 + i // 64, i % 64] = S[tid * 2 + i // 64, i % 64]
                                                     ^
EOF
# copy_async with cta_mask= over 32 boxes a CTA (one 128-byte row each):
# B[64 bx + i, j] = A[i, j] for j < 32, and the lowered IR (a loop of g2c,
# each with the mask) gives the same
pl 'npy_put($ARGV[0], "<f4", [64, 64], pack("f<*", map { $_ * 3 + 0.25 } 0..4095))' "$TMP/cb_a.npy"
run --kernel boxes --in A="$TMP/cb_a.npy" --out B="$TMP/cb_b.npy" "$D/cluster.tx"
check "multicast, a copy of 32 boxes a CTA: runs" ran
check "multicast, a copy of 32 boxes a CTA: each CTA holds all 64 rows" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("f<*", $d); exit 1 unless @b == 128 * 32;
  for my $bx (0..1) { for my $i (0..63) { for my $j (0..31) {
    exit 1 if $b[(64 * $bx + $i) * 32 + $j] != ($i * 64 + $j) * 3 + 0.25 } } } exit 0' "$TMP/cb_b.npy"
"$TXC_BIN/txc" --emit=ir "$D/cluster.tx" -o "$TMP/cl.ir.tx" 2>"$TMP/err"
check "multicast, a copy of 32 boxes: lowered to a loop of g2c with cta_mask=3" \
  grep -q "^            T.ptx.cp_async.bulk.tensor.g2c(2, T.pointer_offset(t, cb \* $((32 * 64)) + b1 \* 64), T.address_of(bar\[0\]), A_map, 0, cb \* 32 + b1, cta_mask=3)$" "$TMP/cl.ir.tx"
run --kernel boxes --in A="$TMP/cb_a.npy" --out B="$TMP/cb_b2.npy" "$TMP/cl.ir.tx"
check "multicast, a copy of 32 boxes: the lowered IR gives the same B" same_data "$TMP/cb_b.npy" "$TMP/cb_b2.npy"
# mapa: bar after pad's 16 x 8 = 128 bytes; CTA r's window starts at 2^24 (r + 1)
run --kernel mapa --out B="$TMP/ma_b.npy" "$D/cluster.tx"
check "mapa: runs" ran
check "mapa: the address of a shared variable in CTA r, from either CTA" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("Q<*", $d); exit 1 unless @b == 6;
  for my $bx (0..1) { exit 1 unless $b[3 * $bx] == (1 << 24) + 128 && $b[3 * $bx + 1] == (2 << 24) + 128
    && $b[3 * $bx + 2] == (2 << 24) } exit 0' "$TMP/ma_b.npy"
bad mapa_rank <<'EOF'
cluster.tx:246:44: error: thread (cta 0, thread 0): T.ptx.mapa: CTA rank 2 is not in the cluster of 2 CTAs
        T.ptx.mapa(R[0], T.address_of(bar[0]), T.uint32(2))
                                               ^~~~~~~~
EOF
# mc2 with a bounded loop of try_wait_parity: a failed try hands on to the
# other CTA, so every thread of both CTAs sees its phase complete (D = 1)
run --kernel poll --in A="$TMP/cl_a.npy" --out B="$TMP/po_b.npy" --out D="$TMP/po_d.npy" "$D/cluster.tx"
check "multicast, polled with try_wait_parity: runs" ran
check "multicast, polled with try_wait_parity: every thread saw the phase complete" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @d = unpack("l<*", $d); exit(@d == 64 && !grep { $_ != 1 } @d ? 0 : 1)' "$TMP/po_d.npy"
check "multicast, polled with try_wait_parity: each CTA holds both halves" cl_rows "$TMP/po_b.npy" 128 "0:64:a0 64:64:a0"
# both CTAs expect twice what they receive: the deadlock is found at a wait
bad expect_both <<'EOF'
cluster.tx:297:5: error: thread (cta 0, thread 0): T.ptx.mbarrier.try_wait: deadlock: the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and 8192 transaction bytes pending; threads 0-31 of cta rank 0 wait for it, and no CTA of the cluster can arrive any more (cta rank 1: threads 0-31 wait at line 297, where the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and 8192 transaction bytes pending)
        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
        ^~~~~~~~~~~~~~~~~~~~~~~
EOF
# apply() at run-time coordinates: each form against its offset written by hand
run --kernel apply_runtime "$D/apply_runtime.tx"
check "apply_runtime: runs" ran
check "apply() at run-time coordinates, one per shard iter: B_iters is C_iters" hashes_equal B_iters C_iters
check "apply() at a run-time flat index, split over the shard: B_flat is C_flat" hashes_equal B_flat C_flat
check "apply() at run-time coordinates with shape=: B_shape is C_flat" hashes_equal B_shape C_flat
check "apply() of a swizzled layout at a run-time index: B_swz is C_swz" hashes_equal B_swz C_swz
# a view of a view keeps the elements of the one it starts from, before
# and after lowering
run "$D/view_of_view.tx"
check "view_of_view: runs" ran
check "A.sub[...].view(n) is the sub's elements, row-major: B_sub is C_sub" hashes_equal B_sub C_sub
check "A.sub[...].permute(1, 0).view(...) is the permuted box's elements: B_perm is C_perm" hashes_equal B_perm C_perm
"$TXC_BIN/txc" --emit=ir "$D/view_of_view.tx" -o "$TMP/vv.ir" 2>"$TMP/err" && run "$TMP/vv.ir"
check "view_of_view lowered: B_sub is C_sub, B_perm is C_perm" hashes_equal B_sub C_sub && hashes_equal B_perm C_perm
# T.floordiv and T.floormod: floor division and its remainder, before and
# after lowering
run --arg m=200 --out C="$TMP/fd_c.npy" "$D/t_floordiv.tx"
check "t_floordiv: runs" ran
check "T.floordiv / T.floormod: 5 44 -4 1 3 8 -2 3" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @a = unpack("l<*", $d);
  exit("@a" eq "5 44 -4 1 3 8 -2 3" ? 0 : 1)' "$TMP/fd_c.npy"
cp "$TMP/out" "$TMP/fd_src"
"$TXC_BIN/txc" --emit=ir "$D/t_floordiv.tx" -o "$TMP/fd.ir" 2>"$TMP/err" && run --arg m=200 "$TMP/fd.ir"
check "t_floordiv lowered: the same buffers" cmp -s "$TMP/out" "$TMP/fd_src"
# loop bounds T.int32(4) and T.int64(4): the copies through them, before
# and after lowering
run "$D/int_loop_bounds.tx"
check "int_loop_bounds: B and C are A" hashes_equal A B && hashes_equal A C
"$TXC_BIN/txc" --emit=ir "$D/int_loop_bounds.tx" -o "$TMP/ilb.ir" 2>"$TMP/err" && run "$TMP/ilb.ir"
check "int_loop_bounds lowered: B and C are A" hashes_equal A B && hashes_equal A C
# functools.reduce and operator.mul over constants: their values
run --out A="$TMP/pr_a.npy" "$D/py_reduce.tx"
check "py_reduce: runs" ran
check "functools.reduce(operator.mul / add, ...), operator.mul: 147456, 6, 42, 30" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @a = unpack("l<*", $d);
  exit("@a" eq "147456 6 42 30" ? 0 : 1)' "$TMP/pr_a.npy"
# ---- while loops; mutable variables whose ranges txc follows (tests/emu/while_loops.tx) ----
W=$D/while_loops.tx
pl 'npy_put($ARGV[0], "<f4", [128, 128], pack("f<*", map { $_ + 0.5 } 0..16383))' "$TMP/wl_a.npy"
pl 'npy_put($ARGV[0], "<f4", [128, 128], pack("f<*", map { -$_ - 1 } 0..16383))' "$TMP/wl_b.npy"
for nt in 0 1 11 16; do
  run --kernel persistent --arg ntiles=$nt --in A="$TMP/wl_a.npy" --in B="$TMP/wl_b.npy" --out B="$TMP/wl_o.npy" "$W"
  check "while_loops persistent, ntiles=$nt: runs" ran
  check "while_loops persistent, ntiles=$nt: tiles below ntiles are A's, the others B's own" pl '
    my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("f<*", $d); exit 1 unless @b == 16384;
    for my $r (0..127) { for my $c (0..127) {
      my $t = int($r / 16) * 2 + int($c / 64); my $i = $r * 128 + $c;
      exit 1 if $b[$i] != ($t < $ARGV[1] ? $i + 0.5 : -$i - 1) } }' "$TMP/wl_o.npy" "$nt"
done
for n in 0 5 100 200; do
  run --kernel per_thread --arg n=$n --out C="$TMP/wl_c.npy" --out D="$TMP/wl_d.npy" "$W"
  check "while_loops per_thread, n=$n: runs" ran
  check "while_loops per_thread, n=$n: thread t made |range(t, n, 32)| trips, its i last range(t, n, 32)[-1]" pl '
    my (undef, $c) = npy_get($ARGV[0]); my (undef, $d) = npy_get($ARGV[1]);
    my @c = unpack("l<*", $c); my @d = unpack("l<*", $d); my $n = $ARGV[2];
    for my $t (0..63) { my @r = grep { ($_ - $t) % 32 == 0 } $t..$n - 1;
      exit 1 if $c[$t] != @r || $d[$t] != (@r ? $r[-1] : -1) }' "$TMP/wl_c.npy" "$TMP/wl_d.npy" "$n"
done
pl 'npy_put($ARGV[0], "<f2", [64, 256], pack("v*", map { ($_ * 40503 + 7) & 0xffff } 0..16383))' "$TMP/wl_h.npy"
run --kernel counted --in A="$TMP/wl_h.npy" --out B="$TMP/wl_g.npy" "$W"
check "while_loops counted: runs" ran
check "while_loops counted: B[48 - row + i] == A[row + i] for row 0, 16, 32, 48" pl '
  my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("v*", $d); exit 1 unless @b == 16384;
  for my $row (0, 16, 32, 48) { for my $i (0..15) { for my $c (0..255) {
    exit 1 if $b[(48 - $row + $i) * 256 + $c] != ((($row + $i) * 256 + $c) * 40503 + 7 & 0xffff) } } }' "$TMP/wl_g.npy"
pl 'npy_put($ARGV[0], "<f2", [64, 256], pack("v*", map { ($_ * 7 + 3) & 0x3fff } 0..16383))' "$TMP/wl_k.npy"
for st in 0 2 3; do
  run --kernel count_down --arg start=$st --in A="$TMP/wl_h.npy" --in B="$TMP/wl_k.npy" --out B="$TMP/wl_j.npy" "$W"
  check "while_loops count_down, start=$st: runs" ran
  check "while_loops count_down, start=$st: B's tile 3 - t is A's tile t for t = start .. 0, the others B's own" pl '
    my (undef, $d) = npy_get($ARGV[0]); my @b = unpack("v*", $d); my $st = $ARGV[1]; exit 1 unless @b == 16384;
    for my $i (0..16383) { my $bt = int($i / 4096); my $t = 3 - $bt;
      my $want = $t <= $st ? (($i - ($bt - $t) * 4096) * 40503 + 7) & 0xffff : ($i * 7 + 3) & 0x3fff;
      exit 1 if $b[$i] != $want }' "$TMP/wl_j.npy" "$st"
done
for k in persistent per_thread counted count_down; do
  args=(); [ $k = persistent ] && args=(--arg ntiles=11); [ $k = per_thread ] && args=(--arg n=77); [ $k = count_down ] && args=(--arg start=3)
  "$TXC_BIN/txc" --emit=ir "$W" -o "$TMP/wl_low.tx" 2>"$TMP/err"
  run --kernel $k "${args[@]}" "$W"; cp "$TMP/out" "$TMP/wl_src"
  run --kernel $k "${args[@]}" "$TMP/wl_low.tx"
  check "while_loops $k: lowered, the same result" cmp -s "$TMP/wl_src" "$TMP/out"
done

# ---- T.ptx.ldmatrix / stmatrix: the PTX ISA's m8n8 .b16 fragments (tests/tvm/ldstmatrix_builtins.tx) ----
# A's element (r, c) holds the 16 bits r * 64 + c + 1; every expected value
# is computed here from the ISA's layout: register q of lane l holds (row
# l / 4, columns 2 (l % 4) + h) of matrix q, .trans (rows 2 (l % 4) + h,
# column l / 4), h the half (low first).
LSM=$TOP/tests/tvm/ldstmatrix_builtins.tx
pl 'npy_put($ARGV[0], "<f2", [32, 64], pack("v*", map { $_ + 1 } 0..2047))' "$TMP/lsm_a.npy"
run --in A="$TMP/lsm_a.npy" --out B="$TMP/lsm_b.npy" --out C="$TMP/lsm_c.npy" --out D="$TMP/lsm_d.npy" \
  --out E="$TMP/lsm_e.npy" --out F="$TMP/lsm_f.npy" "$LSM"
check "ldstmatrix_builtins: runs" ran
lsm() { pl 'sub A { my ($r, $c) = @_; $r * 64 + $c + 1 }
  sub get { my (undef, $d) = npy_get($_[0]); [unpack("v*", $d)] }
  my ($which, $f) = @ARGV; my $v = get($f);
  for my $t (0..63) { my ($w, $l) = (int($t / 32), $t % 32);
    if ($which eq "B") { for my $q (0..3) { for my $h (0..1) {
      exit 1 if $v->[$t * 8 + 2 * $q + $h] != A(16 * $w + ($q % 2) * 8 + int($l / 4), int($q / 2) * 8 + 2 * ($l % 4) + $h) } } }
    if ($which eq "C") { for my $q (0..3) { for my $h (0..1) {
      exit 1 if $v->[$t * 8 + 2 * $q + $h] != A(16 * $w + ($q % 2) * 8 + 2 * ($l % 4) + $h, 16 + int($q / 2) * 8 + int($l / 4)) } } }
    if ($which eq "D") { for my $h (0..1) {
      for my $q (0..1) { exit 1 if $v->[$t * 6 + 2 * $q + $h] != A(16 * $w + $q * 8 + int($l / 4), 32 + 2 * ($l % 4) + $h) }
      exit 1 if $v->[$t * 6 + 4 + $h] != A(16 * $w + 2 * ($l % 4) + $h, 48 + int($l / 4)) } } }
  if ($which eq "E" || $which eq "F") {
    my @want = map { $_ + 1 } 0..2047;
    for my $t (0..63) { my ($w, $l) = (int($t / 32), $t % 32);
      for my $q (0..($which eq "E" ? 3 : 1)) { for my $h (0..1) { my $x = A($l, $w * 8 + 2 * $q + $h);
        if ($which eq "E") { $want[(16 * $w + ($q % 2) * 8 + int($l / 4)) * 64 + int($q / 2) * 8 + 2 * ($l % 4) + $h] = $x }
        else { $want[(16 * $w + $q * 8 + 2 * ($l % 4) + $h) * 64 + 40 + int($l / 4)] = $x } } } }
    for my $i (0..2047) { exit 1 if $v->[$i] != $want[$i] } }
  exit 0' "$1" "$2"; }
check "ldmatrix .x4: register q of lane l holds row l / 4, columns 2 (l % 4) + h of matrix q" lsm B "$TMP/lsm_b.npy"
check "ldmatrix .x4 .trans: rows 2 (l % 4) + h of column l / 4" lsm C "$TMP/lsm_c.npy"
check "ldmatrix .x2 and .x1 .trans: the rows of lanes 0 .. 15 and 0 .. 7" lsm D "$TMP/lsm_d.npy"
check "stmatrix .x4: the registers land at the rows lanes 0 .. 31 give, the rest of the tile as it was" lsm E "$TMP/lsm_e.npy"
check "stmatrix .x2 .trans: the same, transposed" lsm F "$TMP/lsm_f.npy"

# ---- Python's lambda, expanded (tests/tvm/lambdas.tx) ----
# B[4 t + i] = A[t * t % 64] + (1 + 2 + 3 + 4) + max(5, 9, 2, 0) + 3 i: the
# lambdas' values computed here, not read from the kernel
run --out A="$TMP/lam_a.npy" --out B="$TMP/lam_b.npy" "$TOP/tests/tvm/lambdas.tx"
check "lambdas: runs" ran
check "lambdas: every element of B from the lambdas' values" pl '
  my (undef, $a) = npy_get($ARGV[0]); my (undef, $b) = npy_get($ARGV[1]);
  my @a = unpack("f<*", $a); my @b = unpack("f<*", $b); exit 1 unless @a == 64 && @b == 64;
  for my $t (0..15) { for my $i (0..3) { my $want = unpack("f<", pack("f<", $a[$t * $t % 64] + 19 + 3 * $i));
    exit 1 unless $b[4 * $t + $i] == $want } } exit 0' "$TMP/lam_a.npy" "$TMP/lam_b.npy"

done_testing
