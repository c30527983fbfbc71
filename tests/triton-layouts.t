#!/usr/bin/env perl
# Triton's layouts in txc's text (ir/triton.c; doc/txir.md, "Triton's
# layouts"): NVMMASharedLayout(swizzle_byte_width, element_bitwidth, rank,
# transposed) and TensorMemoryLayout(block=(M, N), col_stride), for a grid
# of parameters and shapes, checked element by element (txc-layout --apply
# all) against a model written here from Triton's own construction of the
# linear layouts (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp):
#
# nvmmaSharedToLinearLayout: the TMA box (getTMABlockShape) is the shape
#   with every dimension cut to 256 and, with a swizzle, the contiguous one
#   (the last; the first when transposed) exactly W = 8 * swizzle / bits.
#   Swizzled: the core tile (getCoreMatrixLinearLayout) maps offset bits to
#   (row, col): the first log2(W) bits to columns 1, 2, 4, ..., the next
#   three to rows 1, 2, 4 with column vec * ((row / perPhase) % maxPhase)
#   (vec = 128 / bits, perPhase = 128 / swizzle, maxPhase = swizzle / 16);
#   further bits extend the rows to the product of the box's other
#   dimensions, which is then reshaped row-major onto them (transposed:
#   row -> dimension 1, column -> dimension 0). No swizzle: the box is
#   row-major. Then the box repeats along dimension 0, 1, ... in that order
#   (ensureLayoutNotSmallerThan). An offset is the XOR of the bases of its
#   set bits; txc's m address of each element must be its offset. A
#   leading dimension beyond the rank stacks whole layouts.
# tensorMemoryToLinearLayout: bases of the (lane, column) bits: the first
#   log2(col_stride) column bits none, then N up to bN = min(block N, N);
#   block M 128: lanes 1..64 are rows 1..64; block M 64: lanes 1, 2, 4, 8
#   are rows 1..8, lane 16 is row 64 if M > 64, else column bN if N > bN,
#   else nothing; lanes 32, 64 are rows 16, 32; further column bits repeat
#   the tile along M, then along N. Where several (lane, column) hold one
#   element, txc's is the first (lowest lane, then lowest column). A
#   leading dimension stacks whole layouts, getTmemAllocSizes' columns each.
#
# Then txc-layout's picture of a TensorMemoryLayout (its lane x column
# grid), and the errors, each with its message at the argument it is about.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
my %bits = (uint8 => 8, float16 => 16, float32 => 32, float64 => 64);
my %dt_of = (8 => 'uint8', 16 => 'float16', 32 => 'float32', 64 => 'float64');

sub min { $_[0] < $_[1] ? $_[0] : $_[1] }
sub lg { my ($x) = @_; my $k = 0; $k++ while (1 << $k) < $x; $k }
sub unit { my ($k, $d, $v) = @_; my @x = (0) x $k; $x[$d] = $v; \@x }

# element "i,j,..." => m offset
sub nvmma_model {
    my ($sw, $bits, $rank, $tr, @s) = @_;
    my $lead = @s - $rank;
    my $P = $lead ? shift @s : 1;
    my $k = $rank;
    my @T = map { min($_, 256) } @s;
    my @bases;
    if (!$sw) {
        for my $d (reverse 0 .. $k - 1) {
            for (my $v = 1; $v < $T[$d]; $v *= 2) { push @bases, unit($k, $d, $v) }
        }
    } else {
        my $c = $tr ? 0 : $k - 1;
        my $W = 8 * $sw / $bits;
        $T[$c] = $W;
        my ($vec, $per, $maxp) = (128 / $bits, 128 / $sw, $sw / 16);
        my @tile;
        for (my $v = 1; $v < $W; $v *= 2) { push @tile, [0, $v] }
        for my $r (1, 2, 4) { push @tile, [$r, $vec * (int($r / $per) % $maxp)] }
        my $rows = 1;
        $rows *= $T[$_] for grep { $_ != $c } 0 .. $k - 1;
        for (my $r = 8; $r < $rows; $r *= 2) { push @tile, [$r, 0] }
        for my $b (@tile) {
            my @x = (0) x $k;
            if ($tr) {
                @x = ($b->[1], $b->[0]);
            } else {
                my $r = $b->[0];
                for my $d (reverse 0 .. $k - 2) { $x[$d] = $r % $T[$d]; $r = int($r / $T[$d]) }
                $x[$k - 1] = $b->[1];
            }
            push @bases, \@x;
        }
    }
    for my $d (0 .. $k - 1) {
        for (my $v = $T[$d]; $v < $s[$d]; $v *= 2) { push @bases, unit($k, $d, $v) }
    }
    my $n = 1 << @bases;
    my %off;
    for my $o (0 .. $n - 1) {
        my @x = (0) x $k;
        for my $j (0 .. $#bases) {
            next unless $o >> $j & 1;
            $x[$_] ^= $bases[$j][$_] for 0 .. $k - 1;
        }
        $off{ join ',', ($lead ? ($_) : ()), @x } = $_ * $n + $o for 0 .. $P - 1;
    }
    return \%off;
}

# element "i,j" or "s,i,j" => "lane,col"
sub tmem_model {
    my ($bm, $bnb, $cs, @s) = @_;
    my $lead = @s - 2;
    my $P = $lead ? shift @s : 1;
    my ($M, $N) = @s;
    my $bn = min($bnb, $N);
    my (@row, @col);
    push @col, [0, 0] for 1 .. lg($cs);
    for (my $v = 1; $v < $bn; $v *= 2) { push @col, [0, $v] }
    my ($d0, $d1) = (128, $bn);
    if ($bm == 128) {
        for (my $v = 1; $v < 128; $v *= 2) { push @row, [$v, 0] }
    } else {
        my $x = $M > 64 ? [64, 0] : $N > $bn ? [0, $bn] : [0, 0];
        push @row, [1, 0], [2, 0], [4, 0], [8, 0], $x, [16, 0], [32, 0];
        ($d0, $d1) = ($M > 64 ? 128 : 64, $M <= 64 && $N > $bn ? 2 * $bn : $bn);
    }
    for (my $v = $d0; $v < $M; $v *= 2) { push @col, [$v, 0] }
    for (my $v = $d1; $v < $N; $v *= 2) { push @col, [0, $v] }
    my $ncol = 1 << @col;
    my %at;
    for my $lane (0 .. 127) {
        my ($m0, $n0) = (0, 0);
        for my $j (0 .. 6) { next unless $lane >> $j & 1; $m0 ^= $row[$j][0]; $n0 ^= $row[$j][1] }
        for my $c (0 .. $ncol - 1) {
            my ($m, $n) = ($m0, $n0);
            for my $j (0 .. $#col) { next unless $c >> $j & 1; $m ^= $col[$j][0]; $n ^= $col[$j][1] }
            for my $p (0 .. $P - 1) { $at{ join ',', ($lead ? ($p) : ()), $m, $n } //= "$lane," . ($c + $p * $ncol) }
        }
    }
    return \%at;
}

# txc-layout EXPR --shape --dtype --apply all: element => what it prints
sub txc_all {
    my ($expr, $dt, @shape) = @_;
    my $sh = join ',', @shape;
    my $out = `'$bin/txc-layout' '$expr' --shape $sh --dtype $dt --apply all 2>&1`;
    return (undef, $out) if $?;
    my %got;
    for (split /\n/, $out) {
        my ($c, $o) = /^\(([\d, ]+)\) -> (.*)$/ or return (undef, "unexpected line: $_");
        $got{ $c =~ s/ //gr =~ s/,$//r } = $o;
    }
    return (\%got, '');
}

sub compare {
    my ($got, $want) = @_;
    my @bad = grep { ($got->{$_} // '') ne $want->{$_} } sort keys %$want;
    return '' if !@bad && keys %$got == keys %$want;
    return scalar(keys %$got) . " elements printed, " . scalar(keys %$want) . " expected" unless @bad;
    return scalar(@bad) . " elements differ, first ($bad[0]): got " . ($got->{ $bad[0] } // 'nothing') .
           ", want $want->{$bad[0]}";
}

# ---- NVMMASharedLayout ----------------------------------------------------

sub nvmma_case {
    my ($sw, $b, $rank, $tr, @shape) = @_;
    my $dt = $dt_of{$b};
    my $expr = "NVMMASharedLayout($sw, $b, $rank" . ($tr ? ", transposed=True" : "") . ")";
    my $name = "$expr on (" . join(', ', @shape) . ") $dt";
    my ($got, $err) = txc_all($expr, $dt, @shape);
    return ok(0, $name, $err) unless $got;
    my $model = nvmma_model($sw, $b, $rank, $tr, @shape);
    my %want = map { ($_ => "m $model->{$_}") } keys %$model;
    my $why = compare($got, \%want);
    ok(!$why, $name, $why);
}

# seed 004's shared layouts: float32, swizzle 32/64/128, (M, N) with
# M in {128, 256}, N in {16, ..., 256}, M * N * 4 <= 228 KiB, N >= swizzle / 4
for my $sw (32, 64, 128) {
    for my $M (128, 256) {
        for my $N (16, 32, 64, 128, 256) {
            next if $M * $N * 4 > 228 * 1024 || $N < $sw / 4;
            nvmma_case($sw, 32, 2, 0, $M, $N);
        }
    }
}
# every swizzle and width: the narrowest rows, wider rows (several column
# blocks), more than 256 rows (the box is cut to 256)
for my $b (8, 16, 32, 64) {
    for my $sw (0, 32, 64, 128) {
        my $W = $sw ? 8 * $sw / $b : 8;
        for my $sh ([8, $W], [16, 4 * $W], [512, $W]) {
            nvmma_case($sw, $b, 2, 0, @$sh);
        }
    }
}
# no swizzle, more than 256 columns: column boxes of 256
nvmma_case(0, 16, 2, 0, 16, 512);
nvmma_case(0, 8, 2, 0, 4, 1024);
# rank 3: the outer dimensions collapse into the swizzled rows; the column
# blocks stay outermost
nvmma_case(128, 16, 3, 0, 2, 8, 128);
nvmma_case(64, 32, 3, 0, 4, 2, 64);
nvmma_case(32, 16, 3, 0, 2, 64, 32);
nvmma_case(0, 16, 3, 0, 2, 4, 32);
# a leading dimension of pipeline stages over a rank-2 layout (seed 004's
# a_bufs: [num_buffers, BLOCK_M, BLOCK_K] float16)
nvmma_case(128, 16, 2, 0, 3, 128, 64);
nvmma_case(64, 32, 2, 0, 2, 16, 64);
# transposed (rank 2): dimension 0 contiguous; without a swizzle Triton's
# layout is row-major, transposed or not
nvmma_case(128, 16, 2, 1, 128, 16);
nvmma_case(32, 32, 2, 1, 64, 32);
nvmma_case(64, 16, 2, 1, 64, 512);
nvmma_case(0, 16, 2, 1, 16, 32);
# rank 1, no swizzle: row-major, boxes of 256
nvmma_case(0, 32, 1, 0, 512);

# ---- TensorMemoryLayout ---------------------------------------------------

sub tmem_case {
    my ($bm, $bn, $cs, $dt, @shape) = @_;
    my $expr = "TensorMemoryLayout(block=($bm, $bn), col_stride=$cs)";
    my $name = "$expr on (" . join(', ', @shape) . ") $dt";
    my ($got, $err) = txc_all($expr, $dt, @shape);
    return ok(0, $name, $err) unless $got;
    my $model = tmem_model($bm, $bn, $cs, @shape);
    my %want = map { my ($l, $c) = split /,/, $model->{$_}; ($_ => "TLane $l, TCol $c") } keys %$model;
    my $why = compare($got, \%want);
    ok(!$why, $name, $why);
}

# seed 004's tensor-memory layouts: block (128, TMEM_BLOCK_N), float32,
# col_stride 1, for its (M, N, TMEM_BLOCK_N) configurations
for my $bn (1, 2, 4, 8, 16, 32, 64, 128, 256) {
    for my $M (128, 256) {
        for my $N (16, 32, 64, 128, 256) {
            next if $M < 128 || $N < $bn || $M * $N * 4 > 228 * 1024;
            tmem_case(128, $bn, 1, 'float32', $M, $N);
        }
    }
}
# seed 004's accumulators: TensorMemoryLayout([BLOCK_M, BLOCK_N],
# col_stride=1) over float32 [2, BLOCK_M, BLOCK_N]
tmem_case(128, 128, 1, 'float32', 2, 128, 128);
tmem_case(128, 64, 1, 'float32', 2, 128, 64);
# block M 64 (lanes 16-31 of each quarter: the next 64 rows, the next bN
# columns, or nothing), block N past N (cut to N), packed and unpacked
# 16-bit elements, 8-bit ones, and a stack of layouts
for my $c ([64, 32, 64, 32], [64, 32, 64, 128], [64, 16, 128, 64], [64, 8, 256, 16], [64, 64, 64, 16],
           [64, 256, 64, 64], [128, 512, 128, 32], [64, 1, 128, 4]) {
    my ($bm, $bn, $M, $N) = @$c;
    for my $d (['float32', 1], ['float16', 1], ['float16', 2], ['uint8', 1], ['uint8', 4]) {
        tmem_case($bm, $bn, $d->[1], $d->[0], $M, $N);
    }
}
tmem_case(64, 16, 1, 'float32', 3, 64, 32);
tmem_case(64, 32, 1, 'float16', 2, 128, 64);
tmem_case(128, 16, 2, 'float16', 4, 128, 16);

# ---- txc-layout's pictures -------------------------------------------------

# The worked example of doc/txir.md: M = 256, N = 64, block (128, 32):
# (130, 40) is in lane 2, TCol 8 + 32 * 1 + 64 * 1 = 104.
my $l = `'$bin/txc-layout' 'TensorMemoryLayout(block=(128, 32), col_stride=1)' --shape 256,64 --apply 130,40 2>&1`;
ok($l eq "(130, 40) -> TLane 2, TCol 104\n", "doc/txir.md's example: (130, 40) is lane 2, TCol 104", $l);
# The picture of tensor memory: a row per lane (128), a column per 32-bit
# column; each cell the element it holds, from the model.
for my $c ([128, 32, 1, 'float32', 256, 64], [64, 16, 1, 'float32', 64, 32], [128, 32, 2, 'float16', 128, 64]) {
    my ($bm, $bn, $cs, $dt, $M, $N) = @$c;
    my $expr = "TensorMemoryLayout(block=($bm, $bn), col_stride=$cs)";
    my $name = "txc-layout --svg of $expr on ($M, $N) $dt";
    my $rc = system("'$bin/txc-layout' '$expr' --shape $M,$N --dtype $dt --svg '$tmp/t.svg' >'$tmp/out' 2>&1") >> 8;
    my $svg = slurp("$tmp/t.svg");
    unless (ok($rc == 0 && $svg =~ /<svg/, "$name: drawn", slurp("$tmp/out"))) { next }
    my $model = tmem_model($bm, $bn, $cs, $M, $N);
    my $per = 32 / $bits{$dt};
    my (@bad, %used);
    for my $e (sort keys %$model) {
        my ($lane, $tc) = split /,/, $model->{$e};
        my ($col, $part) = (int($tc / $per), $tc % $per);
        $used{"$lane,$col"}++;
        my $bitsx = $per > 1 ? ", bits " . ($part * 16) . "-" . ($part * 16 + 15) : '';
        my $title = "<title>lane $lane, column $col$bitsx: ($e)</title>";
        push @bad, "$e: no cell $title" unless index($svg, $title) >= 0;
    }
    ok(!@bad, "$name: every element in the cell of its lane and column", @bad[0 .. min(4, $#bad)]);
    my @rows = $svg =~ /<text x="\d+" y="\d+">(\d+)<\/text>/g;
    ok((grep { $_ eq '127' } @rows) && $svg =~ /lanes 96-127/, "$name: 128 lanes, in 4 quarters");
    my $empty = () = $svg =~ /: no element<\/title>/g;
    my ($ncols) = 0;
    for (keys %used) { my (undef, $c) = split /,/; $ncols = $c + 1 if $c + 1 > $ncols }
    my $cells = 128 * $ncols * $per;
    my $full = scalar(keys %$model);
    ok($empty == $cells - $full, "$name: the other " . ($cells - $full) . " cells of $ncols columns are empty",
       "got $empty empty cells");
}
my $o = `'$bin/txc-layout' 'TensorMemoryLayout((128, 32), 1)' 2>&1`;
ok($? >> 8 == 1 && $o =~ /^<layout>:1:5: error: a Triton layout takes its shape from its buffer: give it with --shape$/m,
   "txc-layout without --shape says where the shape comes from", $o);
$o = `'$bin/txc-layout' 'NVMMASharedLayout(128, 16)' --shape 8,64 --apply 1,0 2>&1`;
# float16 by default: row 1 starts at 64; its chunk 0 is XORed with row 1:
# chunk 1, element 64 + 8 = 72
ok($o eq "(1, 0) -> m 72\n", "txc-layout takes the dtype from element_bitwidth", $o);

# ---- errors ---------------------------------------------------------------

# Each program gets one layout; LINE is the line, ARG the text of the
# argument the error points at (its first occurrence on the line).
my $head = <<'EOF';
from tvm.script import tir as T
from tvm.tirx.layout import NVMMASharedLayout, TensorMemoryLayout


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
EOF
sub smem { my ($shape, $dt, $l) = @_; "    smem = T.alloc_shared($shape, \"$dt\", layout=$l)" }
sub tmem {
    my ($shape, $dt, $l) = @_;
    "    tmem = T.decl_buffer($shape, \"$dt\", scope=\"tmem\", allocated_addr=tmem_addr[0], layout=$l)";
}
my @errors = (
    [smem('(128, 32)', 'float32', 'NVMMASharedLayout(48, 32)'), '48',
     "NVMMASharedLayout: swizzle_byte_width must be 0 (none), 32, 64 or 128, not 48"],
    [smem('(128, 32)', 'float32', 'NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=12)'), 'element_bitwidth=|12',
     "NVMMASharedLayout: element_bitwidth must be 8, 16, 32 or 64, not 12"],
    [smem('(128, 32)', 'float32', 'NVMMASharedLayout(128, 16)'), '16',
     "NVMMASharedLayout: element_bitwidth is 16 but the buffer holds float32 (32 bits) (buffer 'smem')"],
    [smem('(128, 32)', 'float32', 'NVMMASharedLayout(128, 32, rank=3)'), 'rank=|3',
     "NVMMASharedLayout: a layout of rank 3 is for a buffer of 3 dimensions (or 4, the first counting pipeline "
     . "stages), not of shape (128, 32) (buffer 'smem')"],
    [smem('(2, 2, 64, 32)', 'float32', 'NVMMASharedLayout(128, 32)'), 'NVMMASharedLayout',
     "NVMMASharedLayout: a layout of rank 2 is for a buffer of 2 dimensions (or 3, the first counting pipeline "
     . "stages), not of shape (2, 2, 64, 32) (buffer 'smem')"],
    [smem('(96, 32)', 'float32', 'NVMMASharedLayout(128, 32)'), 'NVMMASharedLayout',
     "NVMMASharedLayout: the dimensions it lays out must be powers of two, as in Triton; the buffer's are (96, 32) "
     . "(buffer 'smem')"],
    [smem('(128, 16)', 'float32', 'NVMMASharedLayout(128, 32)'), '128,',
     "NVMMASharedLayout: the contiguous dimension has 16 elements; a 128-byte swizzle spans 32 float32 (buffer 'smem')"],
    [smem('(4, 64)', 'float16', 'NVMMASharedLayout(128, 16)'), '128,',
     "NVMMASharedLayout: the swizzle pattern spans 8 rows; the dimensions other than the contiguous one give 4 "
     . "(buffer 'smem')"],
    [smem('(64,)', 'float16', 'NVMMASharedLayout(64, 16, 1)'), '16, |1',
     "NVMMASharedLayout: a swizzled layout has rank 2 or more (it swizzles rows), not 1"],
    [smem('(64, 64)', 'float16', 'NVMMASharedLayout(64, 16, 0)'), '16, |0',
     "NVMMASharedLayout: rank must be from 1 to 7, not 0"],
    [smem('(2, 64, 64)', 'float16', 'NVMMASharedLayout(64, 16, 3, transposed=True)'), 'True',
     "NVMMASharedLayout: transposed=True is supported for rank 2 only, not rank 3"],
    [smem('(64, 64)', 'uint8', 'NVMMASharedLayout(64, 8, fp4_padded=True)'), 'True',
     "NVMMASharedLayout: fp4_padded=True (4-bit elements padded to bytes) is not supported"],
    [smem('(64, 64)', 'float16', 'NVMMASharedLayout(64, 16, cga_layout=[[1, 0]])'), '[[',
     "NVMMASharedLayout(): cga_layout= spreads the layout over several CTAs of a cluster; txc's Triton layouts "
     . "are for one CTA (leave it out)"],
    [smem('(64, 64)', 'float16', 'NVMMASharedLayout(64, 16, swizzle_byte_width=64)'), 'swizzle_byte_width',
     "NVMMASharedLayout() got multiple values for argument 'swizzle_byte_width'"],
    [smem('(64, 64)', 'float16', 'NVMMASharedLayout(element_bitwidth=16)'), 'NVMMASharedLayout',
     "NVMMASharedLayout() needs swizzle_byte_width"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout(block=(96, 32), col_stride=1)'), '(96',
     "TensorMemoryLayout: block M (the lanes of a block) must be 64 or 128, not 96"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout(block=(128, 48), col_stride=1)'), '(128, 48',
     "TensorMemoryLayout: block N must be a power of two from 1 to 512, not 48"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout(block=(128, 1024), col_stride=1)'), '(128, 1024',
     "TensorMemoryLayout: block N must be a power of two from 1 to 512, not 1024"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout(block=128, col_stride=1)'), '128,',
     "TensorMemoryLayout: block is (M, N), two integer constants"],
    [tmem('(128, 32)', 'float16', 'TensorMemoryLayout((128, 32), col_stride=3)'), 'col_stride=|3',
     "TensorMemoryLayout: col_stride must be 1, 2 or 4 (32 / bits at most), not 3"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout((128, 32), col_stride=2)'), 'col_stride=|2',
     "TensorMemoryLayout: col_stride * bits must be at most 32 (one element per 32-bit column); col_stride 2 with "
     . "float32 is 64 (buffer 'tmem')"],
    [tmem('(64, 32)', 'float32', 'TensorMemoryLayout((128, 32), col_stride=1)'), '(128, 32)',
     "TensorMemoryLayout: block M 128 is larger than the buffer's 64 rows (buffer 'tmem')"],
    [tmem('(128, 48)', 'float32', 'TensorMemoryLayout((128, 16), col_stride=1)'), 'TensorMemoryLayout',
     "TensorMemoryLayout: M and N must be powers of two, as in Triton; the buffer's are (128, 48) (buffer 'tmem')"],
    [tmem('(128,)', 'float32', 'TensorMemoryLayout((128, 16), col_stride=1)'), 'TensorMemoryLayout',
     "TensorMemoryLayout: the buffer is (M, N), or (stages, M, N), not of shape (128,) (buffer 'tmem')"],
    [tmem('(3, 128, 1)', 'float16', 'TensorMemoryLayout((128, 1), col_stride=1)'), 'TensorMemoryLayout',
     "TensorMemoryLayout: one (M, N) layout takes 16 bits of a 32-bit column; stages are stacked by whole columns "
     . "(buffer 'tmem')"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout((128, 32), col_stride=1, two_ctas=True)'), 'True',
     "TensorMemoryLayout: two_ctas=True (one layout over the two CTAs of cta_group::2) is not supported; txc's "
     . "kernels use cta_group::1"],
    [tmem('(128, 32)', 'float32', 'TensorMemoryLayout((128, 32), col_stride=1, cta_split_num=(2, 1))'), '(2, 1)',
     "TensorMemoryLayout(): cta_split_num= spreads the layout over several CTAs of a cluster; txc's Triton layouts "
     . "are for one CTA (leave it out)"],
    [tmem('(128, 32)', 'float16', 'TensorMemoryLayout((128, 32), col_stride=1, unpacked=True)'), 'unpacked',
     "TensorMemoryLayout(): give col_stride or the older unpacked=, not both"],
    [tmem('(128, 32)', 'float16', 'TensorMemoryLayout((128, 32))'), 'TensorMemoryLayout',
     "TensorMemoryLayout() needs col_stride"],
    [tmem('(128, 1024)', 'float32', 'TensorMemoryLayout((128, 256), col_stride=1)'), 'TensorMemoryLayout',
     "the layout of 'tmem' spans 1024 32-bit tensor-memory columns; there are 512"],
    [tmem('(128, 2097152)', 'float32', 'TensorMemoryLayout((128, 256), col_stride=1)'), 'TensorMemoryLayout',
     "TensorMemoryLayout: the buffer (128, 2097152) is larger than tensor memory (128 lanes x 512 columns) "
     . "(buffer 'tmem')"],
    [smem('(128, 32)', 'float32', 'TensorMemoryLayout((128, 32), col_stride=1)'), 'TensorMemoryLayout',
     "the layout of shared buffer 'smem' uses axis 'TLane': TLane and TCol address tensor memory only"],
);
my $k = 0;
for my $e (@errors) {
    my ($line, $arg, $msg) = @$e;
    $k++;
    spit("$tmp/e$k.tx", "$head$line\n");
    my $out = `'$bin/txc-parse' '$tmp/e$k.tx' 2>&1 >/dev/null`;
    my $rc = $? >> 8;
    my ($pre, $tok) = $arg =~ /\|/ ? split(/\|/, $arg, 2) : ('', $arg);
    my $col = index($line, "$pre$tok", index($line, 'layout=')) + length($pre) + 1;
    my $want = "$tmp/e$k.tx:12:$col: error: $msg";
    ok($rc == 1 && (split /\n/, $out)[0] eq $want, "error: $msg", "want: $want", "got ($rc): $out");
}
# The older spelling: unpacked=True is col_stride = 32 / bits.
my ($a) = txc_all('TensorMemoryLayout((128, 16), unpacked=True)', 'float16', 128, 32);
my ($b) = txc_all('TensorMemoryLayout((128, 16), col_stride=2)', 'float16', 128, 32);
ok($a && $b && !compare($a, $b), "unpacked=True is col_stride=2 for float16");
# Imported from Triton's modules, as seed 004 writes them; the buffers get
# the layouts txc-layout gives for the same shapes.
spit("$tmp/seed.tx", <<'EOF');
from tvm.script import tir as T
import triton.experimental.gluon.language as gl
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout

smem_layout = gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=32, rank=2)
tmem_layout = TensorMemoryLayout(block=(128, 8), col_stride=32 // 32)


@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    smem = T.alloc_shared((256, 32), "float32", layout=smem_layout)
    tmem = T.decl_buffer((256, 32), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout=tmem_layout)
EOF
for my $c (['smem', 'NVMMASharedLayout(64, 32)'], ['tmem', 'TensorMemoryLayout((128, 8), 1)']) {
    my $buf = `'$bin/txc-layout' --buffer $c->[0] '$tmp/seed.tx' --apply all 2>&1`;
    my $lay = `'$bin/txc-layout' '$c->[1]' --shape 256,32 --dtype float32 --apply all 2>&1`;
    ok($buf eq $lay && length($buf) > 1000, "seed 004's spelling: buffer '$c->[0]' has the layout of $c->[1]",
       substr($buf, 0, 300));
}
done();
