#!/usr/bin/env perl
# The tcgen05_cp variant's other shapes and its regions (variants/tcgen05_cp.c;
# doc/txir.md "tcgen05_cp"): .4x256b, .64x128b.warpx2::02_13 / ::01_23,
# .32x128b.warpx4 (TVM's scale-factor copy among them), 16- and 8-bit
# elements, a run-time tensor-memory column window and a run-time stage of
# a shared ring; TVM's shape=, multicast= and cta_group= keywords.
#
# Each kernel copies global A into a shared layout, then Tx.copy_async
# (shared -> tensor memory), commit, wait. Checked: the lowered copies
# (shape, multicast, count), the module through ptxas for sm_100a, and on
# the emulator, lowered and as written, tensor memory at the dealloc equal
# to a model computed here from ptx.md's shape definitions ("Tensor memory
# and tcgen05"): source row r of one copy goes to the lanes
#   .128x256b / .128x128b  L0 + r
#   .4x256b                L0 + 32 r
#   .64x128b.warpx2::02_13 r and r + 64
#   .64x128b.warpx2::01_23 r < 32: r, r + 32; r >= 32: r + 32, r + 64
#   .32x128b.warpx4        r, r + 32, r + 64, r + 96
# and its bytes, in order, to the 32-bit columns from the address's column
# on (little-endian: an 8-bit element k of a column is its byte k, a 16-bit
# one its half k). Each model below says which source row and column of
# the tile each element is, and applies those lanes; every other cell keeps
# the emulator's initial 0xABABABAB. Then the refusals, each message exact.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
my $have_nvcc = have_nvcc();

my %npy = (float32 => "<f4", bfloat16 => "<u2", uint8 => "|u1", uint32 => "<u4");
my %size = (float32 => 4, bfloat16 => 2, uint8 => 1, uint32 => 4);

# ptx.md's lanes of source row r of one copy
sub lanes {
    my ($shape, $r) = @_;
    return ($r) if $shape =~ /^128x/;
    return (32 * $r) if $shape eq "4x256b";
    return ($r, $r + 64) if $shape eq "64x128b.warpx2::02_13";
    return $r < 32 ? ($r, $r + 32) : ($r + 32, $r + 64) if $shape eq "64x128b.warpx2::01_23";
    return ($r, $r + 32, $r + 64, $r + 96) if $shape eq "32x128b.warpx4";
    die $shape;
}

sub kernel {
    my ($c) = @_;
    my $dt = $c->{dt};
    my $sh = join(", ", @{ $c->{a} });
    my $all = join(", ", (":") x @{ $c->{a} });
    my $salloc = $c->{align} ? "T.alloc_buffer(($sh), \"$dt\", scope=\"shared\", layout=$c->{sl}, align=$c->{align})"
                             : "T.alloc_shared(($sh), \"$dt\", layout=$c->{sl})";
    my $tsh = join(", ", @{ $c->{t} });
    return <<"END";


\@T.prim_func
def $c->{name}(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, ($sh), "$dt")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    smem = $salloc
    bar = T.alloc_shared([1], "uint64")
    tmem_addr = T.alloc_shared([1], "uint32")
    if tid == 0:
        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)
        T.ptx.fence.mbarrier_init()
    if warp_id == 0:
        T.ptx.tcgen05.alloc(T.address_of(tmem_addr), n_cols=$c->{cols}, cta_group=1)
    T.tvm_storage_sync("shared")
    tmem = T.decl_buffer(($tsh), "$dt", scope="tmem", allocated_addr=tmem_addr[0], layout=$c->{tl})
    Tx.cta.copy(smem[$all], A[$all])
    T.ptx.fence.proxy_async()
    T.cuda.cta_sync()
$c->{body}    T.cuda.cta_sync()
    if warp_id == 0:
        T.ptx.tcgen05.dealloc(tmem_addr[0], n_cols=$c->{cols}, cta_group=1)
        T.ptx.tcgen05.relinquish_alloc_permit(cta_group=1)
END
}

# one copy at thread 0, commit, wait
sub once {
    my ($t, $s, $kw) = @_;
    $kw = $kw ? ", $kw" : "";
    return "    if tid == 0:\n        Tx.copy_async(tmem[$t], smem[$s]$kw)\n        T.ptx.tcgen05.commit(T.address_of(bar[0]))\n"
         . "    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)\n";
}

# Each case: the tile; `place` gives, for the element at A's flat index i
# (row-major), the shape of the copy that moves it, its source row r in
# that copy, the lane L0 of the copy, and its 32-bit column and slot, or ()
# if it is not copied.
my @cases = (
    {   name => "warpx4_f32", dt => "float32", a => [32, 8], cols => 32,
        # K-major core matrices (doc/txir.md): 16-byte rows, the two 4-column
        # halves 512 bytes apart
        sl => 'mma_shared_layout("float32", 0, (32, 8))',
        t => [32, 8], tl => 'TileLayout(S[(32, 8) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => once(":, :", ":, :"),
        want => [("32x128b.warpx4") x 2],
        place => sub { my $i = shift; my ($r, $c) = (int($i / 8), $i % 8); ("32x128b.warpx4", $r, 0, $c, 0) } },
    {   name => "sf_u8", dt => "uint8", a => [4, 32, 16], cols => 32, align => 1024,
        # TVM's scale-factor tile (test_tcgen05_cp.py's 4-tile copy): tile i
        # is 32 rows of 16 bytes at byte 512 i; in tensor memory its 16
        # bytes a row are the 4 columns 4 i.., each row in the four lane
        # quarters
        sl => 'TileLayout(S[(4, 32, 16) : (512, 16, 1)])',
        t => [4, 32, 16], tl => 'TileLayout(S[(4, 32, 16) : (16 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => once(":, :, :", ":, :, :"),
        want => [("32x128b.warpx4") x 4],
        place => sub {
            my $i = shift;
            my ($t, $r, $b) = (int($i / 512), int($i / 16) % 32, $i % 16);
            ("32x128b.warpx4", $r, 0, 4 * $t + int($b / 4), $b % 4);
        } },
    {   name => "sf_mma_u8", dt => "uint8", a => [128, 4], cols => 32,
        # TVM's sf_tmem_layout(rows=128, SF_K=4, sf_per_mma=4) and
        # sf_smem_layout(128, 4, 4) (gemm_async/tcgen05.py), written out:
        # row m = 32 i + r of the scales, i < 4: in shared memory at 16 r +
        # 4 i (each lane's 16 bytes together), in tensor memory lane r (and
        # its quarters), 32-bit column i
        sl => 'TileLayout(S[(4, 32, 4) : (4, 16, 1)])',
        t => [128, 4], tl => 'TileLayout(S[(4, 32, 4) : (4 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => once(":, :", ":, :"),
        want => ["32x128b.warpx4"],
        place => sub {
            my $i = shift;
            my ($m, $k) = (int($i / 4), $i % 4);
            ("32x128b.warpx4", $m % 32, 0, int($m / 32), $k);
        } },
    {   name => "x2_0213_bf16", dt => "bfloat16", a => [64, 8], cols => 32,
        sl => 'TileLayout(S[(64, 8) : (8, 1)])',
        t => [64, 8], tl => 'TileLayout(S[(64, 8) : (1 @ TLane, 1 @ TCol)] + R[2 : 64 @ TLane])',
        body => once(":, :", ":, :"),
        want => ["64x128b.warpx2::02_13"],
        place => sub { my $i = shift; my ($r, $c) = (int($i / 8), $i % 8); ("64x128b.warpx2::02_13", $r, 0, int($c / 2), $c % 2) } },
    {   name => "x2_0123_f32", dt => "float32", a => [64, 32], cols => 32,
        # columns 0..7 of a 128-byte swizzled tile: 32 bytes of each
        # 128-byte row, two copies of 16 bytes a row
        sl => 'mma_shared_layout("float32", 3, (64, 32))',
        t => [64, 8], tl => 'TileLayout(S[(2, 32, 8) : (64 @ TLane, 1 @ TLane, 1 @ TCol)] + R[2 : 32 @ TLane])',
        body => once(":, :", ":, 0:8"),
        want => [("64x128b.warpx2::01_23") x 2],
        place => sub {
            my $i = shift;
            my ($r, $c) = (int($i / 32), $i % 32);
            $c < 8 ? ("64x128b.warpx2::01_23", $r, 0, $c, 0) : ();
        } },
    {   name => "r4x256b_f32", dt => "float32", a => [8, 8], cols => 32,
        # no swizzle: row r's two 16-byte chunks at 16 r and 16 r + 128 (LBO)
        sl => 'TileLayout(S[(8, 2, 4) : (4, 32, 1)])',
        t => [4, 8], tl => 'TileLayout(S[(4, 8) : (32 @ TLane, 1 @ TCol)])',
        body => once(":, :", "0:4, :"),
        want => ["4x256b"],
        place => sub { my $i = shift; my ($r, $c) = (int($i / 8), $i % 8); $r < 4 ? ("4x256b", $r, 0, $c, 0) : () } },
    {   name => "scatter_bf16", dt => "bfloat16", a => [64, 16], cols => 32,
        # TVM's Layout-F scatter (test_cp_4x256b_lane_tiled_layout_f_scatter):
        # row 4 i + q in lane 32 q + i: one .4x256b per i, rows 4i..4i+3
        sl => 'mma_shared_layout("bfloat16", 1, (64, 16))',
        t => [64, 16], tl => 'TileLayout(S[(16, 4, 16) : (1 @ TLane, 32 @ TLane, 1 @ TCol)])',
        body => once(":, :", ":, :"),
        want => [("4x256b") x 16],
        place => sub {
            my $i = shift;
            my ($row, $c) = (int($i / 16), $i % 16);
            ("4x256b", $row % 4, int($row / 4), int($c / 2), $c % 2);
        } },
    {   name => "w256_bf16", dt => "bfloat16", a => [128, 32], cols => 32,
        sl => 'mma_shared_layout("bfloat16", 2, (128, 32))',
        t => [128, 32], tl => 'TileLayout(S[(128, 32) : (1 @ TLane, 1 @ TCol)])',
        body => once(":, :", ":, :"),
        want => [("128x256b") x 2],
        place => sub { my $i = shift; my ($r, $c) = (int($i / 32), $i % 32); ("128x256b", $r, 0, int($c / 2), $c % 2) } },
    {   name => "forced_128b_bf16", dt => "bfloat16", a => [128, 32], cols => 32,
        # TVM's keywords: shape= narrows the plan to .128x128b (16 bytes a
        # row: four copies where .128x256b takes two), cta_group=1
        sl => 'mma_shared_layout("bfloat16", 2, (128, 32))',
        t => [128, 32], tl => 'TileLayout(S[(128, 32) : (1 @ TLane, 1 @ TCol)])',
        body => once(":, :", ":, :", 'shape="128x128b", cta_group=1'),
        want => [("128x128b") x 4],
        place => sub { my $i = shift; my ($r, $c) = (int($i / 32), $i % 32); ("128x128b", $r, 0, int($c / 2), $c % 2) } },
    {   name => "ring_f32", dt => "float32", a => [3, 128, 32], cols => 128,
        # stage s of a 3-stage 128-byte swizzled ring into the column
        # window [32 s : 32 s + 32] of a (128, 128) accumulator: run-time
        # starts on both sides
        sl => 'mma_shared_layout("float32", 3, (384, 32))',
        t => [128, 128], tl => 'TileLayout(S[(128, 128) : (1 @ TLane, 1 @ TCol)])',
        body => "    for s in range(3):\n        if tid == 0:\n"
              . "            Tx.copy_async(tmem[:, s * 32 : s * 32 + 32], smem[s, :, :])\n"
              . "            T.ptx.tcgen05.commit(T.address_of(bar[0]))\n"
              . "        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), s % 2)\n",
        want => [("128x256b") x 4], rt => [qr/T\.pointer_offset\(smem, (\d+ \+ )?s \* 4096\)/, qr/, 0, (\d+ \+ )?s \* 32, "128x256b"/],
        place => sub {
            my $i = shift;
            my ($s, $r, $c) = (int($i / 4096), int($i / 32) % 128, $i % 32);
            ("128x256b", $r, 0, 32 * $s + $c, 0);
        } },
    {   name => "sf_ring_u8", dt => "uint8", a => [2, 4, 32, 16], cols => 32, align => 1024,
        # two stages of scale tiles, stage k into columns 16 k..: a run-time
        # start on both sides
        sl => 'TileLayout(S[(2, 4, 32, 16) : (2048, 512, 16, 1)])',
        t => [2, 4, 32, 16],
        tl => 'TileLayout(S[(2, 4, 32, 16) : (64 @ TCol, 16 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => "    for k in range(2):\n        if tid == 0:\n"
              . "            Tx.copy_async(tmem[k, :, :, :], smem[k, :, :, :])\n"
              . "            T.ptx.tcgen05.commit(T.address_of(bar[0]))\n"
              . "        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), k % 2)\n",
        want => [("32x128b.warpx4") x 4], rt => [qr/T\.pointer_offset\(smem, (\d+ \+ )?k \* 2048\)/, qr/, 0, (\d+ \+ )?k \* 16, "32x128b"/],
        place => sub {
            my $i = shift;
            my ($k, $t, $r, $b) = (int($i / 2048), int($i / 512) % 4, int($i / 16) % 32, $i % 16);
            ("32x128b.warpx4", $r, 0, 16 * $k + 4 * $t + int($b / 4), $b % 4);
        } },
);

my $hdr = "# generated by tests/tcgen05-cp-shapes.t\nfrom tvm.script import tir as T\nfrom tvm.script import tirx as Tx\n"
        . "from tvm.tirx.layout import S, R, TCol, TileLayout, TLane, mma_shared_layout, ComposeLayout\n";
my $src = "$tmp/shapes.tx";
spit($src, $hdr . join("", map { kernel($_) } @cases));
my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/low.tx' '$src' >'$tmp/out' 2>'$tmp/err'");
ok($rc == 0, scalar(@cases) . " kernels lower", slurp("$tmp/err"));
if ($have_nvcc) {
    $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("ptxas sm_100a", "no nvcc");
}
my $low = slurp("$tmp/low.tx");
my %body;
for my $k (split /(?=^\@T\.prim_func)/m, $low) {
    $body{$1} = $k if $k =~ /^def (\w+)\(/m;
}

for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my $k = $body{ $c->{name} } // "";
    my @got;
    while ($k =~ /T\.ptx\.tcgen05\.cp\([^\n]*"(\w+)", cp_desc\[0\](?:, multicast="([\w:]+)")?\)/g) {
        push @got, $2 ? "$1.$2" : $1;
    }
    ok("@got" eq "@{ $c->{want} }", "$c->{name}: lowered to " . scalar(@{ $c->{want} }) . " x .$c->{want}[0]",
       "got: @got");
    for my $re (@{ $c->{rt} // [] }) {
        ok(scalar($k =~ $re), "$c->{name}: the run-time start in the copies: $re");
    }
    # the model
    my $n = 1;
    $n *= $_ for @{ $c->{a} };
    my $sz = $size{ $c->{dt} };
    my @bytes = map { ($_ * 97 + $i * 31 + 7) & 0xFF } 0 .. $n * $sz - 1;
    if ($c->{dt} eq "float32") { $bytes[4 * $_ + 3] &= 0x3F for 0 .. $n - 1 }    # no NaNs
    my %model;
    my ($cells, $clash) = (0, 0);
    for my $e (0 .. $n - 1) {
        my ($shape, $r, $l0, $col, $slot) = $c->{place}->($e);
        next unless defined $shape;
        for my $lane (map { $l0 + $_ } lanes($shape, $r)) {
            for my $b (0 .. $sz - 1) {
                my $key = "$lane,$col," . ($slot * $sz + $b);
                $clash++ if exists $model{$key};
                $model{$key} = $bytes[$e * $sz + $b];
            }
        }
    }
    ok(!$clash, "$c->{name}: the model places every byte once");
    npy_put("$tmp/a.npy", $npy{ $c->{dt} }, $c->{a}, pack("C*", @bytes));
    for my $f (["lowered", "$tmp/low.tx"], ["as written", $src]) {
        unlink "$tmp/t.npy";
        $rc = system("'$bin/txc-emu' --kernel $c->{name} --in A='$tmp/a.npy' --tmem-out '$tmp/t.npy' '$f->[1]' "
                     . ">'$tmp/out' 2>'$tmp/err'");
        ok($rc == 0, "$c->{name} $f->[0]: runs on the emulator", slurp("$tmp/err"));
        next if $rc;
        my ($h, $t) = npy_get("$tmp/t.npy");
        my @bad;
        for my $lane (0 .. 127) {
            for my $col (0 .. $c->{cols} - 1) {
                for my $b (0 .. 3) {
                    my $got = ord(substr($t, ($lane * 512 + $col) * 4 + $b, 1));
                    my $want = $model{"$lane,$col,$b"} // 0xAB;
                    push @bad, sprintf("lane %d column %d byte %d: 0x%02x, want 0x%02x", $lane, $col, $b, $got, $want)
                        if $got != $want;
                }
            }
        }
        ok($h =~ /'shape': \(128, 512\)/ && !@bad, "$c->{name} $f->[0]: tensor memory is the model's",
           scalar(@bad) . " bytes differ", @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
    }
}

# TVM's pinned sequence for its 4-tile scale copy (test_tcgen05_cp.py,
# test_cp_default_32x128b_instruction_sequence_unchanged): one descriptor
# (ldo 0, sdo 8: 8 rows of 16 bytes, no swizzle), copies at columns 0, 4,
# 8, 12 from shared bytes 0, 512, 1024, 1536
{
    my $k = $body{sf_u8} // "";
    my @d = $k =~ /T\.pointer_offset\(smem, (\d+)\), ldo=0, sdo=8, swizzle=0\)/g;
    my @c = $k =~ /T\.ptx\.tcgen05\.cp\(tmem_addr\[0\], 0, (\d+), "32x128b"/g;
    ok("@d" eq "0 512 1024 1536" && "@c" eq "0 4 8 12", "sf_u8: TVM's sequence: shared bytes 0, 512, 1024, 1536 into "
       . "columns 0, 4, 8, 12, ldo 0, sdo 8, no swizzle", "@d / @c");
}

# ---- refusals: dispatch's line for tcgen05_cp, exact ------------------------------
my @refuse = (
    {   name => "rows32", dt => "float32", a => [32, 8], cols => 32,
        # rows 32 bytes apart: no descriptor row formula (16-byte core-matrix
        # rows without a swizzle) reaches them
        sl => 'TileLayout(S[(32, 8) : (8, 1)])',
        t => [32, 8], tl => 'TileLayout(S[(32, 8) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => once(":, :", ":, :"),
        why => "no tcgen05.cp shape serves lane 0, columns 0..3 of 'tmem' from 'smem'; "
             . ".128x256b writes each row into the lanes +{0}, but the lane replicas of the tensor memory 'tmem' are +{0, 32, 64, 96}; "
             . ".128x128b writes each row into the lanes +{0}, but the lane replicas of the tensor memory 'tmem' are +{0, 32, 64, 96}; "
             . ".4x256b writes each row into the lanes +{0}, but the lane replicas of the tensor memory 'tmem' are +{0, 32, 64, 96}; "
             . ".64x128b.warpx2::02_13 writes each row into the lanes +{0, 64}, but the lane replicas of the tensor memory 'tmem' are +{0, 32, 64, 96}; "
             . ".64x128b.warpx2::01_23 writes each row into the lanes +{0, 32}, but the lane replicas of the tensor memory 'tmem' are +{0, 32, 64, 96}; "
             . ".32x128b.warpx4 reads source row 1 at start + (1 >> 3) * SBO + (1 & 7) * 16 bytes (the descriptor's rows: "
             . "16-byte core-matrix rows; SBO 256 from row 8), byte 16, but tensor-memory column 0 of lane 1 holds (1, 0) of 'smem' at byte 32" },
    {   name => "reps3", dt => "float32", a => [32, 4], cols => 32,
        sl => 'mma_shared_layout("float32", 0, (32, 4))',
        t => [32, 4], tl => 'TileLayout(S[(32, 4) : (1 @ TLane, 1 @ TCol)] + R[3 : 32 @ TLane])',
        body => once(":, :", ":, :"),
        why => "no tcgen05.cp shape serves lane 0, columns 0..3 of 'tmem' from 'smem'; "
             . join("; ", map { "$_->[0] writes each row into the lanes +{$_->[1]}, but the lane replicas of the tensor memory 'tmem' are +{0, 32, 64}" }
                    [".128x256b", "0"], [".128x128b", "0"], [".4x256b", "0"], [".64x128b.warpx2::02_13", "0, 64"],
                    [".64x128b.warpx2::01_23", "0, 32"], [".32x128b.warpx4", "0, 32, 64, 96"]) },
    {   name => "col2", dt => "float32", a => [128, 4], cols => 32,
        # a run-time column start txc proves even only: the second window is
        # 2 columns on, not 128-bit aligned
        sl => 'mma_shared_layout("float32", 0, (128, 4))',
        t => [128, 8], tl => 'TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)])',
        body => "    for j in range(2):\n        if tid == 0:\n            Tx.copy_async(tmem[:, j * 2 : j * 2 + 4], smem[:, :])\n"
              . "            T.ptx.tcgen05.commit(T.address_of(bar[0]))\n"
              . "        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), j % 2)\n",
        why => "the start j * 2 of dimension 1 of the tensor-memory region, which txc proves a multiple of 2 (from 0): "
             . "each step moves the region 2 float32 columns, not a multiple of 4 32-bit columns (tcgen05.cp's address "
             . "is 128-bit aligned)" },
    {   name => "stage4", dt => "float32", a => [3, 4, 8], cols => 32,
        # stages of 4 rows of 32 bytes under the 32-byte swizzle: a stage
        # is half of the 8-row pattern (256 bytes)
        sl => 'ComposeLayout(2, 1, 3, S[96])',
        t => [4, 8], tl => 'TileLayout(S[(4, 8) : (32 @ TLane, 1 @ TCol)])',
        body => "    for s in range(3):\n        if tid == 0:\n            Tx.copy_async(tmem[:, :], smem[s, :, :])\n"
              . "            T.ptx.tcgen05.commit(T.address_of(bar[0]))\n"
              . "        T.ptx.mbarrier.try_wait(T.address_of(bar[0]), s % 2)\n",
        why => "the start s of dimension 0 of the shared region, which txc proves a multiple of 1 (from 0): each step "
             . "moves the source 128 bytes, not a multiple of 256 (the 8-row pattern of the 32-byte swizzle: a stage "
             . "must be whole swizzle atoms)" },
    {   name => "cg2", dt => "float32", a => [32, 8], cols => 32,
        sl => 'mma_shared_layout("float32", 0, (32, 8))',
        t => [32, 8], tl => 'TileLayout(S[(32, 8) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => once(":, :", ":, :", "cta_group=2"),
        why => "not supported yet: cta_group=2: tcgen05.cp into the tensor memory of both CTAs of a pair; tcgen05_cp "
             . "copies with cta_group=1" },
    {   name => "x2_nomc", dt => "bfloat16", a => [64, 8], cols => 32,
        sl => 'TileLayout(S[(64, 8) : (8, 1)])',
        t => [64, 8], tl => 'TileLayout(S[(64, 8) : (1 @ TLane, 1 @ TCol)] + R[2 : 64 @ TLane])',
        body => once(":, :", ":, :", 'shape="64x128b"'),
        why => 'shape="64x128b" takes multicast="warpx2::02_13" or multicast="warpx2::01_23" (PTX requires one)' },
    {   name => "x2_wrongmc", dt => "bfloat16", a => [64, 8], cols => 32,
        # TVM's test_cp_rejects_wrong_replica_for_multicast: a 02_13 layout
        # copied with 01_23
        sl => 'TileLayout(S[(64, 8) : (8, 1)])',
        t => [64, 8], tl => 'TileLayout(S[(64, 8) : (1 @ TLane, 1 @ TCol)] + R[2 : 64 @ TLane])',
        body => once(":, :", ":, :", 'shape="64x128b", multicast="warpx2::01_23"'),
        why => "no tcgen05.cp shape serves lane 0, columns 0..3 of 'tmem' from 'smem' among those shape= and multicast= "
             . "allow; .64x128b.warpx2::01_23 writes each row into the lanes +{0, 32}, but the lane replicas of the "
             . "tensor memory 'tmem' are +{0, 64}" },
    {   name => "force_x4", dt => "bfloat16", a => [128, 32], cols => 32,
        sl => 'mma_shared_layout("bfloat16", 2, (128, 32))',
        t => [128, 32], tl => 'TileLayout(S[(128, 32) : (1 @ TLane, 1 @ TCol)])',
        body => once(":, :", ":, :", 'shape="32x128b"'),
        why => "no tcgen05.cp shape serves lane 0, columns 0..3 of 'tmem' from 'smem' among those shape= and multicast= "
             . "allow; .32x128b.warpx4 writes each row into the lanes +{0, 32, 64, 96}: the tensor memory 'tmem' has no "
             . "lane replicas (R[4 : 32 @ TLane])" },
    {   name => "half_u8", dt => "uint8", a => [32, 4], cols => 32,
        # 4 bytes a row into bytes 2..5 of each row: columns 0 and 1 are
        # half the region's each
        sl => 'TileLayout(S[(32, 4) : (16, 1)])',
        t => [32, 16], tl => 'TileLayout(S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])',
        body => once(":, 2:6", ":, :"),
        why => "the 32-bit column 0 of lane 0 of 'tmem' holds 2 of its 4 uint8 elements from the region: tcgen05.cp "
             . "writes whole 32-bit columns" },
);
for my $c (@refuse) {
    my $f = "$tmp/$c->{name}.tx";
    spit($f, $hdr . kernel($c));
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/r.low' '$f' >'$tmp/out' 2>'$tmp/err'");
    my $err = slurp("$tmp/err");
    my ($line) = $err =~ /^ +tcgen05_cp +10 +tcgen05_cp: (.*)$/m;
    ok($rc != 0 && defined $line && $line eq $c->{why}, "refused: $c->{name}", "want: $c->{why}",
       "got (exit $rc): " . ($line // $err));
}

done();
