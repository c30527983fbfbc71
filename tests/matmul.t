#!/usr/bin/env perl
# Seed 004's application on the emulator: D = A @ B + C by
# examples/matmul_accumulate.tx (TMA loads of C and of a 3-stage ring of A
# and B tiles, tcgen05.cp of C into one of two tensor-memory accumulators,
# a K loop of tcgen05.mma, a tcgen05.ld epilogue; load, MMA and epilogue
# warps; a persistent grouped tile schedule over NUM_CTAS CTAs), for
# BLOCK_N 128 and 64 and other sizes, as written and lowered, each also
# through ptxas for sm_100a.
#
# The reference is computed here in float64 from the same inputs:
#   D[m][n] = C[m][n] + sum over k of A[m][k] * B[k][n].
# The bound: A and B are float16, whose products are exact in float32
# (two 11-bit significands make at most 22 bits), and D is C plus K of
# them, summed in float32: K additions, each rounding to nearest with a
# relative error of at most u = 2^-24. In whatever order the tensor core
# adds them, the error of a sum of K + 1 terms x_i is at most
# gamma = (K u) / (1 - K u) times sum |x_i| (Higham, Accuracy and Stability
# of Numerical Algorithms, 2nd ed., section 4.2), so each element must be
# within gamma * (|C| + sum |A B|) of the float64 value. With small
# integers (the "exact" cases) every partial sum is exact in float32 and D
# must equal the reference exactly.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
my $example = slurp("$top/examples/matmul_accumulate.tx");
my $have_nvcc = have_nvcc();

# the float16 bits of v = k / 2^s (k an integer, |v| a normal float16 or 0)
sub f16 {
    my ($v) = @_;
    return 0 if $v == 0;
    my ($sign, $a, $e) = ($v < 0 ? 1 : 0, abs $v, 0);
    $e++ while $a >= 2**($e + 1);
    $e-- while $a < 2**$e;
    my $mant = ($a / 2**$e - 1) * 1024;
    die "not a float16: $v" if $mant != int($mant) || $e < -14 || $e > 15;
    return ($sign << 15) | (($e + 15) << 10) | $mant;
}

my $seed = 20261123;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed >> 8 }

# one configuration: the example with its constants replaced
sub source {
    my (%c) = @_;
    my $s = $example;
    $s =~ s/^M, N, K = .*$/M, N, K = $c{M}, $c{N}, $c{K}/m or die;
    $s =~ s/^BLOCK_M, BLOCK_N, BLOCK_K = .*$/BLOCK_M, BLOCK_N, BLOCK_K = 128, $c{BN}, 64/m or die;
    $s =~ s/^NUM_CTAS = .*$/NUM_CTAS = $c{CTAS}/m or die;
    return $s;
}

my @configs = (
    { M => 256, N => 256, K => 256, BN => 128, CTAS => 3, data => "random" },
    { M => 256, N => 256, K => 256, BN => 64,  CTAS => 3, data => "random" },
    { M => 256, N => 256, K => 256, BN => 128, CTAS => 2, data => "exact" },
    { M => 384, N => 192, K => 128, BN => 64,  CTAS => 4, data => "random" },
    { M => 128, N => 128, K => 512, BN => 128, CTAS => 1, data => "random" },
);

for my $c (@configs) {
    my ($M, $N, $K) = @$c{qw(M N K)};
    my $name = "M=$M N=$N K=$K BLOCK_N=$c->{BN} NUM_CTAS=$c->{CTAS} ($c->{data} data)";
    my $src = "$tmp/mm.tx";
    spit($src, source(%$c));
    # inputs
    my (@a, @b, @cc);
    if ($c->{data} eq "exact") {
        @a = map { (rnd() % 7) - 3 || 1 } 1 .. $M * $K;
        @b = map { (rnd() % 5) - 2 || 1 } 1 .. $K * $N;
        @cc = map { (rnd() % 101) - 50 || 7 } 1 .. $M * $N;
    } else {
        @a = map { ((rnd() % 2047) - 1023 || 1) / 1024 } 1 .. $M * $K;
        @b = map { ((rnd() % 2047) - 1023 || 1) / 1024 } 1 .. $K * $N;
        @cc = map { unpack("f<", pack("f<", ((rnd() % 20001) - 10000) / 2500)) } 1 .. $M * $N;
    }
    npy_put("$tmp/a.npy", "<f2", [$M, $K], pack("v*", map { f16($_) } @a));
    npy_put("$tmp/b.npy", "<f2", [$K, $N], pack("v*", map { f16($_) } @b));
    npy_put("$tmp/c.npy", "<f4", [$M, $N], pack("f<*", @cc));
    # the reference, and the bound per element
    my (@ref, @tol);
    my $u = 2**-24;
    my $gamma = ($K + 1) * $u / (1 - ($K + 1) * $u);
    my @bt;    # B's columns
    for my $n (0 .. $N - 1) { $bt[$n] = [map { $b[$_ * $N + $n] } 0 .. $K - 1] }
    for my $m (0 .. $M - 1) {
        my @ar = @a[$m * $K .. $m * $K + $K - 1];
        for my $n (0 .. $N - 1) {
            my ($s, $abs, $col) = ($cc[$m * $N + $n], abs $cc[$m * $N + $n], $bt[$n]);
            for my $k (0 .. $K - 1) {
                my $p = $ar[$k] * $col->[$k];
                $s += $p;
                $abs += abs $p;
            }
            $ref[$m * $N + $n] = $s;
            $tol[$m * $N + $n] = $c->{data} eq "exact" ? 0 : $gamma * $abs;
        }
    }
    my $low = "$tmp/mm.low.tx";
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$src' -o '$low' 2>'$tmp/err'");
    ok($rc == 0, "$name: lowers", slurp("$tmp/err"));
    for my $form (["as written", $src], ["lowered", $low]) {
        next if $form->[1] eq $low && $rc;
        my $t0 = time;
        my $r = system("'$bin/txc-emu' --in A=$tmp/a.npy --in B=$tmp/b.npy --in C=$tmp/c.npy --out D=$tmp/d.npy "
                       . "'$form->[1]' >'$tmp/out' 2>'$tmp/err'");
        next unless ok($r == 0, "$name, $form->[0]: runs on the emulator", slurp("$tmp/err"));
        my (undef, $d) = npy_get("$tmp/d.npy");
        my @d = unpack("f<*", $d);
        my ($bad, $worst, $at, $ratio) = (0, 0, -1, 0);
        for my $i (0 .. $M * $N - 1) {
            my $e = abs($d[$i] - $ref[$i]);
            $bad++ unless $e <= $tol[$i];
            ($worst, $at) = ($e, $i) if $at < 0 || $e > $worst;
            $ratio = $e / $tol[$i] if $tol[$i] && $e / $tol[$i] > $ratio;
        }
        print "# $name, $form->[0]: largest |D - reference| $worst, largest error / bound $ratio\n";
        ok(@d == $M * $N && !$bad,
           "$name, $form->[0]: D = A @ B + C " . ($c->{data} eq "exact" ? "exactly" : "within the float32 summation bound"),
           "$bad of " . ($M * $N) . " elements out of bounds; worst at (" . int($at / $N) . ", " . ($at % $N)
           . "): got $d[$at], want $ref[$at] "
           . "(bound $tol[$at])");
    }
    if ($have_nvcc) {
        my $r = system("'$bin/txc' --arch=sm_100a --emit=cubin '$src' -o '$tmp/mm.cubin' >'$tmp/out' 2>'$tmp/err'");
        ok($r == 0, "$name: ptxas sm_100a", slurp("$tmp/err"));
    } else {
        skip("$name: ptxas sm_100a", "no nvcc");
    }
}
done();
