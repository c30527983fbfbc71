#!/usr/bin/env perl
# tcgen05.mma .kind::f16 with MN-major (transposed) operands on the
# emulator (runtime/emu-mma.c, emu_smem_desc_chunk_mn in emu-tccp.c): A
# M-major and/or B N-major, every swizzle mode (none, 32B, 64B, 128B),
# float16 and bfloat16, the two arrangements of the core matrices or
# atoms (so that LBO and SBO both matter), a K loop; and planted bugs:
# the MN-major operands' LBO and SBO swapped must give a different D.
#
# The kernels come from tests/emu/mma_mn_gen.pl, whose comment has the
# layout rule (PTX ISA 9.7.16.3; CUTLASS make_umma_desc<Major::MN>) and
# whose mn_byte() places each element by it, element by element (the C
# code works in 16-byte chunks). The model, computed here:
#   the instruction descriptor (PTX ISA 9.7.16.4.2, Table 42): dtype F32
#     = 1 at bits [5:4], atype and btype at [9:7] and [12:10], transpose
#     A at bit 15, transpose B at bit 16, N >> 3 at [22:17], M >> 4 at
#     [28:24]
#   D[m][n] = sum over k < 16 ks of A[m][k] * B[n][k] (small integers:
#     every summation order gives the same float32), in column n of lane
#     m (M = 128) or lane 32 * (m / 16) + m % 16 (M = 64, layout F)
# Every other cell of the allocated columns keeps 0xABABABAB; every byte
# of S that is no element is 0xFF (a NaN), so a misread element shows.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/mma_mn_gen.pl";

my $have_nvcc = have_nvcc();


my @cases = mma_mn_cases();
my $src = "$tmp/mma_mn.tx";
system("perl '$top/tests/emu/mma_mn_gen.pl' >'$src'") == 0 or die "mma_mn_gen.pl failed";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every MN-major tcgen05.mma kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("MN-major tcgen05.mma kernels: ptxas sm_100a", "no nvcc");
}
my $seed = 4242;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return ($seed >> 16) % 7 - 3 }
my %swz = (0 => "no swizzle", 1 => "32B", 2 => "64B", 3 => "128B");
my %seen;
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my $K = 16 * $c->{ks};
    my $name = sprintf("k%d: M %d N %d K 16 x %d, %s, %s, A %s-major, B %s-major, order %d%s", $i, $c->{m}, $c->{n},
                       $c->{ks}, $c->{dt}, $swz{$c->{swz}}, $c->{ta} ? "M" : "K", $c->{tb} ? "N" : "K", $c->{order},
                       $c->{swap} ? " (LBO and SBO swapped: planted)" : "");
    my @A = map { [map { rnd() } 1 .. $K] } 1 .. $c->{m};
    my @B = map { [map { rnd() } 1 .. $K] } 1 .. $c->{n};
    my ($clash, $img) = mma_image($c->{nw}, $c->{dt}, [\@A, sub { mn_byte($c, $c->{a}, @_) }],
                                  [\@B, sub { mn_byte($c, $c->{b}, @_) }]);
    ok(!$clash, "$name: A and B take distinct bytes of S");
    npy_put("$tmp/img.npy", "<u4", [$c->{nw}], $img);
    unlink "$tmp/t.npy", "$tmp/i.npy";
    my $rc = system("'$bin/txc-emu' --kernel k$i --in Img='$tmp/img.npy' --out I='$tmp/i.npy' --tmem-out '$tmp/t.npy' "
                    . "'$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "$name: runs", slurp("$tmp/err"));
    next if $rc;
    my (undef, $id) = npy_get("$tmp/i.npy");
    my $got = unpack("V", $id);
    my $t = $c->{dt} eq "bfloat16" ? 1 : 0;
    my $want = (1 << 4) | ($t << 7) | ($t << 10) | ($c->{ta} << 15) | ($c->{tb} << 16) | (($c->{n} >> 3) << 17)
             | (($c->{m} >> 4) << 24);
    ok($got == $want, "$name: the instruction descriptor's bits", sprintf("got 0x%08x, want 0x%08x", $got, $want));
    my %model;
    for my $m (0 .. $c->{m} - 1) {
        my $lane = $c->{m} == 128 ? $m : 32 * int($m / 16) + $m % 16;
        for my $n (0 .. $c->{n} - 1) {
            my $s = 0;
            $s += $A[$m][$_] * $B[$n][$_] for 0 .. $K - 1;
            $model{"$lane,$n"} = unpack("V", pack("f", $s));
        }
    }
    my ($h, $tm) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $tm);
    my @bad;
    for my $lane (0 .. 127) {
        for my $col (0 .. $c->{ncols} - 1) {
            my ($g, $w) = ($tm[$lane * 512 + $col], $model{"$lane,$col"} // 0xABABABAB);
            push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $lane, $col, $g, $w) if $g != $w;
        }
    }
    if ($c->{swap}) {
        ok($h =~ /'shape': \(128, 512\)/ && @bad > 0, "$name: D is not the model's (" . scalar(@bad)
           . " cells differ): the emulator reads LBO and SBO in their MN-major roles");
    } else {
        $seen{"$c->{swz},$c->{dt}"}++;
        ok($h =~ /'shape': \(128, 512\)/ && !@bad && keys(%model) == $c->{m} * $c->{n},
           "$name: tensor memory after the MMAs is the model's (" . $c->{m} * $c->{n} . " cells of D)",
           @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
    }
}
my @missing = grep { !$seen{$_} } map { my $s = $_; map { "$s,$_" } "float16", "bfloat16" } 0 .. 3;
ok(!@missing, "every swizzle mode with float16 and with bfloat16 among the cases", "missing: @missing");

done();
