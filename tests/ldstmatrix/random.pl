#!/usr/bin/env perl
# random.pl SEED: a random register <-> shared copy kernel pair for the
# ldstmatrix variant (tests/ldstmatrix.t), printed to stdout; its first
# line says what it is ("# expect: matrix" or "# expect: reg").
#
# The logical shape is the factors of an m8n8 fragment, in a random order:
# r8 (a matrix's row), c4 (a lane's column pair), e2 (the pair's element),
# the words of a thread (1, 2, 3, 4, 6 or 8 of them, split into factors of
# 2, 3, 4, held at random storage strides) and, at CTA scope, the warps.
# The registers are the fragment (r8 -> 4 @ laneid, c4 -> 1 @ laneid), or
# one time in seven a lane order that is no fragment (r8 -> 1, c4 -> 8):
# reg must take those. Shared memory holds each matrix row-major (a row of
# c4 x e2 contiguous: ldmatrix) or column-major (r8 contiguous: .trans),
# its other factors at random strides of whole 16-byte rows, sometimes
# with a padding, sometimes in a swizzle. Kernel ld: A -> shared ->
# registers -> B; st: A -> registers -> shared -> B. B must be A.
use strict;
use warnings;

my $seed = shift // 1;
my $x = $seed * 2654435761 % 4294967296 + 1;
sub rnd { my $n = shift; $x = ($x * 1103515245 + 12345) % 2147483648; return int($x / 65536) % $n; }
sub pick { return $_[rnd(scalar @_)]; }
sub shuffle { my @a = @_; for (my $i = $#a; $i > 0; $i--) { my $j = rnd($i + 1); @a[$i, $j] = @a[$j, $i]; } return @a; }

my $trans = rnd(2);
my $warps = pick(1, 1, 2, 4);
my $words = pick(1, 2, 3, 4, 6, 8);
my $bad = rnd(7) == 0;
my @wf;
for (my $n = $words; $n > 1;) {
	my @d = grep { $n % $_ == 0 } (2, 3, 4);
	my $f = pick(@d);
	push @wf, $f;
	$n /= $f;
}
my %ext = (r8 => 8, c4 => 4, e2 => 2);
$ext{"w$_"} = $wf[$_] for 0 .. $#wf;
$ext{wp} = $warps if $warps > 1;
my @names = shuffle(sort keys %ext);
my %reg = (r8 => $bad ? '1 @ laneid' : '4 @ laneid', c4 => $bad ? '8 @ laneid' : '1 @ laneid', e2 => '1');
my $s = 2;
for my $w (shuffle(grep { /^w\d/ } sort keys %ext)) {
	$reg{$w} = $s;
	$s *= $ext{$w};
}
$reg{wp} = '1 @ warpid' if $warps > 1;
my %sm;
my @unit;
if ($trans) {
	$sm{r8} = 1;
	@unit = shuffle(grep { $_ ne 'r8' } sort keys %ext);
} else {
	%sm = (e2 => 1, c4 => 2);
	@unit = shuffle(grep { !/^(c4|e2)$/ } sort keys %ext);
}
my $st = 8;
my $pad = pick(0, 0, 8);
for my $i (0 .. $#unit) {
	$sm{$unit[$i]} = $st;
	$st *= $ext{$unit[$i]};
	$st += $pad if $i == 0;
}
my $shape = '(' . join(', ', map { $ext{$_} } @names) . (@names == 1 ? ',' : '') . ')';
my $rl = "TileLayout(S[$shape : (" . join(', ', map { $reg{$_} } @names) . ")])";
my $sl = "TileLayout(S[$shape : (" . join(', ', map { $sm{$_} } @names) . ")])";
$sl = 'ComposeLayout(3, ' . pick(1, 2, 3) . ", 3, $sl)" if $st % 64 == 0 && rnd(5) < 2;
my $dt = pick('float16', 'bfloat16', 'int16', 'uint16');
my $threads = 32 * $warps;
my $scope = $warps == 1 ? 'warp' : 'cta';
my $full = join(', ', map { ':' } @names);
my $expect = $bad ? 'reg' : 'matrix';
print <<"EOF";
# expect: $expect
# seed $seed: trans $trans, $warps warp(s), $words word(s) a thread, $dt
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import ComposeLayout, S, TileLayout, laneid, warpid


\@T.prim_func
def ld(A: T.Buffer($shape, "$dt"), B: T.Buffer($shape, "$dt")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([$threads])
    Sa = T.alloc_buffer($shape, "$dt", scope="shared", layout=$sl)
    Tx.cta.copy(Sa[$full], A[$full])
    T.cuda.cta_sync()
    R = T.alloc_buffer($shape, "$dt", scope="local", layout=$rl)
    Tx.$scope.copy(R[$full], Sa[$full])
    Tx.$scope.copy(B[$full], R[$full])


\@T.prim_func
def st(A: T.Buffer($shape, "$dt"), B: T.Buffer($shape, "$dt")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([$threads])
    Sa = T.alloc_buffer($shape, "$dt", scope="shared", layout=$sl)
    R = T.alloc_buffer($shape, "$dt", scope="local", layout=$rl)
    Tx.$scope.copy(R[$full], A[$full])
    Tx.$scope.copy(Sa[$full], R[$full])
    T.cuda.cta_sync()
    Tx.cta.copy(B[$full], Sa[$full])
EOF
