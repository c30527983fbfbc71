#!/usr/bin/env perl
# The block-scaled tcgen05.mma (.kind::mxf8f6f4.block_scale.scale_vec::1X)
# on the emulator (runtime/emu-mmas.c): D = (A * scale_A) @ (B * scale_B)^T
# (+ D) over a K loop, A and B float8_e4m3fn / float8_e5m2 in shared memory
# (K-major, no swizzle and 128B), the UE8M0 scales put in tensor memory by
# tcgen05.cp .32x128b.warpx4 (or tcgen05.st by every warp), the
# instruction descriptor built by
# T.cuda.tcgen05.encode_instr_descriptor_block_scaled with the scale-factor
# id of each MMA; then three planted bugs, the errors of the emulator and
# of txc-parse.
#
# The kernels come from tests/emu/mmas_gen.pl (its comment gives the
# layouts: mmas_byte(), mmas_scale_byte()). The model, computed here from
# the definitions (doc/tcgen05-mma.md, "Block-scaled MMA"):
#   fp8 (OCP 8-bit floating point, the PTX ISA's .e4m3 / .e5m2): sign,
#     exponent (4 bits, bias 7 / 5 bits, bias 15), mantissa (3 / 2 bits);
#     exponent 0: subnormal; E4M3 has no infinity, S.1111.111 is NaN
#   UE8M0: the byte e is 2^(e - 127)
#   the instruction descriptor (ISA 9.7.16.4.2, block-scaled table;
#     CUTLASS InstrDescriptorBlockScaled): b_sf_id [5:4], atype [9:7]
#     (E4M3 0, E5M2 1), btype [12:10], N >> 3 [22:17], scale type UE8M0 = 1
#     at 23, M >> 4 [28:24], a_sf_id [30:29]
#   D[m][n] = sum over MMAs j and k < 32 of A[m][32j+k] * 2^(eA[m][j]-127)
#     * B[n][32j+k] * 2^(eB[n][j]-127): the scale of row r for MMA j is
#     byte j (the scale-factor id) of column c + r / 32 in lane r % 32 of
#     the reading quarter (A: row m's, lane m; B: the quarter of row m of D)
# Why the float32 sums are exact: every element is an integer of at most 4
# in magnitude, every scale 2^-3 .. 2^3, so each term is an integer
# multiple of 2^-6 below 2^10 in magnitude (2^16 units) and a sum of at most
# 128 terms stays below 2^23 units: every partial sum is a float32, and
# every summation order gives the same bits. With the planted scale 2^44
# (byte 0xAB) the same holds, scaled by a power of two.
# Every other byte of Img is 0xFF (a NaN in both formats, and a NaN scale),
# so a misread element or scale shows.
use strict;
use warnings;
use FindBin;
require "$FindBin::Bin/tap.pl";

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/mmas_gen.pl";

my $have_nvcc = !system("command -v nvcc >/dev/null 2>&1") || -x '/usr/local/cuda/bin/nvcc';
$ENV{PATH} .= ':/usr/local/cuda/bin';

# fp8 byte b of type t, decoded from the bit definition
sub fp8 {
    my ($b, $t) = @_;
    my ($eb, $mb) = $t eq "float8_e4m3fn" ? (4, 3) : (5, 2);
    my $bias = (1 << ($eb - 1)) - 1;
    my ($s, $e, $m) = ($b >> 7, ($b >> $mb) & ((1 << $eb) - 1), $b & ((1 << $mb) - 1));
    my $v;
    if ($t eq "float8_e4m3fn" && $e == 15 && $m == 7) {
        return "nan";
    } elsif ($t eq "float8_e5m2" && $e == 31) {
        return $m ? "nan" : ($s ? "-inf" : "inf");
    } elsif ($e == 0) {
        $v = $m * 2**(1 - $bias - $mb);
    } else {
        $v = (1 + $m / 2**$mb) * 2**($e - $bias);
    }
    return $s ? -$v : $v;
}

my @cases = mmas_cases();
my $src = "$tmp/mmas.tx";
system("perl '$top/tests/emu/mmas_gen.pl' >'$src'") == 0 or die "mmas_gen.pl failed";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every block-scaled tcgen05.mma kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("block-scaled tcgen05.mma kernels: ptxas sm_100a", "no nvcc");
}

my $seed = 4242;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed >> 16 }
# a random fp8 byte of type t whose value is an integer of at most 4 in magnitude
sub elem {
    my ($t) = @_;
    while (1) {
        my $b = rnd() % 256;
        my $v = fp8($b, $t);
        return ($b, $v) if $v !~ /n/ && $v == int($v) && abs($v) <= 4;
    }
}

my %code = (float8_e4m3fn => 0, float8_e5m2 => 1);
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my ($M, $N, $K) = ($c->{m}, $c->{n}, 32 * $c->{ks});
    my $name = sprintf("s%d: M 128 N %d K 32 x %d, %s x %s, swizzle %d%s%s%s", $i, $N, $c->{ks}, $c->{at}, $c->{bt},
                       $c->{swz}, $c->{tvm} ? " (TVM's spelling)" : "", $c->{bst} ? ", B's scales by tcgen05.st" : "",
                       $c->{bug} ? ", planted bug $c->{bug}" : "");
    my @img = (0xFF) x (4 * $c->{nw});
    my (@A, @B, @eA, @eB);
    my (%used, $clash);
    my $put = sub { my ($at, $b) = @_; $clash++ if $used{$at}++ || $at >= @img; $img[$at] = $b };
    for my $r (0 .. $M - 1) {
        for my $k (0 .. $K - 1) {
            my ($b, $v) = elem($c->{at});
            $A[$r][$k] = $v;
            $put->(mmas_byte($c, $c->{aoff}, $r, $k), $b);
        }
        for my $j (0 .. $c->{ks} - 1) {
            $eA[$r][$j] = 124 + rnd() % 7;
            $put->(mmas_scale_byte($c->{fa}, $r, $j), $eA[$r][$j]);
        }
    }
    for my $r (0 .. $N - 1) {
        for my $k (0 .. $K - 1) {
            my ($b, $v) = elem($c->{bt});
            $B[$r][$k] = $v;
            $put->(mmas_byte($c, $c->{boff}, $r, $k), $b);
        }
        for my $j (0 .. $c->{ks} - 1) {
            $eB[$r][$j] = 124 + rnd() % 7;
            $put->(mmas_scale_byte($c->{fb}, $r, $j), $eB[$r][$j]);
        }
    }
    ok(!$clash, "$name: A, B and the scales take distinct bytes of S");
    npy_put("$tmp/img.npy", "<u4", [$c->{nw}], pack("C*", @img));
    unlink "$tmp/t.npy", "$tmp/i.npy";
    my $rc = system("'$bin/txc-emu' --kernel s$i --in Img='$tmp/img.npy' --out I='$tmp/i.npy' --tmem-out '$tmp/t.npy' "
                    . "'$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "$name: runs", slurp("$tmp/err"));
    next if $rc;
    my (undef, $id) = npy_get("$tmp/i.npy");
    my $got = unpack("V", $id);
    my $last = $c->{ks} - 1;
    my $want = (($c->{bug} eq "sfid" ? 0 : $last) << 29) | (($M >> 4) << 24) | (1 << 23) | (($N >> 3) << 17)
             | ($code{$c->{bt}} << 10) | ($code{$c->{at}} << 7) | ($last << 4);
    ok($got == $want, "$name: the instruction descriptor's bits", sprintf("got 0x%08x, want 0x%08x", $got, $want));

    # the model: the cells of D, then the scale columns as the copies leave them
    my $word = sub { my ($at) = @_; return unpack("V", pack("C4", @img[$at .. $at + 3])) };
    my (%model, %right);
    for my $m (0 .. $M - 1) {
        for my $n (0 .. $N - 1) {
            my ($s, $s_right) = (0, 0);
            for my $j (0 .. $c->{ks} - 1) {
                my $dot = 0;
                $dot += $A[$m][32 * $j + $_] * $B[$n][32 * $j + $_] for 0 .. 31;
                my $ea = $c->{bug} eq "sfid" ? $eA[$m][0] : $eA[$m][$j];
                my $eb = $c->{bug} eq "nocopy" || ($c->{bug} eq "quarter0" && $m >= 32) ? 0xAB : $eB[$n][$j];
                $s += $dot * 2**($ea - 127) * 2**($eb - 127);
                $s_right += $dot * 2**($eA[$m][$j] - 127) * 2**($eB[$n][$j] - 127);
            }
            $model{"$m," . ($c->{col} + $n)} = unpack("V", pack("f", $s));
            $right{"$m," . ($c->{col} + $n)} = unpack("V", pack("f", $s_right));
        }
    }
    for my $lane (0 .. 127) {
        for my $q (0 .. 3) {
            $model{"$lane," . ($c->{sa} + $q)} = $word->($c->{fa} + 16 * ($lane % 32) + 4 * $q);
            next if $c->{bug} eq "nocopy" || ($c->{bug} eq "quarter0" && $lane >= 32);
            $model{"$lane," . ($c->{sb} + $q)} = $word->($c->{fb} + 16 * ($lane % 32) + 4 * $q);
        }
    }
    my ($h, $tm) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $tm);
    my (@bad, $differs);
    for my $lane (0 .. 127) {
        for my $col (0 .. $c->{ncols} - 1) {
            my ($g, $w) = ($tm[$lane * 512 + $col], $model{"$lane,$col"} // 0xABABABAB);
            push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $lane, $col, $g, $w) if $g != $w;
            $differs++ if exists $right{"$lane,$col"} && $g != $right{"$lane,$col"};
        }
    }
    ok($h =~ /'shape': \(128, 512\)/ && !@bad,
       "$name: tensor memory after the MMAs is the model's ($M x $N cells of D, the scale columns, the rest untouched)",
       @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
    if ($c->{bug}) {
        ok($differs && $differs > $N, "$name: D differs from the bug-free model in $differs cells (the check can fail)");
    }
}

done();
