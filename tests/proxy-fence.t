#!/usr/bin/env perl
# fence.proxy.async on the emulator (issue 12, item 7): a byte of shared
# memory that a thread wrote with a generic store is "not fenced" until
# that thread executes fence.proxy.async (any form txc accepts); an
# async-proxy write (TMA load, asynchronous copy) clears it; tcgen05.mma
# and tcgen05.cp (and copy_async through tcgen05_cp) reading such a byte
# is an error naming the op, the operand, the byte and the writing thread.
# (shared/reference/ptx.md: fence.proxy.async.shared::cta between generic
# writes to shared memory and an async-proxy reader, TMA store or
# tcgen05.cp, "a checker may flag a missing one".)
#
# Planted bugs in tests/emu/proxy_bad.tx (its comment has the layout: word
# w is thread w % 128's, A's first chunk is S's bytes 0..15, B starts at
# byte 8192) and in examples/tcgen05_copy.tx with its fence removed, each
# error written out here; the fixed kernels run clean.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
chdir $top or die;
my $have_nvcc = have_nvcc();

my $f = "tests/emu/proxy_bad.tx";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' $f >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "proxy_bad.tx: every kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("proxy_bad.tx: ptxas sm_100a", "no nvcc");
}

my $at = "thread (cta 0, thread 0)";
my $tail = "with a generic store and has not fenced since: the async proxy may not see the write "
         . "(T.ptx.fence.proxy_async() in the writing threads, after the writes and before the barrier)";
sub miss {
    my ($pos, $op, $what, $byte, $buf, $thread) = @_;
    return "$pos: error: $at: missing fence.proxy.async: $op reads $what at byte $byte of shared buffer '$buf' "
         . "(shared byte $byte), which thread $thread wrote $tail";
}
emu_errors($bin, $tmp, $f,
    # no fence: A's byte 0, word 0, thread 0's
    [ mma_nofence => miss("$f:39:9", "tcgen05.mma", "A", 0, "S", 0) ],
    # thread 0 fenced; byte 4 is word 1, thread 1's
    [ mma_fence_t0 => miss("$f:98:9", "tcgen05.mma", "A", 4, "S", 1) ],
    # thread 5 wrote word 1 (bytes 4..7) after its fence
    # (thread 5's store races with thread 1's, which wrote S[1] in the loop:
    # the fence is the point here, so without the race checker)
    [ "mma_store_after --no-race-check" => miss("$f:129:9", "tcgen05.mma", "A", 4, "S", 5) ],
    # thread 3 wrote word 2051: byte 4 * 2051 = 8204, inside B (from 8192)
    [ mma_b_after => miss("$f:160:9", "tcgen05.mma", "B", 8204, "S", 3) ],
    [ cp_nofence => miss("$f:247:9", "tcgen05.cp", "the source", 0, "S", 0) ],
    # the TMA load rewrote bytes 0..8191 only: B's byte 8192, word 2048, is
    # thread 0's store still
    [ tma_clears_half => miss("$f:348:9", "tcgen05.mma", "B", 8192, "S", 0) ],
);
for my $k (qw(mma_fenced mma_refenced mma_fence_global cp_fenced tma_clears)) {
    # mma_refenced's thread 5 rewrites S[1] as mma_store_after's does
    my $opt = $k eq 'mma_refenced' ? '--no-race-check' : '';
    my $rc = system("'$bin/txc-emu' --kernel $k $opt --seed 1 $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "$k: runs clean", slurp("$tmp/err"));
}

# examples/tcgen05_copy.tx without its fence (line 51): the Tx.cta.copy's
# stores are unfenced; thread 0 wrote element (0, 0), at smem's byte 0
# (row 0 of the 128B swizzle is not permuted). As written, the error is at
# the Tx.copy_async (line 56, now 55); lowered, at the first tcgen05.cp.
{
    my $src = slurp("examples/tcgen05_copy.tx");
    my $n = ($src =~ s/^    T\.ptx\.fence\.proxy_async\(\)\n//mg);
    spit("$tmp/nofence.tx", $src);
    ok($n == 1, "tcgen05_copy.tx has one fence.proxy.async to remove");
    my $rc = system("'$bin/txc-emu' --seed 1 '$tmp/nofence.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($first) = split /\n/, slurp("$tmp/err");
    my $want = miss("$tmp/nofence.tx:55:9", "copy_async through tcgen05_cp", "the source", 0, "smem", 0);
    ok($rc == 1 && ($first // '') eq $want, "tcgen05_copy.tx without the fence, as written: the error",
       "want: $want", "got (exit $rc): " . ($first // ''));
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$tmp/nofence.tx' -o '$tmp/low.tx' 2>'$tmp/err'");
    ok($rc == 0, "tcgen05_copy.tx without the fence: lowers", slurp("$tmp/err"));
    $rc = system("'$bin/txc-emu' --seed 1 '$tmp/low.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my @err = split /\n/, slurp("$tmp/err");
    my $msg = "error: $at: missing fence.proxy.async: tcgen05.cp reads the source at byte 0 of shared buffer 'smem' "
            . "(shared byte 0), which thread 0 wrote $tail";
    ok($rc == 1 && ($err[0] // '') =~ /^\Q$tmp\E\/low\.tx:\d+:\d+: \Q$msg\E$/ && ($err[1] // '') =~ /T\.ptx\.tcgen05\.cp\(/,
       "tcgen05_copy.tx without the fence, lowered: the error at the first tcgen05.cp", "want: ...: $msg",
       "got (exit $rc): @err[0 .. ($#err < 1 ? $#err : 1)]");
    $rc = system("'$bin/txc-emu' --seed 1 examples/tcgen05_copy.tx >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "tcgen05_copy.tx as it is (fenced): runs clean", slurp("$tmp/err"));
}

# Tx.gemm_async (tests/emu/gemm_gen.pl's first kernel) with A stored by
# the CTA's threads (Tx.cta.copy, the generic proxy) instead of TMA, and no
# fence: A's element (0, 0) is byte 0 of A_smem (row 0 of the 128B swizzle
# is not permuted), written by thread 0 (the copy's 8-element vectors go
# to threads in row-major order). As written the tile op reports it; lowered,
# the first tcgen05.mma. With the fence after the copy, both run clean.
{
    system("perl '$top/tests/emu/gemm_gen.pl' >'$tmp/gen.tx'") == 0 or die;
    my $all = slurp("$tmp/gen.tx");
    my ($head) = $all =~ /^(.*?)(?=\@T\.prim_func)/s;
    my ($g0) = $all =~ /(\@T\.prim_func\ndef g0\(.*?)(?=\@T\.prim_func|\z)/s;
    my $k = $head . $g0;
    my $n = ($k =~ s/^        Tx\.copy_async\(A_smem\[0:128, 0:64\], A\[0:128, 0:64\].*\n//m);
    $n += ($k =~ s/T\.uint32\(24576\)/T.uint32(8192)/);
    $n += ($k =~ s/^(    if tid_in_wg == 0:\n        Tx\.copy_async\(B_smem)/    Tx.cta.copy(A_smem[0:128, 0:64], A[0:128, 0:64])\n$1/m);
    ok($n == 3, "gemm_gen.pl's g0 with A stored by the threads: three edits");
    spit("$tmp/gnofence.tx", $k);
    my ($line) = grep { (split /\n/, $k)[$_ - 1] =~ /Tx\.gemm_async\(/ } 1 .. scalar(split /\n/, $k);
    my $rc = system("'$bin/txc-emu' --seed 1 '$tmp/gnofence.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($first) = split /\n/, slurp("$tmp/err");
    my $want = miss("$tmp/gnofence.tx:$line:9", "gemm_async through tcgen05_mma", "A", 0, "A_smem", 0);
    ok($rc == 1 && ($first // '') eq $want, "Tx.gemm_async as written, A unfenced: the error", "want: $want",
       "got (exit $rc): " . ($first // ''));
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$tmp/gnofence.tx' -o '$tmp/glow.tx' 2>'$tmp/err'");
    ok($rc == 0, "Tx.gemm_async, A unfenced: lowers", slurp("$tmp/err"));
    $rc = system("'$bin/txc-emu' --seed 1 '$tmp/glow.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my @err = split /\n/, slurp("$tmp/err");
    my $msg = "error: $at: missing fence.proxy.async: tcgen05.mma reads A at byte 0 of shared buffer 'A_smem' "
            . "(shared byte 0), which thread 0 wrote $tail";
    ok($rc == 1 && ($err[0] // '') =~ /^\Q$tmp\E\/glow\.tx:\d+:\d+: \Q$msg\E$/ && ($err[1] // '') =~ /T\.ptx\.tcgen05\.mma\(/,
       "Tx.gemm_async, A unfenced, lowered: the error at the first tcgen05.mma", "want: ...: $msg",
       "got (exit $rc): @err[0 .. ($#err < 1 ? $#err : 1)]");
    (my $fenced = $k) =~ s/^(    Tx\.cta\.copy\(A_smem.*\n)/$1    T.ptx.fence.proxy_async()\n/m;
    spit("$tmp/gfenced.tx", $fenced);
    $rc = system("'$bin/txc-emu' --seed 1 '$tmp/gfenced.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "Tx.gemm_async, A fenced after the copy: runs clean as written", slurp("$tmp/err"));
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$tmp/gfenced.tx' -o '$tmp/gflow.tx' 2>'$tmp/err'")
        || system("'$bin/txc-emu' --seed 1 '$tmp/gflow.tx' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "Tx.gemm_async, A fenced after the copy: runs clean lowered", slurp("$tmp/err"));
}

done();
