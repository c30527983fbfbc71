#!/usr/bin/env perl
# The tma variant's tensor maps (variants/tma.c) and T.tensormap's rules
# (ir/tmap.c, ir/calls.c).
#
# Derivation cases: each is a small kernel with one thread-scope
# Tx.copy_async(..., dispatch="tma") between a global buffer parameter A and
# a shared buffer S. The expected tensor map (dims, strides, box, swizzle),
# the coordinates, the shared offset and the loops of boxes are worked out
# here, by hand, from the buffer shapes, the element sizes, the regions and
# the shared layouts (doc/txir.md: mma_shared_layout(dt, B, (rows, cols)) is
# S[(rows, cols/w, w) : (w, rows*w, 1)], w = (32 << B) / esize, swizzled;
# ptx.md, "TMA": box rows are dense in shared memory, or padded to the
# swizzle span), following the algorithm in variants/tma.c's header:
# box dimension 0 runs along contiguous elements (at most 256, at most the
# swizzle span), further box dimensions while shared memory holds the box
# densely, loops of boxes after that; dimensions the region does not cover
# are box 1 at the region's start (merged when adjacent, dropped when of
# size 1). Each case's lowered IR must hold that T.tensormap line and those
# copy lines; the source and the IR must agree on the emulator (a SKIP
# until txc-emu emulates TMA), and the program must compile through ptxas
# (a SKIP without nvcc).
#
# Rejections: the exact messages of T.tensormap's encoding rules and the
# bulk tensor builtins' operand rules (txc-parse), and of the tma variant's
# plan (the candidate table of txc's dispatch error).
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();

my %esize = (float16 => 2, bfloat16 => 2, float32 => 4, float64 => 8, int8 => 1, uint8 => 1);
my %zero = (float16 => 'T.float16(0)', bfloat16 => 'T.bfloat16(0)', float32 => 'T.float32(0)',
            float64 => 'T.float64(0)', int8 => 'T.int8(0)', uint8 => 'T.uint8(0)');

sub prod { my $p = 1; $p *= $_ for @_; $p }

# The number of elements of region REG (a string of slices) of a buffer of
# shape SHAPE: ':' is the whole dimension, 'a:b' (constants) b - a, an index 1.
sub region_elems {
    my ($shape, $reg) = @_;
    my @sl = split /\s*,\s*/, $reg;
    die "region $reg: rank" unless @sl == @$shape;
    my $e = 1;
    for my $i (0 .. $#sl) {
        if ($sl[$i] eq ':') { $e *= $shape->[$i] }
        elsif ($sl[$i] =~ /^(\d+)\s*:\s*(\d+)$/) { $e *= $2 - $1 }
        elsif ($sl[$i] =~ /:/) { die "shared region $reg: slices of constants" }
    }
    $e;
}

# The program of case C: A (global, g), S (shared, s, row-major with
# align=1024 or mma_shared_layout with swizzle swz), one copy_async between
# A[greg] and S[sreg], load or store. B carries the data in or out so that
# the emulator can compare the program with its lowered IR.
sub kernel {
    my ($c) = @_;
    my ($dt, $s) = ($c->{dt}, $c->{s});
    my $sshape = @$s == 1 ? "($s->[0],)" : '(' . join(', ', @$s) . ')';
    my $gshape = @{ $c->{g} } == 1 ? "($c->{g}[0],)" : '(' . join(', ', @{ $c->{g} }) . ')';
    my $ns = prod(@$s);
    die "$c->{name}: shared size" if $ns % 32;
    my $per = $ns / 32;
    my $ncta = $c->{greg} =~ /bx/ ? 4 : 1;
    my $alloc = $c->{salloc} // (defined $c->{swz}
        ? "layout=mma_shared_layout(\"$dt\", $c->{swz}, $sshape)" : "align=1024");
    my $gextra = $c->{glayout} ? ", layout=$c->{glayout}" : '';
    my $bytes = region_elems($s, $c->{sreg}) * $esize{$dt};
    # a load past the tensor's edge: txc's oob_fill= or TVM's oob=
    my $oob = $c->{oob} ? ", " . ($c->{tvm} ? 'oob' : 'oob_fill') . "=\"$c->{oob}\"" : '';
    $alloc = ", $alloc" if $alloc ne '';
    my $t = <<"EOF";
from tvm.script import tir as T
from tvm.script import tirx as Tx
from tvm.tirx.layout import mma_shared_layout, ComposeLayout, TileLayout
from tvm.tirx.layout import S as L


\@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, $gshape, "$dt"$gextra)
    B = T.match_buffer(B_ptr, (${\($ncta * $ns)},), "$dt")
    T.device_entry()
    bx = T.cta_id([$ncta])
    tid = T.thread_id([32])
    S = T.alloc_shared($sshape, "$dt"$alloc)
    bar = T.alloc_shared([1], "uint64")
    F = S.view($ns)
EOF
    if ($c->{dir} eq 'load') {
        $t .= <<"EOF";
    for i in range($per):
        F[i * 32 + tid] = $zero{$dt}
    if tid == 0:
        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)
        T.ptx.fence.mbarrier_init()
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx.fence.proxy_async()
        T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[0]), $bytes)
        Tx.copy_async(S[$c->{sreg}], A[$c->{greg}], dispatch="tma", mbar=T.address_of(bar[0])$oob)
    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
    for i in range($per):
        B[bx * $ns + i * 32 + tid] = F[i * 32 + tid]
EOF
    } else {
        $t .= <<"EOF";
    for i in range($per):
        F[i * 32 + tid] = B[bx * $ns + i * 32 + tid]
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx.fence.proxy_async()
        Tx.copy_async(A[$c->{greg}], S[$c->{sreg}], dispatch="tma")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group(0)
EOF
    }
    $t;
}

# The expected T.tensormap line and copy lines of case C.
sub expected {
    my ($c) = @_;
    my $rank = @{ $c->{dims} };
    my $map = "A_map = T.tensormap(A, dims=[" . join(', ', @{ $c->{dims} }) . "]";
    $map .= ", strides=[" . join(', ', @{ $c->{strides} }) . "]" if $rank > 1;
    $map .= ", box=[" . join(', ', @{ $c->{box} }) . "]";
    $map .= ", swizzle=$c->{swizzle}" if $c->{swizzle};
    $map .= ", fill=\"$c->{oob}\"" if $c->{oob};
    $map .= ")";
    my @lines = map { "for $_->[0] in range($_->[1]):" } @{ $c->{loops} // [] };
    my $ptr = "T.pointer_offset(S, " . ($c->{off} // 0) . ")";
    my $coords = join(', ', @{ $c->{coords} });
    push @lines, $c->{dir} eq 'load'
        ? "T.ptx.cp_async.bulk.tensor.g2c($rank, $ptr, T.address_of(bar[0]), A_map, $coords)"
        : "T.ptx.cp_async.bulk.tensor.s2g($rank, $ptr, A_map, $coords)";
    ($map, @lines);
}

my @cases;
sub case { my ($name, %c) = @_; push @cases, { name => $name, %c } }

# ---- rank 1 --------------------------------------------------------------
# 256 float32 at bx*256: one contiguous run of 256 elements (1024 bytes, at
# most 256 elements): box [256], the whole buffer as the one dimension.
case('rank 1 float32, 256 at bx * 256, load',
     dt => 'float32', g => [1024], greg => 'bx * 256 : bx * 256 + 256', s => [256], sreg => ':', dir => 'load',
     dims => [1024], box => [256], coords => ['bx * 256']);
# 1024 float16: more than 256 in a row, so the run splits at 256 (the
# largest divisor of 1024 up to 256); the outer 1024 / 256 = 4 are 256
# apart in shared memory, which is dense: a box dimension. The buffer's one
# dimension splits in steps of 1 and 256: sizes 256 and 4096 / 256.
case('rank 1 float16, 1024 at bx * 1024 (box over 256 split), load',
     dt => 'float16', g => [4096], greg => 'bx * 1024 : bx * 1024 + 1024', s => [1024], sreg => ':', dir => 'load',
     dims => [256, 4096 / 256], strides => [256 * 2], box => [256, 1024 / 256],
     coords => ['0', 'bx * 1024 // 256']);
case('rank 1 float16, 1024 at 512 (constant start over a split), store',
     dt => 'float16', g => [4096], greg => '512 : 1536', s => [1024], sreg => ':', dir => 'store',
     dims => [256, 4096 / 256], strides => [256 * 2], box => [256, 1024 / 256],
     coords => [512 % 256, int(512 / 256)]);
case('rank 1 uint8, 512 at bx * 512, load',
     dt => 'uint8', g => [2048], greg => 'bx * 512 : bx * 512 + 512', s => [512], sreg => ':', dir => 'load',
     dims => [256, 2048 / 256], strides => [256 * 1], box => [256, 512 / 256], coords => ['0', 'bx * 512 // 256']);

# ---- rank 2, dense boxes --------------------------------------------------
# 64 x 64 float16, 128-byte swizzle: rows of 64 x 2 = 128 bytes, the span.
case('rank 2 float16 64x64, 128 B swizzle, load',
     dt => 'float16', g => [64, 64], greg => ':, :', s => [64, 64], swz => 3, sreg => ':, :', dir => 'load',
     dims => [64, 64], strides => [64 * 2], box => [128 / 2, 64], swizzle => 128, coords => [0, 0]);
case('rank 2 float16 64x64, 128 B swizzle, store',
     dt => 'float16', g => [64, 64], greg => ':, :', s => [64, 64], swz => 3, sreg => ':, :', dir => 'store',
     dims => [64, 64], strides => [64 * 2], box => [128 / 2, 64], swizzle => 128, coords => [0, 0]);
# a 32 x 32 float32 sub-tile at (bx * 32, 32) of 128 x 128, row-major shared
case('rank 2 float32 32x32 sub-tile at (bx * 32, 32), row-major, load',
     dt => 'float32', g => [128, 128], greg => 'bx * 32 : bx * 32 + 32, 32:64', s => [32, 32], sreg => ':, :',
     dir => 'load', dims => [128, 128], strides => [128 * 4], box => [32, 32], coords => [32, 'bx * 32']);
# 64-byte swizzle: span 64 / 2 = 32 float16, the width of the region
case('rank 2 float16 64x32 at (bx * 64, 32), 64 B swizzle, load',
     dt => 'float16', g => [256, 64], greg => 'bx * 64 : bx * 64 + 64, 32:64', s => [64, 32], swz => 2,
     sreg => ':, :', dir => 'load', dims => [64, 256], strides => [64 * 2], box => [64 / 2, 64], swizzle => 64,
     coords => [32, 'bx * 64']);
# 32-byte swizzle: span 16 float16
case('rank 2 float16 32x16 at (32, 0), 32 B swizzle, store',
     dt => 'float16', g => [64, 16], greg => '32:64, :', s => [32, 16], swz => 1, sreg => ':, :', dir => 'store',
     dims => [16, 64], strides => [16 * 2], box => [32 / 2, 32], swizzle => 32, coords => [0, 32]);
# int8, 128-byte swizzle: span 128 elements
case('rank 2 int8 32x128 at bx * 32, 128 B swizzle, load',
     dt => 'int8', g => [128, 128], greg => 'bx * 32 : bx * 32 + 32, :', s => [32, 128], swz => 3, sreg => ':, :',
     dir => 'load', dims => [128, 128], strides => [128 * 1], box => [128 / 1, 32], swizzle => 128,
     coords => [0, 'bx * 32']);
# float64 row-major: 16 x 8 = 128 bytes a row
case('rank 2 float64 8x16 at (bx * 8, 0), row-major, load',
     dt => 'float64', g => [32, 64], greg => 'bx * 8 : bx * 8 + 8, 0:16', s => [8, 16], sreg => ':, :', dir => 'load',
     dims => [64, 32], strides => [64 * 8], box => [16, 8], coords => [0, 'bx * 8']);
# bfloat16 sub-tile at constant (16, 64), row-major
case('rank 2 bfloat16 32x64 at (16, 64), row-major, store',
     dt => 'bfloat16', g => [64, 128], greg => '16:48, 64:128', s => [32, 64], sreg => ':, :', dir => 'store',
     dims => [128, 64], strides => [128 * 2], box => [64, 32], coords => [64, 16]);
# rows of 512 float32 over 16 columns: 512 rows > 256 split at 256; the
# outer 2 are 256 rows (256 x 16 elements) apart, dense: a third box
# dimension. The buffer's dimension 0 splits in steps of 1 and 256.
case('rank 2 float32 512x16 at bx * 512 (rows over 256 split), load',
     dt => 'float32', g => [2048, 16], greg => 'bx * 512 : bx * 512 + 512, :', s => [512, 16], sreg => ':, :',
     dir => 'load', dims => [16, 256, 2048 / 256], strides => [16 * 4, 256 * 16 * 4], box => [16, 256, 512 / 256],
     coords => [0, 0, 'bx * 512 // 256']);

# ---- strided global layouts (TVM's match_buffer(..., layout=S[shape : strides])) --
# rows padded to 72 elements: the tensor map's row stride is the layout's,
# 72 x 2 = 144 bytes
case('rank 2 float16 16x64 at bx * 16, rows 72 apart, load',
     dt => 'float16', g => [64, 64], glayout => 'TileLayout(L[(64, 64) : (72, 1)])', greg => 'bx * 16 : bx * 16 + 16, :',
     s => [16, 64], sreg => ':, :', dir => 'load', dims => [64, 64], strides => [72 * 2], box => [64, 16],
     coords => [0, 'bx * 16']);
# dimensions not in stride order: (4, 64, 32) with strides (32, 128, 1). The
# copied rows step by 128 (dimension 1: 128 / 32 = 4 is not inside
# dimension 0's 4); dimension 0, not covered, is box 1 at 1, 32 x 2 = 64
# bytes apart
case('rank 3 float16 A[1, :, :], dimensions 0 and 1 transposed in memory, store',
     dt => 'float16', g => [4, 64, 32], glayout => 'TileLayout(L[(4, 64, 32) : (32, 128, 1)])', greg => '1, :, :',
     s => [64, 32], sreg => ':, :', dir => 'store', dims => [32, 64, 4], strides => [128 * 2, 32 * 2],
     box => [32, 64, 1], coords => [0, 0, 1]);

# ---- dimensions covered whole, merged (TVM's tma_auto repairs) ------------
# 32 x 8 uint8: rows of 8 bytes, under TMA's 16; the region covers the rows
# whole, so the two dimensions are one run of 256 bytes
case('rank 2 uint8 32x8 whole, rows of 8 bytes merged into one run, load',
     dt => 'uint8', g => [32, 8], greg => ':, :', s => [32, 8], sreg => ':, :', dir => 'load',
     dims => [256], box => [256], coords => [0]);
# six dimensions covered whole: one run of 8192 float16, split at 256
case('rank 6 float16 2x2x2x2x16x32 whole, merged into one run, store',
     dt => 'float16', g => [2, 2, 2, 2, 16, 32], greg => ':, :, :, :, :, :', s => [2, 2, 2, 2, 16, 32],
     sreg => ':, :, :, :, :, :', dir => 'store', dims => [256, 8192 / 256], strides => [256 * 2],
     box => [256, 8192 / 256], coords => [0, 0]);
# rows 4 x 2 = 8 bytes: the 32 rows of A[bx] covered whole merge into one
# run of 128, and that into the slab bx, one of four: the run starts at
# bx * 128 of a dimension of 512
case('rank 3 float16 A[bx, :, :] of (4, 32, 4): merged rows, load',
     dt => 'float16', g => [4, 32, 4], greg => 'bx, :, :', s => [32, 4], sreg => ':, :', dir => 'load',
     dims => [4 * 32 * 4], box => [32 * 4], coords => ['bx * 128']);

# ---- folded swizzled rows (a row wider than the span) -----------------------
# mma_shared_layout("float16", 3, (8, 256)) = S[(8, 4, 64) : (64, 512, 1)]:
# the 64 columns of a span (box 0), the 8 rows 64 apart (box 1, rows padded
# to the span: dense), the 4 column blocks 8 x 64 = 512 apart (box 2, dense).
# Buffer dimension 1 splits in steps of 1 and 64: sizes 64 and 256 / 64.
case('rank 2 float16 8x256 at bx * 8, 128 B swizzle folded to rank 3, load',
     dt => 'float16', g => [32, 256], greg => 'bx * 8 : bx * 8 + 8, :', s => [8, 256], swz => 3, sreg => ':, :',
     dir => 'load', dims => [64, 32, 256 / 64], strides => [256 * 2, 64 * 2], box => [64, 8, 256 / 64],
     swizzle => 128, coords => [0, 'bx * 8', 0]);
# float32, 64-byte swizzle: span 16; S[(16, 4, 16) : (16, 256, 1)]
case('rank 2 float32 16x64 at bx * 16, 64 B swizzle folded to rank 3, store',
     dt => 'float32', g => [64, 64], greg => 'bx * 16 : bx * 16 + 16, :', s => [16, 64], swz => 2, sreg => ':, :',
     dir => 'store', dims => [16, 64, 64 / 16], strides => [64 * 4, 16 * 4], box => [16, 16, 64 / 16],
     swizzle => 64, coords => [0, 'bx * 16', 0]);
# float16, 64-byte swizzle: span 32; S[(8, 2, 32) : (32, 256, 1)]
case('rank 2 float16 8x64 at (8, 0), 64 B swizzle folded to rank 3, store',
     dt => 'float16', g => [16, 64], greg => '8:16, :', s => [8, 64], swz => 2, sreg => ':, :', dir => 'store',
     dims => [32, 16, 64 / 32], strides => [64 * 2, 32 * 2], box => [32, 8, 2], swizzle => 64, coords => [0, 8, 0]);
# float64, 128-byte swizzle (mma_shared_layout is for 8- to 32-bit types;
# written out: 16-byte chunks are 2 elements, M = 1): span 16 elements,
# S[(8, 2, 16) : (16, 128, 1)] as for the float16 case above
case('rank 2 float64 8x32 at bx * 8, 128 B swizzle folded to rank 3, load',
     dt => 'float64', g => [64, 32], greg => 'bx * 8 : bx * 8 + 8, :', s => [8, 32],
     salloc => 'layout=ComposeLayout(1, 3, 3, L[(8, 2, 16) : (16, 128, 1)])', sreg => ':, :',
     dir => 'load', dims => [16, 64, 32 / 16], strides => [32 * 8, 16 * 8], box => [16, 8, 2], swizzle => 128,
     coords => [0, 'bx * 8', 0]);
# a 64-byte swizzle over row-major rows of 128 bytes (ComposeLayout(3, 2, 3,
# S[(64, 64) : (64, 1)]), the XOR TMA's 64 B mode applies): a row is two
# spans of 32, 32 apart (box 1, dense: the span), rows 64 apart (box 2).
# Buffer dimension 1 splits in steps of 1 and 32.
case('rank 2 float16 64x64, 64 B swizzle over 128-byte rows, store',
     dt => 'float16', g => [64, 64], greg => ':, :', s => [64, 64],
     salloc => 'layout=ComposeLayout(3, 2, 3, L[(64, 64) : (64, 1)])', sreg => ':, :', dir => 'store',
     dims => [32, 64 / 32, 64], strides => [32 * 2, 64 * 2], box => [32, 2, 64], swizzle => 64,
     coords => [0, 0, 0]);

# ---- sub-regions of shared tiles ---------------------------------------------
# rows 32..63 of a 128 B swizzled 64 x 64 tile: it starts at element
# 32 * 64 of the storage, dense
case('rows 32:64 of a 128 B swizzled 64x64 tile, load',
     dt => 'float16', g => [128, 64], greg => 'bx * 32 : bx * 32 + 32, :', s => [64, 64], swz => 3,
     sreg => '32:64, :', dir => 'load', dims => [64, 128], strides => [64 * 2], box => [64, 32], swizzle => 128,
     off => 32 * 64, coords => [0, 'bx * 32']);
# column block 1 of S[(64, 2, 64) : (64, 4096, 1)]: it starts at 64 * 64
case('columns 64:128 of a 128 B swizzled 64x128 tile (second column block), load',
     dt => 'float16', g => [64, 128], greg => ':, 0:64', s => [64, 128], swz => 3, sreg => ':, 64:128',
     dir => 'load', dims => [128, 64], strides => [128 * 2], box => [64, 64], swizzle => 128, off => 64 * 64,
     coords => [0, 0]);
# 32 columns (64 bytes) of a 128 B swizzled 64 x 64 tile: the rows are 64
# apart, the span: box rows padded to the span, dense
case('columns 0:32 of a 128 B swizzled 64x64 tile (box narrower than the span), load',
     dt => 'float16', g => [64, 64], greg => ':, 32:64', s => [64, 64], swz => 3, sreg => ':, 0:32',
     dir => 'load', dims => [64, 64], strides => [64 * 2], box => [32, 64], swizzle => 128, coords => [32, 0]);

# ---- loops of boxes ------------------------------------------------------------
# A_smem[:, 0:32] of a row-major 64 x 64 tile: rows of 32 are 64 apart, not
# dense: 64 boxes of [32, 1], 64 elements apart in shared memory, one row
# apart in A.
case('columns 0:32 of a row-major 64x64 tile: 64 boxes, load',
     dt => 'float16', g => [64, 64], greg => ':, 32:64', s => [64, 64], sreg => ':, 0:32', dir => 'load',
     dims => [64, 64], strides => [64 * 2], box => [32, 1], loops => [['b1', 64]], off => 'b1 * 64',
     coords => [32, 'b1']);
# columns 64:128 of a row-major 64 x 128 tile (starts at element 64 = 128
# bytes), 128 apart, into A[:, bx * 64 ...]
case('columns 64:128 of a row-major 64x128 tile: 64 boxes from element 64, store',
     dt => 'float16', g => [64, 256], greg => ':, bx * 64 : bx * 64 + 64', s => [64, 128], sreg => ':, 64:128',
     dir => 'store', dims => [256, 64], strides => [256 * 2], box => [64, 1], loops => [['b1', 64]],
     off => '64 + b1 * 128', coords => ['bx * 64', 'b1']);
# two loops: S[:, 0:4, 0:32] of a row-major 4 x 8 x 64 tile: runs of 32
# (box 0), rows 64 apart (not 32: a loop of 4), planes 512 apart (a loop of 4)
case('S[:, 0:4, 0:32] of a row-major 4x8x64 tile: 4 x 4 boxes, load',
     dt => 'float16', g => [4, 8, 64], greg => ':, 4:8, 32:64', s => [4, 8, 64], sreg => ':, 0:4, 0:32',
     dir => 'load', dims => [64, 8, 4], strides => [64 * 2, 8 * 64 * 2], box => [32, 1, 1],
     loops => [['b2', 4], ['b1', 4]], off => 'b1 * 64 + b2 * 512', coords => [32, '4 + b1', 'b2']);
# 8 full rows of a 128 B swizzled 64 x 128 tile S[(64, 2, 64) : (64, 4096, 1)]:
# box [64, 8] (a column block's 8 rows, dense); the second column block is
# 4096 apart, not 8 x 64: a loop of 2 over the tensor map's dimension of
# buffer dimension 1 in steps of 64
case('rows 0:8 of a 128 B swizzled 64x128 tile: 2 column-block boxes, load',
     dt => 'float16', g => [64, 128], greg => 'bx * 8 : bx * 8 + 8, :', s => [64, 128], swz => 3,
     sreg => '0:8, :', dir => 'load', dims => [64, 64, 128 / 64], strides => [128 * 2, 64 * 2], box => [64, 8, 1],
     swizzle => 128, loops => [['b2', 2]], off => 'b2 * 4096', coords => [0, 'bx * 8', 'b2']);

# ---- rank 3 to 5, uncovered and size-1 dimensions -----------------------------
# A[bx, 0:16, :] of 4 x 16 x 64 uint8: dimension 0 is uncovered: box 1 at bx
case('rank 3 uint8, A[bx, 0:16, :] (uncovered dimension), load',
     dt => 'uint8', g => [4, 16, 64], greg => 'bx, 0:16, :', s => [16, 64], sreg => ':, :', dir => 'load',
     dims => [64, 16, 4], strides => [64, 16 * 64], box => [64, 16, 1], coords => [0, 0, 'bx']);
# a size-1 dimension is dropped: rank 2
case('rank 3 bfloat16 1x64x64 (size-1 dimension dropped), 128 B swizzle, load',
     dt => 'bfloat16', g => [1, 64, 64], greg => '0, :, :', s => [64, 64], swz => 3, sreg => ':, :',
     dir => 'load', dims => [64, 64], strides => [64 * 2], box => [64, 64], swizzle => 128, coords => [0, 0]);
# the region crosses all of buffer dimensions 1 and 2 and part of 0:
# contiguous 1024, split at 32 (dimension 2) and 8 (dimension 1)
case('rank 3 float32 A[0:4, :, :] of 8x8x32 (a contiguous run split per dimension), store',
     dt => 'float32', g => [8, 8, 32], greg => '0:4, :, :', s => [4, 8, 32], sreg => ':, :, :', dir => 'store',
     dims => [32, 8, 8], strides => [32 * 4, 8 * 32 * 4], box => [32, 8, 4], coords => [0, 0, 0]);
case('rank 3 float16 A[0:2, bx * 8 ..., :] of 8x32x32, load',
     dt => 'float16', g => [8, 32, 32], greg => '0:2, bx * 8 : bx * 8 + 8, :', s => [2, 8, 32], sreg => ':, :, :',
     dir => 'load', dims => [32, 32, 8], strides => [32 * 2, 32 * 32 * 2], box => [32, 8, 2],
     coords => [0, 'bx * 8', 0]);
# A[bx, 1, :, :] of 4 x 3 x 32 x 64: dimensions 1 and 0 uncovered and
# adjacent (dimension 1's 3 x 4096 bytes = dimension 0's stride): merged
# into one of 3 x 4 with coordinate bx * 3 + 1
case('rank 4 float16, A[bx, 1, :, :] (adjacent uncovered dimensions merged), load',
     dt => 'float16', g => [4, 3, 32, 64], greg => 'bx, 1, :, :', s => [32, 64], sreg => ':, :', dir => 'load',
     dims => [64, 32, 3 * 4], strides => [64 * 2, 32 * 64 * 2], box => [64, 32, 1], coords => [0, 0, 'bx * 3 + 1']);
case('rank 4 float16, A[2, 1, :, :] (merged, constant), store',
     dt => 'float16', g => [4, 3, 32, 64], greg => '2, 1, :, :', s => [32, 64], sreg => ':, :', dir => 'store',
     dims => [64, 32, 3 * 4], strides => [64 * 2, 32 * 64 * 2], box => [64, 32, 1], coords => [0, 0, 2 * 3 + 1]);
# the whole of a 2 x 2 x 2 x 16 x 32 float16 buffer
case('rank 5 float16 full 2x2x2x16x32, load',
     dt => 'float16', g => [2, 2, 2, 16, 32], greg => ':, :, :, :, :', s => [2, 2, 2, 16, 32],
     sreg => ':, :, :, :, :', dir => 'load', dims => [32, 16, 2, 2, 2],
     strides => [32 * 2, 16 * 32 * 2, 2 * 16 * 32 * 2, 2 * 2 * 16 * 32 * 2], box => [32, 16, 2, 2, 2],
     coords => [0, 0, 0, 0, 0]);
# A[1, :, 3, :, :] of 2 x 4 x 8 x 16 x 32 float32: dimensions 2 and 0
# uncovered and not adjacent (8 x 2048 bytes is not dimension 0's 65536)
case('rank 5 float32, A[1, :, 3, :, :] (two uncovered dimensions), load',
     dt => 'float32', g => [2, 4, 8, 16, 32], greg => '1, :, 3, :, :', s => [4, 16, 32], sreg => ':, :, :',
     dir => 'load', dims => [32, 16, 4, 8, 2],
     strides => [32 * 4, 8 * 16 * 32 * 4, 16 * 32 * 4, 4 * 8 * 16 * 32 * 4], box => [32, 16, 4, 1, 1],
     coords => [0, 0, 0, 3, 1]);

# ---- a load past the tensor's edge (oob_fill=, TVM's oob=) ----------------------
# The tensor map is the whole tensor (its real dimensions) and the box the
# region, at the region's start: TMA fills what lies outside. The first two
# are TVM's own cases g2s-oob-zero / g2s-oob-nan (tests/python/tirx,
# test_tma.py): rows 120..135 of a 128 x 64 float16 tensor, 128 B swizzle.
case('oob: rows 120:136 of 128x64 float16, 128 B swizzle, zero fill',
     dt => 'float16', g => [128, 64], greg => '120:136, 0:64', s => [16, 64], swz => 3, sreg => ':, :',
     dir => 'load', oob => 'zero', dims => [64, 128], strides => [64 * 2], box => [64, 16], swizzle => 128,
     coords => [0, 120]);
case('oob: the same with TVM\'s oob="nan"',
     dt => 'float16', g => [128, 64], greg => '120:136, 0:64', s => [16, 64], swz => 3, sreg => ':, :',
     dir => 'load', oob => 'nan', tvm => 1, dims => [64, 128], strides => [64 * 2], box => [64, 16],
     swizzle => 128, coords => [0, 120]);
# rows 96..111 of 100 rows of 32 float32 (128-byte rows): 4 real, 12 filled
case('oob: rows 96:112 of 100x32 float32, row-major, zero fill',
     dt => 'float32', g => [100, 32], greg => '96:112, :', s => [16, 32], sreg => ':, :', dir => 'load',
     oob => 'zero', data => 1, dims => [32, 100], strides => [32 * 4], box => [32, 16], coords => [0, 96]);
# a start before row 0: CTA 0 reads rows -8..7
case('oob: rows bx * 16 - 8 ... of 64x32 float32, NaN fill',
     dt => 'float32', g => [64, 32], greg => 'bx * 16 - 8 : bx * 16 + 8, :', s => [16, 32], sreg => ':, :',
     dir => 'load', oob => 'nan', data => 1, dims => [32, 64], strides => [32 * 4], box => [32, 16],
     coords => [0, 'bx * 16 - 8']);
# columns 32..63 of rows of 40 float32 (160 bytes): 8 real, 24 filled
case('oob: columns 32:64 of 64x40 float32 (past the inner edge), zero fill',
     dt => 'float32', g => [64, 40], greg => '0:16, 32:64', s => [16, 32], sreg => ':, :', dir => 'load',
     oob => 'zero', data => 1, dims => [40, 64], strides => [40 * 4], box => [32, 16], coords => [32, 0]);
# 16 rows of a tensor of 8: the box is larger than the tensor
case('oob: 16 rows of an 8x32 float32 tensor (box larger than the tensor), NaN fill',
     dt => 'float32', g => [8, 32], greg => '0:16, :', s => [16, 32], sreg => ':, :', dir => 'load',
     oob => 'nan', data => 1, dims => [32, 8], strides => [32 * 4], box => [32, 16], coords => [0, 0]);

# ---- the data of the oob cases ---------------------------------------------------
# float32 A of random values in [1, 2) (raw bits); the kernel writes CTA
# bx's tile, in row-major order, to B[bx * n ...]. Expected here: element
# (r, c) of the region is A[r0 + r, c0 + c] where that is inside A, else the
# fill: 0, or ptx.md's NaN pattern 0x7FF7 repeated (0x7FF77FF7).
sub npy32 {
    my ($path, $vals, $shape) = @_;
    my $dims = @$shape == 1 ? "$shape->[0]," : join(', ', @$shape);
    my $h = "{'descr': '<f4', 'fortran_order': False, 'shape': ($dims), }";
    $h .= ' ' x (63 - (10 + length($h)) % 64) . "\n";
    spit($path, "\x93NUMPY\x01\x00" . pack('v', length $h) . $h . pack('V*', @$vals));
}
sub npy32_read {
    my $s = slurp($_[0]);
    return [] if length($s) < 10;
    [unpack('V*', substr($s, 10 + unpack('v', substr($s, 8, 2))))];
}
sub oob_data {
    my ($c, $i, $f) = @_;
    my ($R, $C) = @{ $c->{g} };
    my @A = map { 0x3F800000 + int(rand(0x7FFFFF)) + 1 } 1 .. $R * $C;
    npy32("$tmp/d$i.a.npy", \@A, $c->{g});
    my $ns = prod(@{ $c->{s} });
    my $ncta = $c->{greg} =~ /bx/ ? 4 : 1;
    my $fill = $c->{oob} eq 'nan' ? 0x7FF77FF7 : 0;
    my ($rs, $cs) = split /\s*,\s*/, $c->{greg};
    my @want;
    for my $bx (0 .. $ncta - 1) {
        my ($r0, $c0) = map { my $lo = $_ eq ':' ? 0 : (split /\s*:\s*/)[0]; $lo =~ s/\bbx\b/$bx/g; eval $lo } $rs, $cs;
        my $w = $c->{s}[1];
        for my $k (0 .. $ns - 1) {
            my ($r, $q) = ($r0 + int($k / $w), $c0 + $k % $w);
            push @want, ($r >= 0 && $r < $R && $q >= 0 && $q < $C) ? $A[$r * $C + $q] : $fill;
        }
    }
    for my $form ([source => $f], ['lowered IR' => "$tmp/d$i.ir.tx"]) {
        unlink "$tmp/d$i.b.npy";
        my $rc = system("'$bin/txc-emu' --in A='$tmp/d$i.a.npy' --out B='$tmp/d$i.b.npy' '$form->[1]' >/dev/null 2>'$tmp/d$i.derr'") >> 8;
        my $B = npy32_read("$tmp/d$i.b.npy");
        my @bad = grep { !defined $B->[$_] || $B->[$_] != $want[$_] } 0 .. $#want;
        ok($rc == 0 && !@bad && @$B == @want, "$c->{name}: the $form->[0] on the emulator fills as TMA does",
           "exit $rc", slurp("$tmp/d$i.derr"), @bad ? sprintf("%d elements differ, first %d: got 0x%08X, want 0x%08X",
           scalar @bad, $bad[0], $B->[$bad[0]] // 0, $want[$bad[0]]) : ());
    }
}

# ---- the derivation cases ---------------------------------------------------------
srand(11);
my $nvcc = -x '/usr/local/cuda/bin/nvcc' || grep { -x "$_/nvcc" } split /:/, $ENV{PATH} // '';
# the programs of all cases run first, in parallel (each writes its files)
my $i = 0;
my @pids;
for my $c (@cases) {
    $i++;
    my $f = "$tmp/d$i.tx";
    spit($f, kernel($c));
    my $sh = "'$bin/txc' --emit=ir --arch sm_90a '$f' -o '$tmp/d$i.ir.tx' 2>'$tmp/d$i.err'; echo \$? >'$tmp/d$i.rc'; "
        . "'$bin/txc-emu' '$f' >'$tmp/d$i.emu.src' 2>'$tmp/d$i.emuerr.src'; echo \$? >'$tmp/d$i.emurc.src'; "
        . "'$bin/txc-emu' '$tmp/d$i.ir.tx' >'$tmp/d$i.emu.ir' 2>'$tmp/d$i.emuerr.ir'; echo \$? >'$tmp/d$i.emurc.ir'; ";
    $sh .= "'$bin/txc' --emit=cubin --arch sm_90a '$f' -o '$tmp/d$i.cubin' >'$tmp/d$i.cerr' 2>&1; echo \$? >'$tmp/d$i.crc'"
        if $nvcc;
    if (@pids >= 8) { waitpid(shift @pids, 0) }
    my $pid = fork() // die "fork: $!";
    if (!$pid) { exec('/bin/sh', '-c', $sh) or exit 127 }
    push @pids, $pid;
}
waitpid($_, 0) for @pids;
$i = 0;
for my $c (@cases) {
    $i++;
    my $f = "$tmp/d$i.tx";
    my $rc = slurp("$tmp/d$i.rc") =~ s/\s+//gr;
    $rc = 99 if $rc eq '';
    my $ir = slurp("$tmp/d$i.ir.tx");
    my ($map, @copy) = expected($c);
    my @maps = map { s/^\s+//r } grep { /T\.tensormap\(/ } split /\n/, $ir;
    my @got = map { s/^\s+//r } grep { /^\s*for b\d+ in range\(|cp_async\.bulk\.tensor\./ } split /\n/, $ir;
    s/\s+/ /g for @maps, @got;
    ok($rc == 0 && "@maps" eq $map, "$c->{name}: $map", "exit $rc", slurp("$tmp/d$i.err"), "got: @maps");
    my $want = join "\n", @copy;
    my $have = join "\n", @got;
    my $todo = $c->{todo} ? " # TODO $c->{todo}" : '';
    ok($rc == 0 && $have eq $want, "$c->{name}: copy lines$todo", "want:", $want, "got:", $have);

    # the program and its lowered IR on the emulator
    if ($rc == 0) {
        my %h;
        my $skip;
        for my $form ([src => $f], [ir => "$tmp/d$i.ir.tx"]) {
            my $erc = slurp("$tmp/d$i.emurc.$form->[0]") =~ s/\s+//gr;
            my $e = slurp("$tmp/d$i.emuerr.$form->[0]");
            if ($erc && $e =~ /not emulated yet/) { $skip = 1; last }
            $h{ $form->[0] } = $erc ? "exit $erc: $e" : slurp("$tmp/d$i.emu.$form->[0]");
        }
        if ($skip) { skip("$c->{name}: the emulator agrees with the lowered IR", "txc-emu does not emulate TMA yet") }
        else { ok($h{src} eq $h{ir} && $h{src} !~ /^exit/, "$c->{name}: the emulator agrees with the lowered IR$todo", "src: $h{src}", "ir: $h{ir}") }
    } else {
        ok(0, "$c->{name}: the emulator agrees with the lowered IR", "txc failed");
    }
    oob_data($c, $i, $f) if $c->{data};
    if (!$nvcc) { skip("$c->{name}: compiles through ptxas", "no nvcc"); next }
    $rc = slurp("$tmp/d$i.crc") =~ s/\s+//gr;
    ok($rc eq '0' && -s "$tmp/d$i.cubin", "$c->{name}: compiles through ptxas", "exit $rc", slurp("$tmp/d$i.cerr"));
}

# ---- examples/tma_oob.tx: A padded with zeros (B) and NaN (C), in Perl ----------
{
    my @A = map { 0x3F800000 + int(rand(0x7FFFFF)) + 1 } 1 .. 100 * 40;
    npy32("$tmp/oob_a.npy", \@A, [100, 40]);
    my (@B, @C);
    for my $r (0 .. 127) {
        for my $c (0 .. 63) {
            my $in = $r < 100 && $c < 40;
            push @B, $in ? $A[$r * 40 + $c] : 0;
            push @C, $in ? $A[$r * 40 + $c] : 0x7FF77FF7;
        }
    }
    my $ex = "$top/examples/tma_oob.tx";
    system("'$bin/txc' --emit=ir '$ex' -o '$tmp/oob.ir.tx' 2>'$tmp/err'");
    for my $form ([source => $ex], ['lowered IR' => "$tmp/oob.ir.tx"]) {
        unlink "$tmp/oob_b.npy", "$tmp/oob_c.npy";
        my $rc = system("'$bin/txc-emu' --in A='$tmp/oob_a.npy' --out B='$tmp/oob_b.npy' --out C='$tmp/oob_c.npy' "
                        . "'$form->[1]' >/dev/null 2>>'$tmp/err'") >> 8;
        my ($b, $c) = (npy32_read("$tmp/oob_b.npy"), npy32_read("$tmp/oob_c.npy"));
        my $nb = grep { ($b->[$_] // -1) != $B[$_] } 0 .. $#B;
        my $nc = grep { ($c->[$_] // -1) != $C[$_] } 0 .. $#C;
        ok($rc == 0 && !$nb && !$nc, "examples/tma_oob.tx, the $form->[0] on the emulator: B is A padded with zeros, C with NaN",
           "exit $rc", slurp("$tmp/err"), "$nb elements of B and $nc of C differ");
    }
}

# ---- the TMA examples on the emulator against Perl --------------------------------
# Each copy example moves all of A into B through shared memory (B = A, bit
# for bit); tma_reduce adds A into B (B = B + A in float32, rounded once).
# A (and tma_reduce's B) are random values in [1, 2); each example runs as
# written and as lowered.
sub npy_any {
    my ($path, $descr, $fmt, $shape, $vals) = @_;
    my $dims = @$shape == 1 ? "$shape->[0]," : join(', ', @$shape);
    my $h = "{'descr': '$descr', 'fortran_order': False, 'shape': ($dims), }";
    $h .= ' ' x (63 - (10 + length($h)) % 64) . "\n";
    spit($path, "\x93NUMPY\x01\x00" . pack('v', length $h) . $h . pack("$fmt*", @$vals));
}
sub npy_data { my $s = slurp($_[0]); length($s) < 10 ? '' : substr($s, 10 + unpack('v', substr($s, 8, 2))) }
my %ex = (tma_load_store => ['float16', [64, 64]], tma_5d => ['float16', [2, 3, 4, 8, 16]],
          tma_boxes => ['float32', [64, 64]], tma_fold => ['float16', [64, 512]],
          tma_swizzle32 => ['float16', [128, 16]], tma_swizzle64_padded => ['float32', [256, 8]],
          tma_prefetch => ['float16', [1024, 64]], tma_reduce => ['float32', [128, 128]],
          # the two-stage ring at N = 1024 (4096 in the example, for the
          # bandwidth): 16 tiles a CTA, each stage's parity flipping 8 times
          tma_ring => ['float16', [1024, 1024], 's/^N = 4096$/N = 1024/']);
for my $name (sort keys %ex) {
    my ($dt, $shape, $edit) = @{ $ex{$name} };
    my $n = prod(@$shape);
    my ($descr, $fmt, $rnd) = $dt eq 'float16' ? ('<f2', 'v', sub { 0x3C00 + int(rand(0x3FF)) + 1 })
                                                : ('<f4', 'V', sub { 0x3F800000 + int(rand(0x7FFFFF)) + 1 });
    my @A = map { $rnd->() } 1 .. $n;
    my @B = map { $rnd->() } 1 .. $n;
    npy_any("$tmp/x_$name.a.npy", $descr, $fmt, $shape, \@A);
    npy_any("$tmp/x_$name.b.npy", $descr, $fmt, $shape, \@B);
    my $want;
    if ($name eq 'tma_reduce') {
        $want = pack('V*', map { unpack('V', pack('f', unpack('f', pack('V', $A[$_])) + unpack('f', pack('V', $B[$_])))) }
                     0 .. $n - 1);
    } else {
        $want = pack("$fmt*", @A);
    }
    my $ex = "$top/examples/$name.tx";
    if ($edit) {
        my $text = slurp($ex);
        my $had = $text;
        eval "\$text =~ $edit" . 'm';
        die "$name: '$edit' changes nothing" if $text eq $had;
        $ex = "$tmp/x_$name.tx";
        spit($ex, $text);
    }
    system("'$bin/txc' --emit=ir '$ex' -o '$tmp/x_$name.ir.tx' 2>'$tmp/err'");
    for my $form ([source => $ex], ['lowered IR' => "$tmp/x_$name.ir.tx"]) {
        unlink "$tmp/x_$name.out.npy";
        my $rc = system("'$bin/txc-emu' --in A='$tmp/x_$name.a.npy' --in B='$tmp/x_$name.b.npy' "
                        . "--out B='$tmp/x_$name.out.npy' '$form->[1]' >/dev/null 2>>'$tmp/err'") >> 8;
        my $got = npy_data("$tmp/x_$name.out.npy");
        my $es = $dt eq 'float16' ? 2 : 4;
        my ($first) = grep { substr($got, $_ * $es, $es) ne substr($want, $_ * $es, $es) } 0 .. $n - 1;
        ok($rc == 0 && $got eq $want, "examples/$name.tx, the $form->[0] on the emulator: B = "
           . ($name eq 'tma_reduce' ? 'B + A' : 'A') . ", bit for bit", "exit $rc", slurp("$tmp/err"),
           defined $first ? "element $first differs" : ());
    }
}

# ---- T.tensormap and the bulk tensor builtins refused (txc-parse) ------------
# Each program declares one tensor map M (line 7 unless the case moves it)
# over A (64 x 64 float16, 8192 bytes) or C (64 x 64 int8) and may use it on
# line 12; the first diagnostic must be MSG at line LINE.
sub tmap_program {
    my ($decl, $dev) = @_;
    $dev //= 'T.ptx.fence.proxy_async()';
    <<"EOF";
from tvm.script import tir as T

\@T.prim_func
def k(A_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    C = T.match_buffer(C_ptr, (64, 64), "int8")
    $decl
    T.device_entry()
    tid = T.thread_id([32])
    S = T.alloc_shared((64, 64), "float16", align=1024)
    bar = T.alloc_shared([1], "uint64")
    $dev
EOF
}
my $good = 'M = T.tensormap(A, dims=[64, 64], strides=[64 * 2], box=[64, 64])';
my $g2c = 'T.ptx.cp_async.bulk.tensor.g2c';
my @parse = (
    ['six dimensions', 7, 'dims= takes a list of 1 to 5 integers, innermost dimension first',
     tmap_program('M = T.tensormap(A, dims=[2, 2, 2, 2, 8, 32], box=[2, 2, 2, 2, 8, 32])')],
    ['a dimension of 0 elements', 7, "dimension 0 has 0 elements; a tensor map's dimensions are 1 to 2^32",
     tmap_program('M = T.tensormap(A, dims=[0, 64], strides=[128], box=[64, 64])')],
    ['a box dimension over 256', 7, 'box dimension 1 is 257; a box is 1 to 256 elements in each dimension',
     tmap_program('M = T.tensormap(A, dims=[64, 64], strides=[128], box=[64, 257])')],
    ['box dimension 0 of 8 bytes', 7,
     'box dimension 0 is 4 x 2 = 8 bytes; the innermost box dimension must be a multiple of 16 bytes',
     tmap_program('M = T.tensormap(A, dims=[64, 64], strides=[128], box=[4, 64])')],
    ['box wider than the swizzle span', 7, "box dimension 0 is ${\(64 * 2)} bytes, wider than the 64-byte swizzle span",
     tmap_program('M = T.tensormap(A, dims=[64, 64], strides=[128], box=[64, 64], swizzle=64)')],
    ['a stride not a multiple of 16', 7,
     'the stride of dimension 1 is 120 bytes; a global stride is a positive multiple of 16 below 2^40',
     tmap_program('M = T.tensormap(A, dims=[60, 64], strides=[120], box=[8, 8])')],
    ['fill="nan" on int8', 7, 'fill="nan" is for floating-point elements, not int8',
     tmap_program('M = T.tensormap(C, dims=[64, 64], strides=[64], box=[64, 8], fill="nan")')],
    ['an offset of 8 bytes', 7,
     'offset= is 4 elements, 8 bytes; a tensor map starts at a non-negative multiple of 16 bytes',
     tmap_program('M = T.tensormap(A, dims=[64, 32], strides=[128], box=[64, 8], offset=4)')],
    # the last element reached: 2 + (64 - 1) * 2 + (65 - 1) * 128 bytes
    ['a map past the end of its buffer', 7,
     "the tensor map reaches byte ${\(2 + 63 * 2 + 64 * 128)} of buffer 'A', which has ${\(64 * 64 * 2)} bytes",
     tmap_program('M = T.tensormap(A, dims=[64, 65], strides=[128], box=[64, 1])')],
    ['box= shorter than dims=', 7, 'box= has 1 entries; dims= gives the map 2 dimensions',
     tmap_program('M = T.tensormap(A, dims=[64, 64], strides=[128], box=[64])')],
    ['strides= missing', 7, 'strides= gives the byte strides of dimensions 1 to 1: 1 entry, not 0',
     tmap_program('M = T.tensormap(A, dims=[64, 64], box=[64, 64])')],
    ['swizzle=16', 7, 'swizzle= is 0 (none), 32, 64 or 128 bytes, not 16',
     tmap_program('M = T.tensormap(A, dims=[64, 64], strides=[128], box=[8, 64], swizzle=16)')],
    ['l2_promotion=32', 7, 'l2_promotion= is 0, 64, 128 or 256 bytes, not 32',
     tmap_program('M = T.tensormap(A, dims=[64, 64], strides=[128], box=[64, 64], l2_promotion=32)')],
    ['a tensor map after T.device_entry()', 12,
     'T.tensormap after T.device_entry(): the host encodes a tensor map before the launch; declare it with the parameters',
     tmap_program('N = 1', $good)],
    ['a tensor map over a view of a parameter', 8, "T.tensormap describes a global buffer parameter, not 'V'",
     tmap_program("V = A.view(4096)\n    M = T.tensormap(V, dims=[64, 64], strides=[128], box=[64, 64])")],
    ['g2c with the wrong rank', 12, "$g2c() says rank 3, but tensor map 'M' has 2 dimensions",
     tmap_program($good, "$g2c(3, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, 0)")],
    ['g2c with one coordinate of two', 12, "$g2c() gives 1 coordinate; tensor map 'M' has 2 dimensions",
     tmap_program($good, "$g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0)")],
    # item 8: a box's shared memory is 128-byte aligned (a misaligned-address fault on Hopper)
    ['g2c into element 8 of S (16 bytes)', 12,
     "$g2c() needs its destination at a 128-byte aligned shared address; element '8' of 'S' (2-byte elements) is not provably a multiple of 128 bytes",
     tmap_program($good, "$g2c(2, T.pointer_offset(S, 8), T.address_of(bar[0]), M, 0, 0)")],
    ['g2c into element 32 * tid of S (64 bytes apart)', 12,
     "$g2c() needs its destination at a 128-byte aligned shared address; element 'tid * 32' of 'S' (2-byte elements) is not provably a multiple of 128 bytes",
     tmap_program($good, "$g2c(2, T.pointer_offset(S, tid * 32), T.address_of(bar[0]), M, 0, 0)")],
    ['s2g from a buffer only 16-byte aligned', 12,
     "T.ptx.cp_async.bulk.tensor.s2g() needs its source at a 128-byte aligned shared address, and 'bar' is only 16-byte aligned: allocate it with align=128 (or more)",
     tmap_program($good, "T.ptx.cp_async.bulk.tensor.s2g(2, T.pointer_offset(bar, 0), M, 0, 0)")],
    ['dst_space="shared"', 12, 'dst_space= is "shared::cluster" or "shared::cta", not "shared"',
     tmap_program($good, "$g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, dst_space=\"shared\")")],
    ['prefetch.tensormap of a buffer', 12, "T.ptx.prefetch.tensormap() takes a tensor map (T.tensormap), not a buffer",
     tmap_program($good, "T.ptx.prefetch.tensormap(S)")],
    # cta_mask= (.multicast::cluster): bit i is CTA rank i of the cluster
    ['g2c cta_mask beyond a cluster of 2', 13,
     "cta_mask 0x${\(sprintf '%x', 0b101)} names CTA rank 2, but the cluster of (2, 1, 1) has 2 CTAs (ranks 0 to 1)",
     tmap_program($good, "cb = T.cta_id_in_cluster([2])\n    $g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, cta_mask=0b101)")],
    ['g2c cta_mask beyond a cluster of 2 x 2', 13,
     "cta_mask 0x${\(sprintf '%x', 0x1f)} names CTA rank 4, but the cluster of (2, 2, 1) has 4 CTAs (ranks 0 to 3)",
     tmap_program($good, "cx, cy = T.cta_id_in_cluster([2, 2])\n    $g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, cta_mask=0x1f)")],
    ['g2c cta_mask over 16 bits', 13,
     "cta_mask is a 16-bit mask of CTA ranks in the cluster (bit i: rank i; 0: no multicast), not ${\(1 << 16)}",
     tmap_program($good, "cb = T.cta_id_in_cluster([2])\n    $g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, cta_mask=${\(1 << 16)})")],
    ['g2c cta_mask without a cluster', 12,
     'cta_mask= multicasts to the CTAs of a thread-block cluster, but the kernel declares none (T.cta_id_in_cluster([...]) before the copy)',
     tmap_program($good, "$g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, cta_mask=3)")],
    ['copy_async cta_mask on a store', 13,
     'cta_mask= multicasts a TMA load (global -> shared) to the CTAs of the cluster; this copy writes global memory',
     tmap_program('N = 1', "cb = T.cta_id_in_cluster([2])\n    Tx.copy_async(A[:, :], S[:, :], dispatch=\"tma\", cta_mask=3)")],
    ['s2g with three coordinates of two', 12,
     "T.ptx.cp_async.bulk.tensor.s2g() gives 3 coordinates; tensor map 'M' has 2 dimensions",
     tmap_program($good, "T.ptx.cp_async.bulk.tensor.s2g(2, T.pointer_offset(S, 0), M, 0, 0, 0)")],
);
my $k = 0;
for my $r (@parse) {
    my ($name, $line, $msg, $text) = @$r;
    $k++;
    spit("$tmp/p$k.tx", $text);
    my $rc = system("'$bin/txc-parse' --target sm_90a '$tmp/p$k.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $err = slurp("$tmp/err");
    my ($first) = $err =~ /^(.*error: .*)$/m;
    my $good = $rc == 1 && defined $first && $first =~ /^\Q$tmp\E\/p$k\.tx:(\d+):\d+: error: (.*)$/ && $1 == $line && $2 eq $msg;
    ok($good, "refused: $name: $msg", "exit $rc", "want line $line: $msg", $err);
}

# ---- the .shared::cta destination (PTX 8.6) ----------------------------------------
# dst_space="shared::cta" names the destination in the CTA's own window:
# the same bytes as the default .shared::cluster in a CTA without a
# cluster, on the emulator; the PTX names the space, and ptxas takes it for
# sm_90a and sm_100a.
{
    my $load = "if tid == 0:\n"
        . "        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)\n"
        . "        T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[0]), 8192)\n"
        . "        $g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0SPACE)\n"
        . "    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)\n"
        . "    for i in range(128):\n"
        . "        C[i // 2, (i % 2) * 32 + tid] = T.int8(S[i // 2 * 64 + (i % 2) * 32 + tid] > T.float16(0))";
    my %h;
    for my $sp ('', 'shared::cta') {
        my $text = tmap_program($good, $load =~ s/SPACE/$sp ? ", dst_space=\"$sp\"" : ''/er);
        $text =~ s/S = T.alloc_shared\(\(64, 64\), "float16", align=1024\)/S = T.alloc_shared([4096], "float16", align=1024)/;
        $k++;
        spit("$tmp/c$k.tx", $text);
        my $rc = system("'$bin/txc-emu' '$tmp/c$k.tx' >'$tmp/c$k.emu' 2>'$tmp/err'") >> 8;
        $h{$sp} = $rc ? "exit $rc: " . slurp("$tmp/err") : slurp("$tmp/c$k.emu");
        next unless $sp;
        $rc = system("'$bin/txc' --arch sm_90a '$tmp/c$k.tx' -o '$tmp/c$k.cu' 2>'$tmp/err'") >> 8;
        ok($rc == 0 && slurp("$tmp/c$k.cu") =~ /cp\.async\.bulk\.tensor\.2d\.shared::cta\.global\.tile\.mbarrier::complete_tx::bytes \[/,
           'dst_space="shared::cta": the load names .shared::cta', "exit $rc", slurp("$tmp/err"));
        for my $arch ('sm_90a', 'sm_100a') {
            if (!$nvcc) { skip("dst_space=\"shared::cta\": ptxas $arch", 'no nvcc'); next }
            $rc = system("'$bin/txc' --emit=cubin --arch $arch '$tmp/c$k.tx' -o '$tmp/c$k.$arch.cubin' >'$tmp/err' 2>&1") >> 8;
            ok($rc == 0, "dst_space=\"shared::cta\": ptxas $arch", "exit $rc", slurp("$tmp/err"));
        }
    }
    ok($h{''} eq $h{'shared::cta'} && $h{''} !~ /^exit/, 'dst_space="shared::cta": the same data as shared::cluster on the emulator',
       "cluster: $h{''}", "cta: $h{'shared::cta'}");
}

# ---- Tx.prefetch: the region's tensor map and one prefetch per box -------------
# The region is taken as a load into a dense row-major tile of its shape:
# box dimension 0 the contiguous run (at most 256 elements; no swizzle),
# further box dimensions while the tile stays dense, each at most 256.
sub prefetch_case {
    my ($name, %c) = @_;
    my $gshape = @{ $c{g} } == 1 ? "($c{g}[0],)" : '(' . join(', ', @{ $c{g} }) . ')';
    my $text = <<"EOF";
from tvm.script import tir as T
from tvm.script import tirx as Tx


\@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, $gshape, "$c{dt}")
    T.device_entry()
    bx = T.cta_id([4])
    tid = T.thread_id([32])
    if tid == 0:
        Tx.prefetch(A[$c{greg}])
EOF
    $k++;
    spit("$tmp/f$k.tx", $text);
    my $rc = system("'$bin/txc' --emit=ir --arch sm_90a '$tmp/f$k.tx' -o '$tmp/f$k.ir' 2>'$tmp/err'") >> 8;
    my $ir = slurp("$tmp/f$k.ir");
    my $rank = @{ $c{dims} };
    my $map = "A_map = T.tensormap(A, dims=[" . join(', ', @{ $c{dims} }) . "]"
        . ($rank > 1 ? ", strides=[" . join(', ', @{ $c{strides} }) . "]" : '') . ", box=[" . join(', ', @{ $c{box} }) . "])";
    my @want = ((map { "for $_->[0] in range($_->[1]):" } @{ $c{loops} // [] }),
                "T.ptx.cp_async.bulk.tensor.prefetch($rank, A_map, " . join(', ', @{ $c{coords} }) . ")");
    my @maps = map { s/^\s+//r } grep { /T\.tensormap\(/ } split /\n/, $ir;
    my @got = map { s/^\s+//r } grep { /^\s*for b\d+ in range\(|cp_async\.bulk\.tensor\./ } split /\n/, $ir;
    ok($rc == 0 && "@maps" eq $map && "@got" eq "@want", "Tx.prefetch: $name: $map; @want", "exit $rc",
       slurp("$tmp/err"), "got: @maps", "got: @got");
    if (!$nvcc) { skip("Tx.prefetch: $name: compiles through ptxas", 'no nvcc'); return }
    $rc = system("'$bin/txc' --emit=cubin --arch sm_90a '$tmp/f$k.tx' -o '$tmp/f$k.cubin' >'$tmp/err' 2>&1") >> 8;
    ok($rc == 0, "Tx.prefetch: $name: compiles through ptxas", "exit $rc", slurp("$tmp/err"));
}
# 128 rows of 256 float16: rows of 512 bytes (256 elements), 128 of them
prefetch_case('128 rows of 512x256 float16 at bx * 128',
              dt => 'float16', g => [512, 256], greg => 'bx * 128 : bx * 128 + 128, :',
              dims => [256, 512], strides => [256 * 2], box => [256, 128], coords => [0, 'bx * 128']);
# 2048 contiguous float32 from 1024: 256 a row, 2048 / 256 = 8 rows; the
# one dimension splits in steps of 1 and 256 (sizes 256 and 4096 / 256)
prefetch_case('2048 float32 at 1024 of 4096',
              dt => 'float32', g => [4096], greg => '1024:3072', dims => [256, 4096 / 256], strides => [256 * 4],
              box => [256, 2048 / 256], coords => [0, 1024 / 256]);
# past the edge: columns 32..63 of 40, rows 96..127 of 100 (TMA skips them)
prefetch_case('a region past the edge of 100x40 float32',
              dt => 'float32', g => [100, 40], greg => '96:128, 32:64', dims => [40, 100], strides => [40 * 4],
              box => [32, 32], coords => [32, 96]);
# 300 rows of 64 uint8 at plane 2: 300 rows > 256 split at 150 (the largest
# divisor up to 256), 2 of them dense: box [64, 150, 2]; dimension 0 is
# uncovered, box 1 at 2
prefetch_case('300 rows of 64 uint8 at plane 2 of 8x300x64',
              dt => 'uint8', g => [8, 300, 64], greg => '2, 0:300, :', dims => [64, 150, 300 / 150, 8],
              strides => [64, 150 * 64, 300 * 64], box => [64, 150, 2, 1], coords => [0, 0, 0, 2]);
# 8 float32 (32 bytes) of each of 16 rows: rows 64 apart in A but dense in
# the tile: box [8, 16]
prefetch_case('8 columns of 16 rows of 64x64 float32',
              dt => 'float32', g => [64, 64], greg => 'bx * 16 : bx * 16 + 16, 8:16', dims => [64, 64],
              strides => [64 * 4], box => [8, 16], coords => [8, 'bx * 16']);
for my $r (['a shared region', "Tx.prefetch() prefetches a region of a global buffer parameter into L2; 'S' is in shared memory",
            "S = T.alloc_shared((64, 64), \"float16\", align=1024)\n    Tx.prefetch(S[:, :])"],
           ['a view of a parameter', "Tx.prefetch() prefetches a region of a global buffer parameter into L2; 'V' is a view of one",
            "V = A.view(4096)\n    Tx.prefetch(V[0:64])"]) {
    my ($name, $msg, $body) = @$r;
    my $text = "from tvm.script import tir as T\nfrom tvm.script import tirx as Tx\n\n\@T.prim_func\n"
        . "def k(A_ptr: T.handle):\n    A = T.match_buffer(A_ptr, (64, 64), \"float16\")\n    T.device_entry()\n"
        . "    tid = T.thread_id([32])\n    $body\n";
    $k++;
    spit("$tmp/f$k.tx", $text);
    my $rc = system("'$bin/txc-parse' --target sm_90a '$tmp/f$k.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($first) = slurp("$tmp/err") =~ /^(.*error: .*)$/m;
    ok($rc == 1 && defined $first && $first =~ /error: \Q$msg\E$/, "refused: Tx.prefetch of $name: $msg", "exit $rc",
       slurp("$tmp/err"));
}

# ---- the tma variant refused (txc's dispatch error) ---------------------------
# the line of the tma candidate in txc's table of variants: why it cannot run
sub refuse {
    my ($name, $how, $msg, %c) = @_;
    my $c = { name => $name, dt => 'float16', g => [64, 64], greg => ':, :', s => [64, 64], sreg => ':, :',
              dir => 'load', %c };
    my $text = kernel($c);
    $text =~ s/    if tid == 0:\n(        T.ptx.fence.proxy_async\(\)\n        T.ptx.mbarrier.arrive_expect_tx\(.*\n)        Tx.copy_async\(/    if tid == 0:\n$1    Tx.cta.copy_async(/ if $c->{cta};
    $k++;
    spit("$tmp/r$k.tx", $text);
    my $rc = system("'$bin/txc' --emit=ir --arch sm_90a '$tmp/r$k.tx' -o '$tmp/r$k.ir.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $err = slurp("$tmp/err");
    my ($tma) = $err =~ /^(\s+tma\s.*)$/m;
    my $good = $rc == 1 && defined $tma && $tma =~ /^    tma\s+\d+  (\w+): (.*)$/ && $1 eq $how && $2 eq $msg
        && $err =~ /error: no variant of Tx\.(cta\.)?copy_async can run this copy:/ && !-e "$tmp/r$k.ir.tx";
    my $todo = $c->{todo} ? " # TODO $c->{todo}" : '';
    ok($good, "refused: $name: $msg$todo", "exit $rc", "want: $how: $msg", $err);
}
refuse('at cta scope', 'single_thread',
       'tma is issued by one thread: write the copy at thread scope (Tx.copy_async inside `if tid == 0:`), not at cta scope',
       cta => 1);
# without align= the copy's shared buffer is allocated 128-byte aligned
# (tests/tvm/tma_strided_global.tx); align=16 says otherwise
refuse('shared memory with align=16', 'plan',
       "TMA needs 'S' at a 128-byte aligned shared address; it starts at byte 0 of a base only 16-byte aligned (allocate it with align=1024)",
       salloc => 'align=16');
# a column of S (elements 64 apart) from a row of A
refuse('shared innermost not contiguous', 'plan',
       "the shared side's innermost elements are 64 apart; TMA writes a box's rows contiguously",
       greg => '0, 0:64', sreg => '0:64, 5');
# a row of S from a column of A (a transposing copy)
refuse('global innermost not contiguous', 'plan',
       "the elements that are contiguous in shared memory are 64 apart in global memory; TMA's innermost box dimension runs along contiguous global elements",
       greg => '0:64, 3', s => [64], sreg => ':');
# 1024 in a row splits at 256: the start must be a multiple of 256
refuse('a symbolic start not a multiple of the split', 'plan',
       "the start 'bx * 128' of dimension 0 of 'A' is not provably a multiple of 256, where the tensor map splits that dimension",
       g => [4096], greg => 'bx * 128 : bx * 128 + 1024', s => [1024], sreg => ':');
# at 128, a box of 256 in a dimension of 256 would wrap into the next
refuse('a constant start whose boxes wrap', 'plan',
       "the region's start 128 in dimension 0 of 'A' makes its boxes wrap where the tensor map splits that dimension in steps of 256",
       g => [4096], greg => '128:1152', s => [1024], sreg => ':');
# six buffer dimensions of extent 2 or more, all covered
# six dimensions, none covered whole (so none merges into another)
refuse('a tensor map of rank 6', 'plan', 'the region needs a tensor map of more than 5 dimensions',
       g => [4, 4, 4, 4, 32, 64], greg => '0:2, 0:2, 0:2, 0:2, 0:16, 0:32', s => [2, 2, 2, 2, 16, 32],
       sreg => ':, :, :, :, :, :');
# a strided global layout is a tensor map's strides (tests/tvm/tma_strided_global.tx);
# a dimension in two pieces is not
refuse('a global dimension in pieces of two strides', 'plan',
       "dimension 1 of 'A' is laid out in pieces of different strides; a tensor map's dimension has one stride",
       glayout => 'TileLayout(L[(64, 2, 32) : (32, 2048, 1)])');
refuse('a contiguous run of 8 bytes', 'plan',
       "the contiguous run is 4 x 2 = ${\(4 * 2)} bytes; TMA's innermost box dimension is a multiple of 16 bytes",
       greg => ':, 0:4', s => [64, 4]);
# rows of 16 elements 32 apart: 64 boxes, 32 x 2 bytes apart
refuse('boxes 64 bytes apart in shared memory', 'plan',
       "its boxes are ${\(32 * 2)} bytes apart in shared memory; TMA needs each at a multiple of 128 bytes",
       greg => ':, 0:16', s => [64, 32], sreg => ':, 0:16');
# rows of 20 float16: 40 bytes
refuse('a global stride of 40 bytes', 'plan',
       "global stride ${\(20 * 2)} bytes (tensor-map dimension 1) is not a multiple of 16",
       g => [64, 20], greg => '0:8, 0:8', s => [8, 8]);
refuse('a swizzle TMA does not write', 'plan',
       "the shared layout's swizzle ComposeLayout(2, 3, 3, ...) is not one TMA writes (for float16: ComposeLayout(3, B, 3, ...), B = 1, 2, 3 for 32, 64, 128 bytes)",
       salloc => 'layout=ComposeLayout(2, 3, 3, L[(64, 64) : (64, 1)])');
# S[:, 32:64] starts at element 32, 64 bytes
refuse('a shared region at 64 bytes', 'plan',
       "the shared region starts at element '32' of 'S', not provably a multiple of 128 bytes",
       greg => ':, 0:32', sreg => ':, 32:64');

# a region wider than the tensor in an inner dimension
refuse('oob: a region wider than the tensor in an inner dimension', 'plan',
       "not supported yet: a region 32 elements wide in dimension 1 of 'A', which has 16; only the outermost dimension may be wider than the tensor",
       dt => 'float32', g => [16, 16], greg => '0:4, 0:32', s => [4, 32], oob => 'zero');

# ---- oob_fill= and TVM's keywords refused (txc-parse) --------------------------
# the first diagnostic of kernel(C) with its copy line edited by EDIT
sub sema_refuse {
    my ($name, $msg, $edit, %c) = @_;
    my $c = { name => $name, dt => 'float16', g => [64, 64], greg => ':, :', s => [64, 64], sreg => ':, :',
              dir => 'load', %c };
    my $text = kernel($c);
    $text =~ s/(Tx\.copy_async\(.*)\)\n/$edit->($1) . ")\n"/e if $edit;
    $k++;
    spit("$tmp/s$k.tx", $text);
    my $rc = system("'$bin/txc-parse' --target sm_90a '$tmp/s$k.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $err = slurp("$tmp/err");
    my ($first) = $err =~ /^(.*error: .*)$/m;
    my $good = $rc == 1 && defined $first && $first =~ /^\Q$tmp\E\/s$k\.tx:\d+:\d+: error: (.*)$/ && $1 eq $msg;
    ok($good, "refused: $name: $msg", "exit $rc", "want: $msg", $err);
}
sema_refuse('a region past the edge without oob_fill=',
            "slice 56:72 is out of bounds for dimension 0 of 'A' (extent 64)", undef, greg => '56:72, :', s => [16, 64]);
sema_refuse('oob_fill= on a store',
            'oob_fill= fills the out-of-bounds elements of a global -> shared load; this copy is shared -> global',
            sub { "$_[0], oob_fill=\"zero\"" }, dir => 'store');
sema_refuse('oob_fill="nan" on int8',
            "oob_fill=\"nan\" fills with NaN, which int8 'A' has not: it is for floating-point tensors", undef,
            dt => 'int8', g => [64, 64], greg => '56:72, :', s => [16, 64], oob => 'nan');
sema_refuse('oob_fill="one"', 'oob_fill= is "zero" or "nan", not "one"', undef, greg => '56:72, :', s => [16, 64],
            oob => 'one');
sema_refuse('oob= and oob_fill= both', 'oob= is TVM\'s name of oob_fill=, which is given too',
            sub { "$_[0], oob=\"zero\"" }, greg => '56:72, :', s => [16, 64], oob => 'zero');
sema_refuse('tensormap_l2_promotion=4',
            'tensormap_l2_promotion= is 0, 1, 2, 3 or "none", "L2::64B", "L2::128B", "L2::256B" (TVM\'s), not 4',
            sub { "$_[0], tensormap_l2_promotion=4" });
sema_refuse('cache_hint="evict_most"',
            'cache_hint= is a 64-bit L2 cache policy or one of "evict_normal", "evict_first", "evict_last", not "evict_most"',
            sub { "$_[0], cache_hint=\"evict_most\"" });
sema_refuse('use_tma_reduce="mul"', 'reduce= is "add", "min", "max", "inc", "dec", "and", "or" or "xor", not "mul"',
            sub { "$_[0], use_tma_reduce=\"mul\"" }, dir => 'store');

# ---- TVM's keywords honoured: the lowered copy -----------------------------------
# tensormap_l2_promotion="L2::256B" is the map's l2_promotion=256, TVM's
# enum 1 is 64 bytes; cache_hint="evict_first" is the policy
# 0x12F0000000000000 on each bulk copy; use_tma_reduce= is reduce=.
sub lowered_has {
    my ($name, $edit, $want, %c) = @_;
    my $c = { name => $name, dt => 'float16', g => [64, 64], greg => ':, :', s => [64, 64], sreg => ':, :',
              dir => 'load', %c };
    my $text = kernel($c);
    $text =~ s/(Tx\.copy_async\(.*)\)\n/$edit->($1) . ")\n"/e;
    $k++;
    spit("$tmp/l$k.tx", $text);
    my $rc = system("'$bin/txc' --emit=ir --arch sm_90a '$tmp/l$k.tx' -o '$tmp/l$k.ir' 2>'$tmp/err'") >> 8;
    my $ir = slurp("$tmp/l$k.ir") =~ s/\s+/ /gr;
    ok($rc == 0 && index($ir, $want) >= 0, "TVM's keyword: $name: $want", "exit $rc", slurp("$tmp/err"), $ir);
}
lowered_has('tensormap_l2_promotion="L2::256B"', sub { "$_[0], tensormap_l2_promotion=\"L2::256B\"" },
            'box=[64, 64], l2_promotion=256)');
lowered_has('tensormap_l2_promotion=1', sub { "$_[0], tensormap_l2_promotion=1" }, 'box=[64, 64], l2_promotion=64)');
lowered_has('cache_hint="evict_first"', sub { "$_[0], cache_hint=\"evict_first\"" },
            'A_map, 0, 0, cache_hint=' . (0x12F << 52) . ')');
lowered_has('prefetch_tensormap=True', sub { "$_[0], prefetch_tensormap=True" },
            'T.ptx.prefetch.tensormap(A_map) T.ptx.cp_async.bulk.tensor.g2c(2, T.pointer_offset(S, 0)');
lowered_has('use_tma_reduce="max"', sub { "$_[0], use_tma_reduce=\"max\"" },
            'T.ptx.cp_async.bulk.tensor.s2g_reduce(2, T.pointer_offset(S, 0), A_map, 0, 0, red_op="max")', dir => 'store');
# ---- multicast: cta_mask= ------------------------------------------------------
# examples/tma_multicast.tx: CTA rank cb of each 2-CTA cluster loads rows
# 32 cb .. 32 cb + 31 of its cluster's 64 x 64 float16 tile (a box of 64 x
# 32) into the same rows of t (row-major, 64 elements a row): the lowered
# g2c carries cta_mask=3 and the shared offset cb * 32 * 64 elements; the
# CUDA is the .multicast::cluster form of ptx.md "TMA", the 16-bit mask the
# operand after the mbarrier (then the policy, with cache_hint=).
{
    my $ex = "$top/examples/tma_multicast.tx";
    my $rc = system("'$bin/txc' --emit=ir '$ex' -o '$tmp/mc.ir.tx' 2>'$tmp/mc.err'") >> 8;
    my $ir = slurp("$tmp/mc.ir.tx");
    my $want = "T.ptx.cp_async.bulk.tensor.g2c(2, T.pointer_offset(t, cb * ${\(32 * 64)}), T.address_of(bar[0]), "
             . "A_map, 0, bx // 2 * 64 + cb * 32, cta_mask=3)";
    ok($rc == 0 && index($ir, $want) >= 0, 'multicast: the lowered load carries cta_mask=', "exit $rc", "want: $want", $ir,
       slurp("$tmp/mc.err"));
    ok($ir =~ /A_map = T\.tensormap\(A, dims=\[64, 128\], strides=\[${\(64 * 2)}\], box=\[64, 32\]\)/,
       'multicast: the map of one half-tile box', $ir);
    $rc = system("'$bin/txc' '$ex' -o '$tmp/mc.cu' 2>'$tmp/mc.err'") >> 8;
    my $cu = slurp("$tmp/mc.cu");
    my $ptx = 'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster '
            . '[%0], [%2, {%3, %4}], [%1], %5;';
    ok($rc == 0 && index($cu, $ptx) >= 0 && $cu =~ /__cluster_dims__\(2, 1, 1\)/,
       'multicast: txc-cuda emits .multicast::cluster with the mask after the mbarrier', "want: $ptx", $cu);
    my $prog = tmap_program($good, "cb = T.cta_id_in_cluster([2])\n    "
        . "$g2c(2, T.pointer_offset(S, 0), T.address_of(bar[0]), M, 0, 0, cta_mask=3, cache_hint=T.uint64(0))");
    spit("$tmp/mch.tx", $prog);
    $rc = system("'$bin/txc' '$tmp/mch.tx' -o '$tmp/mch.cu' 2>'$tmp/mc.err'") >> 8;
    $cu = slurp("$tmp/mch.cu");
    $ptx = 'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster'
         . '.L2::cache_hint [%0], [%2, {%3, %4}], [%1], %5, %6;';
    ok($rc == 0 && index($cu, $ptx) >= 0, 'multicast: with cache_hint=, the mask then the policy', "want: $ptx", $cu,
       slurp("$tmp/mc.err"));
    $rc = system("'$bin/txc-parse' --target sm_90 '$tmp/mch.tx' >'$tmp/out' 2>'$tmp/mc.err'") >> 8;
    ok($rc == 1 && slurp("$tmp/mc.err") =~ /^\Q$tmp\E\/mch\.tx:13:\d+: error: cta_mask= \(\.multicast::cluster\) needs sm_90a or later; the target is sm_90$/m,
       'multicast: refused for sm_90 (ptx.md: emit it for sm_90a)', "exit $rc", slurp("$tmp/mc.err"));
    # cta_mask=0 is TVM's default: no multicast
    (my $zero = $prog) =~ s/cta_mask=3/cta_mask=0/;
    spit("$tmp/mc0.tx", $zero);
    $rc = system("'$bin/txc' '$tmp/mc0.tx' -o '$tmp/mc0.cu' 2>'$tmp/mc.err'") >> 8;
    $cu = slurp("$tmp/mc0.cu");
    ok($rc == 0 && $cu !~ /multicast/ && $cu =~ /complete_tx::bytes\.L2::cache_hint \[%0\]/,
       'multicast: cta_mask=0 is the plain load', $cu);
    for my $f ([$ex, 'tma_multicast.tx'], ["$tmp/mch.tx", 'cta_mask= with cache_hint=']) {
        if (!$nvcc) { skip("multicast: $f->[1] compiles through ptxas", "no nvcc"); next }
        $rc = system("'$bin/txc' --emit=cubin --arch sm_90a '$f->[0]' -o '$tmp/mc.cubin' >'$tmp/out' 2>'$tmp/mc.err'") >> 8;
        ok($rc == 0 && -s "$tmp/mc.cubin", "multicast: $f->[1] compiles through ptxas (sm_90a)", "exit $rc", slurp("$tmp/mc.err"));
        unlink "$tmp/mc.cubin";
    }
}

done();
