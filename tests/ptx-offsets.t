#!/usr/bin/env perl
# txc-ptx's addresses: an offset is summed by terms (backend/txc-ptx.c,
# offset_addr). The terms that are constants where an access is emitted
# (literals, an unrolled loop's counter) are folded into one constant; the
# others are summed in registers once, and found again on the next trip.
# So an unrolled loop's trips differ by one add of a constant, and the
# value must be the one the whole expression gives.
#
# Without a GPU: the form (examples/copy_tile.tx: each trip after the first
# of a loop is one `add` of a constant to the first trip's address; the
# shared addresses are computed in 32 bits, no conversion to 64 and back),
# and ptxas on both backends' code for the kernels of tests/ptx-offsets/
# (subtractions, run-time starts, terms that are registers on some trips,
# 64-bit offsets). On a GPU: each of those cubins against the emulator's
# run of the source, at several values of its scalar parameters.
use strict;
use warnings;
BEGIN { require "./tests/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
my $dir = "$top/tests/ptx-offsets";
my $ptxas = -x "/usr/local/cuda/bin/ptxas" || !system("command -v ptxas >/dev/null 2>&1");
my $nvcc = have_nvcc();

sub run { my ($cmd) = @_; return system("$cmd >'$tmp/out' 2>'$tmp/err'") >> 8 }

# ---- the form, on copy_tile: 8 trips of a 16 x 4096-byte loop each way ----
ok(run("'$bin/txc' --emit=ptx --arch=sm_90a '$top/examples/copy_tile.tx' -o '$tmp/ct.ptx'") == 0,
   "copy_tile: txc --emit=ptx", slurp("$tmp/err"));
my @lines = split /\n/, slurp("$tmp/ct.ptx");
my (%def, @acc);
for (@lines) {
    $def{$1} = $_ if /^\t\S+ (%r\w*\d+),/;
    push @acc, [$1, $2] if /^\t(ld\.global\S*|st\.global\S*) .*\[(%rd\d+)\]/;
}
ok(@acc == 16, "copy_tile: 16 global accesses (8 loads, 8 stores)", scalar(@acc));
for my $kind ('ld', 'st') {
    my @a = grep { $_->[0] =~ /^$kind/ } @acc;
    next unless @a;
    my $first = $a[0][1];
    my $bad = 0;
    for my $x (@a[1 .. $#a]) {
        $bad++ unless ($def{$x->[1]} // '') =~ /^\tadd\.s64 \Q$x->[1]\E, \Q$first\E, \d+;$/;
    }
    ok($bad == 0, "copy_tile: each $kind.global after the first is the first's address plus a constant",
       map { "$_->[1]: " . ($def{$_->[1]} // '?') } @a);
}
my @shared = grep { /^\tst\.shared/ } @lines;
my $cvt_back = grep { /^\tcvt\.u32\.u64/ } @lines;
ok(@shared == 8 && $cvt_back == 0, "copy_tile: 8 shared stores, their addresses in 32 bits (no cvt.u32.u64)",
   scalar(@shared), $cvt_back);
my $mads = grep { /^\tmad\.lo/ } @lines;
ok($mads <= 3, "copy_tile: one mad a base address (3 at most: shared, A, B)", $mads);

# ---- the kernels: ptxas on both backends, then the GPU against the emulator ----
my @kernels = (
    [ 'mirror', [ 'r=200 c=136', 'r=64 c=64', 'r=256 c=512', 'r=137 c=496' ] ],
    [ 'wide_mirror', [ 'm=40', 'm=8', 'm=1', 'm=1000' ] ],
);
for my $k (@kernels) {
    my ($name, $args) = @$k;
    my $src = "$dir/$name.tx";
    ok(run("'$bin/txc' --emit=ir '$src' -o '$tmp/$name.ir'") == 0, "$name: lowers", slurp("$tmp/err"));
    # the lowered program against the source on the emulator
    for my $a ($args->[0], $args->[1]) {
        my $argv = join ' ', map { "--arg $_" } split / /, $a;
        my @sum;
        for my $f ($src, "$tmp/$name.ir") {
            my $rc = run("'$bin/txc-emu' '$f' $argv --seed 7");
            push @sum, $rc ? "exit $rc: " . slurp("$tmp/err") : slurp("$tmp/out");
        }
        ok($sum[0] eq $sum[1] && $sum[0] !~ /^exit/, "$name, $a: the lowered program computes the source's buffers", @sum);
    }
    for my $be (['', 'txc-ptx', $ptxas, 'ptxas'], ['--backend=cuda', 'txc-cuda', $nvcc, 'nvcc']) {
        my $cubin = "$tmp/$name$be->[0].cubin";
        if (!$be->[2]) {
            skip("$name, $be->[1]: compiles to a cubin", "no $be->[3]");
            skip("$name, $be->[1], $_: passes on the GPU", "no $be->[3]") for @$args;
            next;
        }
        ok(run("'$bin/txc' $be->[0] --emit=cubin '$src' -o '$cubin'") == 0, "$name, $be->[1]: compiles to a cubin",
           slurp("$tmp/err"));
        for my $a (@$args) {
            my $argv = join ' ', map { "--arg $_" } split / /, $a;
            my $rc = run("'$bin/txc-run' '$tmp/$name.ir' --ref '$src' --cubin '$cubin' $argv");
            if ($rc == 3) {
                skip("$name, $be->[1], $a: passes on the GPU", "no GPU");
            } else {
                ok($rc == 0 && slurp("$tmp/out") =~ /^PASS kernel/ || 0, "$name, $be->[1], $a: passes on the GPU",
                   "exit $rc", slurp("$tmp/out"), slurp("$tmp/err"));
            }
        }
    }
}
done();
