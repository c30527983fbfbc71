#!/usr/bin/env perl
# Warp specialization on the emulator (runtime/emu-fiber.c): branches of
# one CTA that wait for each other through mbarriers run beside each
# other, handing on at a wait that is not done; a deadlock is reported with
# what every branch waits for. The kernels are tests/emu/warpspec.tx; the
# expected values are computed here from what each kernel does.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
my $src = "$top/tests/emu/warpspec.tx";

# A: 8 x 32 float32 small integers (every sum below is exact)
my @a = map { ($_ * 37 % 201) - 100 } 0 .. 255;
npy_put("$tmp/a.npy", "<f4", [8, 32], pack("f<*", @a));

sub run_kernel {
    my ($k, @args) = @_;
    my $rc = system("'$bin/txc-emu' --kernel $k @args '$src' >'$tmp/out' 2>'$tmp/err'") >> 8;
    return $rc == 0 ? 1 : (ok(0, "$k runs", slurp("$tmp/err")), 0);
}
sub floats { my (undef, $d) = npy_get($_[0]); return unpack("f<*", $d) }
sub same {
    my ($name, $got, $want) = @_;
    my @bad = grep { $got->[$_] != $want->[$_] } 0 .. $#$want;
    ok(@$got == @$want && !@bad, $name,
       @bad ? "element $bad[0]: got $got->[$bad[0]], want $want->[$bad[0]] (" . scalar(@bad) . " differ)" : ());
}

if (run_kernel("ping_pong", "--in A=$tmp/a.npy --out B=$tmp/b.npy")) {
    same("ping_pong: a producer and a consumer warp through a two-stage ring: B = A + A",
         [floats("$tmp/b.npy")], [map { 2 * $_ } @a]);
}
if (run_kernel("three_way", "--in A=$tmp/a.npy --out B=$tmp/b.npy")) {
    same("three_way: if / elif / else partitions in a chain, the last one trying: B = (A + 1) * 2",
         [floats("$tmp/b.npy")], [map { 2 * ($_ + 1) } @a]);
}
# in_order races on purpose (both branches write v[0]; the emulator's order
# decides): checked for the order, without the race checker
if (run_kernel("in_order", "--no-race-check", "--out B=$tmp/b.npy")) {
    my (undef, $d) = npy_get("$tmp/b.npy");
    ok(unpack("l<", $d) == 2, "in_order: branches that do not wait on each other run then-branch first (B = 2)");
}
# the same kernels through the passes, lowered, give the same B
my $lowered = system("'$bin/txc' --emit=ir '$src' -o '$tmp/low.tx' 2>'$tmp/err'") == 0;
ok($lowered, "the kernels lower", slurp("$tmp/err"));
for my $k (qw(ping_pong three_way)) {
    last unless $lowered;
    my $rc = system("'$bin/txc-emu' --kernel $k --in A=$tmp/a.npy --out B=$tmp/bl.npy '$tmp/low.tx' >/dev/null 2>'$tmp/err'");
    system("'$bin/txc-emu' --kernel $k --in A=$tmp/a.npy --out B=$tmp/bw.npy '$src' >/dev/null 2>&1");
    ok($rc == 0 && slurp("$tmp/bl.npy") eq slurp("$tmp/bw.npy"), "$k: lowered, the same B", slurp("$tmp/err"));
}

emu_errors($bin, $tmp, $src,
    ["no_arrive", "$src:143:13: error: thread (cta 0, thread 32): T.ptx.mbarrier.try_wait: deadlock: the phase of "
        . "parity 0 of the mbarrier at byte 0 of shared buffer 'full' has 32 of 32 arrivals and 0 transaction bytes "
        . "pending; threads 32-63 wait for it, and no other thread of the CTA can arrive any more (threads 0-31 wait "
        . "at line 138, where the phase of parity 0 of the mbarrier at byte 0 of shared buffer 'empty' has 32 of 32 "
        . "arrivals and 0 transaction bytes pending)"],
    ["after_the_if", "$src:165:9: error: thread (cta 0, thread 32): T.ptx.mbarrier.try_wait: deadlock: the phase of "
        . "parity 0 of the mbarrier at byte 0 of shared buffer 'bar' has 32 of 32 arrivals and 0 transaction bytes "
        . "pending; threads 32-63 wait for it, and no other thread of the CTA can arrive any more (threads 0-31 wait "
        . "at the end of the if at line 162 for threads 32-63, in its else-branch)"]);
done();
