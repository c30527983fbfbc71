# mma_mn_gen.pl: the tcgen05.mma cases with MN-major (transposed) operands
# of tests/tcgen05-mma-mn.t and, run as a script, the .tx module (on
# stdout) with one kernel per case, k<i>.
#
# mma_mn_cases(): a list of hashes: m, n, ks (MMAs in the K loop, K = 16
# each), dt, swz (the swizzle= of both descriptors: 0 none, 1 32B, 2 64B,
# 3 128B), ta / tb (1: A is M-major / B is N-major, trans_a / trans_b),
# order (how an MN-major operand's core matrices or atoms are arranged,
# below), swap (1: the kernel writes the MN-major operands' LBO and SBO
# the wrong way round: a planted bug, D must differ from the model);
# worked out here, per operand (the hash in a / b): rows (M or N), mn,
# ldo, sdo (16-byte units), step (bytes the start moves per MMA), off
# (bytes into S of its first MMA), bytes; and nw (the words of S), ncols.
#
# The MN-major layouts (PTX ISA 9.7.16.3 "Major-ness supported by
# strides": for MN-major, LBO is the stride between the 8-column (k)
# groups without a swizzle and between the (span/16)-row (MN) groups with
# one; SBO between rows (16-byte MN chunks) without a swizzle and between
# the 8-column (k) groups with one; CUTLASS mma_sm100_desc.hpp,
# make_umma_desc<Major::MN>'s canonical layouts), element (mn, k) of one
# MMA's K = 16, 16-bit data:
#   no swizzle: start + (mn / 8) * SBO + (k / 8) * LBO + (k % 8) * 16
#               + (mn % 8) * 2
#   swizzle of span Sp (E = Sp / 2 elements): start + (mn / E) * LBO
#               + (k / 8) * SBO + (k % 8) * Sp + (mn % E) * 2, then the
#               XOR of the absolute address (bits [6:4] ^= bits [9:7],
#               masked to 1, 3, 7 for 32B, 64B, 128B)
# Arrangements of the (MN group, k group) blocks (core matrices of 128
# bytes, or atoms of 8 * Sp bytes), with 2ks k groups over the K loop:
#   order 0: the k groups of one MN group together (the k-group stride is
#            the block size); order 1: the MN groups of one k group
#            together (the MN-group stride is the block size)
# MMA j starts two k groups (16 k) on. A K-major operand is laid out as in
# mma_gen.pl (LBO 128, SBO 256 ks without a swizzle; rows Sp bytes apart,
# SBO 8 Sp, 32 bytes a step with one).
use strict;
use warnings;

sub mn_layout {
    my ($c, $rows, $mn) = @_;
    my %o = (rows => $rows, mn => $mn);
    my $G = 2 * $c->{ks};
    if (!$mn) {
        if ($c->{swz} == 0) {
            @o{qw(ldo sdo step)} = (8, 16 * $c->{ks}, 256);
        } else {
            my $sp = 16 << $c->{swz};
            die "ks too large for a K-major operand's span" if 32 * $c->{ks} > $sp;
            @o{qw(ldo sdo step)} = (1, 8 * $sp / 16, 32);
        }
        $o{bytes} = ($rows / 8) * $o{sdo} * 16;
        return \%o;
    }
    my ($blk, $nmn);
    if ($c->{swz} == 0) {
        ($blk, $nmn) = (128, $rows / 8);
        # no swizzle: SBO along MN, LBO along k
        @o{qw(sdo ldo)} = $c->{order} ? ($blk / 16, $blk * $nmn / 16) : ($blk * $G / 16, $blk / 16);
        $o{step} = 2 * $o{ldo} * 16;
    } else {
        my $sp = 16 << $c->{swz};
        ($blk, $nmn) = (8 * $sp, int(($rows + $sp / 2 - 1) / ($sp / 2)));
        # swizzled: LBO along MN, SBO along k
        @o{qw(ldo sdo)} = $c->{order} ? ($blk / 16, $blk * $nmn / 16) : ($blk * $G / 16, $blk / 16);
        $o{step} = 2 * $o{sdo} * 16;
    }
    $o{bytes} = $blk * $nmn * $G;
    return \%o;
}

sub mma_mn_cases {
    my @spec = (
        # m, n, ks, dt, swz, ta, tb, order, swap
        [128,  64, 2, "float16",  0, 0, 1, 0, 0],
        [128,  64, 2, "bfloat16", 0, 1, 1, 1, 0],
        [128,  64, 1, "float16",  1, 0, 1, 0, 0],
        [128, 128, 2, "bfloat16", 2, 1, 1, 0, 0],
        [128,  64, 4, "float16",  3, 0, 1, 0, 0],
        [128, 256, 2, "bfloat16", 3, 1, 1, 1, 0],
        [ 64,  32, 2, "float16",  2, 1, 0, 0, 0],
        [128,  24, 1, "bfloat16", 1, 1, 1, 1, 0],
        [ 64,   8, 3, "float16",  0, 1, 1, 0, 0],
        [128,  64, 2, "float16",  3, 1, 0, 0, 0],
        [128,  64, 2, "float16",  0, 0, 1, 0, 1],
        [128,  64, 2, "float16",  3, 1, 0, 0, 1],
        [128,  64, 1, "bfloat16", 1, 0, 1, 0, 1],
    );
    my @cases;
    for my $s (@spec) {
        my %c;
        @c{qw(m n ks dt swz ta tb order swap)} = @$s;
        $c{a} = mn_layout(\%c, $c{m}, $c{ta});
        $c{b} = mn_layout(\%c, $c{n}, $c{tb});
        $c{a}{off} = 0;
        $c{b}{off} = 1024 * int(($c{a}{bytes} + 1023) / 1024);
        $c{nw} = 128 * int((($c{b}{off} + $c{b}{bytes}) / 4 + 127) / 128);
        $c{ncols} = 32;
        $c{ncols} *= 2 while $c{ncols} < $c{n};
        push @cases, \%c;
    }
    return @cases;
}

# The byte of S holding element (r, k) (k < 16 ks) of operand o (A: $c->{a},
# B: $c->{b}), by the rules above, element by element.
sub mn_byte {
    my ($c, $o, $r, $k) = @_;
    my ($j, $kk) = (int($k / 16), $k % 16);
    my $start = $o->{off} + $j * $o->{step};
    my ($lbo, $sbo) = (16 * $o->{ldo}, 16 * $o->{sdo});
    my $a;
    if (!$o->{mn}) {
        my ($ch, $e) = (int($kk / 8), $kk % 8);
        my $sp = $c->{swz} ? 16 << $c->{swz} : 16;
        $a = $start + ($r >> 3) * $sbo + ($r & 7) * $sp + ($c->{swz} ? 16 * $ch : $ch * $lbo) + 2 * $e;
    } elsif ($c->{swz} == 0) {
        $a = $start + int($r / 8) * $sbo + int($kk / 8) * $lbo + ($kk % 8) * 16 + ($r % 8) * 2;
    } else {
        my $sp = 16 << $c->{swz};
        my $E = $sp / 2;
        $a = $start + int($r / $E) * $lbo + int($kk / 8) * $sbo + ($kk % 8) * $sp + ($r % $E) * 2;
    }
    my $m = $c->{swz} ? (1 << $c->{swz}) - 1 : 0;
    return $a ^ ((($a >> 7) & $m) << 4);
}

unless (caller) {
    my @cases = mma_mn_cases();
    print "# generated by tests/emu/mma_mn_gen.pl\nfrom tvm.script import tirx as T\n";
    for my $i (0 .. $#cases) {
        my $c = $cases[$i];
        my ($nw, $nc) = ($c->{nw}, $c->{ncols});
        my ($A, $B) = ($c->{a}, $c->{b});
        my @d;
        for my $o ($A, $B) {
            my ($l, $s) = ($o->{ldo}, $o->{sdo});
            ($l, $s) = ($s, $l) if $c->{swap} && $o->{mn};
            push @d, [$l, $s];
        }
        my $ta = $c->{ta} ? "True" : "False";
        my $tb = $c->{tb} ? "True" : "False";
        print <<"END";


\@T.prim_func
def k$i(Img_ptr: T.handle, I_ptr: T.handle):
    # M $c->{m} N $c->{n} K 16 x $c->{ks}, $c->{dt}, swizzle $c->{swz}, trans_a $ta, trans_b $tb, order $c->{order}@{[$c->{swap} ? ", LBO and SBO of the MN-major operands swapped (wrong)" : ""]}
    Img = T.match_buffer(Img_ptr, ($nw,), "uint32")
    I = T.match_buffer(I_ptr, (1,), "uint32")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    S = T.alloc_buffer(($nw,), "uint32", scope="shared", align=1024)
    tmem_addr = T.alloc_shared([1], "uint32")
    bar = T.alloc_shared([1], "uint64")
    adesc = T.local_scalar("uint64")
    bdesc = T.local_scalar("uint64")
    idesc = T.local_scalar("uint32")
    for i in range(@{[$nw / 128]}):
        S[i * 128 + tid] = Img[i * 128 + tid]
    if warp_id == 0:
        T.ptx.tcgen05.alloc(T.address_of(tmem_addr), n_cols=$nc, cta_group=1)
    if tid == 0:
        T.ptx.mbarrier.init(T.address_of(bar[0]), 1)
        T.ptx.fence.mbarrier_init()
    T.ptx.fence.proxy_async()
    T.cuda.cta_sync()
    if tid == 0:
        T.cuda.tcgen05.encode_instr_descriptor(T.address_of(idesc), d_dtype="float32", a_dtype="$c->{dt}", b_dtype="$c->{dt}", M=$c->{m}, N=$c->{n}, K=16, trans_a=$ta, trans_b=$tb)
        for j in range($c->{ks}):
            T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(adesc), S.ptr_to([@{[$A->{off} / 4]} + j * @{[$A->{step} / 4]}]), ldo=$d[0][0], sdo=$d[0][1], swizzle=$c->{swz})
            T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(bdesc), S.ptr_to([@{[$B->{off} / 4]} + j * @{[$B->{step} / 4]}]), ldo=$d[1][0], sdo=$d[1][1], swizzle=$c->{swz})
            T.ptx.tcgen05.mma(T.cuda.get_tmem_addr(tmem_addr[0], 0, 0), adesc, bdesc, idesc, j > 0)
        T.ptx.tcgen05.commit(T.address_of(bar[0]))
        I[0] = idesc
    T.ptx.mbarrier.try_wait(T.address_of(bar[0]), 0)
    T.ptx.tcgen05.fence.after_thread_sync()
    T.cuda.cta_sync()
    if warp_id == 0:
        T.ptx.tcgen05.dealloc(tmem_addr[0], n_cols=$nc, cta_group=1)
END
    }
}

1;
