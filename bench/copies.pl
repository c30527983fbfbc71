#!/usr/bin/env perl
# copies.pl N: one kernel of N tile copies, as an unrolled copy kernel
# would be written: each copy moves its own 64 x 64 float16 region of A into
# one of 8 shared-memory buffers (round robin, a sync after each round) and
# from there to the same region of B; every region's corner is a let-bound
# name of its own (r<i>, c<i>). bench/copies.sh times the pass chain on it.
use strict;
use warnings;
my $n = shift // die "usage: copies.pl N\n";
my $cols = 64;                        # regions per row of A
my $rows = int(($n + $cols - 1) / $cols) || 1;
my ($h, $w) = ($rows * 64, $cols * 64);
print "from tvm.script import tir as T\nfrom tvm.script import tirx as Tx\n\n\@T.prim_func\n",
      "def k(A_ptr: T.handle, B_ptr: T.handle):\n",
      "    A = T.match_buffer(A_ptr, ($h, $w), \"float16\")\n",
      "    B = T.match_buffer(B_ptr, ($h, $w), \"float16\")\n",
      "    T.device_entry()\n    T.thread_id([128])\n";
print "    S$_ = T.alloc_shared((64, 64), \"float16\")\n" for 0 .. 7;
for my $i (0 .. $n - 1) {
  my ($r, $c, $s) = (int($i / $cols) * 64, ($i % $cols) * 64, $i % 8);
  print "    r$i = $r\n    c$i = $c\n",
        "    Tx.cta.copy(S$s\[:, :], A[r$i : r$i + 64, c$i : c$i + 64])\n",
        "    Tx.cta.copy(B[r$i : r$i + 64, c$i : c$i + 64], S$s\[:, :])\n";
  print "    T.cuda.cta_sync()\n" if $s == 7 || $i == $n - 1;
}
