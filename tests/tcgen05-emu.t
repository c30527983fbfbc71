#!/usr/bin/env perl
# Tensor memory on the emulator (runtime/emu-tmem.c): tcgen05.alloc /
# dealloc, tcgen05.ld / st of every shape and num, with and without
# .pack::16b / .unpack::16b, the asynchrony rules and the errors.
#
# Round trips: tests/emu/tcgen05_gen.pl writes one module per shape and
# register mode (f32; f16, two halves per register and column; f16pack,
# .unpack::16b / .pack::16b, a half per column), a kernel per legal num
# (ptx.md: registers per thread = num x 1, 1, 2, 4 for .32x32b, .16x64b,
# .16x128b, .16x256b, at most 128). Each runs on the emulator with A of
# known bits; B must be A bit for bit, and the tensor memory after the st
# (txc-emu --tmem-out: the columns as the dealloc found them) must equal the
# model computed here from ptx.md's lane/column table:
#   register r of lane t, taddr = (L0 << 16) | C0:
#   .32x32b   lane L0 + t                       column C0 + r
#   .16x64b   lane L0 + (t>>2) + 8*(t&1)        column C0 + ((t>>1)&1) + 2r
#   .16x128b  lane L0 + (t>>2) + 8*(r&1)        column C0 + (t&3) + 4*(r>>1)
#   .16x256b  lane L0 + (t>>2) + 8*((r>>1)&1)   column C0 + 2*(t&3) + (r&1) + 8*(r>>2)
#   pack::16b: the low/high halves are bits [15:0] of columns 2v, 2v+1
# where L0 = row + 32 * (warp % 4) (issue 11: the IR's row, 0 or 16 for a
# .16x* shape's second issue, is relative to the warp's lane quarter) and
# C0 = 0 (the first allocation). The emulator's own conventions, which the
# model shares: an unpacking st writes each half zero-extended.
# Each module also goes through ptxas for sm_100a.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";

my %regs = ("32x32b" => 1, "16x64b" => 1, "16x128b" => 2, "16x256b" => 4);
my %cols = ("32x32b" => 1, "16x64b" => 2, "16x128b" => 4, "16x256b" => 8);

# ptx.md's table: (lane, column) of register r of lane t, relative.
sub cell {
    my ($shape, $t, $r) = @_;
    return ($t, $r) if $shape eq "32x32b";
    return (($t >> 2) + 8 * ($t & 1), (($t >> 1) & 1) + 2 * $r) if $shape eq "16x64b";
    return (($t >> 2) + 8 * ($r & 1), ($t & 3) + 4 * ($r >> 1)) if $shape eq "16x128b";
    return (($t >> 2) + 8 * (($r >> 1) & 1), 2 * ($t & 3) + ($r & 1) + 8 * ($r >> 2));
}

my $have_nvcc = have_nvcc();

for my $shape ("32x32b", "16x64b", "16x128b", "16x256b") {
    for my $mode ("f32", "f16", "f16pack") {
        my $src = "$tmp/$shape-$mode.tx";
        system("perl '$top/tests/emu/tcgen05_gen.pl' $shape $mode >'$src'") == 0 or die "tcgen05_gen.pl failed";
        if ($have_nvcc) {
            my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
            ok($rc == 0, "$shape $mode: every kernel through ptxas for sm_100a", slurp("$tmp/err"));
        } else {
            skip("$shape $mode: ptxas sm_100a", "no nvcc");
        }
        my $issues = $shape eq "32x32b" ? 1 : 2;
        my $per = $mode eq "f32" ? 1 : 2;
        for (my $num = 1; $num * $regs{$shape} <= 128; $num *= 2) {
            my $R = $num * $regs{$shape};
            my $W = $R * $issues;                      # 32-bit words a thread holds
            my $ncols = $num * $cols{$shape} * ($mode eq "f16pack" ? 2 : 1);
            # A's words: normal float32s, or two normal float16s (no NaN)
            my @w;
            for my $tid (0 .. 127) {
                for my $j (0 .. $W - 1) {
                    my $h = ($tid * 7919 + $j * 104729 + $num * 31 + length($shape)) * 2654435761 % 4294967291;
                    push @w, $mode eq "f32" ? (0x3f000000 | ($h & 0x7fffff)) + (($h >> 23 & 7) << 23)
                                            : ((0x3800 | ($h & 0x7ff)) | (0x3800 | ($h >> 11 & 0x7ff)) << 16);
                }
            }
            my $descr = $mode eq "f32" ? "<f4" : "<f2";
            my $name = "$shape $mode num $num";
            npy_put("$tmp/a.npy", $descr, [128, $W * $per], pack("V*", @w));
            unlink "$tmp/b.npy", "$tmp/t.npy";
            my $rc = system("'$bin/txc-emu' --kernel k$num --in A='$tmp/a.npy' --out B='$tmp/b.npy' "
                            . "--tmem-out '$tmp/t.npy' '$src' >'$tmp/out' 2>'$tmp/err'");
            ok($rc == 0, "$name: runs", slurp("$tmp/err"));
            next if $rc;
            my (undef, $b) = npy_get("$tmp/b.npy");
            ok($b eq pack("V*", @w), "$name: B is A, bit for bit");
            # the model of tensor memory after the st
            my (%model, $clash);
            for my $tid (0 .. 127) {
                my ($warp, $t) = ($tid >> 5, $tid & 31);
                for my $s (0 .. $issues - 1) {
                    for my $r (0 .. $R - 1) {
                        my $v = $w[$tid * $W + $s * $R + $r];
                        my ($dl, $dc) = cell($shape, $t, $r);
                        my $lane = 32 * ($warp % 4) + 16 * $s + $dl;
                        my @put = $mode eq "f16pack" ? ([2 * $dc, $v & 0xffff], [2 * $dc + 1, $v >> 16]) : ([$dc, $v]);
                        for my $p (@put) {
                            $clash++ if exists $model{"$lane,$p->[0]"};
                            $model{"$lane,$p->[0]"} = $p->[1];
                        }
                    }
                }
            }
            ok(!$clash && keys(%model) == 128 * $ncols, "$name: the table covers lanes 0..127 x columns 0..@{[$ncols - 1]} once");
            my ($h, $t) = npy_get("$tmp/t.npy");
            my @tm = unpack("V*", $t);
            my @bad;
            for my $lane (0 .. 127) {
                for my $c (0 .. $ncols - 1) {
                    my ($got, $want) = ($tm[$lane * 512 + $c], $model{"$lane,$c"} // -1);
                    push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $lane, $c, $got, $want) if $got != $want;
                }
            }
            ok($h =~ /'descr': '<u4'.*'shape': \(128, 512\)/ && !@bad,
               "$name: tensor memory after the st is the model's", @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
        }
    }
}

# ---- seed 000 lowered (tests/emu/lowered_tcgen05.tx): .32x32b x4 of float16 ----------
{
    my $src = "$top/tests/emu/lowered_tcgen05.tx";
    my @h = map { 0x3800 | (($_ * 40503 + 11) & 0x7ff) } 0 .. 1023;    # A[tid, j] = $h[tid * 8 + j]
    npy_put("$tmp/sa.npy", "<f2", [128, 8], pack("v*", @h));
    my $rc = system("'$bin/txc-emu' --in A='$tmp/sa.npy' --out B='$tmp/sb.npy' --tmem-out '$tmp/st.npy' '$src' "
                    . ">'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "seed 000 lowered: runs", slurp("$tmp/err"));
    my (undef, $b) = $rc ? ('', '') : npy_get("$tmp/sb.npy");
    ok($b eq pack("v*", @h), "seed 000 lowered: B is A, bit for bit");
    # lane tid (warp tid / 32 at row 0 + its quarter), column j: the halves A[tid, 2j], A[tid, 2j + 1]
    my (undef, $t) = $rc ? ('', '') : npy_get("$tmp/st.npy");
    my @tm = unpack("V*", $t);
    my $good = @tm == 128 * 512;
    for my $lane (0 .. 127) {
        for my $j (0 .. 3) {
            $good &&= $tm[$lane * 512 + $j] == ($h[$lane * 8 + 2 * $j] | $h[$lane * 8 + 2 * $j + 1] << 16);
        }
    }
    ok($good, "seed 000 lowered: tensor memory lane r, column j holds A[r, 2j] (low half) and A[r, 2j + 1]");
    if ($have_nvcc) {
        my $rc2 = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/s.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
        ok($rc2 == 0, "seed 000 lowered: through ptxas for sm_100a", slurp("$tmp/err"));
    } else {
        skip("seed 000 lowered: ptxas sm_100a", "no nvcc");
    }
}

# ---- errors (tests/emu/tcgen05_bad.tx), each message exact -----------------------
chdir $top or die;
my $bad = "tests/emu/tcgen05_bad.tx";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/bad.cubin' $bad >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "tcgen05_bad.tx: every kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("tcgen05_bad.tx: ptxas sm_100a", "no nvcc");
}
{
    my $rc = system("'$bin/txc-emu' --kernel placement --out A='$tmp/p.npy' $bad >'$tmp/out' 2>'$tmp/err'");
    my (undef, $d) = $rc ? ('', '') : npy_get("$tmp/p.npy");
    ok($rc == 0 && $d eq pack("V*", 0, 128, 64),
       "placement: 32, 128, 64 columns land at the lowest free ranges aligned to their size: 0, 128, 64",
       slurp("$tmp/err"));
}
my $at = "thread (cta 0, thread";
my @errors = (
    [ quarter => "$bad:22:5: error: $at 32): tcgen05.ld: warp 1 accesses tensor-memory lanes 64..95, outside its "
      . "lane quarter 32..63 (warp % 4 = 1; address 0x00000000, row 32, column 0)" ],
    [ double_free => "$bad:41:9: error: $at 0): tcgen05.dealloc of columns 0..63: double free: the allocation at "
      . "$bad:39 was freed at $bad:40" ],
    [ size_mismatch => "$bad:54:9: error: $at 0): tcgen05.dealloc of 32 columns at column 0: the allocation there "
      . "(at $bad:53) has 64 columns" ],
    [ not_allocated => "$bad:67:9: error: $at 0): tcgen05.dealloc of address 0x00000020 (lane 0, column 32): no "
      . "allocation starts there" ],
    [ leak => "$bad:71:5: error: tensor memory not freed at exit: columns 0..31 allocated by warp 1 (threads 32-63) "
      . "at $bad:81 (free them with T.ptx.tcgen05.dealloc before the kernel ends)" ],
    [ outside => "$bad:105:5: error: $at 0): tcgen05.st: warp 0 accesses tensor-memory columns 30..33, but column 32 "
      . "is not allocated (allocated: columns 0..31)" ],
    [ over_alloc => "$bad:125:9: error: $at 0): tcgen05.alloc of 256 columns: 256 of the 512 columns are free, no "
      . "256 of them together (aligned to 256); on the GPU the alloc would block until a dealloc frees them, which "
      . "the emulator (lockstep) cannot wait for" ],
    [ ld_no_wait => "$bad:147:14: error: $at 0): this reads a register that the tcgen05.ld at $bad:146 has not "
      . "written yet: wait with T.ptx.tcgen05.wait.ld() first" ],
    [ st_no_wait => "$bad:169:5: error: $at 0): tcgen05.ld reads tensor-memory lane 0 column 0, which the "
      . "tcgen05.st at $bad:168 (thread 0) wrote without a tcgen05.wait.st since: the data is not visible to "
      . "tcgen05 ops yet" ],
    [ divergent => "$bad:192:9: error: $at 0): tcgen05.ld is warp-collective: 16 of the 32 threads of warp 0 are "
      . "active" ],
    [ relinquished => "$bad:209:9: error: $at 0): tcgen05.alloc after tcgen05.relinquish_alloc_permit: this CTA "
      . "gave up the right to allocate" ],
);
emu_errors($bin, $tmp, $bad, @errors);

done();
