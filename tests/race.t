#!/usr/bin/env perl
# The emulator's shared-memory race checker (runtime/emu-race.c) on planted
# bugs (tests/race/race.tx): each racy kernel's first report, written here
# from the kernel (which thread runs first in lockstep, which line wrote
# and which one reads, the element and its byte address), and its fixed
# twin, which runs clean. Then --no-race-check, and the schedules
# (--schedule=reverse / random:SEED), whose results are derived here from
# what kernel `shift` does in each order.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
my $f = "tests/race/race.tx";
chdir $top or die "$top: $!";

sub race {
    my ($pos, $t, $what, $addr, $u, $uverb, $uline, $verb, $line) = @_;
    return "$f:$pos: error: thread (cta 0, thread $t): shared-memory race on $what (shared address $addr): "
         . "$u $uverb it at line $uline, thread $t $verb it at line $line with no barrier between";
}
# S is each kernel's only shared buffer (offset 0); float32, so element
# (r, c) of a (R, 32) S is at byte 4 * (32 r + c).
emu_errors($bin, $tmp, $f,
    # lockstep: line 19 runs for every thread, then line 21, where thread 0
    # reads S[127, 0], thread 127's (byte 4 * 32 * 127 = 16256 = 0x3f80)
    [ copy_no_sync => race("21:21", 0, "S[127, 0]", "0x3f80", "thread 127", "wrote", 19, "reads", 21) ],
    # warps 0-2 meet at bar.sync(1, 96) (line 49); thread 64, the first of
    # warp 2, reads S[96, 0], which thread 96 of warp 3 wrote at line 46
    # (byte 4 * 32 * 96 = 12288 = 0x3000)
    [ named_partial => race("50:25", 64, "S[96, 0]", "0x3000", "thread 96", "wrote", 46, "reads", 50) ],
    # line 80: thread 127 read row 0; line 82, thread 0 rewrites S[0, 0]
    [ second_tile => race("82:9", 0, "S[0, 0]", "0x0", "thread 127", "read", 80, "writes", 82) ],
    # each thread's wait_group (line 119) lands its own copies (issued at
    # line 117); thread 0 then reads row 127, thread 127's copy
    [ cp_async_no_sync => race("121:21", 0, "S[127, 0]", "0x3f80", "thread 127", "wrote", 117, "reads", 121) ],
    # threads 0 and 32 both write S[0, 0] at line 148 (j = 0 first)
    [ two_warps => race("148:13", 32, "S[0, 0]", "0x0", "thread 0", "wrote", 148, "writes", 148) ],
    # lane 0 reads S[1], which lane 1 wrote at line 180: no __syncwarp
    [ lanes => race("181:17", 0, "S[1]", "0x4", "thread 1", "wrote", 180, "reads", 181) ],
    # warp 0 writes S and arrives; warps 1-2 wait on the phase, warp 3 does
    # not: thread 96, its first, reads S[0, 0], thread 0's (line 210)
    [ mbar_skip => race("216:25", 96, "S[0, 0]", "0x0", "thread 0", "wrote", 210, "reads", 216) ],
    # one statement reads the neighbour's element and writes its own:
    # thread 1 writes S[1], which thread 0 read in the same statement
    [ shift => race("250:5", 1, "S[1]", "0x4", "thread 0", "read", 250, "writes", 250) ],
    # thread 0's TMA load (line 272) lands when thread 0 waits; warp 0 waits
    # on the phase, warp 1 does not: thread 32 reads A_smem[16, 0], byte
    # 2 * 64 * 16 = 2048 = 0x800, stamped with thread 0's issue
    [ tma_skip => race("276:41", 32, "A_smem[16, 0]", "0x800", "thread 0", "wrote", 272, "reads", 276) ],
);

my @kernels = qw(copy_no_sync named_partial second_tile cp_async_no_sync two_warps lanes mbar_skip tma_skip);
for my $k (map { "${_}_ok" } @kernels) {
    my $rc = system("'$bin/txc-emu' --kernel $k '$f' >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "fixed: $k runs clean", slurp("$tmp/err"));
}
for my $k (@kernels) {
    my $rc = system("'$bin/txc-emu' --kernel $k --no-race-check '$f' >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "$k: runs with --no-race-check", slurp("$tmp/err"));
}

# Lowered by the passes, with #@ lines back to race.tx (--locations): the
# same reports, for the user's lines.
my $chain = join(" | ", "'$bin/txc-parse' --locations '$f'",
                 map { "'$bin/$_' --locations" } qw(txc-align txc-vectorize txc-partition txc-dispatch txc-lower));
my $low = system("bash", "-o", "pipefail", "-c", "$chain >'$tmp/low.tx' 2>'$tmp/err'") == 0;
ok($low, "race.tx lowers", slurp("$tmp/err"));
for my $c ([copy_no_sync => race("21:21", 0, "S[127, 0]", "0x3f80", "thread 127", "wrote", 19, "reads", 21)],
           [cp_async_no_sync => race("121:21", 0, "S[127, 0]", "0x3f80", "thread 127", "wrote", 117, "reads", 121)],
           [tma_skip => race("276:41", 32, "A_smem[16, 0]", "0x800", "thread 0", "wrote", 272, "reads", 276)]) {
    last unless $low;
    my ($k, $want) = @$c;
    my $rc = system("'$bin/txc-emu' --kernel $k '$tmp/low.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($first) = split /\n/, slurp("$tmp/err");
    $first //= '';
    ok($rc == 1 && $first eq $want, "$k lowered: the same report", "got (exit $rc): $first");
}

# Tensor memory (sm_100a): warps 0 and 4 share lane quarter 0; warp 0's
# tcgen05.st (line 23) writes lane 0, column 0 (address lane << 16 | column
# = 0x0) for its thread 0, and warp 4's tcgen05.ld (line 26), first, reads
# it; a warp-collective access is the warp's, named by its first thread.
emu_errors($bin, $tmp, "tests/race/tmem.tx",
    [ tmem_two_warps => "tests/race/tmem.tx:26:9: error: thread (cta 0, thread 128): tensor-memory race on lane 0, "
      . "column 0 (address 0x0): warp 0 (threads 0-31) wrote it at line 23, warp 4 (threads 128-159) reads it at "
      . "line 26 with no barrier between" ],
);
{
    my $rc = system("'$bin/txc-emu' --kernel tmem_two_warps_ok tests/race/tmem.tx >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "fixed: tmem_two_warps_ok runs clean", slurp("$tmp/err"));
}

# ---- schedules -------------------------------------------------------------------
# A: A[r, c] = r + 1 (column 0 matters); B starts as zeros.
npy_put("$tmp/a.npy", "<f4", [128, 32], pack("f<*", map { int($_ / 32) + 1 } 0 .. 4095));
npy_put("$tmp/b0.npy", "<f4", [128, 32], pack("f<*", (0) x 4096));
sub shift_b {
    my ($sched) = @_;
    my $rc = system("'$bin/txc-emu' --kernel shift --no-race-check --schedule=$sched --in A=$tmp/a.npy "
                    . "--in B=$tmp/b0.npy --out B=$tmp/b.npy '$f' >'$tmp/out' 2>'$tmp/err'") >> 8;
    return undef if $rc;
    my (undef, $d) = npy_get("$tmp/b.npy");
    my @v = unpack("f<*", $d);
    return [map { $v[32 * $_] } 0 .. 127];
}
# lockstep, thread order: thread t < 127 reads S[t + 1] before thread t + 1
# rewrites it (A[t + 1, 0] + 1 = t + 3); thread 127 reads S[0], which
# thread 0 already made A[1, 0] + 1 = 3: B[127, 0] = 4.
my @lock = ((map { $_ + 3 } 0 .. 126), 4);
# reverse: thread 127 first reads S[0] = 1 (B = 2); then each thread t
# reads S[t + 1], already rewritten: B[t] = B[t + 1] + 1 = 2 + 127 - t.
my @rev = map { 2 + 127 - $_ } 0 .. 127;
for ([lockstep => \@lock], [reverse => \@rev]) {
    my ($s, $want) = @$_;
    my $got = shift_b($s);
    ok($got && "@$got" eq "@$want", "shift, --schedule=$s: B[:, 0] as that order gives",
       $got ? "got @$got[0 .. 3] ... $got->[127]" : slurp("$tmp/err"));
}
my ($r1, $r2, $r3) = (shift_b("random:7"), shift_b("random:7"), shift_b("random:8"));
ok($r1 && $r2 && "@$r1" eq "@$r2", "shift, --schedule=random:7 twice: the same result");
# a random order gives lockstep's result only if every thread t < 127
# runs before t + 1 and thread 0 before 127: thread order itself, one
# order in 128!
ok($r1 && $r3 && ("@$r1" ne "@lock" || "@$r3" ne "@lock"), "shift, random orders: a result lockstep does not give");
# a race-free kernel gives the same result in every order
my %h;
for my $s (qw(lockstep reverse random random:3)) {
    my $rc = system("'$bin/txc-emu' --kernel second_tile_ok --schedule=$s '$f' >'$tmp/out' 2>'$tmp/err'") >> 8;
    $h{$s} = $rc ? "exit $rc" : slurp("$tmp/out");
}
ok(keys(%{{ map { $_ => 1 } values %h }}) == 1 && $h{lockstep} =~ /^B /m,
   "second_tile_ok: the same hashes in every schedule", map { "$_: $h{$_}" } sort keys %h);
my $rc = system("'$bin/txc-emu' --schedule=sideways '$f' >'$tmp/out' 2>'$tmp/err'") >> 8;
ok($rc == 2 && slurp("$tmp/err") =~ /--schedule takes lockstep, reverse, random or random:SEED, not 'sideways'/,
   "--schedule=sideways: a usage error", slurp("$tmp/err"));

# ---- txc-run's reference run (a fake CUDA driver, tests/run/fakecuda.c) ----------
# Its "copy" kernel copies A into B, which is what `copy` below computes,
# through a race: each thread writes its row of S, then copies row tid + 1
# with no barrier (thread 0 reads S[1, 0], byte 4 * 32 = 0x80, thread 1's).
spit("$tmp/copy.tx", <<'TX');
from tvm.script import tir as T
@T.prim_func
def copy(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    B = T.match_buffer(B_ptr, (128, 32), "float32")
    T.device_entry()
    tid = T.thread_id([128])
    S = T.alloc_shared((128, 32), "float32")
    for j in range(32):
        S[tid, j] = A[tid, j]
    for j in range(32):
        B[(tid + 1) % 128, j] = S[(tid + 1) % 128, j]
TX
spit("$tmp/fake.cubin", "\177ELF fake\ncopy copy\n");
mkdir "$tmp/fake";
my $cc = $ENV{CC} // 'cc';
if (system("$cc -std=c11 -shared -fPIC -o '$tmp/fake/libcuda.so.1' '$top/tests/run/fakecuda.c' 2>'$tmp/cc'") != 0) {
    ok(0, "the fake driver builds", slurp("$tmp/cc"));
} else {
    local $ENV{LD_LIBRARY_PATH} = "$tmp/fake";
    local $ENV{FAKECUDA_LOG} = "$tmp/log";
    sub trun { return system("'$bin/txc-run' '$tmp/copy.tx' --cubin '$tmp/fake.cubin' @_ >'$tmp/out' 2>'$tmp/err'") >> 8 }
    my $rc = trun();
    my $want = "$tmp/copy.tx:12:33: error: thread (cta 0, thread 0): shared-memory race on S[1, 0] (shared address "
             . "0x80): thread 1 wrote it at line 10, thread 0 reads it at line 12 with no barrier between";
    ok($rc == 1 && index(slurp("$tmp/err"), $want) == 0, "txc-run: the reference run reports the race",
       "want: $want", "got (exit $rc): " . slurp("$tmp/err"));
    $rc = trun("--no-race-check");
    ok($rc == 0 && slurp("$tmp/out") =~ /^PASS kernel copy: /, "txc-run --no-race-check: PASS", slurp("$tmp/out"),
       slurp("$tmp/err"));
    $rc = trun("--no-race-check", "--schedule", "random:5");
    ok($rc == 0 && slurp("$tmp/out") =~ /^PASS kernel copy: /, "txc-run --schedule random:5: PASS", slurp("$tmp/err"));
    $rc = trun("--schedule=upside-down");
    ok($rc == 2 && slurp("$tmp/err") =~ /--schedule takes lockstep, reverse, random or random:SEED, not 'upside-down'/,
       "txc-run --schedule=upside-down: a usage error", slurp("$tmp/err"));
}
done();
