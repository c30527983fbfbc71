#!/usr/bin/env perl
# The tcgen05_ldst variant (variants/tcgen05.c): copy_async between a
# warpgroup's registers and tensor memory. Each case is a kernel with a
# register fragment T.alloc_tcgen05_ldst_frag(shape, (rows, cols), dtype)
# and a tensor-memory buffer in tmem_datapath_layout(dp, ...); the lowered
# tcgen05.st and tcgen05.ld are worked out here from ptx.md's shapes:
#   a repetition of .LxBb moves L lanes x B bits per warp: L * B / 1024
#   registers per thread over B / 32 columns; a 32-lane shape covers 128
#   rows in one issue (64 rows: two column halves, datapath B), a 16-lane
#   one covers 64 rows, so 128 rows issue twice (rows 0 and 16);
#   num = the fragment's 32-bit columns / the columns one repetition covers;
#   register r of an issue is the word at storage element (s * regs + r) *
#   (32 / bits) of the thread's registers; the column is the window's start
#   in 32-bit columns; datapath F's sub-slab adds 16 to the row.
# Each case's CUDA must assemble for sm_100a. Refusals: the exact reason of
# the candidate line in txc's dispatch error.
use strict;
use warnings;
use FindBin;
require "$FindBin::Bin/tap.pl";

my ($top, $bin, $tmp) = txc_paths();
my $nvcc = -x '/usr/local/cuda/bin/nvcc' || grep { -x "$_/nvcc" } split /:/, $ENV{PATH} // '';

my %shape = ('32x32b' => [32, 32], '16x64b' => [16, 64], '16x128b' => [16, 128], '16x256b' => [16, 256]);
my %bits = (float32 => 32, float16 => 16);

sub kernel {
    my ($c) = @_;
    my ($dp, $trows, $tcols) = @{ $c->{tmem} };
    my $sub = $c->{sub} ? ", sub_slab=$c->{sub}" : '';
    my $treg = $c->{treg} // ':, :';
    my $scope = $c->{scope} // 'wg';
    my $pre = $c->{pre} ? "    $c->{pre}\n" : '';
    my $frag = $c->{frag} // "T.alloc_tcgen05_ldst_frag(\"$c->{shape}\", ($c->{rows}, $c->{cols}), \"$c->{dt}\")";
    my $ncols = 32;
    $ncols *= 2 while $ncols < $tcols * $bits{ $c->{dt} } / 32 * ($dp eq 'B' ? 1 : 1);
    return <<"EOF";
from tvm.script import tir as T
from tvm.script import tirx as Tx
from tvm.tirx.layout import S, TileLayout, tmem_datapath_layout
from tvm.tirx.layout import tid_in_wg as axis_tid_in_wg


\@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    if warp_id == 0:
        T.ptx.tcgen05.alloc(T.address_of(tmem_addr), n_cols=$ncols, cta_group=1)
    T.cuda.cta_sync()
    tmem = T.decl_buffer(($trows, $tcols), "$c->{dt}", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=tmem_datapath_layout("$dp", $trows, $tcols$sub))
$pre    R = $frag
    Tx.$scope.copy_async(tmem[$treg], R[:, :])
    T.ptx.tcgen05.wait.st()
    T.cuda.cta_sync()
    Tx.$scope.copy_async(R[:, :], tmem[$treg])
    T.ptx.tcgen05.wait.ld()
    T.cuda.cta_sync()
    if warp_id == 0:
        T.ptx.tcgen05.dealloc(tmem_addr[0], n_cols=$ncols, cta_group=1)
        T.ptx.tcgen05.relinquish_alloc_permit(cta_group=1)
EOF
}

# the expected lowered lines of case C, per ptx.md
sub expected {
    my ($c) = @_;
    my ($lanes, $b) = @{ $shape{ $c->{shape} } };
    my $bits = $bits{ $c->{dt} };
    my $pack = 32 / $bits;
    my $cols32 = $c->{cols} * $bits / 32;
    my $rep_cols = $b / 32;                                   # 32-bit columns a warp's repetition covers
    my $per_rep = $lanes == 32 ? $rep_cols * 128 / $c->{rows} : $rep_cols;
    my $num = $cols32 / $per_rep;
    my $regs = $lanes * $b / 1024 * $num;                     # registers per thread per issue
    my $slabs = $lanes == 16 ? $c->{rows} / 64 : 1;
    my $col = ($c->{c0} // 0) / $pack;
    my @lines;
    for my $dir ('st', 'ld') {
        for my $s (0 .. $slabs - 1) {
            my $row = $lanes == 16 ? 16 * (($c->{sub} // 0) + $s) : 0;
            my @r = map { "R_regs[" . (($s * $regs + $_) * $pack) . "]" } 0 .. $regs - 1;
            push @lines, "T.ptx.tcgen05.$dir(tmem_addr[0], $row, $col, \"$c->{shape}\", $num, False, " . join(', ', @r) . ")";
        }
    }
    @lines;
}

my @cases = (
    # .32x32b over datapath D: one issue, num = the 32-bit columns
    { name => '.32x32b (128, 16) float32, D', shape => '32x32b', rows => 128, cols => 16, dt => 'float32', tmem => ['D', 128, 16] },
    { name => '.32x32b (128, 64) float16, D (32 columns, two halves each)', shape => '32x32b', rows => 128, cols => 64, dt => 'float16', tmem => ['D', 128, 64] },
    { name => '.32x32b (128, 16) float32, D, window 32:48', shape => '32x32b', rows => 128, cols => 16, dt => 'float32', tmem => ['D', 128, 64], treg => ':, 32:48', c0 => 32 },
    { name => '.32x32b (128, 8) float16, D, window 8:16 (column 4)', shape => '32x32b', rows => 128, cols => 8, dt => 'float16', tmem => ['D', 128, 32], treg => ':, 8:16', c0 => 8 },
    # .16x*b over D with 128 rows: two issues, rows 0 and 16
    { name => '.16x64b (128, 32) float32, D: rows 0 and 16', shape => '16x64b', rows => 128, cols => 32, dt => 'float32', tmem => ['D', 128, 32] },
    { name => '.16x128b (128, 64) float32, D', shape => '16x128b', rows => 128, cols => 64, dt => 'float32', tmem => ['D', 128, 64] },
    { name => '.16x256b (128, 64) float16, D', shape => '16x256b', rows => 128, cols => 64, dt => 'float16', tmem => ['D', 128, 64] },
    { name => '.16x64b (128, 8) float32, D (num 4)', shape => '16x64b', rows => 128, cols => 8, dt => 'float32', tmem => ['D', 128, 8] },
    # datapath F (64 rows): one issue at row 16 x sub_slab
    { name => '.16x64b (64, 16) float32, F sub-slab 0', shape => '16x64b', rows => 64, cols => 16, dt => 'float32', tmem => ['F', 64, 16] },
    { name => '.16x128b (64, 32) float16, F sub-slab 1: row 16', shape => '16x128b', rows => 64, cols => 32, dt => 'float16', tmem => ['F', 64, 32], sub => 1 },
    { name => '.16x256b (64, 32) float32, F sub-slab 1', shape => '16x256b', rows => 64, cols => 32, dt => 'float32', tmem => ['F', 64, 32], sub => 1 },
    # datapath B (64 rows, N columns in two halves): one .32x32b issue, num = N / 2
    { name => '.32x32b (64, 32) float32, B: num 16', shape => '32x32b', rows => 64, cols => 32, dt => 'float32', tmem => ['B', 64, 32] },
);

my $k = 0;
for my $c (@cases) {
    $k++;
    spit("$tmp/c$k.tx", kernel($c));
    my $rc = system("'$bin/txc' --emit=ir --arch sm_100a '$tmp/c$k.tx' -o '$tmp/c$k.ir' 2>'$tmp/err'") >> 8;
    # (each op names its view of the registers afresh: R_regs, R_regs_1)
    my @got = map { s/^\s+//r =~ s/\bR_regs_\d+\[/R_regs[/gr } grep { /T\.ptx\.tcgen05\.(ld|st)\(/ } split /\n/, slurp("$tmp/c$k.ir");
    my @want = expected($c);
    ok($rc == 0 && "@got" eq "@want", "$c->{name}: lowered as ptx.md's shape says", "exit $rc", slurp("$tmp/err"),
       "want:", @want, "got:", @got);
    if (!$nvcc) { skip("$c->{name}: ptxas sm_100a", 'no nvcc'); next }
    $rc = system("'$bin/txc' --emit=cubin --arch sm_100a '$tmp/c$k.tx' -o '$tmp/c$k.cubin' >'$tmp/err' 2>&1") >> 8;
    ok($rc == 0, "$c->{name}: ptxas sm_100a", "exit $rc", slurp("$tmp/err"));
}

# ---- refusals: the tcgen05_ldst line of the dispatch error ----------------------
sub refuse {
    my ($name, $msg, %c) = @_;
    $k++;
    spit("$tmp/r$k.tx", kernel({ %c }));
    my $rc = system("'$bin/txc' --emit=ir --arch sm_100a '$tmp/r$k.tx' -o '$tmp/r$k.ir' >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $err = slurp("$tmp/err");
    my ($line) = $err =~ /^    tcgen05_ldst\s+10  (.*)$/m;
    ok($rc == 1 && defined $line && $line eq $msg && !-e "$tmp/r$k.ir", "refused: $name: $msg", "exit $rc", $err);
}
# the issue's four
refuse('a 128-row fragment against datapath F',
       "tcgen05_ldst: a 128-row register fragment against the 64-row datapath F of 'tmem': F holds the low or the high 16 lanes of each warp's quarter, and a 128-row fragment reads both",
       shape => '16x64b', rows => 128, cols => 32, dt => 'float32', tmem => ['F', 64, 64]);
refuse('datapath F with .32x32b',
       "tcgen05_ldst: datapath F of 'tmem' with .32x32b: F uses 16 of each warp's 32 lanes, and .32x32b reads all 32",
       shape => '32x32b', rows => 64, cols => 32, dt => 'float32', tmem => ['F', 64, 32]);
refuse('datapath B with a .16x256b fragment',
       "tcgen05_ldst: datapath B of 'tmem' with a .16x256b fragment: B splits the columns into two halves in lanes 0-63 and 64-127, which only a .32x32b (64, N) fragment reads",
       shape => '16x256b', rows => 64, cols => 64, dt => 'float32', tmem => ['B', 64, 64]);
refuse('datapath B on a column sub-window',
       "tcgen05_ldst: datapath B on the column sub-window [:, 0:32] of 'tmem': B's columns are split in two halves, so only the whole (64, 64) tile is one transfer",
       shape => '32x32b', rows => 64, cols => 32, dt => 'float32', tmem => ['B', 64, 64], treg => ':, 0:32');
# and the scope, and a register layout of no shape (each shape's reason)
refuse('at CTA scope',
       "tcgen05_ldst: tcgen05_ldst is a warpgroup's copy: write it as Tx.wg.copy_async, not at cta scope",
       shape => '32x32b', rows => 128, cols => 16, dt => 'float32', tmem => ['D', 128, 16], scope => 'cta');
refuse('registers of no shape',
       "tcgen05_ldst: the layout of the registers 'R' is no tcgen05.ld/st shape's (.16x64b: not tcgen05_atom_layout(\"16x64b\", (128, 16), \"float32\"); .16x128b: not tcgen05_atom_layout(\"16x128b\", (128, 16), \"float32\"); .16x256b: not tcgen05_atom_layout(\"16x256b\", (128, 16), \"float32\"); .32x32b: not tcgen05_atom_layout(\"32x32b\", (128, 16), \"float32\"))",
       shape => '32x32b', rows => 128, cols => 16, dt => 'float32', tmem => ['D', 128, 16],
       pre => 'Rr = T.alloc_local((32,), "float32")',
       frag => 'Rr.view(128, 16, layout=TileLayout(S[(128, 16) : (1 @ axis_tid_in_wg, 2)]))');

done();
