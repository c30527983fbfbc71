#!/usr/bin/env perl
# long_kernel.pl N: one kernel of N statements, let-bound scalars and every
# 100th a 128 x 64 float16 tile copy into shared memory, then a copy out.
# bench/passes.sh times every program on it; tests/limits.t bounds them.
use strict;
use warnings;
my $n = shift // die "usage: long_kernel.pl N\n";
print "from tvm.script import tir as T\nfrom tvm.script import tirx as Tx\n\n\@T.prim_func\n",
      "def k(A_ptr: T.handle, B_ptr: T.handle):\n",
      "    A = T.match_buffer(A_ptr, (128, 64), \"float16\")\n",
      "    B = T.match_buffer(B_ptr, (128, 64), \"float16\")\n",
      "    T.device_entry()\n    tid = T.thread_id([128])\n",
      "    A_smem = T.alloc_shared((128, 64), \"float16\")\n";
print $_ % 100 ? "    v$_ = tid + $_\n" : "    Tx.cta.copy(A_smem[:, :], A[:, :])\n" for 1 .. $n;
print "    T.cuda.cta_sync()\n    Tx.cta.copy(B[:, :], A_smem[:, :])\n";
