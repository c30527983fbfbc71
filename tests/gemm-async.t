#!/usr/bin/env perl
# Tx.gemm_async(C, A, B, dispatch="tcgen05") through the tcgen05_mma variant
# (variants/tcgen05_mma.c): the kernels of tests/emu/gemm_gen.pl (TVM's
# test_gemm_tcgen05_cta_group_1 and variations: M 128 and 64 (both halves
# of layout F), N 32..256, K 16..128, every swizzle, float16 and bfloat16,
# a run-time stage of a ring, a run-time window of C, accum False then
# True, mma_n, N-major B), lowered by txc, then
#   - the lowered IR against the model below (the instruction descriptor's
#     operands, the number of MMAs, each MMA's descriptors and address);
#   - ptxas for sm_100a (the whole module);
#   - the emulator, the tile op as written (runtime/emu-gemm.c, from the
#     logical elements) and lowered (runtime/emu-mma.c, from the
#     descriptors): tensor memory, and C read back, equal the product
#     computed here, and the two runs agree bit for bit (also on txc-emu's
#     random float data), N-major B included (its MN-major descriptors
#     through emu_smem_desc_chunk_mn);
# then the refusals, each message exact.
#
# The model (doc/tcgen05-mma.md, doc/txir.md "tcgen05_mma"):
#   one MMA per N block of nn columns (mma_n=, else N: N <= 256 here) and
#   per 16 of K, in that order; the first of each block has
#   enable_input_d = accum= (False when absent), the others True;
#   the address: lane 0 (16 for layout F's upper half), column j * nn (+
#   a * N for window a);
#   the descriptors, from the layouts' definitions (gemm_elem() in
#   gemm_gen.pl, doc/txir.md), for rows r0 = j * nn (B; 0 for A) and K
#   from kk = 16 i:
#     K-major (A; B with transB False), rows R x K:
#       swizzle span P: start = elem(r0, kk), ldo 1 (unused), sdo 8 P / 16
#       none: start = elem(r0, kk), ldo = R (R x 16 bytes between the two
#       8-element chunks of a row), sdo 8 (128 bytes: the next 8 rows)
#     N-major (B with transB True, stored K x N):
#       swizzle span P (W = P / 2 elements): start = elem(kk, r0), ldo =
#       K W 2 / 16 (the next W columns) when nn > W else 0, sdo = 8 P / 16
#       (the next 8 rows of K)
#       none: start = elem(kk, r0), ldo 8 (128 bytes: the next 8 rows of
#       K), sdo = K (K x 16 bytes: the next 8 columns)
#     plus, in a ring, stage * rows * cols (the run-time part, as written
#     "s * STRIDE" or "(s + a) % ns * STRIDE").
#   D[m][n] of window a = sum over s, k of A[s][m][k] * B[(s + a) % ns][n][k]
#   (twice: doubled), lane m (M = 128) or lane + 32 (m / 16) + m % 16
#   (M = 64), column a N + n. Small integers: every order of summation
#   gives the same float32.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/gemm_gen.pl";

my $have_nvcc = have_nvcc();


my @cases = gemm_cases();
my $src = "$tmp/g.tx";
system("perl '$top/tests/emu/gemm_gen.pl' >'$src'") == 0 or die "gemm_gen.pl failed";
my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o '$tmp/g.ir' '$src' >'$tmp/out' 2>'$tmp/err'");
ok($rc == 0, "every gemm_async kernel lowers (txc --emit=ir)", slurp("$tmp/err"));
if ($have_nvcc) {
    $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/g.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every gemm_async kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("gemm_async kernels: ptxas sm_100a", "no nvcc");
}
my %body;
{
    my $name;
    for (split /^/, slurp("$tmp/g.ir")) {
        $name = $1 if /^def (g\d+)\(/;
        $body{$name} .= $_ if $name;
    }
}

my $seed = 4242;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return ($seed >> 16) % 7 - 3 }

for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my ($m, $n, $k, $dt, $swz, $ns, $nw) = @$c{qw(m n k dt swz ns nw)};
    my $name = sprintf("g%d: M %d N %d K %d %s, swizzle %d%s%s%s%s%s", $i, $m, $n, $k, $dt, $swz,
                       $c->{tb} ? ", N-major B" : "", $ns > 1 ? ", stage of $ns" : "", $nw > 1 ? ", window of $nw" : "",
                       $c->{twice} ? ", accum False then True" : "", $c->{mma_n} ? ", mma_n $c->{mma_n}" : "");
    # ---- the lowered IR ----
    my $nn = $c->{mma_n} || $n;
    my $P = 16 << $swz;
    my $W = $P / 2;
    my $ring = $ns > 1 || $nw > 1;
    my @want;
    my @accs = $ring ? ("s > 0") : $c->{twice} ? ("False", "True") : ("False");
    for my $op (0 .. $#accs) {
        my $acc = $accs[$op];
        my $x = $op ? "_$op" : "";    # the second op's descriptors: fresh names
        push @want, sprintf('T.cuda.tcgen05.encode_instr_descriptor(T.address_of(mma_idesc%s), d_dtype="float32", '
                            . 'a_dtype="%s", b_dtype="%s", M=%d, N=%d, K=16, trans_a=False, trans_b=%s)', $x, $dt, $dt,
                            $m, $nn, $c->{tb} ? "True" : "False");
        for my $j (0 .. $n / $nn - 1) {
            for my $kk (map { 16 * $_ } 0 .. $k / 16 - 1) {
                my ($as, $al, $asd) = (gemm_elem($swz, $m, 0, $kk), $swz ? 1 : $m, $swz ? 8 * $P / 16 : 8);
                my ($bs, $bl, $bsd);
                if (!$c->{tb}) {
                    ($bs, $bl, $bsd) = (gemm_elem($swz, $n, $j * $nn, $kk), $swz ? 1 : $n, $swz ? 8 * $P / 16 : 8);
                } elsif ($swz) {
                    ($bs, $bl, $bsd) = (gemm_elem($swz, $k, $kk, $j * $nn), $nn > $W ? $k * $W * 2 / 16 : 0, 8 * $P / 16);
                } else {
                    ($bs, $bl, $bsd) = (gemm_elem(0, $k, $kk, $j * $nn), 8, $k);
                }
                my ($ad, $bd) = ($ns > 1 ? "s * " . ($m * $k) : "", $ns > 1 ? "(s + a) % $ns * " . ($n * $k) : "");
                my $sum = sub { my ($c0, $d) = @_; $d eq "" ? $c0 : $c0 == 0 ? $d : "$c0 + $d" };
                push @want, sprintf("T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(mma_adesc%s), "
                                    . "T.pointer_offset(A_smem, %s), ldo=%d, sdo=%d, swizzle=%d)", $x,
                                    $sum->($as, $ad), $al, $asd, $swz);
                push @want, sprintf("T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(mma_bdesc%s), "
                                    . "T.pointer_offset(B_smem, %s), ldo=%d, sdo=%d, swizzle=%d)", $x,
                                    $sum->($bs, $bd), $bl, $bsd, $swz);
                # the window's start a * N is a run-time expression whenever the loop form is used
                my $col = $sum->($j * $nn, $ring ? "a * $n" : "");
                push @want, sprintf("T.ptx.tcgen05.mma(T.cuda.get_tmem_addr(tmem_addr[0], %d, %s), mma_adesc%s[0], "
                                    . "mma_bdesc%s[0], mma_idesc%s[0], %s)", $c->{lane}, $col, $x, $x, $x,
                                    $kk == 0 ? $acc : "True");
            }
        }
    }
    my @got = map { s/^\s+//r =~ s/\s+$//r } grep { /tcgen05\.(mma|encode_)/ } split /\n/, $body{"g$i"} // '';
    my $mmas = grep { /tcgen05\.mma\(/ } @got;
    my ($first_bad) = grep { ($got[$_] // '') ne $want[$_] } 0 .. ($#want > $#got ? $#want : $#got);
    ok(!defined $first_bad && $mmas == @accs * ($n / $nn) * ($k / 16),
       "$name: lowered to $mmas MMAs, each descriptor and address the model's",
       defined $first_bad ? ("line $first_bad:", "want: " . ($want[$first_bad] // '(none)'),
                             "got:  " . ($got[$first_bad] // '(none)')) : ());
    # ---- the emulator: as written, then lowered ----
    my @A = map { [map { [map { rnd() } 1 .. $k] } 1 .. $m] } 1 .. $ns;
    my @B = map { [map { [map { rnd() } 1 .. $k] } 1 .. $n] } 1 .. $ns;    # B[s][n][k], stored transposed with tb
    my $d16 = $dt eq "bfloat16" ? "<u2" : "<f2";
    my $flat = sub { my ($x) = @_; pack("v*", map { map { enc16($_, $dt) } @$_ } map { @$_ } @$x) };
    my @Bs = !$c->{tb} ? @B : map { my $b = $_; [map { my $kk = $_; [map { $b->[$_][$kk] } 0 .. $n - 1] } 0 .. $k - 1] } @B;
    npy_put("$tmp/a.npy", $d16, $ns > 1 ? [$ns, $m, $k] : [$m, $k], $flat->(\@A));
    npy_put("$tmp/b.npy", $d16, [($ns > 1 ? ($ns) : ()), $c->{tb} ? ($k, $n) : ($n, $k)], $flat->(\@Bs));
    my %model;
    for my $a (0 .. $nw - 1) {
        for my $mm (0 .. $m - 1) {
            my $lane = $m == 128 ? $mm : $c->{lane} + 32 * int($mm / 16) + $mm % 16;
            for my $nc (0 .. $n - 1) {
                my $s = 0;
                for my $st (0 .. $ns - 1) {
                    my ($ar, $br) = ($A[$st][$mm], $B[($st + $a) % $ns][$nc]);
                    $s += $ar->[$_] * $br->[$_] for 0 .. $k - 1;
                }
                $s *= 2 if $c->{twice};
                $model{"$lane," . ($a * $n + $nc)} = unpack("V", pack("f", $s));
            }
        }
    }
    my %dump;
    for my $run (["as written", $src, "w"], ["lowered", "$tmp/g.ir", "l"]) {
        my ($how, $file, $tag) = @$run;
        unlink "$tmp/t$tag.npy", "$tmp/c$tag.npy";
        $rc = system("'$bin/txc-emu' --kernel g$i --in A='$tmp/a.npy' --in B='$tmp/b.npy' --out C='$tmp/c$tag.npy' "
                     . "--tmem-out '$tmp/t$tag.npy' '$file' >'$tmp/out' 2>'$tmp/err'");
        ok($rc == 0, "$name: runs $how on the emulator", slurp("$tmp/err"));
        next if $rc;
        $dump{$tag} = slurp("$tmp/t$tag.npy") . slurp("$tmp/c$tag.npy");
        my (undef, $tm) = npy_get("$tmp/t$tag.npy");
        my @tm = unpack("V*", $tm);
        my @bad;
        for my $key (sort keys %model) {
            my ($l, $col) = split /,/, $key;
            push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $l, $col, $tm[$l * 512 + $col], $model{$key})
                if $tm[$l * 512 + $col] != $model{$key};
        }
        ok(!@bad && keys(%model) == $m * $n * $nw,
           "$name, $how: tensor memory holds the product (" . $m * $n * $nw . " cells)", @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
        if ($m == 128 && $n * $nw <= 128) {
            my (undef, $cd) = npy_get("$tmp/c$tag.npy");
            my @cv = unpack("V*", $cd);
            my $cols = $n * $nw;
            my @cb = grep { $cv[$_] != $model{int($_ / $cols) . "," . $_ % $cols} } 0 .. $#cv;
            ok(@cv == 128 * $cols && !@cb, "$name, $how: C read back (tcgen05.ld) is the product",
               map { sprintf("C[%d, %d]", int($_ / $cols), $_ % $cols) } @cb[0 .. ($#cb < 4 ? $#cb : 4)]);
        }
    }
    ok($dump{w} eq $dump{l}, "$name: tensor memory and C the same as written and lowered, bit for bit")
        if defined $dump{w} && defined $dump{l};
}

# ---- random data (seeded by txc-emu): as written and lowered agree bit for bit ----
for my $i (grep { !$cases[$_]{tb} } 0 .. $#cases) {
    my @h;
    for my $file ($src, "$tmp/g.ir") {
        unlink "$tmp/tr.npy";
        $rc = system("'$bin/txc-emu' --kernel g$i --seed 7 --tmem-out '$tmp/tr.npy' '$file' >'$tmp/out' 2>'$tmp/err'");
        push @h, $rc ? "failed: " . slurp("$tmp/err") : slurp("$tmp/out") . slurp("$tmp/tr.npy");
    }
    ok($h[0] eq $h[1] && $h[0] !~ /^failed/, "g$i, random float data: as written and lowered give the same tensor memory and parameters",
       substr($h[0], 0, 200), substr($h[1], 0, 200));
}

# ---- the emulator refuses as written what txc refuses ----------------------------
{
    $rc = system("'$bin/txc-emu' '$top/tests/emu/gemm_plan_bad.tx' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my ($first) = split /\n/, slurp("$tmp/err");
    my $want = "$top/tests/emu/gemm_plan_bad.tx:22:9: error: thread (cta 0, thread 0): gemm_async through tcgen05_mma: "
             . "C's window has 96 rows: tcgen05.mma with cta_group 1 writes M = 128 (data-path layout D) or 64 (layout F) rows";
    ok($rc == 1 && ($first // '') eq $want, "txc-emu refuses a gemm_async no plan serves, with the rule",
       "want: $want", "got (exit $rc): " . ($first // ''));
}

# ---- the refusals (tests/emu/gemm_bad.tx): txc-parse's and txc-dispatch's ------------
chdir $top or die;
{
    my $f = "tests/emu/gemm_bad.tx";
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o /dev/null $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    # the positions by hand: the operands start at columns 23, 34, 45, the
    # first keyword at 56 (8 spaces and "Tx.gemm_async(" before them, each
    # operand "X[:, :], " 11 characters); a keyword's value after "name="
    my @want = (
        # SFA= a shared float16 region: its value at 56 + 4
        "21:60: error: SFA= is a region of uint8 tensor memory: the UE8M0 scale bytes of A (one per row and 32 of "
        . "K) that tcgen05.mma .kind::mxf8f6f4 reads",
        "22:66: error: not supported yet: cta_group=2: a CTA pair's tcgen05.mma; gemm_async runs cta_group 1",
        "23:23: error: gemm_async's C is a float32 region of tensor memory (the accumulator of tcgen05.mma "
        . ".kind::f16); 'A_s' is float16 in shared memory",
        "24:45: error: gemm_async's B is bfloat16 and A float16: txc requires A and B of one type (doc/tcgen05-mma.md)",
        "25:62: error: accum= is a boolean or a 32-bit integer (tcgen05.mma's enable_input_d), not float32",
        "26:66: error: cta_group= is 1 or 2, not 3",
        "27:62: error: mma_n= is a positive instruction N, not 0",
    );
    my $got = join "", grep { /^\Q$f\E:/ } split /^/, slurp("$tmp/err");
    my $want = join "", map { "$f:$_\n" } @want;
    ok($rc != 0 && $got eq $want, "txc-parse: the refusals of gemm_async's operands and keywords", "want:\n$want",
       "got (exit $rc):\n$got");
}
{
    my $f = "tests/emu/gemm_plan_bad.tx";
    $rc = system("'$bin/txc' --arch=sm_100a --emit=ir -o /dev/null $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $v = "    tcgen05_mma   10  tcgen05_mma: ";
    my @want = (
        [ 22, "C's window has 96 rows: tcgen05.mma with cta_group 1 writes M = 128 (data-path layout D) or 64 "
              . "(layout F) rows" ],
        [ 23, "K = 40: one tcgen05.mma .kind::f16 takes K = 16, so K is a multiple of 16" ],
        [ 24, "mma_n=48 does not divide C's 64 columns" ],
        [ 25, "mma_m=64: the instruction's M is the rows of C's window, 128" ],
        [ 26, "B has 32 rows (N) and C 64 columns" ],
        [ 27, "mma_n=12: N = 12: with cta_group 1 and M = 128, N is a multiple of 8 from 8 to 256" ],
        # R_s is row-major 128 x 16: row r at 32 r bytes, element (r, k) at 32 r + 2 k
        [ 28, "no shared-memory descriptor reads rows 0..127, K 0..15 of A ('R_s'): K-major, no swizzle (LBO 16, "
              . "SBO 256 bytes): element (1, 0) of A's matrix is at byte 32 of 'R_s', not 16; MN-major, no swizzle "
              . "(LBO 16, SBO 256 bytes): element (0, 1) of A's matrix is at byte 2 of 'R_s', not 16" ],
        # acc_f puts rows in columns and columns in lanes
        [ 29, "element (0, 1) of C's window is in lane 1, column 0 of 'acc_f'; tcgen05.mma with M = 128 writes it "
              . "to lane 0, column 1 (data-path layout D)" ],
        # K_s (128, 40) without a swizzle is the core-matrix layout (r, c) at 8 r + 1024 (c / 8) + c % 8:
        # along the columns it moves by 1 from (0, 0) to (0, 7), then (0, 8) is at 1024, not 8
        [ 31, "A: a run-time start ('x0'): the layout of 'K_s' does not move every element by the same amount "
              . "along dimension 1 (element (0, 8) is at 1024, not 0 + 8 * 1)" ],
    );
    my $err = slurp("$tmp/err");
    for my $w (@want) {
        my ($line, $msg) = @$w;
        ok($err =~ /^\Q$f\E:$line:\d+: error: no variant of Tx\.gemm_async can run this op:\n(?:.*\n){2}\Q$v$msg\E$/m,
           "txc-dispatch refuses line $line: $msg", $err);
    }
}

# TVM's test_gemm_tcgen05_cta_group_1 as TVM writes it (tests/tvm/
# gemm_tcgen05_cta_group_1.tx: a (3, 128, 64) ring from mma_shared_layout,
# the TMA keywords in T.meta_var({...}) unpacked with **): C[:, 256:384] is
# A[1] @ B[2]^T, the rest of C as it came in. Small integers: exact.
{
    my $f = "$top/tests/tvm/gemm_tcgen05_cta_group_1.tx";
    my @a = map { (($_ * 7) % 9) - 4 } 0 .. 3 * 128 * 64 - 1;
    my @b = map { (($_ * 5) % 7) - 3 } 0 .. 3 * 128 * 64 - 1;
    my @c0 = map { ($_ % 13) - 6 } 0 .. 128 * 512 - 1;
    npy_put("$tmp/ta.npy", "<f2", [3, 128, 64], pack("v*", map { enc16($_, "float16") } @a));
    npy_put("$tmp/tb.npy", "<f2", [3, 128, 64], pack("v*", map { enc16($_, "float16") } @b));
    npy_put("$tmp/tc.npy", "<f4", [128, 512], pack("f<*", @c0));
    my @want = @c0;
    for my $m (0 .. 127) {
        for my $n (0 .. 127) {
            my $s = 0;
            $s += $a[(128 + $m) * 64 + $_] * $b[(256 + $n) * 64 + $_] for 0 .. 63;
            $want[$m * 512 + 256 + $n] = $s;
        }
    }
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$f' -o '$tmp/tvm.ir' 2>'$tmp/err'");
    ok($rc == 0, "TVM's cta_group_1 test kernel: lowers", slurp("$tmp/err"));
    for my $run (["as written", $f], ["lowered", "$tmp/tvm.ir"]) {
        next if $rc && $run->[0] eq "lowered";
        my $r = system("'$bin/txc-emu' --in A='$tmp/ta.npy' --in B='$tmp/tb.npy' --in C='$tmp/tc.npy' "
                       . "--out C='$tmp/tco.npy' '$run->[1]' >'$tmp/out' 2>'$tmp/err'");
        next unless ok($r == 0, "TVM's cta_group_1 test kernel, $run->[0]: runs", slurp("$tmp/err"));
        my (undef, $d) = npy_get("$tmp/tco.npy");
        my @got = unpack("f<*", $d);
        my @bad = grep { $got[$_] != $want[$_] } 0 .. $#want;
        ok(@got == @want && !@bad, "TVM's cta_group_1 test kernel, $run->[0]: C[:, 256:384] = A[1] @ B[2]^T, "
           . "the rest untouched", map { "C[" . int($_ / 512) . ", " . $_ % 512 . "] = $got[$_], want $want[$_]" }
           @bad[0 .. ($#bad < 3 ? $#bad : 3)]);
    }
}

# TVM's test_gemm_tcgen05_arbitrary_tiles, its first five tasks, written
# as TVM's test writes the kernel (a ring of 3 stages in
# mma_shared_layout, one stage of A and one of B, transA / transB; K wider
# than a swizzle atom): C = A_ref @ B_ref with A_ref the stage (transposed
# when transA: stored [K, M]) and B_ref the stage transposed unless transB
# (stored [N, K]; with transB, [K, N]). Small integers: exact.
{
    my @tasks = (
        # C (M, N), A shape, A stage, B shape, B stage, transA, transB
        [128, 128, [3, 128, 128], 1, [3, 128, 128], 2, 0, 0],
        [128, 64,  [3, 128, 128], 1, [3, 64, 128],  2, 0, 0],
        [128, 128, [3, 128, 64],  1, [3, 64, 128],  2, 0, 1],
        [128, 128, [3, 64, 128],  1, [3, 128, 64],  2, 1, 0],
        [128, 128, [3, 128, 128], 1, [3, 128, 128], 2, 1, 1],
    );
    for my $ti (0 .. $#tasks) {
        my ($M, $N, $as, $ast, $bs, $bst, $ta, $tb) = @{ $tasks[$ti] };
        my $cols = $N < 32 ? 32 : $N;
        my $bytes = 2 * ($as->[0] * $as->[1] * $as->[2] + $bs->[0] * $bs->[1] * $bs->[2]);
        my ($A_t, $B_t) = map { "(" . join(", ", @$_) . ")" } $as, $bs;
        my $TA = $ta ? "True" : "False", my $TB = $tb ? "True" : "False";
        my $name = "arbitrary_tiles task $ti (A $A_t transA $TA, B $B_t transB $TB, C $M x $N)";
        my $k = <<"END";
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout
from tvm.tirx.layout import S, TCol, TileLayout, TLane
from tvm.tirx.layout import tid_in_wg as axis_tid_in_wg

A_layout = mma_shared_layout("float16", 3, $A_t)
B_layout = mma_shared_layout("float16", 3, $B_t)


\@T.prim_func
def gemm_async(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle) -> None:
    A = T.match_buffer(A_ptr, $A_t, "float16")
    B = T.match_buffer(B_ptr, $B_t, "float16")
    C = T.match_buffer(C_ptr, ($M, $N), "float32")

    T.device_entry()
    warp_id = T.warp_id([(1) * 4])
    cta_id = T.cta_id([1])
    wg_id = T.warpgroup_id([1])
    tid_in_wg = T.thread_id_in_wg([128])

    A_smem = T.alloc_buffer($A_t, "float16", scope="shared", layout=A_layout, align=1024)
    B_smem = T.alloc_buffer($B_t, "float16", scope="shared", layout=B_layout, align=1024)
    tmem_addr = T.alloc_shared([1], "uint32")
    tma_mbar = T.alloc_shared([1], "uint64")
    mma_mbar = T.alloc_shared([1], "uint64")

    if tid_in_wg == 0:
        T.ptx.mbarrier.init.shared.b64(tma_mbar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mma_mbar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()

    if warp_id == 0:
        T.ptx[f"tcgen05.alloc.cta_group::{1}.sync.aligned.shared::cta.b32"](
            T.address_of(tmem_addr), T.uint32($cols)
        )
    T.cuda.cta_sync()
    tmem = T.decl_buffer(($M, $N), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout=TileLayout(S[($M, $N) : (1 \@ TLane, 1 \@ TCol)]))

    if tid_in_wg == 0:
        tma_args = T.meta_var({"dispatch": "tma_auto", "mbar": tma_mbar.ptr_to([0])})
        Tx.copy_async(A_smem[:, :, :], A[:, :, :], **tma_args)
        Tx.copy_async(B_smem[:, :, :], B[:, :, :], **tma_args)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(tma_mbar.ptr_to([0]), T.uint32($bytes))
    T.cuda.mbarrier_wait(tma_mbar.ptr_to([0]), 0)
    T.cuda.cta_sync()

    if tid_in_wg == 0:
        Tx.gemm_async(tmem[0:$M, 0:$N], A_smem[$ast:@{[$ast + 1]}, :, :], B_smem[$bst:@{[$bst + 1]}, :, :], transA=$TA, transB=$TB, dispatch="tcgen05", cta_group=1)
        T.ptx[f"tcgen05.commit.cta_group::{1}.mbarrier::arrive::one.shared::cluster.b64"](mma_mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mma_mbar.ptr_to([0]), 0)
    T.cuda.cta_sync()

    T.ptx.tcgen05.fence__after_thread_sync()
    C_reg = T.alloc_local($N, dtype="float32")
    C_view = C_reg.view($M, $N, layout=TileLayout(S[($M, $N) : (1\@axis_tid_in_wg, 1)]))
    if wg_id == 0:
        Tx.wg.copy_async(C_view[:, :], tmem[0:$M, 0:$N])
        T.ptx.tcgen05.wait__ld.sync.aligned()
    T.cuda.cta_sync()
    Tx.copy(C[tid_in_wg, 0:$N], C_reg[:])

    if warp_id == 0:
        T.ptx[f"tcgen05.relinquish_alloc_permit.cta_group::{1}.sync.aligned"]()
        T.ptx[f"tcgen05.dealloc.cta_group::{1}.sync.aligned.b32"](tmem_addr[0], T.uint32($cols))
END
        spit("$tmp/arb.tx", $k);
        my $na = $as->[0] * $as->[1] * $as->[2], my $nb = $bs->[0] * $bs->[1] * $bs->[2];
        my @a = map { (($_ * 7 + $ti) % 9) - 4 } 0 .. $na - 1;
        my @b = map { (($_ * 5 + 3 * $ti) % 7) - 3 } 0 .. $nb - 1;
        npy_put("$tmp/aa.npy", "<f2", $as, pack("v*", map { enc16($_, "float16") } @a));
        npy_put("$tmp/ab.npy", "<f2", $bs, pack("v*", map { enc16($_, "float16") } @b));
        # A_ref[m][k], B_ref[k][n] from the stages
        my ($ar, $ac) = @$as[1, 2];
        my ($br, $bc) = @$bs[1, 2];
        my $K = $ta ? $ar : $ac;
        my $aref = sub { my ($m, $kk) = @_; $ta ? $a[($ast * $ar + $kk) * $ac + $m] : $a[($ast * $ar + $m) * $ac + $kk] };
        my $bref = sub { my ($kk, $n) = @_; $tb ? $b[($bst * $br + $kk) * $bc + $n] : $b[($bst * $br + $n) * $bc + $kk] };
        my @want;
        for my $m (0 .. $M - 1) {
            for my $n (0 .. $N - 1) {
                my $s = 0;
                $s += $aref->($m, $_) * $bref->($_, $n) for 0 .. $K - 1;
                $want[$m * $N + $n] = $s;
            }
        }
        my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$tmp/arb.tx' -o '$tmp/arb.ir' 2>'$tmp/err'");
        ok($rc == 0, "$name: lowers", slurp("$tmp/err"));
        for my $run (["as written", "$tmp/arb.tx"], ["lowered", "$tmp/arb.ir"]) {
            next if $rc && $run->[0] eq "lowered";
            my $r = system("'$bin/txc-emu' --in A='$tmp/aa.npy' --in B='$tmp/ab.npy' --out C='$tmp/ac.npy' "
                           . "'$run->[1]' >'$tmp/out' 2>'$tmp/err'");
            next unless ok($r == 0, "$name, $run->[0]: runs", slurp("$tmp/err"));
            my (undef, $d) = npy_get("$tmp/ac.npy");
            my @got = unpack("f<*", $d);
            my @bad = grep { $got[$_] != $want[$_] } 0 .. $#want;
            ok(@got == @want && !@bad, "$name, $run->[0]: C = A_ref @ B_ref",
               map { "C[" . int($_ / $N) . ", " . $_ % $N . "] = $got[$_], want $want[$_]" } @bad[0 .. ($#bad < 3 ? $#bad : 3)]);
        }
        if ($have_nvcc) {
            $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin '$tmp/arb.tx' -o '$tmp/arb.cubin' >'$tmp/out' 2>'$tmp/err'");
            ok($rc == 0, "$name: ptxas sm_100a", slurp("$tmp/err"));
        } else {
            skip("$name: ptxas sm_100a", "no nvcc");
        }
    }
}

# TVM's test_gemm_tcgen05_cta_group_1_layout_f_m64 as written (tests/tvm/
# gemm_tcgen05_layout_f_m64.tx): C (64 x 64) = A (64 x 64) @ B (64 x 64)^T,
# through data-path layout F and the .16x256b read-back. Exact.
{
    my $f = "$top/tests/tvm/gemm_tcgen05_layout_f_m64.tx";
    my @a = map { (($_ * 11) % 9) - 4 } 0 .. 4095;
    my @b = map { (($_ * 3) % 7) - 3 } 0 .. 4095;
    npy_put("$tmp/fa.npy", "<f2", [64, 64], pack("v*", map { enc16($_, "float16") } @a));
    npy_put("$tmp/fb.npy", "<f2", [64, 64], pack("v*", map { enc16($_, "float16") } @b));
    my @want;
    for my $m (0 .. 63) {
        for my $n (0 .. 63) {
            my $s = 0;
            $s += $a[$m * 64 + $_] * $b[$n * 64 + $_] for 0 .. 63;
            $want[$m * 64 + $n] = $s;
        }
    }
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=ir '$f' -o '$tmp/f64.ir' 2>'$tmp/err'");
    ok($rc == 0, "TVM's layout_f_m64 test kernel: lowers", slurp("$tmp/err"));
    for my $run (["as written", $f], ["lowered", "$tmp/f64.ir"]) {
        next if $rc && $run->[0] eq "lowered";
        my $r = system("'$bin/txc-emu' --in A='$tmp/fa.npy' --in B='$tmp/fb.npy' --out C='$tmp/fc.npy' "
                       . "'$run->[1]' >'$tmp/out' 2>'$tmp/err'");
        next unless ok($r == 0, "TVM's layout_f_m64 test kernel, $run->[0]: runs", slurp("$tmp/err"));
        my (undef, $d) = npy_get("$tmp/fc.npy");
        my @got = unpack("f<*", $d);
        my @bad = grep { $got[$_] != $want[$_] } 0 .. $#want;
        ok(@got == @want && !@bad, "TVM's layout_f_m64 test kernel, $run->[0]: C = A @ B^T",
           map { "C[" . int($_ / 64) . ", " . $_ % 64 . "] = $got[$_], want $want[$_]" } @bad[0 .. ($#bad < 3 ? $#bad : 3)]);
    }
}

done();
