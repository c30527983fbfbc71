#!/usr/bin/env perl
# The planted async-misuse suite (issue 14, items 2 and 3): one small
# kernel per bug in tests/asyncbugs/, each beside its fixed twin (`*_ok`).
# Each report is written here from the kernel (the statement's line and
# column, found in the file by its text; the thread that runs it first in
# lockstep; the bytes, buffers and counts the kernel implies), never from
# the emulator's output; each twin runs clean, on the source and, for the
# tile-level kernels, on the IR lowered by the passes (--locations).
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
chdir $top or die "$top: $!";
my $d = "tests/asyncbugs";

# "LINE:COL" of the first occurrence of TEXT on line LINE of FILE
sub at {
    my ($file, $line, $text) = @_;
    my @l = split /\n/, slurp($file);
    my $c = index($l[$line - 1] // '', $text);
    die "$file:$line has no '$text'" if $c < 0;
    return "$line:" . ($c + 1);
}
sub err { my ($file, $pos, $t, $what) = @_; "$file:$pos: error: thread (cta 0, thread $t): $what" }

my $f = "$d/async.tx";
my $fence = "the async proxy may not see the write (T.ptx.fence.proxy_async() in the writing threads, after the "
          . "writes and before the barrier)";
# the try_wait's deadlock report for bar (the CTA's mbarrier, byte 0) with
# thread 0's arrival in and TX transaction bytes outstanding
sub stuck {
    my ($line, $tx) = @_;
    return err($f, at($f, $line, "T.ptx.mbarrier.try_wait"), 0, "T.ptx.mbarrier.try_wait: the phase of parity 0 of "
             . "the mbarrier at byte 0 of shared buffer 'bar' has 0 of 1 arrivals and $tx transaction bytes pending, "
             . "and in lockstep no other thread can arrive before this wait is run");
}
my %async = (
    # 1. thread 0 reads S[0, 0] (byte 0) at line 21, its own cp.async of
    # line 18 still in flight (committed, not waited)
    cp_async_early => err($f, at($f, 21, "S[tid, j]"), 0, "this reads byte 0 of shared buffer 'S', which the "
        . "asynchronous copy at $f:18 (thread 0) has not written yet: wait for it first with cp.async.wait_group "
        . "(the issuing thread), then a barrier for the others"),
    # 2. thread 0 issued the TMA load at line 56 and reads A_smem[0, 0]
    # (byte 0) at line 58, before the try_wait of line 59
    tma_early => err($f, at($f, 58, "A_smem[tid, j]"), 0, "this reads byte 0 of shared buffer 'A_smem', which the "
        . "asynchronous copy at $f:56 (thread 0) has not written yet: wait for its mbarrier's phase first"),
    # 3. the box is 64 * 64 * 2 = 8192 bytes: 16384 expected leaves 8192
    # pending, 4096 expected leaves -4096 (more delivered than counted)
    expect_tx_more => stuck(100, 8192),
    expect_tx_less => stuck(120, -4096),
    # 4. thread 0's TMA store (line 144) reads A_smem until its
    # wait_group.read; line 147 zeroes A_smem[0, 0] (byte 0) first
    store_overwrite => err($f, at($f, 147, "A_smem[0, j]"), 0, "this writes byte 0 of shared buffer 'A_smem', the "
        . "source of the TMA store at $f:144 (thread 0), which may not have read it yet: wait with "
        . "T.ptx.cp_async.bulk.wait_group(N, read=True) first"),
    # 6. thread 0 wrote row 0 of A_smem (byte 0 first) at line 183 and
    # never fenced; thread 0's TMA store at line 186 reads it
    store_nofence => err($f, at($f, 186, "Tx.copy_async"), 0, "missing fence.proxy.async: copy_async (a TMA store) "
        . "reads the source at byte 0 of shared buffer 'A_smem' (shared byte 0), which thread 0 wrote with a generic "
        . "store and has not fenced since: $fence"),
    # 6, the fence too early: every thread fences (line 218), then writes
    # its row (line 220); thread 0, the issuer, fences no more
    store_fence_early => err($f, at($f, 223, "Tx.copy_async"), 0, "missing fence.proxy.async: copy_async (a TMA "
        . "store) reads the source at byte 0 of shared buffer 'A_smem' (shared byte 0), which thread 0 wrote with a "
        . "generic store and has not fenced since: $fence"),
);
my @async = qw(cp_async_early tma_early expect_tx_more expect_tx_less store_overwrite store_nofence store_fence_early);
emu_errors($bin, $tmp, $f, map { [ $_ => $async{$_} ] } @async);

# the fixed twins (tma_early_ok is expect_tx_*'s too: it expects the 8192
# bytes); $_[0] the file, the rest the kernels
sub clean {
    my ($file, $how, @k) = @_;
    for my $k (@k) {
        my $rc = system("'$bin/txc-emu' --kernel $k '$file' >'$tmp/out' 2>'$tmp/err'") >> 8;
        ok($rc == 0 && slurp("$tmp/out") =~ /^B /m, "fixed$how: $k runs clean", "exit $rc", slurp("$tmp/err"));
    }
}
# (store_fence_issuer_ok: the writers meet at the barrier, then the issuing
# thread fences, after every write: a fence on the way from the writes to
# the store, accepted for TMA stores)
my @async_ok = qw(cp_async_early_ok tma_early_ok store_overwrite_ok store_nofence_ok store_fence_issuer_ok);
clean($f, "", @async_ok);

# Lowered by the passes, with #@ lines back to async.tx: the same reports,
# for the user's lines; the lowered TMA store is T.ptx's s2g
my $chain = join(" | ", "'$bin/txc-parse' --locations '$f'",
                 map { "'$bin/$_' --locations" } qw(txc-align txc-vectorize txc-partition txc-dispatch txc-lower));
my $low = system("bash", "-o", "pipefail", "-c", "$chain >'$tmp/low.tx' 2>'$tmp/err'") == 0;
ok($low, "async.tx lowers", slurp("$tmp/err"));
if ($low) {
    for my $k (@async) {
        # the lowered TMA store is T.ptx's s2g
        (my $want = $async{$k}) =~ s/copy_async \(a TMA store\)/T.ptx.cp_async.bulk.tensor.s2g/;
        my $rc = system("'$bin/txc-emu' --kernel $k '$tmp/low.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
        my ($first) = split /\n/, slurp("$tmp/err");
        $first //= '';
        ok($rc == 1 && $first eq $want, "$k lowered: the same report", "want: $want", "got (exit $rc): $first");
    }
    clean("$tmp/low.tx", " (lowered)", @async_ok);
}

# 5-8. tensor memory (sm_100a)
my $m = "$d/tmem.tx";
emu_errors($bin, $tmp, $m,
    # 5. thread 0 reads r[0] at line 25; the tcgen05.ld of line 24 writes
    # it at the wait.ld of line 26
    [ ld_early => err($m, at($m, 25, "r[0]"), 0, "this reads a register that the tcgen05.ld at $m:24 has not "
      . "written yet: wait with T.ptx.tcgen05.wait.ld() first") ],
    # 6. thread 0's tcgen05.cp (line 75) reads S from byte 0, which thread
    # 0 wrote (word 0) at line 71 with no fence
    [ cp_nofence => err($m, at($m, 75, "T.ptx.tcgen05.cp"), 0, "missing fence.proxy.async: tcgen05.cp reads the "
      . "source at byte 0 of shared buffer 'S' (shared byte 0), which thread 0 wrote with a generic store and has not "
      . "fenced since: $fence") ],
    # 7. the 32 columns warp 0 allocated at line 115 (the first allocation:
    # columns 0..31) are live when the kernel ends; reported at the kernel
    # (its name on line 105), naming the warp that allocated them
    [ tmem_leak => "$m:" . at($m, 105, "tmem_leak") . ": error: tensor memory not freed at exit: columns 0..31 "
      . "allocated by warp 0 (threads 0-31) at $m:115 (free them with T.ptx.tcgen05.dealloc before the kernel "
      . "ends)" ],
    # 8. warp 0 (thread 0 first) stores at row 32: lanes 32..63, past its
    # quarter 0..31; the address warp 0 got is 0 (lane 0, column 0)
    [ quarter => err($m, at($m, 164, "T.ptx.tcgen05.st"), 0, "tcgen05.st: warp 0 accesses tensor-memory lanes "
      . "32..63, outside its lane quarter 0..31 (warp % 4 = 0; address 0x00000000, row 32, column 0)") ],
);
for my $k (qw(ld_early_ok cp_nofence_ok tmem_leak_ok quarter_ok)) {
    my $rc = system("'$bin/txc-emu' --kernel $k '$m' >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "fixed: $k runs clean", "exit $rc", slurp("$tmp/err"));
}

# 9. a misaligned cp.async: thread 0's destination is element 2 of S, byte
# 8, not a multiple of the copy's 16 bytes. The emulator reports it at run
# time; txc's backend refuses it at compile time (the offset tid * 12 + 2
# is not provably a multiple of 16 / 4 = 4 elements); the twin compiles.
my $a = "$d/misaligned.tx";
my $apos = at($a, 16, "T.pointer_offset(S");
emu_errors($bin, $tmp, $a,
    [ cp_misaligned => err($a, $apos, 0, "T.ptx.cp_async of 16 bytes: the destination, byte 8 of shared buffer 'S' "
      . "(shared byte 8), is not aligned to 16 bytes") ]);
clean($a, "", "cp_misaligned_ok");
{
    my $rc = system("'$bin/txc' --emit=cu '$a' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $want = "$a:$apos: error: T.ptx.cp_async() writes 16 bytes at element 'tid * 12 + 2' of 'S' (4-byte elements), "
             . "which is not provably a multiple of 16 bytes";
    my ($first) = split /\n/, slurp("$tmp/err");
    ok($rc == 1 && ($first // '') eq $want && slurp("$tmp/out") eq '', "cp_misaligned: txc refuses it",
       "want: $want", "got (exit $rc): " . ($first // ''));
    # the twin alone (the file's imports and its def)
    my $src = slurp($a);
    my ($imp) = $src =~ /^(from .*\n)/m;
    my ($def) = $src =~ /^(\@T\.prim_func\ndef cp_misaligned_ok\(.*)/ms;
    spit("$tmp/ok.tx", $imp . "\n" . ($def // ''));
    $rc = system("'$bin/txc' --emit=cu '$tmp/ok.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0 && slurp("$tmp/out") =~ /cp\.async/, "cp_misaligned_ok: txc compiles it", slurp("$tmp/err"));
}

# 9. a TMA box wider than its swizzle span: 64 float16 = 128 bytes against
# swizzle=64, at the box= value (a compile-time error: txc and the
# emulator refuse the file); box_ok.tx, swizzle=128, runs with B = A
my $b = "$d/box.tx";
my $bwant = "$b:" . at($b, 12, "[64, 64], swizzle") . ": error: box dimension 0 is 128 bytes, wider than the "
          . "64-byte swizzle span";
for my $tool ("txc-parse", "txc", "txc-emu") {
    my $rc = system("'$bin/$tool' '$b' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($first) = split /\n/, slurp("$tmp/err");
    ok($rc == 1 && ($first // '') eq $bwant && slurp("$tmp/out") eq '', "box_span: $tool refuses it",
       "want: $bwant", "got (exit $rc): " . ($first // ''));
}
{
    my $rc = system("'$bin/txc-emu' '$d/box_ok.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my %h = slurp("$tmp/out") =~ /^(\w+) (\w+)$/mg;
    ok($rc == 0 && $h{A} && ($h{B} // '') eq $h{A}, "fixed: box_ok runs clean, B = A (the 128-byte swizzle undone)",
       "exit $rc", slurp("$tmp/out"), slurp("$tmp/err"));
}
done();
