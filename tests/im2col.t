#!/usr/bin/env perl
# TMA in im2col mode: T.tensormap_im2col (ir/tmap.c), the im2col forms of
# the bulk tensor builtins (ir/calls.c, backend/txc-cuda.c) and their
# emulation (runtime/emu-tma.c).
#
# Loads: each case is a kernel written here from its parameters: one
# im2col map over A, one load into a shared buffer filled with 0x5555
# first, the buffer's raw storage copied to R. What R must hold is computed
# here, in Perl, from the model of doc/tma-im2col.md (the PTX ISA's "im2col
# mode" and "im2col::w and im2col::w::128 modes", cuTensorMapEncodeIm2col):
#   the filter base walks the bounding box [lower_d, dims_d - 1 + upper_d]
#   of dimensions 1 .. rank-2, W fastest, by the traversal stride
#   elem_strides[d], wrapping to lower_d and carrying into the next
#   dimension, from the last one into N (by 1); pixel p is the base plus
#   the im2col offsets; its channels c0 .. c0 + channels - 1; an element
#   outside the tensor is the fill (0, or 0x7FF7 per 16 bits for NaN);
#   row p of the load lands at shared byte p * pitch + channel * esize,
#   pitch = channels * esize, or the swizzle span, the byte then swizzled
#   on its absolute address (ptx.md: A ^ (((A >> 7) & m) << 4)).
#   ::w: H, D and N stay; W = c1 + wOffset + i * stride_1 for row i (::w,
#   pixels + wHalo rows) or for i = 32 g + k, row k of group g of 32 +
#   wHalo rows (::w::128, 4 groups).
# The load's expect_tx is rows * channels * esize, worked out here too: a
# wrong byte count in the emulator would leave the wait hanging (an error).
# A fresh H100 may disagree with this model where doc/tma-im2col.md says
# so; bench/im2col_gpu.sh runs these same kernels on the GPU.
#
# Rejections: the exact messages of the im2col rules (txc-parse).
# Compilation: txc --emit=cubin through ptxas for sm_90a (im2col load,
# prefetch, store, reduce) and sm_100a (::w, ::w::128); a SKIP without nvcc.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
sub list { '[' . join(', ', @_) . ']' }

my %es = (float16 => 2, float32 => 4);
my %descr = (float16 => '<f2', float32 => '<f4');

# The cases: dims innermost first (C, W, [H, [D,]] N).
my @cases = (
    { name => 'rank 3, padding 1: the bases wrap into image 1, then past N', dt => 'float16',
      dims => [16, 10, 2], lower => [-1], upper => [-1], ch => 16, px => 24, c => [0, -1, 0], off => [0] },
    { name => 'rank 3, offset 2 from base 3', dt => 'float16',
      dims => [16, 10, 2], lower => [-1], upper => [-1], ch => 16, px => 20, c => [0, 3, 0], off => [2] },
    { name => 'rank 3, traversal stride 2 in W', dt => 'float16', estr => [1, 2, 1],
      dims => [16, 9, 2], lower => [0], upper => [0], ch => 16, px => 12, c => [0, 2, 0], off => [1] },
    { name => 'rank 4, padding 1 in W and H, offsets (1, 2)', dt => 'float16',
      dims => [32, 5, 4, 2], lower => [-1, -1], upper => [-1, -1], ch => 32, px => 32, c => [0, 2, -1, 0], off => [1, 2] },
    { name => 'rank 4, channels 8 .. 39 of 24 (the rest filled), image 1', dt => 'float16',
      dims => [24, 5, 4, 2], lower => [0, 0], upper => [-2, -2], ch => 32, px => 16, c => [8, 1, 0, 1], off => [2, 0] },
    { name => 'rank 4, 64-byte swizzle, NaN fill, asymmetric corners', dt => 'float16', sw => 64, fill => 'nan',
      dims => [32, 6, 3, 2], lower => [-2, -1], upper => [1, 0], ch => 32, px => 24, c => [0, -2, -1, 0], off => [0, 1] },
    { name => 'rank 4, 128-byte swizzle, traversal strides 2 in W and H', dt => 'float16', sw => 128,
      estr => [1, 2, 2, 1], dims => [64, 7, 5, 1], lower => [-1, -1], upper => [-1, -1], ch => 64, px => 16,
      c => [0, -1, -1, 0], off => [1, 1] },
    { name => 'rank 5 (NDHWC), padding 1, offsets (1, 1, 1)', dt => 'float16',
      dims => [8, 3, 3, 3, 2], lower => [-1, -1, -1], upper => [-1, -1, -1], ch => 8, px => 40,
      c => [0, -1, -1, -1, 0], off => [1, 1, 1] },
    { name => 'rank 3 float32, box [1, W-3], offset 3', dt => 'float32',
      dims => [4, 7, 3], lower => [1], upper => [-2], ch => 4, px => 30, c => [0, 2, 1], off => [3] },
    { name => 'rank 3, 32-byte swizzle', dt => 'float16', sw => 32,
      dims => [16, 12, 1], lower => [0], upper => [0], ch => 16, px => 16, c => [0, 0, 0], off => [0] },
    { name => 'im2col::w (sm_100a): 32 pixels + wHalo 2, wOffset 1', dt => 'float16', sw => 64, mode => 'im2col::w',
      dims => [32, 40, 2], lower => [-1], upper => [-1], ch => 32, px => 32, c => [0, -1, 1], off => [2, 1] },
    { name => 'im2col::w::128 (sm_100a): 4 groups of 32 + wHalo 2', dt => 'float16', sw => 64, mode => 'im2col::w::128',
      dims => [32, 140, 2, 1], lower => [0], upper => [0], ch => 32, c => [0, 5, 1, 0], off => [2, 0] },
    { name => 'im2col::w (sm_100a), traversal stride 2, wHalo 1', dt => 'float16', sw => 128, mode => 'im2col::w',
      estr => [1, 2, 1], dims => [32, 70, 1], lower => [-1], upper => [0], ch => 32, px => 32, c => [0, -1, 0],
      off => [1, 0] },
);

# The rows of case k's load and the tensor coordinates (C last) of each.
sub rows_of {
    my ($k) = @_;
    my @d = @{ $k->{dims} };
    my $R = @d;
    my $mode = $k->{mode} // 'im2col';
    my @st = @{ $k->{estr} // [(1) x $R] };
    my @r;
    if ($mode eq 'im2col') {
        my @pos = @{ $k->{c} };
        for (1 .. $k->{px}) {
            my @x = @pos;
            $x[$_] += $k->{off}[$_ - 1] for 1 .. $R - 2;
            push @r, \@x;
            my $d = 1;
            while (1) {
                if ($d == $R - 1) { $pos[$d]++; last }
                $pos[$d] += $st[$d];
                last if $pos[$d] <= $d[$d] - 1 + $k->{upper}[$d - 1];
                $pos[$d] = $k->{lower}[$d - 1];
                $d++;
            }
        }
    } else {
        my ($halo, $woff) = @{ $k->{off} };
        my $nrows = $mode eq 'im2col::w' ? $k->{px} + $halo : 4 * (32 + $halo);
        for my $row (0 .. $nrows - 1) {
            my $i = $mode eq 'im2col::w' ? $row : int($row / (32 + $halo)) * 32 + $row % (32 + $halo);
            my @x = @{ $k->{c} };
            $x[1] = $k->{c}[1] + $woff + $i * $st[1];
            push @r, \@x;
        }
    }
    return @r;
}

# The kernel of case k, and (rows, pitch, shared elements of 16 bits).
sub kernel {
    my ($k, $rows) = @_;
    my @d = @{ $k->{dims} };
    my $R = @d;
    my $e = $es{ $k->{dt} };
    my @strides = ($d[0] * $e);
    push @strides, $strides[-1] * $d[$_] for 1 .. $R - 2;
    my $pitch = $k->{sw} // $k->{ch} * $e;
    my $span = $rows * $pitch;
    my $sn = int(($span + 256) / 2 / 128 + 1) * 128;   # 256 bytes to spare after the box
    my $bytes = $rows * $k->{ch} * $e;
    my $mode = $k->{mode} // 'im2col';
    my $extra = '';
    $extra .= ", elem_strides=" . list(@{ $k->{estr} }) if $k->{estr};
    $extra .= ", swizzle=$k->{sw}" if $k->{sw};
    $extra .= ", fill=\"$k->{fill}\"" if $k->{fill};
    $extra .= ", mode=\"$mode\"" if $mode ne 'im2col';
    $extra .= ", pixels_per_column=$k->{px}" if $mode ne 'im2col::w::128';
    my $shape = join(', ', reverse @d);
    my $ops = join(', ', @{ $k->{c} }, @{ $k->{off} });
    my $txt = <<"EOF";
from tvm.script import tir as T


\@T.prim_func
def i2c(A_ptr: T.handle, R_ptr: T.handle):
    A = T.match_buffer(A_ptr, ($shape), "$k->{dt}")
    R = T.match_buffer(R_ptr, ($sn,), "uint16")
    A_map = T.tensormap_im2col(A, dims=@{[list(@d)]}, strides=@{[list(@strides)]}, lower_corner=@{[list(@{$k->{lower}})]}, upper_corner=@{[list(@{$k->{upper}})]}, channels_per_pixel=$k->{ch}$extra)
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    S = T.alloc_shared([$sn], "uint16", align=1024)
    bar = T.alloc_shared([1], "uint64")
    for k in range(@{[$sn / 128]}):
        S[tid * @{[$sn / 128]} + k] = T.uint16(0x5555)
    T.ptx.fence.proxy_async()
    if tid == 0:
        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)
        T.ptx.fence.mbarrier_init()
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[0]), $bytes)
        T.ptx.cp_async.bulk.tensor.g2c($R, T.address_of(S[0]), T.address_of(bar[0]), A_map, $ops)
    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
    for k in range(@{[$sn / 128]}):
        R[tid * @{[$sn / 128]} + k] = S[tid * @{[$sn / 128]} + k]
EOF
    return ($txt, $pitch, $sn);
}

# A's 16-bit words: word i of A is i + 1 (float32: low word i + 1, high 0x4000 + i % 7).
sub a_words {
    my ($k) = @_;
    my $num = 1;
    $num *= $_ for @{ $k->{dims} };
    return $k->{dt} eq 'float16' ? map { ($_ + 1) & 0xffff } 0 .. $num - 1
                                 : map { (($_ + 1) & 0xffff, 0x4000 + $_ % 7) } 0 .. $num - 1;
}

sub model {
    my ($k, $rowsref, $pitch, $sn, $a) = @_;
    my @d = @{ $k->{dims} };
    my $R = @d;
    my $e = $es{ $k->{dt} };
    my $w = $e / 2;                      # 16-bit words per element
    my @s = (0x5555) x $sn;
    my $mask = $k->{sw} ? $k->{sw} / 16 - 1 : 0;
    my $fill = ($k->{fill} // 'zero') eq 'nan' ? 0x7FF7 : 0;
    my @rows = @$rowsref;
    for my $p (0 .. $#rows) {
        for my $ch (0 .. $k->{ch} - 1) {
            my @x = @{ $rows[$p] };
            $x[0] = $k->{c}[0] + $ch;
            my $in = 1;
            $in &&= $x[$_] >= 0 && $x[$_] < $d[$_] for 0 .. $R - 1;
            my $lin = 0;
            $lin = $lin * $d[$_] + $x[$_] for reverse 0 .. $R - 1;
            my $l = $ch * $e + $pitch * $p;
            my $phys = $l ^ ((($l >> 7) & $mask) << 4);
            for my $h (0 .. $w - 1) {
                $s[$phys / 2 + $h] = $in ? $a->[$lin * $w + $h] : $fill;
            }
        }
    }
    return @s;
}

# ---- loads, element by element against the model -----------------------------
for my $i (0 .. $#cases) {
    my $k = $cases[$i];
    my @rows = rows_of($k);
    my ($txt, $pitch, $sn) = kernel($k, scalar @rows);
    spit("$tmp/c$i.tx", $txt);
    my @a = a_words($k);
    npy_put("$tmp/a$i.npy", $descr{ $k->{dt} }, [reverse @{ $k->{dims} }],
            pack('v*', @a));
    my $rc = system("'$bin/txc-emu' --in A='$tmp/a$i.npy' --out R='$tmp/r$i.npy' '$tmp/c$i.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    if ($rc) {
        ok(0, "load $i ($k->{name}): runs", slurp("$tmp/err"));
        next;
    }
    my (undef, $data) = npy_get("$tmp/r$i.npy");
    my @got = unpack('v*', $data);
    my @want = model($k, \@rows, $pitch, $sn, \@a);
    my @bad = grep { $got[$_] != $want[$_] } 0 .. $#want;
    ok(@got == @want && !@bad, "load $i ($k->{name}): " . scalar(@rows) . " rows of $k->{ch} channels, "
       . "every 16-bit word of shared memory as the model says",
       map { sprintf("word %d: got 0x%04x want 0x%04x", $_, $got[$_], $want[$_]) } @bad[0 .. ($#bad < 5 ? $#bad : 5)]);
}

# the example: B[n, q, r, c] = A[n, q - 1 + r, c], or 0 outside the image
{
    my @a = map { ($_ * 40503 + 11) & 0xffff } 0 .. 511;
    npy_put("$tmp/ex_a.npy", '<f2', [2, 16, 16], pack('v*', @a));
    my $rc = system("'$bin/txc-emu' --in A='$tmp/ex_a.npy' --out B='$tmp/ex_b.npy' '$top/examples/tma_im2col.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my @b = $rc ? () : unpack('v*', (npy_get("$tmp/ex_b.npy"))[1]);
    my $good = @b == 1536;
    for my $nn (0 .. 1) { for my $q (0 .. 15) { for my $r (0 .. 2) { for my $c (0 .. 15) {
        my $w = $q - 1 + $r;
        my $want = $w >= 0 && $w < 16 ? $a[($nn * 16 + $w) * 16 + $c] : 0;
        $good &&= $b[(($nn * 16 + $q) * 3 + $r) * 16 + $c] == $want;
    } } } }
    ok($good, "examples/tma_im2col.tx: B is the im2col matrix of a 3-tap convolution with padding 1", slurp("$tmp/err"));
}

# ---- a store through an im2col map (.im2col_no_offs) ---------------------------
# S row p (16 channels) = 1000 p + channel; the 10 pixels from (w 2, n 0)
# walk W 2..5 of image 0, then W 0..5 of image 1; B starts at 0.
{
    my $txt = <<'EOF';
from tvm.script import tir as T


@T.prim_func
def st(B_ptr: T.handle):
    B = T.match_buffer(B_ptr, (2, 6, 16), "int16")
    B_map = T.tensormap_im2col(B, dims=[16, 6, 2], strides=[32, 192], lower_corner=[0], upper_corner=[0], channels_per_pixel=16, pixels_per_column=10)
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([160])
    S = T.alloc_shared([10, 16], "int16", align=128)
    S[tid // 16, tid % 16] = T.int16(tid // 16 * 1000 + tid % 16)
    T.ptx.fence.proxy_async()
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx.cp_async.bulk.tensor.s2g(3, T.address_of(S[0, 0]), B_map, 0, 2, 0)
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group(0)
EOF
    spit("$tmp/st.tx", $txt);
    npy_put("$tmp/st_b0.npy", '<i2', [2, 6, 16], pack('v*', (0) x 192));
    my $rc = system("'$bin/txc-emu' --in B='$tmp/st_b0.npy' --out B='$tmp/st_b.npy' '$tmp/st.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my @b = $rc ? () : unpack('s<*', (npy_get("$tmp/st_b.npy"))[1]);
    my @want = (0) x 192;
    my @pix = ((map { [0, $_] } 2 .. 5), (map { [1, $_] } 0 .. 5));
    for my $p (0 .. 9) { for my $c (0 .. 15) { $want[($pix[$p][0] * 6 + $pix[$p][1]) * 16 + $c] = $p * 1000 + $c } }
    ok(@b == 192 && join(',', @b) eq join(',', @want),
       "s2g through an im2col map: rows 0-3 to W 2..5 of image 0, rows 4-9 to W 0..5 of image 1, nothing else",
       slurp("$tmp/err"));
}

# ---- rejections, with their exact messages -------------------------------------
# Each: the map line (MAP replaces the base one), the call line (CALL
# replaces the base one), the target, the token the error points at, and
# the message.
my $base_map = 'A_map = T.tensormap_im2col(A, dims=[32, 8, 8, 2], strides=[64, 512, 4096], lower_corner=[-1, -1], upper_corner=[-1, -1], channels_per_pixel=32, pixels_per_column=64)';
my $base_call = 'T.ptx.cp_async.bulk.tensor.g2c(4, T.address_of(S[0]), T.address_of(bar[0]), A_map, 0, -1, -1, 0, 1, 1)';
my @bad = (
    [ 'im2col rank 2', 'A_map = T.tensormap_im2col(A, dims=[32, 256], strides=[64], lower_corner=[0], upper_corner=[0], channels_per_pixel=32, pixels_per_column=64)',
      undef, 'sm_90a', '[32, 256]', 'an im2col tensor map has 3 to 5 dimensions (C, W, [H, [D,]] N), not 2' ],
    [ 'corner out of range for rank 4', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[-129, 0]/r,
      undef, 'sm_90a', '[-129, 0]', 'lower_corner entry 0 is -129; in a rank-4 im2col map the corners are -128 to 127' ],
    [ 'corner count', $base_map =~ s/upper_corner=\[-1, -1\]/upper_corner=[-1]/r,
      undef, 'sm_90a', '[-1]', 'upper_corner= has 1 entry; a rank-4 im2col map has 2 (dimensions 1 to 2)' ],
    [ 'empty bounding box', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[-1, 4]/r =~ s/upper_corner=\[-1, -1\]/upper_corner=[-1, -4]/r,
      undef, 'sm_90a', 'T.tensormap_im2col', 'the bounding box is empty in dimension 2: from lower_corner 4 to dims-1 + upper_corner = 7 - 4 = 3' ],
    [ 'channels not a multiple of 16 bytes', $base_map =~ s/channels_per_pixel=32/channels_per_pixel=12/r,
      undef, 'sm_90a', 'pixel=|12', "channels_per_pixel= is 12 x 2 = 24 bytes; a pixel's channels are a multiple of 16 bytes" ],
    [ 'channels above 256', $base_map =~ s/channels_per_pixel=32/channels_per_pixel=264/r,
      undef, 'sm_90a', 'pixel=|264', 'channels_per_pixel= is 264; it is 1 to 256' ],
    [ 'pixels above 1024', $base_map =~ s/pixels_per_column=64/pixels_per_column=1025/r,
      undef, 'sm_90a', '1025', 'pixels_per_column= is 1025; it is 1 to 1024' ],
    [ 'channels wider than the swizzle', $base_map =~ s/\)$/, swizzle=32)/r,
      undef, 'sm_90a', '32, pixels', 'channels_per_pixel= is 64 bytes, wider than the 32-byte swizzle span' ],
    [ 'offsets count wrong', undef, $base_call =~ s/, 1, 1\)$/, 1)/r, 'sm_90a', 'T.ptx.cp_async.bulk.tensor.g2c',
      "T.ptx.cp_async.bulk.tensor.g2c() gives 5 operands after the tensor map; im2col map 'A_map' takes 4 coordinates and then 2 im2col offsets (W, H, D: dimensions 1 to rank-2)" ],
    [ 'a tile-mode call on an im2col map', undef, $base_call =~ s/, 1, 1\)$/)/r, 'sm_90a', 'T.ptx.cp_async.bulk.tensor.g2c',
      "T.ptx.cp_async.bulk.tensor.g2c() gives 4 operands after the tensor map; im2col map 'A_map' takes 4 coordinates and then 2 im2col offsets (W, H, D: dimensions 1 to rank-2)" ],
    [ 'im2col offsets through a tiled map', 'A_map = T.tensormap(A, dims=[32, 8, 8, 2], strides=[64, 512, 4096], box=[32, 8, 8, 1])',
      undef, 'sm_90a', 'T.ptx.cp_async.bulk.tensor.g2c',
      "T.ptx.cp_async.bulk.tensor.g2c() gives 6 coordinates; tensor map 'A_map' has 4 dimensions (im2col operands need a T.tensormap_im2col map)" ],
    [ 'offset out of range for rank 4', undef, $base_call =~ s/, 1, 1\)$/, 256, 1)/r, 'sm_90a', '256',
      "im2col offset 0 is 256; through im2col map 'A_map' (rank 4) it is 0 to 255" ],
    [ 'im2col::w on sm_90a', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[-1]/r =~ s/upper_corner=\[-1, -1\]/upper_corner=[-1]/r =~ s/\)$/, swizzle=64, mode="im2col::w")/r,
      undef, 'sm_90a', '"im2col::w"', 'mode="im2col::w" (cuTensorMapEncodeIm2colWide) needs sm_100a; the target is sm_90a' ],
    [ 'im2col::w without a swizzle', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[-1]/r =~ s/upper_corner=\[-1, -1\]/upper_corner=[-1]/r =~ s/\)$/, mode="im2col::w")/r,
      undef, 'sm_100a', 'T.tensormap_im2col', 'mode="im2col::w" needs swizzle= 64 or 128 (cuTensorMapEncodeIm2colWide), not 0' ],
    [ 'im2col::w::128 with pixels_per_column', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[-1]/r =~ s/upper_corner=\[-1, -1\]/upper_corner=[-1]/r =~ s/\)$/, swizzle=64, mode="im2col::w::128")/r,
      undef, 'sm_100a', '64, swizzle', 'mode="im2col::w::128" loads 128 pixels; it takes no pixels_per_column=' ],
    [ 'wHalo out of range', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[-1]/r =~ s/upper_corner=\[-1, -1\]/upper_corner=[-1]/r =~ s/\)$/, swizzle=64, mode="im2col::w")/r,
      $base_call =~ s/, 1, 1\)$/, 512, 0)/r, 'sm_100a', '512', "wHalo is 512; through im2col::w map 'A_map' (rank 4) it is 0 to 511" ],
    [ 'a store through an im2col map with padding', undef, 'T.ptx.cp_async.bulk.tensor.s2g(4, T.address_of(S[0]), A_map, 0, 0, 0, 0)',
      'sm_90a', 'A_map, 0', "T.ptx.cp_async.bulk.tensor.s2g() through im2col map 'A_map' (.im2col_no_offs): its bounding box must stay inside the tensor, lower_corner >= 0 and upper_corner <= 0, not -1 and -1 in dimension 1" ],
    [ 'a store through an im2col::w map', $base_map =~ s/lower_corner=\[-1, -1\]/lower_corner=[0]/r =~ s/upper_corner=\[-1, -1\]/upper_corner=[0]/r =~ s/\)$/, swizzle=64, mode="im2col::w")/r,
      'T.ptx.cp_async.bulk.tensor.s2g(4, T.address_of(S[0]), A_map, 0, 0, 0, 0)', 'sm_100a', 'A_map, 0',
      "T.ptx.cp_async.bulk.tensor.s2g() has no im2col::w form: PTX stores and reduces through tile and im2col maps only ('A_map' is mode \"im2col::w\")" ],
);
for my $i (0 .. $#bad) {
    my ($name, $map, $call, $target, $tok, $msg) = @{ $bad[$i] };
    $map //= $base_map;
    $call //= $base_call;
    my $txt = <<"EOF";
from tvm.script import tir as T


\@T.prim_func
def bad(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 8, 8, 32), "float16")
    $map
    T.device_entry()
    tid = T.thread_id([128])
    S = T.alloc_shared([4096], "float16", align=1024)
    bar = T.alloc_shared([1], "uint64")
    if tid == 0:
        $call
EOF
    spit("$tmp/b$i.tx", $txt);
    my @lines = split /\n/, $txt;
    my $skip = 0;
    ($skip, $tok) = (length $1, "$1$2") if $tok =~ /^(.*)\|(.*)$/;   # PREFIX|TOKEN: the error is at TOKEN
    my ($ln) = grep { index($lines[$_], $tok) >= 0 && ($lines[$_] =~ /A_map = / ? 1 : 0) == (index($map, $tok) >= 0 && index($call, $tok) < 0 ? 1 : 0) } 0 .. $#lines;
    my $want = defined $ln ? sprintf("%s:%d:%d: error: %s\n", "$tmp/b$i.tx", $ln + 1, index($lines[$ln], $tok) + $skip + 1, $msg) : "(token '$tok' not found)\n";
    my $rc = system("'$bin/txc-parse' --target $target '$tmp/b$i.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($err) = split /(?<=\n)/, slurp("$tmp/err");   # the message; the quoted line and caret follow
    $err //= '';
    ok($rc == 1 && $err eq $want, "refused: $name", "want (exit 1): $want", "got (exit $rc): $err");
}

# ---- the emulator's errors: operands only known when the copy runs ------------
# (the base kernel's map: rank 4, box W and H from -1 to 8 - 1 - 1 = 6)
my @emu_bad = (
    [ 'an offset out of range at run time', 'o = tid + 256', '0, -1, -1, 0, o, 1', 'o, 1',
      "T.ptx.cp_async.bulk.tensor.g2c: im2col offset 0 is 256; through im2col map 'A_map' (rank 4) it is 0 to 255" ],
    [ 'a filter base right of the bounding box', 'o = tid + 7', '0, o, -1, 0, 1, 1', 'o, -1, 0, 1, 1',
      "T.ptx.cp_async.bulk.tensor.g2c: the filter base 7 in dimension 1 is outside the bounding box of im2col map 'A_map', -1 to 6" ],
    [ 'a filter base below the bounding box', 'o = tid - 2', '0, 0, o, 0, 1, 1', 'o, 0, 1, 1',
      "T.ptx.cp_async.bulk.tensor.g2c: the filter base -2 in dimension 2 is outside the bounding box of im2col map 'A_map', -1 to 6" ],
);
for my $i (0 .. $#emu_bad) {
    my ($name, $let, $ops, $tok, $msg) = @{ $emu_bad[$i] };
    my $txt = <<"EOF";
from tvm.script import tir as T


\@T.prim_func
def bad(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 8, 8, 32), "float16")
    $base_map
    T.device_entry()
    tid = T.thread_id([32])
    S = T.alloc_shared([4096], "float16", align=1024)
    bar = T.alloc_shared([1], "uint64")
    if tid == 0:
        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)
        $let
        T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[0]), 4096)
        T.ptx.cp_async.bulk.tensor.g2c(4, T.address_of(S[0]), T.address_of(bar[0]), A_map, $ops)
    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
EOF
    spit("$tmp/e$i.tx", $txt);
    my @lines = split /\n/, $txt;
    my ($ln) = grep { $lines[$_] =~ /g2c/ } 0 .. $#lines;
    # the error is at the operand: the first of the TOKEN tail of the operands
    my $want = sprintf("%s:%d:%d: error: thread (cta 0, thread 0): %s\n", "$tmp/e$i.tx", $ln + 1,
                       index($lines[$ln], "A_map, $ops") + length("A_map, $ops") - length($tok) + 1, $msg);
    my $rc = system("'$bin/txc-emu' '$tmp/e$i.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($err) = split /(?<=\n)/, slurp("$tmp/err");
    $err //= '';
    ok($rc == 1 && $err eq $want, "emulator: $name", "want (exit 1): $want", "got (exit $rc): $err");
}

# ---- through ptxas ---------------------------------------------------------------
my $have_nvcc = have_nvcc();
for my $i (0 .. $#cases) {
    my $k = $cases[$i];
    my $arch = ($k->{mode} // 'im2col') eq 'im2col' ? 'sm_90a' : 'sm_100a';
    if (!$have_nvcc) { skip("load $i: ptxas $arch", "no nvcc"); next }
    my $rc = system("'$bin/txc' --arch=$arch --emit=cubin -o '$tmp/c$i.cubin' '$tmp/c$i.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $cu = `'$bin/txc' --arch=$arch '$tmp/c$i.tx' 2>/dev/null`;
    my $R = @{ $k->{dims} };
    my $lm = $k->{mode} // 'im2col';
    ok($rc == 0 && index($cu, "cp.async.bulk.tensor.${R}d.shared::cluster.global.$lm.mbarrier::complete_tx::bytes") >= 0,
       "load $i: the .$lm form, through ptxas for $arch", slurp("$tmp/err"));
}
# prefetch, store and reduction forms, and the L2 cache hint, sm_90a
{
    my $txt = <<'EOF';
from tvm.script import tir as T


@T.prim_func
def forms(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 8, 8, 32), "float16")
    B = T.match_buffer(B_ptr, (2, 8, 8, 32), "float16")
    A_map = T.tensormap_im2col(A, dims=[32, 8, 8, 2], strides=[64, 512, 4096], lower_corner=[-1, -1], upper_corner=[-1, -1], channels_per_pixel=32, pixels_per_column=64)
    B_map = T.tensormap_im2col(B, dims=[32, 8, 8, 2], strides=[64, 512, 4096], lower_corner=[0, 0], upper_corner=[0, 0], channels_per_pixel=32, pixels_per_column=64)
    T.device_entry()
    tid = T.thread_id([128])
    S = T.alloc_shared([2048], "float16", align=1024)
    bar = T.alloc_shared([1], "uint64")
    if tid == 0:
        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)
        T.ptx.cp_async.bulk.tensor.prefetch(4, A_map, 0, -1, -1, 0, 1, 2)
        T.ptx.cp_async.bulk.tensor.prefetch(4, A_map, 0, -1, -1, 0, tid + 1, 2, cache_hint=T.uint64(0))
        T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[0]), 4096)
        T.ptx.cp_async.bulk.tensor.g2c(4, T.address_of(S[0]), T.address_of(bar[0]), A_map, 0, -1, -1, 0, 2, 0, cache_hint=T.uint64(0))
    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
    if tid == 0:
        T.ptx.cp_async.bulk.tensor.s2g(4, T.address_of(S[0]), B_map, 0, 0, 0, 0)
        T.ptx.cp_async.bulk.tensor.s2g_reduce(4, T.address_of(S[0]), B_map, 0, 0, 0, 1, red_op="add")
        T.ptx.cp_async.bulk.commit_group()
        T.ptx.cp_async.bulk.wait_group(0)
EOF
    spit("$tmp/forms.tx", $txt);
    my $rc = system("'$bin/txc-emu' '$tmp/forms.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    ok($rc == 0, "prefetch, load with a cache hint, store and reduction through im2col maps: run on the emulator", slurp("$tmp/err"));
    my $cu = `'$bin/txc' '$tmp/forms.tx' 2>&1`;
    my @want = ('cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%0, {%1, %2, %3, %4}], {%5, %6};',
                'cp.async.bulk.prefetch.tensor.4d.L2.global.im2col.L2::cache_hint [%0, {%1, %2, %3, %4}], {%5, %6}, %7;',
                'cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%2, {%3, %4, %5, %6}], [%1], {%7, %8}, %9;',
                'cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%1, {%2, %3, %4, %5}], [%0];',
                'cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.im2col_no_offs.bulk_group [%1, {%2, %3, %4, %5}], [%0];');
    for my $w (@want) {
        ok(index($cu, $w) >= 0, "the CUDA holds: $w", $cu);
    }
    if ($have_nvcc) {
        $rc = system("'$bin/txc' --emit=cubin -o '$tmp/forms.cubin' '$tmp/forms.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
        ok($rc == 0, "prefetch, load, store, reduction through im2col maps: through ptxas for sm_90a", slurp("$tmp/err"));
        $rc = system("'$bin/txc' --emit=cubin -o '$tmp/ex.cubin' '$top/examples/tma_im2col.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
        ok($rc == 0, "examples/tma_im2col.tx: through ptxas for sm_90a", slurp("$tmp/err"));
    } else {
        skip("prefetch, load, store, reduction: ptxas", "no nvcc");
        skip("examples/tma_im2col.tx: ptxas", "no nvcc");
    }
}


# ---- on the GPU: each sm_90a load and the example against the emulator --------
# txc-run runs the cubin and compares every buffer (A, and R: the whole
# shared buffer) bit for bit with txc-emu; exit 3 (no GPU) is a SKIP. A
# FAIL here is a place where the H100 and doc/tma-im2col.md's model differ:
# the mismatches are printed, and R (GPU) is kept as $tmp/gpu_rI.npy with
# KEEP=1.
my @gpu = ((map { [ "load $_ ($cases[$_]{name})", "$tmp/c$_.tx", "$tmp/c$_.cubin", "--in A='$tmp/a$_.npy' --out R='$tmp/gpu_r$_.npy'" ] }
            grep { ($cases[$_]{mode} // 'im2col') eq 'im2col' } 0 .. $#cases),
           [ 'examples/tma_im2col.tx', "$top/examples/tma_im2col.tx", "$tmp/ex.cubin", "--in A='$tmp/ex_a.npy'" ],
           [ 'prefetch, load with a cache hint, store and reduction', "$tmp/forms.tx", "$tmp/forms.cubin", '' ]);
for my $g (@gpu) {
    my ($name, $tx, $cubin, $args) = @$g;
    if (!$have_nvcc || !-s $cubin) { skip("gpu: $name", "no nvcc"); next }
    my $rc = system("'$bin/txc-run' --cubin '$cubin' $args '$tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    if ($rc == 3) { skip("gpu: $name", "no GPU"); next }
    ok($rc == 0, "gpu: $name: the H100 agrees with the emulator, bit for bit", slurp("$tmp/out"), slurp("$tmp/err"));
}

done();
