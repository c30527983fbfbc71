#!/usr/bin/env perl
# Seed 004's whole configuration table (test_tcgen05_copy_nvmma_shared:
# float32, M in {128, 256}, N in {16, ..., 256}, TMEM block N in {1, ...,
# 256}, block M 128, swizzle 32/64/128 bytes, after the seed's own filter):
# tests/emu/tccp_table_gen.pl writes each as a round trip global -> shared
# (NVMMASharedLayout) -> Tx.copy_async (the tcgen05_cp variant), commit,
# wait -> tensor memory (TensorMemoryLayout) -> registers -> global.
#
# The expected verdict of each configuration is derived here from the
# hardware, not from txc:
#   - N < swizzle / 4 (a row shorter than the swizzle span): Triton's
#     NVMMASharedLayout does not exist for that shape (doc/txir.md,
#     "Triton's layouts": the box's contiguous dimension is exactly the
#     span and must be at least that) -> refused at the layout;
#   - M = 256 with TMEM block N narrower than the swizzle span (BN * 4 <
#     swizzle bytes): the span's W elements of a source row (one row of the
#     8-row swizzle pattern, the atom a descriptor describes) land in
#     columns split by the block arrangement (TCol = n % b + b (m / 128) +
#     2 b (n / b): the next block's columns hold rows m + 128), and
#     tcgen05_cp moves a swizzled tile in whole atoms, each atom row into
#     consecutive columns of its lane, as Triton's lowering does
#     (TensorMemoryToLLVM.cpp, getSwizzling) -> refused by dispatch with
#     that rule. (For BN >= 4 a copy of part of an atom would fit a
#     .128x128b / .128x256b row; txc does not plan those: unverified on
#     hardware. Below 4 no 128-row shape fits at all.)
#   - everything else compiles.
# These are exactly the seed's skips (M = 256 with swizzle // BN >= 8; N
# smaller than the swizzle span), derived here from the rules.
#
# Each compiled configuration: the module through ptxas for sm_100a; on the
# emulator, tensor memory at the dealloc (--tmem-out) and the registers'
# copy D both equal the model: lane m % 128, column n % b + b (m / 128) +
# b (M / 128) (n / b) holds A[m][n] bit for bit (doc/txir.md's
# TensorMemoryLayout formula, from Triton's source), every other cell of
# the allocation the emulator's initial 0xABABABAB.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/tccp_table_gen.pl";
my $have_nvcc = have_nvcc();

my @t = tccp_table();
ok(@t == 183, "the seed's table after its filter: 183 configurations (61 (M, N, BN) x 3 swizzles)", scalar @t);
my (@run, @refuse);
for my $c (@t) {
    $c->{why} = $c->{n} < $c->{sw} / 4 ? "layout" : $c->{m} == 256 && $c->{bn} * 4 < $c->{sw} ? "atom" : "";
    push @{ $c->{why} ? \@refuse : \@run }, $c;
}
# the rules above against the seed's own skips
my @extra = grep { $_->{seed_skip} && !$_->{why} } @t;
my @unseeded = grep { !$_->{seed_skip} && $_->{why} } @t;
ok(!@unseeded, "every refusal is where the seed skips", map { "$_->{m}x$_->{n}/$_->{bn}/$_->{sw}" } @unseeded);
ok(!@extra, "every configuration the seed skips is refused", map { "$_->{m}x$_->{n}/$_->{bn}/$_->{sw}" } @extra);

# ---- the compiled ones: one module --------------------------------------------
my $src = "$tmp/table.tx";
open my $fh, '>', $src or die;
print $fh tccp_header();
print $fh tccp_kernel($run[$_], "k$_") for 0 .. $#run;
close $fh;
my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/low.tx' '$src' >'$tmp/out' 2>'$tmp/err'");
ok($rc == 0, scalar(@run) . " configurations lower", slurp("$tmp/err"));
if ($have_nvcc) {
    $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every one through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("ptxas sm_100a", "no nvcc");
}
my %shapes;
my $low = slurp("$tmp/low.tx");
$shapes{$1}++ while $low =~ /T\.ptx\.tcgen05\.cp\([^\n]*"(128x\d+b)"/g;
ok(($shapes{"128x256b"} // 0) > 0 && !$shapes{"128x128b"}, "every table copy is a .128x256b (8 columns of whole "
   . "atom rows)", join(" ", %shapes));
my @bad;
for my $i (0 .. $#run) {
    my $c = $run[$i];
    my ($m, $n, $b, $cc) = @$c{qw(m n bn cols)};
    my $alloc = $cc < 32 ? 32 : $cc;
    my @a = map { (($_ * 2654435761 + $i * 40503) & 0x3fffffff) | 0x1000 } 0 .. $m * $n - 1;
    npy_put("$tmp/a.npy", "<f4", [$m, $n], pack("V*", @a));
    unlink "$tmp/t.npy", "$tmp/d.npy";
    my $name = "M $m N $n BN $b swizzle $c->{sw}";
    $rc = system("'$bin/txc-emu' --kernel k$i --in A='$tmp/a.npy' --out D='$tmp/d.npy' --tmem-out '$tmp/t.npy' "
                 . "'$tmp/low.tx' >'$tmp/out' 2>'$tmp/err'");
    if ($rc) { push @bad, "$name: " . slurp("$tmp/err"); next }
    my %model;
    for my $r (0 .. $m - 1) {
        for my $k (0 .. $n - 1) {
            $model{ ($r % 128) . "," . ($k % $b + $b * int($r / 128) + $b * ($m / 128) * int($k / $b)) } = $a[$r * $n + $k];
        }
    }
    my (undef, $t) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $t);
    my (undef, $d) = npy_get("$tmp/d.npy");
    my @dd = unpack("V*", $d);
    my $e = 0;
    for my $lane (0 .. 127) {
        for my $col (0 .. $alloc - 1) {
            my $want = $model{"$lane,$col"} // 0xABABABAB;
            if ($tm[$lane * 512 + $col] != $want) {
                push @bad, sprintf("%s: tensor memory lane %d column %d: 0x%08x, want 0x%08x", $name, $lane, $col,
                                   $tm[$lane * 512 + $col], $want) if $e++ < 2;
            }
            if ($col < $cc && $dd[$lane * $cc + $col] != $want) {
                push @bad, sprintf("%s: D[%d][%d]: 0x%08x, want 0x%08x", $name, $lane, $col, $dd[$lane * $cc + $col],
                                   $want) if $e++ < 2;
            }
        }
    }
}
ok(!@bad, scalar(@run) . " configurations on the emulator: tensor memory after the cp and the registers' copy are "
   . "the model's, bit for bit", @bad[0 .. ($#bad < 9 ? $#bad : 9)]);

# ---- the tile op as written, on the emulator (emu-tccp.c runs it element by
# element from the two layouts), without the read-back: tensor memory at the
# dealloc is the same model
open $fh, '>', "$tmp/bare.tx" or die;
print $fh tccp_header();
print $fh tccp_kernel($run[$_], "k$_", 1) for 0 .. $#run;
close $fh;
@bad = ();
for my $i (0 .. $#run) {
    my $c = $run[$i];
    my ($m, $n, $b, $cc) = @$c{qw(m n bn cols)};
    my $alloc = $cc < 32 ? 32 : $cc;
    my @a = map { (($_ * 2246822519 + $i * 97) & 0x3fffffff) | 0x2000 } 0 .. $m * $n - 1;
    npy_put("$tmp/a.npy", "<f4", [$m, $n], pack("V*", @a));
    unlink "$tmp/t.npy";
    my $name = "M $m N $n BN $b swizzle $c->{sw}";
    $rc = system("'$bin/txc-emu' --kernel k$i --in A='$tmp/a.npy' --tmem-out '$tmp/t.npy' '$tmp/bare.tx' "
                 . ">'$tmp/out' 2>'$tmp/err'");
    if ($rc) { push @bad, "$name: " . slurp("$tmp/err"); next }
    my (undef, $t) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $t);
    my %model;
    for my $r (0 .. $m - 1) {
        for my $k (0 .. $n - 1) {
            $model{ ($r % 128) . "," . ($k % $b + $b * int($r / 128) + $b * ($m / 128) * int($k / $b)) } = $a[$r * $n + $k];
        }
    }
    my $e = 0;
    for my $lane (0 .. 127) {
        for my $col (0 .. $alloc - 1) {
            my $want = $model{"$lane,$col"} // 0xABABABAB;
            push @bad, sprintf("%s: tensor memory lane %d column %d: 0x%08x, want 0x%08x", $name, $lane, $col,
                               $tm[$lane * 512 + $col], $want) if $tm[$lane * 512 + $col] != $want && $e++ < 2;
        }
    }
}
ok(!@bad, scalar(@run) . " configurations, the copy_async as written on the emulator: tensor memory is the model's",
   @bad[0 .. ($#bad < 9 ? $#bad : 9)]);

# the tile op writes only allocated columns: 64 columns into an allocation of 32
{
    my ($c) = grep { $_->{m} == 128 && $_->{n} == 64 && $_->{bn} == 64 && $_->{sw} == 128 } @run;
    my $k = tccp_kernel($c, "k", 1);
    $k =~ s/n_cols=64/n_cols=32/g;
    spit("$tmp/small.tx", tccp_header() . $k);
    my @lines = split /\n/, tccp_header() . $k;
    my ($line) = grep { $lines[$_ - 1] =~ /Tx\.copy_async/ } 1 .. @lines;
    $rc = system("'$bin/txc-emu' '$tmp/small.tx' >'$tmp/out' 2>'$tmp/err'");
    my $err = slurp("$tmp/err");
    ok($rc && $err =~ /^\Q$tmp\E\/small\.tx:$line:9: error: thread \(cta 0, thread 0\): copy_async through tcgen05_cp writes tensor-memory lane 0, column 32, which is not allocated \(allocated: columns 0\.\.31\)$/m,
       "the copy_async as written into unallocated columns: the emulator's error", $err);
}

# a tile of 4 columns without a swizzle: one .128x128b (rows 16 bytes
# apart: SBO 128), the round trip on the emulator
{
    my $c = { m => 128, n => 4, bn => 4, sw => 0, cols => 4 };
    spit("$tmp/c4.tx", tccp_header() . tccp_kernel($c, "k"));
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/c4.low' '$tmp/c4.tx' >'$tmp/out' 2>'$tmp/err'");
    my $low4 = $rc ? '' : slurp("$tmp/c4.low");
    my @cps = $low4 =~ /T\.ptx\.tcgen05\.cp\([^\n]*"(128x\d+b)"/g;
    ok("@cps" eq "128x128b" && scalar($low4 =~ /encode_matrix_descriptor\([^\n]*, ldo=0, sdo=8, swizzle=0\)/),
       "(128, 4) float32 without a swizzle: one .128x128b, SBO 128 bytes (8 x 16)", slurp("$tmp/err"), @cps);
    my $out = $rc ? '' : `'$bin/txc-emu' '$tmp/c4.low' 2>&1`;
    my ($ha) = $out =~ /^A (\w+)$/m;
    my ($hd) = $out =~ /^D (\w+)$/m;
    ok(defined $ha && defined $hd && $ha eq $hd, "(128, 4) float32 without a swizzle, lowered, on the emulator: D is A", $out);
}

# ---- the refused ones: each alone, the reason checked ------------------------
my @wrong;
for my $c (@refuse) {
    my $name = "M $c->{m} N $c->{n} BN $c->{bn} swizzle $c->{sw}";
    open my $f, '>', "$tmp/r.tx" or die;
    print $f tccp_header(), tccp_kernel($c, "k");
    close $f;
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/r.low' '$tmp/r.tx' >'$tmp/out' 2>'$tmp/err'");
    my $err = slurp("$tmp/err");
    my $want = $c->{why} eq "layout"
        ? qr/NVMMASharedLayout.*\b$c->{n}\b.*(span|swizzle)/s
        : qr/tcgen05_cp +10 +tcgen05_cp: the $c->{sw}-byte swizzle atom row holding element \(0, $c->{bn}\) of 'smem' \(@{[$c->{sw} \/ 4]} float32 of one row of the 8-row pattern\) does not land in @{[$c->{sw} \/ 4]} consecutive columns of one lane of 'tmem' \(element \(0, $c->{bn}\) is at lane 0, column @{[2 * $c->{bn}]}\): tcgen05_cp copies a swizzled tile in whole atoms/;
    push @wrong, "$name: rc $rc: $err" unless $rc && $err =~ $want;
}
ok(!@wrong, scalar(@refuse) . " configurations refused, each for its rule", @wrong[0 .. ($#wrong < 4 ? $#wrong : 4)]);
done();
