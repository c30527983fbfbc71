#!/usr/bin/env perl
# The SOURCE tile op Tx.wg.copy_async between tensor memory and registers on
# the emulator (runtime/emu-tmem.c, its last section), against a model
# written here and against txc's lowering of the same kernels.
#
# 1. Round trips (tests/emu/tcgen05_tile_gen.pl: one kernel per pair of
#    register layout and datapath the tcgen05_ldst variant takes, every
#    shape, every legal num, float32 and float16, datapaths D (and its rows
#    [0:64]), F sub-slab 0 and 1, B, G, column windows, allocations not at column 0, float16 one
#    per 32-bit column, column slices of the fragment): the warpgroup copies
#    A into registers, stores them to tensor memory with the tile op, loads
#    them back and writes B. B must be A bit for bit, and tensor memory
#    after the st (txc-emu --tmem-out) the model's, from the definitions of
#    tmem_datapath_layout (TCol counts elements: a 32-bit column holds 32 /
#    bits of them, element TCol t of a float16 buffer is bits [16 (t % 2),
#    +16) of column t / 2):
#      D (128 rows):            element (r, c) at lane r,                 TCol c0 + c
#      D, rows [0:64] with a 64-row .16x* fragment (TVM's convention, the
#        low half-slab):        lane 32 (r / 16) + r % 16,                TCol c0 + c
#      F (64 rows, sub_slab s): lane 32 (r / 16) + 16 s + r % 16,         TCol c0 + c
#      B (64 rows, N columns):  lane r + 64 (c / (N / 2)),                TCol c % (N / 2)
#      G (32 rows, N columns):  lane r + 32 (c / (N / 4)),                TCol c % (N / 4)
#    and 32-bit column = the allocation's column + TCol * bits / 32 (c0: the
#    window's start). With the TCol stride doubled (float16, one element
#    per 32-bit column, the .pack::16b form) TCol is 2 (c0 + c): the element
#    is the low half of its column, and the tile op leaves the high half as
#    it was. The emulator's own convention, shared by the model: cells
#    nobody wrote hold 0xABABABAB, and --tmem-out holds the columns the
#    deallocs freed (0 elsewhere).
# 2. Source vs lowering: each kernel also runs as txc lowers it (tcgen05.ld
#    / st builtins); B and tensor memory must be the source run's, except
#    the high halves of the columns an .unpack::16b st wrote: the PTX ISA
#    leaves them open, and the emulator's tcgen05.st zero-extends while the
#    tile op leaves them.
# 3. Errors of the tile op (tests/emu/tcgen05_tile_bad.tx), each message
#    exact.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";

my %bits = (float32 => 32, float16 => 16);

# the first cells (lane x 512 columns of 32 bits) where tensor memory $got differs from $want
sub differ {
    my ($got, $want) = @_;
    my @g = unpack("V*", $got);
    my @w = unpack("V*", $want);
    my @bad = grep { ($g[$_] // -1) != $w[$_] } 0 .. $#w;
    return (scalar(@bad) . " of " . @w . " cells differ",
            map { sprintf("lane %d column %d: 0x%08x, want 0x%08x", $_ >> 9, $_ & 511, $g[$_] // -1, $w[$_]) }
            @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
}

my $src = "$tmp/tile.tx";
my $low = "$tmp/tile-low.tx";
system("perl '$top/tests/emu/tcgen05_tile_gen.pl' >'$src'") == 0 or die "tcgen05_tile_gen.pl failed";
my @cases = map { [split] } split /\n/, `perl '$top/tests/emu/tcgen05_tile_gen.pl' --cases`;
my $rc = system("'$bin/txc' --emit=ir --arch=sm_100a '$src' -o '$low' >'$tmp/out' 2>'$tmp/err'") >> 8;
ok($rc == 0, "the " . @cases . " kernels lower (txc --emit=ir)", slurp("$tmp/err"));

for my $c (@cases) {
    my ($k, $shape, $rows, $cols, $dt, $dp, $sub, $tcols, $c0, $pad, $tcs, $slices) = @$c;
    my $bits = $bits{$dt};
    my $name = "$k: .$shape ($rows, $cols) $dt, datapath $dp" . ($dp eq "F" ? " sub-slab $sub" : "")
        . ($tcs == 2 ? ", TCol stride 2" : "")
        . ($tcols != $cols ? ", window $c0:" . ($c0 + $cols) . " of $tcols" : "") . ($pad ? ", after $pad columns" : "")
        . ($slices > 1 ? ", in $slices slices" : "");
    # A: normal floats (no NaN), different in every case
    my @a;
    for my $i (0 .. $rows * $cols - 1) {
        my $h = ($i * 7919 + length($k) * 104729 + $cols * 31 + $rows) * 2654435761 % 4294967291;
        push @a, $bits == 32 ? 0x3f000000 + ($h & 0x7fffff) + (($h >> 23 & 7) << 23) : 0x3800 | ($h & 0x7ff);
    }
    my $descr = $bits == 32 ? "<f4" : "<f2";
    my $abytes = pack($bits == 32 ? "V*" : "v*", @a);
    npy_put("$tmp/a.npy", $descr, [$rows, $cols], $abytes);

    # the model: the freed columns (pad's and tmem's), then the elements;
    # and the bits the lowering must agree on (not the open high halves)
    my $ncols = 32;
    $ncols *= 2 while $ncols < $tcols * $tcs * $bits / 32;
    my $base = $pad ? int(($pad + $ncols - 1) / $ncols) * $ncols : 0;
    my @model = (0) x (128 * 512);
    my @mask = (0xffffffff) x (128 * 512);
    for my $col ((0 .. $pad - 1), ($base .. $base + $ncols - 1)) {
        $model[$_ * 512 + $col] = 0xABABABAB for 0 .. 127;
    }
    for my $r (0 .. $rows - 1) {
        for my $j (0 .. $cols - 1) {
            my ($lane, $tc);
            if ($dp eq "D" && $rows == 64) { ($lane, $tc) = (32 * int($r / 16) + $r % 16, $tcs * ($c0 + $j)) }
            elsif ($dp eq "D") { ($lane, $tc) = ($r, $tcs * ($c0 + $j)) }
            elsif ($dp eq "F") { ($lane, $tc) = (32 * int($r / 16) + 16 * $sub + $r % 16, $tcs * ($c0 + $j)) }
            elsif ($dp eq "B") { my $h = $tcols / 2; ($lane, $tc) = ($r + 64 * int($j / $h), $j % $h) }
            else { my $q = $tcols / 4; ($lane, $tc) = ($r + 32 * int($j / $q), $j % $q) }
            my $col = $base + int($tc * $bits / 32);
            my $v = $a[$r * $cols + $j];
            my $w = \$model[$lane * 512 + $col];
            if ($bits == 32) { $$w = $v }
            else { my $sh = 16 * ($tc % 2); $$w = ($$w & ~(0xffff << $sh) & 0xffffffff) | ($v << $sh) }
            $mask[$lane * 512 + $col] = 0xffff if $tcs == 2;
        }
    }

    my %got;
    for my $run (["source", $src], ["lowered", $low]) {
        my ($how, $file) = @$run;
        unlink "$tmp/b.npy", "$tmp/t.npy";
        my $rc = system("'$bin/txc-emu' --kernel $k --in A='$tmp/a.npy' --out B='$tmp/b.npy' "
                        . "--tmem-out '$tmp/t.npy' '$file' >'$tmp/out' 2>'$tmp/err'");
        ok($rc == 0, "$name: $how: runs", slurp("$tmp/err")) or next;
        my (undef, $b) = npy_get("$tmp/b.npy");
        my ($th, $t) = npy_get("$tmp/t.npy");
        $got{$how} = [$b, $t];
        next if $how ne "source";
        ok($b eq $abytes, "$name: source: B is A, bit for bit");
        my $want = pack("V*", @model);
        my $good = $th =~ /'descr': '<u4'.*'shape': \(128, 512\)/ && $t eq $want;
        ok($good, "$name: source: tensor memory after the st is the model's", $good ? () : differ($t, $want));
    }
    if ($got{source} && $got{lowered}) {
        ok($got{lowered}[0] eq $got{source}[0], "$name: lowered: B is the source run's");
        my $m = pack("V*", @mask);    # (string AND: the bits compared)
        my ($s, $l) = ($got{source}[1] & $m, $got{lowered}[1] & $m);
        ok($l eq $s, "$name: lowered: tensor memory is the source run's"
           . ($tcs == 2 ? " (the low halves of the columns written)" : ""), $l eq $s ? () : differ($l, $s));
    }
}

# ---- errors (tests/emu/tcgen05_tile_bad.tx), each message exact -----------------------
chdir $top or die;
my $bad = "tests/emu/tcgen05_tile_bad.tx";
my $at = "thread (cta 0, thread";
my ($to, $from) = ("copy_async from registers to tensor memory", "copy_async from tensor memory to registers");
my $no = "tensor memory is emulated only through the T.ptx.tcgen05 builtins and Tx.wg.copy_async to or from "
    . "registers (tcgen05_ldst), not here";
my @errors = (
    # the ld's registers are poisoned until wait.ld; the st's cells invisible to tcgen05 until wait.st
    [ ld_no_wait => "$bad:29:5: error: $at 0): this reads a register that the copy_async from tensor memory at "
      . "$bad:28 has not written yet: wait with T.ptx.tcgen05.wait.ld() first" ],
    [ st_no_wait => "$bad:52:5: error: $at 0): $from reads tensor-memory lane 0 column 0, which the st at $bad:51 "
      . "(thread 0) wrote without a tcgen05.wait.st since: the data is not visible to tcgen05 ops yet" ],
    # row 32 (lane 32, quarter 1) held by thread 64 (warp 2: lanes 64..95)
    [ wrong_quarter => "$bad:77:5: error: $at 64): $to: register element (32, 0) of 'R' is held by thread 64 of "
      . "warp 2, which reaches only tensor-memory lanes 64..95 (its lane quarter, warp % 4 = 2), but its element "
      . "(32, 0) of 'tmem' is at lane 32" ],
    # the window 16:48 pairs R's (0, 16) with tmem's (0, 32): column 32, past the 32 allocated
    [ outside => "$bad:99:5: error: $at 0): $to: element (0, 32) of 'tmem' is at tensor-memory lane 0 column 32 "
      . "(allocated_addr= 0x00000000, TCol 32), which is not allocated (allocated: columns 0..31)" ],
    [ lane_128 => "$bad:121:5: error: $at 0): $to: element (0, 0) of 'tmem' is at tensor-memory lane 128 "
      . "(allocated_addr= 0x00800000, TLane 0), outside lanes 0..127" ],
    [ no_alloc => "$bad:140:5: error: $at 0): $to: the CTA has no tensor memory: no T.ptx.tcgen05.alloc ran before "
      . "this copy" ],
    [ sync_copy => "$bad:162:5: error: $at 0): $no" ],
    [ element_load => "$bad:182:17: error: $at 0): $no" ],
    # warps 1 and 3 add 8 to the address
    [ non_uniform => "$bad:203:5: error: $at 32): $to: the allocated_addr= of 'tmem' differs within warpgroup 0 "
      . "(0x00000000 in thread 0, 0x00000008 here): the warpgroup's tcgen05.ld/st take one address" ],
    [ cta_scope => "$bad:225:5: error: $at 0): copy_async through tcgen05_ldst is a warpgroup's copy: write it as "
      . "Tx.wg.copy_async, not at cta scope" ],
);
emu_errors($bin, $tmp, $bad, @errors);
# txc's dispatch refuses wrong_quarter's layout (no tcgen05.ld/st shape's): the emulator of the source must catch it
$rc = system("'$bin/txc' --emit=ir --arch=sm_100a $bad -o '$tmp/bad.ir' >'$tmp/out' 2>'$tmp/err'") >> 8;
my $err = slurp("$tmp/err");
ok($rc == 1 && $err =~ /^\Q$bad\E:77:5: error: no variant of Tx.wg.copy_async can run this copy:\n(    .*\n){2}(    .*\n)*?    tcgen05_ldst  10  tcgen05_ldst: the layout of the registers 'R' is no tcgen05.ld\/st shape's/m,
   "wrong_quarter: txc's dispatch refuses the layout too", $err);

done();
