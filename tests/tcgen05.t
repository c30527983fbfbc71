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
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
my $nvcc = -x '/usr/local/cuda/bin/nvcc' || grep { -x "$_/nvcc" } split /:/, $ENV{PATH} // '';

my %shape = ('32x32b' => [32, 32], '16x64b' => [16, 64], '16x128b' => [16, 128], '16x256b' => [16, 256]);
my %bits = (float32 => 32, float16 => 16, bfloat16 => 16);

sub kernel {
    my ($c) = @_;
    my ($dp, $trows, $tcols) = @{ $c->{tmem} };
    my $sub = $c->{sub} ? ", sub_slab=$c->{sub}" : '';
    my $treg = $c->{treg} // ':, :';
    my $lreg = $c->{slice} ? ":, $c->{slice}[0]:" . ($c->{slice}[0] + $c->{slice}[1]) : ':, :';
    my $tlayout = $c->{tlayout} // "tmem_datapath_layout(\"$dp\", $trows, $tcols$sub)";
    my $scope = $c->{scope} // 'wg';
    my $pre = $c->{pre} ? "    $c->{pre}\n" : '';
    my $frag = $c->{frag} // "T.alloc_tcgen05_ldst_frag(\"$c->{shape}\", ($c->{rows}, $c->{cols}), \"$c->{dt}\")";
    my $ncols = 32;
    $ncols *= 2 while $ncols < $tcols * $bits{ $c->{dt} } / 32 * ($dp eq 'B' ? 1 : 1);
    return <<"EOF";
from tvm.script import tir as T
from tvm.script import tirx as Tx
from tvm.tirx.layout import S, TCol, TileLayout, TLane, tmem_datapath_layout
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
                         layout=$tlayout)
$pre    R = $frag
    Tx.$scope.copy_async(tmem[$treg], R[$lreg])
    T.ptx.tcgen05.wait.st()
    T.cuda.cta_sync()
    Tx.$scope.copy_async(R[$lreg], tmem[$treg])
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
    my $rep_regs = $lanes * $b / 1024;                        # registers per thread per repetition
    my $slab_regs = $rep_regs * $cols32 / $per_rep;           # of the whole fragment, per slab
    my ($s0, $w) = $c->{slice} ? @{ $c->{slice} } : (0, $c->{cols});
    my $num = $w * $bits / 32 / $per_rep;                     # a column slice: its repetitions
    my $reg0 = $s0 * $bits / 32 / $per_rep * $rep_regs;       # and its first register in the slab
    my $regs = $rep_regs * $num;                              # registers per thread per issue
    my $slabs = $lanes == 16 ? $c->{rows} / 64 : 1;
    # a 16-bit element per 32-bit column (TCol stride 2): .pack::16b, the
    # same registers, the column is the element's
    my $col = $c->{unpacked} ? ($c->{c0} // 0) : ($c->{c0} // 0) / $pack;
    my $pk = $c->{unpacked} ? 'True' : 'False';
    my @lines;
    for my $dir ('st', 'ld') {
        for my $s (0 .. $slabs - 1) {
            my $row = $lanes == 16 ? 16 * (($c->{sub} // 0) + $s) : 0;
            my @r = map { "R_regs[" . (($s * $slab_regs + $reg0 + $_) * $pack) . "]" } 0 .. $regs - 1;
            push @lines, "T.ptx.tcgen05.$dir(tmem_addr[0], $row, $col, \"$c->{shape}\", $num, $pk, " . join(', ', @r) . ")";
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
    # TVM's convention: rows [0:64] of D with a 64-row .16x*b fragment are the low half-slab: one issue at row 0
    { name => '.16x64b (64, 16) float32, rows 0:64 of D', shape => '16x64b', rows => 64, cols => 16, dt => 'float32', tmem => ['D', 128, 16], treg => '0:64, 0:16' },
    { name => '.16x256b (64, 64) float16, rows 0:64 of D, window 32:96', shape => '16x256b', rows => 64, cols => 64, dt => 'float16', tmem => ['D', 128, 128], treg => '0:64, 32:96', c0 => 32 },
    # datapath F (64 rows): one issue at row 16 x sub_slab
    { name => '.16x64b (64, 16) float32, F sub-slab 0', shape => '16x64b', rows => 64, cols => 16, dt => 'float32', tmem => ['F', 64, 16] },
    { name => '.16x128b (64, 32) float16, F sub-slab 1: row 16', shape => '16x128b', rows => 64, cols => 32, dt => 'float16', tmem => ['F', 64, 32], sub => 1 },
    { name => '.16x256b (64, 32) float32, F sub-slab 1', shape => '16x256b', rows => 64, cols => 32, dt => 'float32', tmem => ['F', 64, 32], sub => 1 },
    # datapath B (64 rows, N columns in two halves): one .32x32b issue, num = N / 2
    { name => '.32x32b (64, 32) float32, B: num 16', shape => '32x32b', rows => 64, cols => 32, dt => 'float32', tmem => ['B', 64, 32] },
    # datapath G (32 rows, N columns in four quarters, one per warp): num = N / 4
    { name => '.32x32b (32, 64) float32, G: num 16', shape => '32x32b', rows => 32, cols => 64, dt => 'float32', tmem => ['G', 32, 64] },
    { name => '.32x32b (32, 4) float32, G: num 1', shape => '32x32b', rows => 32, cols => 4, dt => 'float32', tmem => ['G', 32, 4] },
    # a 16-bit element per 32-bit column (TCol stride 2): .pack::16b / .unpack::16b
    { name => '.32x32b (128, 16) float16, one per column: pack, num 8', shape => '32x32b', rows => 128, cols => 16, dt => 'float16', tmem => ['D', 128, 16],
      unpacked => 1, tlayout => 'TileLayout(S[(128, 16) : (1 @ TLane, 2 @ TCol)])' },
    { name => '.32x32b (128, 8) float16, one per column, window 8:16: column 8', shape => '32x32b', rows => 128, cols => 8, dt => 'float16', tmem => ['D', 128, 32],
      unpacked => 1, tlayout => 'TileLayout(S[(128, 32) : (1 @ TLane, 2 @ TCol)])', treg => ':, 8:16', c0 => 8 },
    { name => '.16x64b (128, 32) float16, one per column: pack, rows 0 and 16', shape => '16x64b', rows => 128, cols => 32, dt => 'float16', tmem => ['D', 128, 32],
      unpacked => 1, tlayout => 'TileLayout(S[(128, 32) : (1 @ TLane, 2 @ TCol)])' },
    { name => '.16x128b (64, 16) float16, one per column, F sub-slab 1', shape => '16x128b', rows => 64, cols => 16, dt => 'float16', tmem => ['F', 64, 16], sub => 1,
      unpacked => 1, tlayout => 'TileLayout(S[(4, 16, 16) : (32 @ TLane, 1 @ TLane, 2 @ TCol)] + 16 @ TLane)' },
    { name => '.16x256b (64, 64) bfloat16, one per column, F', shape => '16x256b', rows => 64, cols => 64, dt => 'bfloat16', tmem => ['F', 64, 64],
      unpacked => 1, tlayout => 'TileLayout(S[(4, 16, 64) : (32 @ TLane, 1 @ TLane, 2 @ TCol)])' },
    # a column slice of a wider fragment: whole repetitions, its registers
    { name => '.32x32b (128, 32) float32, columns 8:16 of it, window 0:8', shape => '32x32b', rows => 128, cols => 32, dt => 'float32', tmem => ['D', 128, 8],
      slice => [8, 8] },
    { name => '.32x32b (128, 64) float16, columns 32:48 of it, window 16:32', shape => '32x32b', rows => 128, cols => 64, dt => 'float16', tmem => ['D', 128, 64],
      slice => [32, 16], treg => ':, 16:32', c0 => 16 },
    { name => '.16x64b (128, 64) float32, columns 16:32 of it: both slabs', shape => '16x64b', rows => 128, cols => 64, dt => 'float32', tmem => ['D', 128, 16],
      slice => [16, 16] },
    { name => '.16x128b (64, 64) float32, columns 32:64 of it, F', shape => '16x128b', rows => 64, cols => 64, dt => 'float32', tmem => ['F', 64, 32],
      slice => [32, 32] },
    { name => '.16x256b (128, 64) float16, columns 48:64 of it, window 32:48', shape => '16x256b', rows => 128, cols => 64, dt => 'float16', tmem => ['D', 128, 64],
      slice => [48, 16], treg => ':, 32:48', c0 => 32 },
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
       "tcgen05_ldst: datapath B on the column sub-window [:, 0:32] of 'tmem': B's columns are split in two halves, so only the full (64, N) tile, (64, 64), is one transfer",
       shape => '32x32b', rows => 64, cols => 32, dt => 'float32', tmem => ['B', 64, 64], treg => ':, 0:32');
refuse('rows 0:32 of datapath D',
       "tcgen05_ldst: not supported yet: rows [0:32] of the tensor memory 'tmem': copy all of its rows",
       shape => '32x32b', rows => 128, cols => 8, dt => 'float32', tmem => ['D', 128, 32], treg => '0:32, 0:32');
refuse('rows 64:128 of datapath D with a 64-row .16x64b fragment',
       "tcgen05_ldst: not supported yet: rows [64:128] of the tensor memory 'tmem' (a 64-row .16x*b fragment reads rows [0:64] of a datapath D buffer, its low half-slab)",
       shape => '16x64b', rows => 64, cols => 16, dt => 'float32', tmem => ['D', 128, 16], treg => '64:128, 0:16');
# datapath G, column slices
refuse('datapath G with a .16x64b fragment',
       "tcgen05_ldst: datapath G of 'tmem' with a .16x64b fragment: G splits the columns into four quarters, one per warp's lanes, which only a .32x32b (32, N) fragment reads",
       shape => '16x64b', rows => 64, cols => 16, dt => 'float32', tmem => ['G', 32, 32]);
refuse('a 128-row .32x32b fragment against datapath G',
       "tcgen05_ldst: a 128-row .32x32b fragment against the 32-row datapath G of 'tmem' (that fragment is datapath D's)",
       shape => '32x32b', rows => 128, cols => 8, dt => 'float32', tmem => ['G', 32, 32]);
refuse('a column slice of a 64-row .32x32b fragment',
       "tcgen05_ldst: the register fragment 'R' is a 64-row .32x32b fragment, whose columns are split across the warps: only all 32 columns of it are one transfer, not [0:16]",
       shape => '32x32b', rows => 64, cols => 32, dt => 'float32', tmem => ['B', 64, 16], slice => [0, 16]);
refuse('a column slice of part of a repetition',
       "tcgen05_ldst: the columns [4:12] of the register fragment 'R' are not whole repetitions of .16x256b (8 float32 columns each, a power of two of them, starting at a multiple)",
       shape => '16x256b', rows => 64, cols => 64, dt => 'float32', tmem => ['F', 64, 8], slice => [4, 8]);
refuse('a column slice of three repetitions',
       "tcgen05_ldst: the columns [0:24] of the register fragment 'R' are not whole repetitions of .16x256b (8 float32 columns each, a power of two of them, starting at a multiple)",
       shape => '16x256b', rows => 64, cols => 64, dt => 'float32', tmem => ['F', 64, 24], slice => [0, 24]);
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
