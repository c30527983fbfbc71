#!/usr/bin/env perl
# Block-scaled Tx.gemm_async(C, A, B, SFA=, SFB=, dispatch="tcgen05")
# through the tcgen05_mma variant (variants/tcgen05_mma.c; doc/txir.md
# "tcgen05_mma", doc/tcgen05-mma.md "Block-scaled MMA"): the kernels of
# tests/emu/gemms_gen.pl (TVM's test_gemm_block_scaled_fp8_cta_group_1 and
# variations: E4M3 and E5M2 A and B, every swizzle, N 32..128, K 32..128,
# mma_n, a scale per 32 of K and one scale for all of K, scale regions
# that start past row 0 and past K block 0), lowered by txc, then
#   - the lowered IR against the model below;
#   - ptxas for sm_100a (the whole module);
#   - the emulator, the tile op as written (runtime/emu-gemm.c, from the
#     logical elements SFA[m, j], SFB[n, j]) and lowered (runtime/emu-mmas.c,
#     from the descriptors and the scale cells): tensor memory and C read
#     back equal the product computed here, and the two runs agree bit for
#     bit; on txc-emu's random data too (NaNs compared as NaNs: see there);
#   - a planted bug (a scale byte the model moves) that must fail;
# then the refusals, each message exact.
#
# The model (doc/tcgen05-mma.md "Where the scales are in tensor memory"):
#   one MMA per N block of nn columns (mma_n=, else N) and per 32 of K, in
#   that order; enable_input_d False for the first of a block, else True;
#   C's address lane 0, column j nn; A's and B's descriptors K-major, from
#   the layouts' definitions (gemms_elem()): start = elem(r0, 32 t), with a
#   swizzle of span P ldo 1 (unused) and sdo 8 P / 16, without one ldo =
#   rows (the rows x 16 bytes of one 16-column block) and sdo 8 (the next 8
#   rows, 128 bytes);
#   the scales: the logical scale buffer (128, kb) has element (m, q) at
#   lane m % 32 of each quarter, byte column 4 (m / 32) + q (its layout in
#   gemms_gen.pl); the region SFA=sfa[r0 :, k0 :] gives, for K block t, the
#   element (r0 + r, k0 + j), j = t (or 0 when the region is one scale
#   wide): so the scale address is column 128 + r0 / 32 + 0 (A; r0 a
#   multiple of 32, k0 + j < 4), the scale-factor id k0 + j; for B block
#   j, rows r0 + j nn: column 132 + (r0 + j nn) / 32. The descriptor is
#   encoded again whenever the two ids change.
#   D[m][n] = sum over k of A[m][k] sa(m, k / 32) B[n][k] sb(n, k / 32),
#   with A and B decoded from their fp8 bits and the scale byte e meaning
#   2^(e - 127).
# Exactness: A and B are integers -3..3, the scale bytes 124..130 (2^-3 ..
# 2^3): each term is a multiple of 2^-6 of magnitude at most 9 2^6 = 576,
# each partial sum of at most 128 terms a multiple of 2^-6 below 2^17,
# i.e. at most 23 significant bits: every float32 partial sum is exact,
# so any order of summation gives the same float32, the real sum.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/gemms_gen.pl";

my $have_nvcc = !system("command -v nvcc >/dev/null 2>&1") || -x '/usr/local/cuda/bin/nvcc';
$ENV{PATH} .= ':/usr/local/cuda/bin';

# fp8 byte b of type t, decoded from the bit definition (E4M3: bias 7,
# S.1111.111 NaN; E5M2: bias 15, IEEE-like)
sub fp8 {
    my ($b, $t) = @_;
    my ($eb, $mb) = $t eq "float8_e4m3fn" ? (4, 3) : (5, 2);
    my $bias = (1 << ($eb - 1)) - 1;
    my ($s, $e, $m) = ($b >> 7, ($b >> $mb) & ((1 << $eb) - 1), $b & ((1 << $mb) - 1));
    die "NaN or infinity in the test data" if ($t eq "float8_e4m3fn" && $e == 15 && $m == 7) || ($t eq "float8_e5m2" && $e == 31);
    my $v = $e == 0 ? $m * 2**(1 - $bias - $mb) : (1 + $m / 2**$mb) * 2**($e - $bias);
    return $s ? -$v : $v;
}

# the fp8 bits of a small integer v (|v| <= 3): 1.m x 2^e
sub enc8 {
    my ($v, $t) = @_;
    return 0 if $v == 0;
    my ($eb, $mb) = $t eq "float8_e4m3fn" ? (4, 3) : (5, 2);
    my $bias = (1 << ($eb - 1)) - 1;
    my ($s, $a, $e) = ($v < 0 ? 1 : 0, abs $v, 0);
    $e++ while (1 << ($e + 1)) <= $a;
    return ($s << 7) | (($e + $bias) << $mb) | (($a / 2**$e - 1) * 2**$mb);
}

my @cases = gemms_cases();
my $src = "$tmp/s.tx";
system("perl '$top/tests/emu/gemms_gen.pl' >'$src'") == 0 or die "gemms_gen.pl failed";
my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/s.ir' '$src' >'$tmp/out' 2>'$tmp/err'");
ok($rc == 0, "every block-scaled gemm_async kernel lowers (txc --emit=ir)", slurp("$tmp/err"));
if ($have_nvcc) {
    $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/s.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every block-scaled gemm_async kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("block-scaled gemm_async kernels: ptxas sm_100a", "no nvcc");
}
my %body;
{
    my $name;
    for (split /^/, slurp("$tmp/s.ir")) {
        $name = $1 if /^def (s\d+)\(/;
        $body{$name} .= $_ if $name;
    }
}

my $seed = 2024;
sub rnd { my ($n) = @_; $seed = ($seed * 1103515245 + 12345) % 2147483648; return ($seed >> 16) % $n }

for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my ($n, $k, $adt, $bdt, $swz) = @$c{qw(n k adt bdt swz)};
    my ($ka, $ra, $qa, $xa) = @{ $c->{sfa} };
    my ($kb, $rb, $qb, $xb) = @{ $c->{sfb} };
    my $name = sprintf("s%d: N %d K %d %s x %s, swizzle %d%s, SFA %s, SFB %s", $i, $n, $k, $adt, $bdt, $swz,
                       $c->{mma_n} ? ", mma_n $c->{mma_n}" : "", $xa == 1 ? "one for all of K" : "per 32 of K",
                       $xb == 1 ? "one for all of K" : "per 32 of K");
    # ---- the lowered IR ----
    my $nn = $c->{mma_n} || $n;
    my $P = 16 << $swz;
    my @want;
    my ($pa, $pb) = (-1, -1);
    for my $j (0 .. $n / $nn - 1) {
        for my $t (0 .. $k / 32 - 1) {
            my ($aid, $bid) = ($qa + ($xa == 1 ? 0 : $t), $qb + ($xb == 1 ? 0 : $t));
            if ($aid != $pa || $bid != $pb) {
                push @want, sprintf('T.cuda.tcgen05.encode_instr_descriptor_block_scaled(T.address_of(mma_idesc), '
                                    . 'd_dtype="float32", a_dtype="%s", b_dtype="%s", sfa_dtype="float8_e8m0fnu", '
                                    . 'sfb_dtype="float8_e8m0fnu", M=128, N=%d, K=32, trans_a=False, trans_b=False, '
                                    . 'a_sf_id=%d, b_sf_id=%d)', $adt, $bdt, $nn, $aid, $bid);
                ($pa, $pb) = ($aid, $bid);
            }
            for my $s (["A", 128, 0], ["B", $n, $j * $nn]) {
                my ($nm, $rows, $r0) = @$s;
                push @want, sprintf("T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(mma_%sdesc), "
                                    . "T.pointer_offset(%s_smem, %d), ldo=%d, sdo=%d, swizzle=%d)", lc $nm, $nm,
                                    gemms_elem($swz, $rows, $r0, 32 * $t), $swz ? 1 : $rows, $swz ? 8 * $P / 16 : 8,
                                    $swz);
            }
            push @want, sprintf("T.ptx.tcgen05.mma(T.cuda.get_tmem_addr(tmem_addr[0], 0, %d), mma_adesc[0], "
                                . "mma_bdesc[0], mma_idesc[0], %s, kind=\"mxf8f6f4\", scale_a=T.cuda.get_tmem_addr("
                                . "tmem_addr[0] + 128, 0, %d), scale_b=T.cuda.get_tmem_addr(tmem_addr[0] + 132, 0, %d))",
                                $j * $nn, $t ? "True" : "False", $ra / 32, ($rb + $j * $nn) / 32);
        }
    }
    my @got = map { s/^\s+//r } grep { /T\.cuda\.tcgen05\.encode_(?:instr_descriptor_block_scaled|matrix_descriptor)\(T\.address_of\(mma_|T\.ptx\.tcgen05\.mma\(/ }
              split /\n/, $body{"s$i"} // "";
    my $w = join("\n", @want) . "\n";
    my $g = join("\n", @got) . "\n";
    ok($w eq $g, "$name: the lowered IR (descriptors, scale addresses and ids)", "want:\n$w", "got:\n$g");

    # ---- the emulator: as written, then lowered ----
    my (@A, @B, @SA, @SB);
    for my $m (0 .. 127) { $A[$m][$_] = rnd(7) - 3 for 0 .. $k - 1 }
    for my $r (0 .. $n - 1) { $B[$r][$_] = rnd(7) - 3 for 0 .. $k - 1 }
    for my $r (0 .. 31) { $SA[$r][$_] = 124 + rnd(7), $SB[$r][$_] = 124 + rnd(7) for 0 .. 15 }
    my $abits = pack("C*", map { my $r = $_; map { enc8($_, $adt) } @{ $A[$r] } } 0 .. 127);
    my $bbits = pack("C*", map { my $r = $_; map { enc8($_, $bdt) } @{ $B[$r] } } 0 .. $n - 1);
    npy_put("$tmp/a.npy", "|u1", [128, $k], $abits);
    npy_put("$tmp/b.npy", "|u1", [$n, $k], $bbits);
    npy_put("$tmp/sa.npy", "|u1", [32, 16], pack("C*", map { @$_ } @SA));
    npy_put("$tmp/sb.npy", "|u1", [32, 16], pack("C*", map { @$_ } @SB));
    # the logical scales (gemms_gen.pl): scale(m, q) = raw[m % 32][4 (m / 32) + q]
    my $scale = sub { my ($raw, $m, $q) = @_; 2**($raw->[$m % 32][4 * int($m / 32) + $q] - 127) };
    my @D;
    for my $m (0 .. 127) {
        for my $r (0 .. $n - 1) {
            my $d = 0;
            for my $kk (0 .. $k - 1) {
                my $t = int($kk / 32);
                my $sa = $scale->(\@SA, $ra + $m, $qa + ($xa == 1 ? 0 : $t));
                my $sb = $scale->(\@SB, $rb + $r, $qb + ($xb == 1 ? 0 : $t));
                $d += fp8(ord(substr($abits, $m * $k + $kk, 1)), $adt) * $sa
                    * fp8(ord(substr($bbits, $r * $k + $kk, 1)), $bdt) * $sb;
            }
            $D[$m][$r] = $d;
        }
    }
    my %dump;
    for my $run (["as written", $src, "w"], ["lowered", "$tmp/s.ir", "l"]) {
        my ($how, $file, $tag) = @$run;
        unlink "$tmp/t$tag.npy", "$tmp/c$tag.npy";
        $rc = system("'$bin/txc-emu' --kernel s$i --in A='$tmp/a.npy' --in B='$tmp/b.npy' --in SA='$tmp/sa.npy' "
                     . "--in SB='$tmp/sb.npy' --out C='$tmp/c$tag.npy' --tmem-out '$tmp/t$tag.npy' '$file' "
                     . ">'$tmp/out' 2>'$tmp/err'");
        ok($rc == 0, "$name, $how: runs on the emulator", slurp("$tmp/err"));
        $dump{$tag} = slurp("$tmp/t$tag.npy") . slurp("$tmp/c$tag.npy");
        my (undef, $tm) = npy_get("$tmp/t$tag.npy");
        my (undef, $cd) = npy_get("$tmp/c$tag.npy");
        my @tw = unpack("V*", $tm // "");
        my @cf = unpack("f<*", $cd // "");
        my @bad;
        for my $m (0 .. 127) {
            for my $r (0 .. $n - 1) {
                my $x = unpack("f<", pack("V", $tw[$m * 512 + $r] // 0));
                my $y = $cf[$m * $n + $r] // "none";
                push @bad, "D[$m][$r]: tensor memory $x, C $y, want $D[$m][$r]"
                    if $x != $D[$m][$r] || $y eq "none" || $y != $D[$m][$r];
            }
        }
        ok(!@bad && scalar(@tw), "$name, $how: tensor memory and C equal the scaled product", @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
    }
    ok($dump{w} eq $dump{l}, "$name: tensor memory and C the same as written and lowered, bit for bit");
    # ---- a planted bug: the lowered s0 with its first MMA's A scale-factor id 1 instead of 0 (the
    # scales of K block 1 for K block 0) must not pass the check above ----
    if ($i == 0) {
        my $ir = slurp("$tmp/s.ir");
        my $n0 = ($ir =~ s/(def s0\(.*?a_sf_id=)0(, b_sf_id=0\))/${1}1$2/s);
        open my $fh, '>', "$tmp/bug.ir" or die;
        print $fh $ir;
        close $fh;
        unlink "$tmp/tb.npy";
        $rc = system("'$bin/txc-emu' --kernel s0 --in A='$tmp/a.npy' --in B='$tmp/b.npy' --in SA='$tmp/sa.npy' "
                     . "--in SB='$tmp/sb.npy' --tmem-out '$tmp/tb.npy' '$tmp/bug.ir' >'$tmp/out' 2>'$tmp/err'");
        my (undef, $tm) = $rc ? (undef, "") : npy_get("$tmp/tb.npy");
        my @tw = unpack("V*", $tm);
        my $bad = 0;
        for my $m (0 .. 127) {
            for my $r (0 .. $n - 1) {
                $bad++ if unpack("f<", pack("V", $tw[$m * 512 + $r] // 0)) != $D[$m][$r];
            }
        }
        ok($n0 == 1 && $rc == 0 && $bad > 0, "$name: a planted bug (the first MMA reads A's scales of K block 1) "
           . "runs and gives another D ($bad of " . 128 * $n . " elements differ)", slurp("$tmp/err"));
    }
}

# ---- random data (seeded by txc-emu): as written and lowered agree ----
# txc-emu's random bytes include NaN and huge scales, so some sums are NaN
# (inf - inf); which NaN an x86 addition returns depends on the order of
# its operands, which the C compiler may swap: NaNs are compared as NaNs,
# every other cell bit for bit.
for my $i (0 .. $#cases) {
    my @h;
    for my $file ($src, "$tmp/s.ir") {
        unlink "$tmp/tr.npy";
        $rc = system("'$bin/txc-emu' --kernel s$i --seed 7 --tmem-out '$tmp/tr.npy' '$file' >'$tmp/out' 2>'$tmp/err'");
        my (undef, $tm) = $rc ? (undef, undef) : npy_get("$tmp/tr.npy");
        push @h, $rc ? "failed: " . slurp("$tmp/err")
                     : join(",", map { ($_ & 0x7f800000) == 0x7f800000 && ($_ & 0x7fffff) ? "nan" : $_ } unpack("V*", $tm));
    }
    ok($h[0] eq $h[1] && $h[0] !~ /^failed/, "s$i, random data: as written and lowered give the same tensor memory",
       substr($h[0], 0, 200), substr($h[1], 0, 200));
}

# ---- the refusals ----
chdir $top or die;
{
    my $f = "tests/emu/gemms_bad.tx";
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o /dev/null $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    # the positions by hand: the operands start at columns 23, 34, 45, the
    # first keyword at 56 (8 spaces and "Tx.gemm_async(" before them, each
    # operand "X[:, :], " 11 characters); SFB= after "SFA=sf[:, 0:2], " at
    # 72, its value at 76
    my @want = (
        "20:56: error: SFA= without SFB=: a block-scaled gemm_async (tcgen05.mma .kind::mxf8f6f4) takes the scales "
        . "of A and of B",
        "21:45: error: gemm_async's B with SFA=/SFB= is a float8_e4m3fn or float8_e5m2 region of shared memory "
        . "(tcgen05.mma .kind::mxf8f6f4); 'H_s' is float16 in shared memory",
        "22:76: error: SFB= is a region of uint8 tensor memory: the UE8M0 scale bytes of B (one per row and 32 of K) "
        . "that tcgen05.mma .kind::mxf8f6f4 reads",
        "23:34: error: gemm_async's A is a float16 or bfloat16 region of shared memory (tcgen05.mma .kind::f16); "
        . "'A_s' is float8_e4m3fn in shared memory",
    );
    my $got = join "", grep { /^\Q$f\E:/ } split /^/, slurp("$tmp/err");
    my $want = join "", map { "$f:$_\n" } @want;
    ok($rc != 0 && $got eq $want, "txc-parse: the refusals of block-scaled gemm_async's operands", "want:\n$want",
       "got (exit $rc):\n$got");
}
{
    my $f = "tests/emu/gemms_plan_bad.tx";
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o /dev/null $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $v = "    tcgen05_mma   10  tcgen05_mma: ";
    my $where = "(row % 32 in each of the four lane quarters, the scale address's column + row / 32, the "
              . "scale-factor id of row 0)";
    my @want = (
        [ 26, "SFA has 64 rows and C 128: one scale per row of A" ],
        [ 27, "SFA has 3 scales along K; K = 128 takes 4 (one per 32 of K, .scale_vec::1X) or 1 (the same scale "
              . "for all of K)" ],
        # sfn: (m, q) in lane m, byte column q, no copies in the other quarters
        [ 28, "SFB: the scale of row 0 for K block 0 (element (0, 0) of 'sfn') must be in lane 32, column 0, byte 0 "
              . "of the tensor memory $where: the layout puts no copy of it in lane 32 there (it is in lane 0, "
              . "byte 0 of column 0)" ],
        # sfw: (32 i + r, q) at byte column i + 4 q: row 32 in byte 1 of column 0, not column 1
        [ 29, "SFA: the scale of row 32 for K block 0 (element (32, 0) of 'sfw') must be in lane 0, column 1, byte "
              . "0 of the tensor memory $where: the layout puts no copy of it in lane 0 there (it is in lane 0, byte "
              . "1 of column 0)" ],
        [ 30, "C's window has 64 rows: a block-scaled tcgen05.mma with cta_group 1 writes M = 128 rows" ],
        [ 31, "K = 48: one tcgen05.mma .kind::mxf8f6f4 takes K = 32, so K is a multiple of 32" ],
        # Bt_s (128, 64) read N-major (transB=True): B's (0, 1) is Bt_s's (1, 0), 64 bytes on (the span)
        [ 32, "no shared-memory descriptor reads rows 0..63, K 0..31 of B ('Bt_s'): K-major, 64-byte swizzle (LBO "
              . "16, SBO 8 bytes): element (0, 1) of B's matrix is at byte 64 of 'Bt_s', not 1 (block-scaled: txc "
              . "plans K-major 8-bit operands only)" ],
        [ 34, "not supported yet: a run-time start of SFA ('x0')" ],
    );
    my $err = slurp("$tmp/err");
    for my $w (@want) {
        my ($line, $msg) = @$w;
        ok($err =~ /^\Q$f\E:$line:\d+: error: no variant of Tx\.gemm_async can run this op:\n(?:.*\n){2}\Q$v$msg\E$/m,
           "txc-dispatch refuses line $line: $msg", $err);
    }
}

done();
