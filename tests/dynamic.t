#!/usr/bin/env perl
# Symbolic extents: T.match_buffer(h, (m, ...)) whose outermost extent is
# a scalar parameter m, bounded by T.assume. One kernel for every m up to
# the bound: each access to such a buffer is guarded by its row against m
# (a load past the end gives zeros: copy_bytes then T.cuda.zero_bytes,
# cp.async's predicate, TMA's out-of-bounds fill; a store there is not
# made), vectors never cross the end, and the emulator and txc-run give
# the buffer m rows. The kernels are in tests/dynamic/.
#
# For each kernel and several m (the bound, m in the middle of a tile, one
# row): the source program (the emulator's tile-level copies) and the
# lowered one give the same buffers; C, of the bound's rows, holds A's rows
# below m, then zeros: to the end of the bound where every CTA copies its
# tile, to the end of the tile that straddles m where (sync.tx) the CTAs
# past m copy nothing, and C's own data after that; B (m rows) equals A. Both backends' code goes
# through ptxas; on a GPU, txc-run checks each against the emulator.
use strict;
use warnings;
BEGIN { require "./tests/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
my $dir = "$top/tests/dynamic";
my $ptxas = -x "/usr/local/cuda/bin/ptxas" || !system("command -v ptxas >/dev/null 2>&1");
my $nvcc = have_nvcc();

sub run { my ($cmd) = @_; my $rc = system("$cmd >'$tmp/out' 2>'$tmp/err'") >> 8; return $rc }

# the raw bytes of a .npy file's data
sub npy {
    my ($f) = @_;
    my $b = slurp($f);
    return '' unless length($b) >= 10 && substr($b, 0, 6) eq "\x93NUMPY";
    my $h = unpack("v", substr($b, 8, 2));
    return substr($b, 10 + $h);
}

# kernel, scalar name, bound, row bytes, tile rows of the CTAs that copy
# only below m (0: every CTA copies; undef: no C), m values
my @kernels = (
    ['sync', 'm', 4096, 512, 16, [4096, 1000, 17, 1]],
    ['reg', 'm', 1024, 1024, 0, [1024, 1021, 5]],
    ['ldgsts', 'm', 512, 512, 0, [512, 300, 1]],
    ['tma', 'm', 1024, 256, 0, [1024, 1000, 1]],
    ['fallback', 'm', 100, 24, 0, [100, 37, 1]],
    ['tvm_buffer', 'm', 512, 128, undef, [512, 100, 1, 0]],
    ['tvm_int32', 'm', 1024, 512, undef, [1024, 100, 1, 0]],
    ['vec', 'n', 65536, 2, undef, [65536, 1001, 3]],
    ['vec4', 'n', 65536, 2, undef, [65536, 1000, 4]],
    ['vasync', 'n', 65536, 2, 0, [65536, 1001, 3]],
    ['ceil', 'm', 1000, 128, undef, [1000, 999, 961, 64, 65, 1]],
    ['int64_loop', 'n', 100000, 2, undef, [100000, 99999, 512, 513, 1]],
    ['fallback64', 'm', 100, 24, 0, [100, 37, 4, 5, 1]],
);

for my $k (@kernels) {
    my ($name, $p, $bound, $rowb, $tile, $ms) = @$k;
    my ($src, $ir) = ("$dir/$name.tx", "$tmp/$name.ir");
    ok(run("'$bin/txc' --emit=ir '$src' -o '$ir'") == 0, "$name: lowers", slurp("$tmp/err")) or next;
    my $low = slurp($ir);
    if ($name eq 'vasync') {
        ok($low =~ /T\.ptx\.cp_async\([^\n]*, 16, 0, 0, T\.min\(T\.max\(\(n - \([^\n]*\)\) \* 2, 0\), 16\)\)/ || 0,
           "$name: 16-byte cp.async whose source size stops at the end", $low);
        ok(($low =~ /if [^\n]* < n:\n\s+T\.cuda\.copy_bytes\(g_ptr, s_ptr, 2\)/ &&
            $low =~ /T\.cuda\.copy_bytes\(T\.pointer_offset\(C, [^\n]*\), T\.pointer_offset\(tile, [^\n]*\), 16\)/) ? 1 : 0,
           "$name: stores of 2 bytes to B (guarded), of 16 to C", $low);
    } elsif ($name eq 'ldgsts') {
        ok($low =~ /T\.ptx\.cp_async\([^\n]*, -1, [^\n]* < m \* 128\)/ || 0, "$name: cp.async's predicate is the row guard");
    } elsif ($name eq 'tma') {
        ok(($low =~ /T\.tensormap\(A, dims=\[128, m\]/ && $low =~ /T\.tensormap\(B, dims=\[128, m\]/) ? 1 : 0,
           "$name: the tensor maps' outer dimension is m");
    } elsif ($name eq 'ceil') {
        ok($low =~ /T\.ptx\.cp_async\([^\n]*, -1, [^\n]* < m \* 64\)/ && $low =~ /if [^\n]* < m \* 64:\n\s+T\.cuda\.copy_bytes\(g_ptr/ || 0,
           "$name: the tile past the bound: cp.async's predicate and the store's guard are the row against m", $low);
    } elsif ($name eq 'int64_loop') {
        ok(($low =~ /T\.pointer_offset\(A, T\.cast\(t \* 512, "int32"\) \+ f \* 128 \+ tid\)/ &&
            $low =~ /if T\.cast\(t, "int64"\) \* 512 [^\n]* < T\.cast\(n, "int64"\):/) ? 1 : 0,
           "$name: the int64 start read as int32 in the address, the guard in 64 bits", $low);
    } elsif ($name eq 'fallback64') {
        ok($low =~ /if T\.cast\(bx \* 4 \+ i0, "int64"\) < T\.cast\(m, "int64"\):/ || 0,
           "$name: the row guard in 64 bits", $low);
    } elsif ($name eq 'fallback') {
        ok($low =~ /if bx \* 4 \+ i0 < m:\n\s+C\[[^\n]*\] = A\[[^\n]*\n\s+else:\n\s+C\[[^\n]*\] = T\.cast\(0, "float32"\)/ || 0,
           "$name: a read past row m gives zero", $low);
    } else {
        my $inner = $rowb / ($name =~ /^(ldgsts|tvm_int32)$/ ? 4 : 2);
        my $w = $name eq 'vec' ? 2 : $name eq 'vec4' ? 8 : 16;
        my $lim = $inner == 1 ? "$p" : "$p \\* $inner";
        ok($low =~ /if [^\n]* < $lim:\n\s+T\.cuda\.copy_bytes\([sr]_ptr, g_ptr, $w\)\n\s+else:\n\s+T\.cuda\.zero_bytes\([sr]_ptr, $w\)/ || 0,
           "$name: loads of $w bytes guarded, zeros past the end", $low);
        ok($low =~ /if [^\n]* < $lim:\n\s+T\.cuda\.copy_bytes\(g_ptr, [sr]_ptr, $w\)\n(?!\s+else)/ || 0,
           "$name: stores of $w bytes guarded");
    }
    for my $m (@$ms) {
        my @sum;
        for my $f ($src, $ir) {
            my $rc = run("'$bin/txc-emu' '$f' --arg $p=$m --out A='$tmp/A.npy' --out B='$tmp/B.npy'" .
                         (defined $tile ? " --out C='$tmp/C.npy'" : ""));
            push @sum, $rc ? "exit $rc: " . slurp("$tmp/err") : slurp("$tmp/out");
        }
        ok($sum[0] eq $sum[1] && $sum[0] !~ /^exit/, "$name, $p=$m: the source and the lowered program agree",
           "source: $sum[0]", "lowered: $sum[1]");
        my ($a, $b) = (npy("$tmp/A.npy"), npy("$tmp/B.npy"));
        ok(length($a) == $m * $rowb && $a eq $b, "$name, $p=$m: A has m rows and B equals it",
           "A " . length($a) . " bytes, want " . $m * $rowb);
        next unless defined $tile;
        my $c = npy("$tmp/C.npy");
        my $end = $tile ? int(($m + $tile - 1) / $tile) * $tile : $bound;
        my $zeros = substr($c, $m * $rowb, ($end - $m) * $rowb);
        my $rest = substr($c, $end * $rowb);
        ok(length($c) == $bound * $rowb && substr($c, 0, $m * $rowb) eq $a && $zeros !~ /[^\0]/ &&
           ($rest eq '' || unpack("%32C*", $rest) != 0),
           "$name, $p=$m: C holds A's rows, then zeros to row $end, then its own data",
           sprintf("C %d bytes (want %d), rows below m %s, tail %s", length($c), $bound * $rowb,
                   substr($c, 0, $m * $rowb) eq $a ? "equal" : "differ", $zeros =~ /[^\0]/ ? "not zero" : "zero"));
    }
}

# ---- ptxas: both backends' code for sm_90a ----
for my $name (qw(sync reg ldgsts tma fallback tvm_buffer tvm_int32 vec vasync wide ceil int64_loop fallback64)) {
    my $src = "$dir/$name.tx";
    if (!$ptxas) {
        skip("$name: txc-ptx's cubin", "no ptxas");
    } else {
        ok(run("'$bin/txc' --emit=cubin '$src' -o '$tmp/$name.cubin'") == 0, "$name: txc-ptx + ptxas", slurp("$tmp/err"));
    }
    if (!$nvcc) {
        skip("$name: txc-cuda's cubin", "no nvcc");
    } else {
        ok(run("'$bin/txc' --backend=cuda --emit=cubin '$src' -o '$tmp/$name.cu.cubin'") == 0, "$name: txc-cuda + nvcc",
           slurp("$tmp/err"));
    }
}
my $wide = `'$bin/txc' --emit=cu '$dir/wide.tx' 2>&1`;
ok($wide =~ /if \(\(int64_t\)r \* 16384 \+ \(int64_t\)c \+ [^\n]* < m \* 16384\)/ || 0,
   "wide: the guard computes the row's address in 64 bits, as the pointer's", $wide);

# ---- on the GPU: each cubin against the emulator, at two values of m ----
for my $k (@kernels) {
    my ($name, $p, $bound, undef, undef, $ms) = @$k;
    next if $name eq 'vec4';
    for my $be (['', 'txc-ptx'], ['--backend=cuda', 'txc-cuda']) {
        my $cubin = "$tmp/$name$be->[0].cubin";
        if (run("'$bin/txc' $be->[0] --emit=cubin '$dir/$name.tx' -o '$cubin'")) {
            skip("$name, $be->[1]: runs on the GPU", "no " . ($be->[0] ? "nvcc" : "ptxas"));
            next;
        }
        for my $m ($ms->[0], $ms->[1]) {
            my $rc = run("'$bin/txc-run' '$tmp/$name.ir' --ref '$dir/$name.tx' --cubin '$cubin' --arg $p=$m");
            if ($rc == 3) {
                skip("$name, $be->[1], $p=$m: passes on the GPU", "no GPU");
            } else {
                ok($rc == 0 && slurp("$tmp/out") =~ /^PASS kernel/ || 0, "$name, $be->[1], $p=$m: passes on the GPU",
                   "exit $rc", slurp("$tmp/out"), slurp("$tmp/err"));
            }
        }
    }
}

# ---- a grid computed from m: examples/copy_dynamic.tx ----
my $ex = "$top/examples/copy_dynamic.tx";
ok(run("'$bin/txc' --emit=ir '$ex' -o '$tmp/cd.ir'") == 0 && slurp("$tmp/cd.ir") =~ /T\.cta_id\(\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]\)/ || 0,
   "copy_dynamic: the grid extent stays an expression of m", slurp("$tmp/err"));
ok(run("'$bin/txc' --emit=cu '$ex' -o '$tmp/cd.cu'") == 0 &&
   slurp("$tmp/cd.cu") =~ m{// copy_dynamic: grid \(\(m \+ TR - 1\) // TR \* ACROSS <= 4096, 1, 1\)} || 0,
   "copy_dynamic: the CUDA file names the grid's expression and its largest value (8192 / 16 x 8)");
for my $m (8192, 1000, 17, 1, 0) {
    my @sum;
    for my $f ($ex, "$tmp/cd.ir") {
        my $rc = run("'$bin/txc-emu' '$f' --arg m=$m --out A='$tmp/A.npy' --out B='$tmp/B.npy'");
        push @sum, $rc ? "exit $rc: " . slurp("$tmp/err") : slurp("$tmp/out");
    }
    my ($a, $b) = (npy("$tmp/A.npy"), npy("$tmp/B.npy"));
    ok($sum[0] eq $sum[1] && $sum[0] !~ /^exit/ && length($a) == $m * 8192 && $a eq $b,
       "copy_dynamic, m=$m: (m + 15) // 16 x 8 CTAs copy A's m rows into B", @sum);
}
for my $be (['', 'txc-ptx'], ['--backend=cuda', 'txc-cuda']) {
    my $cubin = "$tmp/cd$be->[0].cubin";
    if (run("'$bin/txc' $be->[0] --emit=cubin '$ex' -o '$cubin'")) {
        skip("copy_dynamic, $be->[1]: runs on the GPU", "no " . ($be->[0] ? "nvcc" : "ptxas"));
        next;
    }
    for my $m (8192, 999, 0) {
        my $rc = run("'$bin/txc-run' '$tmp/cd.ir' --ref '$ex' --cubin '$cubin' --arg m=$m");
        if ($rc == 3) {
            skip("copy_dynamic, $be->[1], m=$m: passes on the GPU", "no GPU");
        } else {
            ok($rc == 0 && slurp("$tmp/out") =~ /^PASS kernel/ || 0, "copy_dynamic, $be->[1], m=$m: passes on the GPU" .
               ($m ? "" : " (a grid of no CTA: nothing launched)"), "exit $rc", slurp("$tmp/out"), slurp("$tmp/err"));
        }
    }
}
my $exsrc = slurp($ex);
# TVM's T.ceildiv(m, TR): (m + TR - 1) // TR, the same kernel
spit("$tmp/ceil.tx", $exsrc =~ s/\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]/[T.ceildiv(m, TR) * ACROSS]/r);
ok(run("'$bin/txc' --emit=ir '$tmp/ceil.tx' -o '$tmp/ceil.ir'") == 0 &&
   slurp("$tmp/ceil.ir") =~ /T\.cta_id\(\[\(m \+ 15\) \/\/ TR \* ACROSS\]\)/ || 0,
   "T.ceildiv(m, TR) is (m + 15) // TR", slurp("$tmp/err"), slurp("$tmp/ceil.ir"));
for my $m (1000, 0) {
    my @sum = map { run("'$bin/txc-emu' '$_' --arg m=$m") ? "exit: " . slurp("$tmp/err") : slurp("$tmp/out") }
              ("$tmp/ceil.tx", "$tmp/ceil.ir", $ex);
    ok($sum[0] eq $sum[1] && $sum[1] eq $sum[2] && $sum[0] !~ /^exit/, "T.ceildiv's kernel, m=$m: as copy_dynamic", @sum);
}
spit("$tmp/ceil0.tx", $exsrc =~ s/\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]/[T.ceildiv(m, m) * ACROSS]/r);
ok(run("'$bin/txc' --emit=ir '$tmp/ceil0.tx' -o '$tmp/ceil0.ir'") == 1 &&
   slurp("$tmp/err") =~ /:27:33: error: the divisor of T\.ceildiv\(\) must be a compile-time constant/ || 0,
   "refused: T.ceildiv by a run-time value", slurp("$tmp/err"));
for my $g (['a bound-less grid', sub { $_[0] =~ s/    T\.assume\(m <= MAXROWS\)\n//r =~ s/\(m, COLS\)/(8192, COLS)/gr },
            qr/:26:21: error: txc cannot bound the grid extent '\(m \+ TR - 1\) \/\/ TR \* ACROSS' by 2\^31 from its scalar parameters' ranges: bound them with T\.assume\(\)/],
           ['a grid over a buffer', sub { $_[0] =~ s/\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]/[A[0, 0]]/r },
            qr/:27:20: error: a grid extent is an integer, not float16/],
           ['a call in a grid extent', sub { $_[0] =~ s/\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]/[T.min(m, 4096) \/\/ TR * ACROSS]/r },
            qr/:27:20: error: a grid extent is a constant, or arithmetic \(\+, -, \*, \/\/, %\) on scalar parameters and constants, not 'T\.min\(m, 4096\) \/\/ TR \* ACROSS'/],
           ['a float grid extent', sub { $_[0] =~ s/\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]/[m \/\/ 2 + 0.5]/r },
            qr/:27:27: error: operands of '\+' have different dtypes, int32 and float/],
           ['a float literal as a grid extent', sub { $_[0] =~ s/\[\(m \+ TR - 1\) \/\/ TR \* ACROSS\]/[2.5]/r },
            qr/:27:20: error: a grid extent is an integer, not a float/],
           ['a grid of clusters', sub { $_[0] =~ s/(    T\.thread_id)/    T.cta_id_in_cluster([2])\n$1/r },
            qr/:27:19: error: not supported yet: a grid of clusters whose extent is a run-time value/]) {
    my ($what, $edit, $want) = @$g;
    spit("$tmp/badg.tx", $edit->($exsrc));
    my $rc = run("'$bin/txc' --emit=ir '$tmp/badg.tx' -o '$tmp/badg.ir'");
    ok($rc == 1 && slurp("$tmp/err") =~ $want && !-e "$tmp/badg.ir" || 0, "refused: $what", "exit $rc", slurp("$tmp/err"));
}

# ---- TVM's spellings: the signatures ----
ok(`'$bin/txc' --emit=cu '$dir/tvm_int32.tx' 2>&1` =~ /__global__ void __launch_bounds__\(128\) tvm_int32\(float\* __restrict__ A, float\* __restrict__ B, int m\)/ || 0,
   "tvm_int32: m = T.int32() is a scalar parameter after the buffers");
ok(`'$bin/txc' --emit=cu '$dir/tvm_buffer.tx' 2>&1` =~ /tvm_buffer\(half\* __restrict__ A, half\* __restrict__ B, int m\)/ || 0,
   "tvm_buffer: the parameters in the signature's order");
my $tb = slurp("$dir/tvm_buffer.tx");
spit("$tmp/tb.tx", $tb =~ s/    T\.assume\(m <= 512\)\n//r);
ok(run("'$bin/txc' --emit=ir '$tmp/tb.tx' -o '$tmp/tb.ir'") == 1 &&
   slurp("$tmp/err") =~ /:9:29: error: the extent 'm' of 'A' needs an upper bound: write T\.assume\(m <= K\) at the top of the kernel's body/ || 0,
   "refused: a T.Buffer of symbolic extent without a bound", slurp("$tmp/err"));
spit("$tmp/ti.tx", slurp("$dir/tvm_int32.tx") =~ s/    m = T\.int32\(\)/    m = T.float32()/r);
ok(run("'$bin/txc' --emit=ir '$tmp/ti.tx' -o '$tmp/ti.ir'") == 1 &&
   slurp("$tmp/err") =~ /:11:9: error: not supported yet: a float32 size variable/ || 0, "refused: a float size variable",
   slurp("$tmp/err"));

# ---- refused, each at its token ----
my $base = slurp("$dir/sync.tx");
my @bad = (
    ['no bound', sub { $_[0] =~ s/    T\.assume\(m <= 4096\)\n//r },
     qr/:10:32: error: the extent 'm' of 'A' needs an upper bound: write T\.assume\(m <= K\) before T\.match_buffer/],
    ['an inner extent', sub { $_[0] =~ s/\(m, 256\), "float16"\)\n    B/(256, m), "float16")\n    B/r },
     qr/:11:37: error: not supported yet: a symbolic extent in dimension 1 of 'A'/],
    ['a bound below one row', sub { $_[0] =~ s/m <= 4096/m <= 0/r }, qr/:11:32: error: the extent 'm' of 'A' is at most 0/],
    ['a layout', sub { $_[0] =~ s/\(m, 256\), "float16"\)\n    B/(m, 256), "float16", layout=T.TileLayout(T.S[(4096, 256) : (256, 1)]))\n    B/r },
     qr/:11:59: error: not supported yet: a layout for 'A', whose extent 'm' is symbolic/],
    ['a view', sub { $_[0] =~ s/(    T\.device_entry\(\)\n)/$1    V = A.view(4096, 256)\n/r },
     qr/:15:9: error: not supported yet: a view of 'A', whose extent 'm' is symbolic/],
    ['a region before row 0', sub { $_[0] =~ s/A\[bx \* 16 : bx \* 16 \+ 16, :\]/A[bx * 16 - 16 : bx * 16, :]/r },
     qr/:19:35: error: region of dimension 0 of 'A' starts in \[-16, 4064\] with extent 16, out of bounds \(extent 4096\)/],
    ['a region of a buffer of constant shape past its end', sub { $_[0] =~ s/C\[bx \* 16 : bx \* 16 \+ 16, :\]/C[bx * 16 + 16 : bx * 16 + 32, :]/r },
     qr/:22:23: error: region of dimension 0 of 'C' starts in \[16, 4096\] with extent 16, out of bounds \(extent 4096\)/],
    ['a tensor map over another extent', sub {
        $_[0] =~ s/(    T\.device_entry\(\)\n)/    M = T.tensormap(C, dims=[256, m], strides=[512], box=[64, 16])\n$1/r },
     qr/:14:35: error: dims= entry 1 is the scalar parameter 'm'; a tensor map's dimension may be symbolic only where/],
);
for my $b (@bad) {
    my ($what, $edit, $want) = @$b;
    spit("$tmp/bad.tx", $edit->($base));
    unlink("$tmp/bad.ir");
    my $rc = run("'$bin/txc' --emit=ir '$tmp/bad.tx' -o '$tmp/bad.ir'");
    my $err = slurp("$tmp/err");
    ok($rc == 1 && $err =~ $want && !-e "$tmp/bad.ir" || 0, "refused: $what", "exit $rc", $err);
}

# ---- a value of m outside the bound: txc-emu and txc-run stop before running ----
ok(run("'$bin/txc-emu' '$dir/sync.tx' --arg m=4097") == 2 &&
   slurp("$tmp/err") =~ /m = 4097: the extent of 'A' must be 0 to 4096/ || 0, "txc-emu: m past the bound", slurp("$tmp/err"));
ok(run("'$bin/txc-emu' '$dir/sync.tx' --arg m=-1") == 2, "txc-emu: a negative m");
ok(run("'$bin/txc-emu' '$dir/tma.tx' --arg m=0") == 0 && run("'$bin/txc-emu' '$tmp/tma.ir' --arg m=0") == 2 &&
   slurp("$tmp/err") =~ /m = 0: tensor map 'A_map' over 'A' needs at least one row/ || 0,
   "m = 0: the tile-level program runs; a tensor map cannot encode it", slurp("$tmp/err"));
ok(run("'$bin/txc-emu' '$dir/sync.tx' --arg m=0") == 0 && run("'$bin/txc-emu' '$tmp/sync.ir' --arg m=0") == 0,
   "m = 0: no row, nothing copied");
done();
