# gemms_gen.pl: the block-scaled Tx.gemm_async cases of
# tests/gemm-async-scaled.t and, run as a script, the .tx module (on
# stdout) with one kernel per case, s<i>, in the style of TVM's
# test_gemm_block_scaled_fp8_cta_group_1 (test_gemm_async.py): TMA loads of
# A and B (fp8, mma_shared_layout) and of the two 32 x 16-byte scale tiles
# into shared memory, the scale tiles copied into tensor memory by
# Tx.copy_async (tcgen05.cp .32x128b.warpx4: row r of the tile to lane r of
# each quarter, its 16 bytes to 4 columns), Tx.gemm_async(acc, A, B,
# SFA=, SFB=, dispatch="tcgen05") by one thread, tcgen05.commit on an
# mbarrier, a wait, the accumulator read back (Tx.wg.copy_async,
# tcgen05.wait.ld) and stored to C.
#
# Tensor memory (256 columns): C in columns 0..n-1; the scale tiles at
# columns 128 (A's) and 132 (B's), each seen twice: as the copied 32 x 16
# bytes (sfa_raw, sfb_raw: (r, c) in lane r, byte column c, in the four
# quarters) and as the logical scales (sfa, sfb: a (128, kb) uint8 buffer
# whose element (m, q) is in lane m % 32 (each quarter), byte column
# 4 (m / 32) + q: TVM's sf_tmem_layout, written out), so that
#   scale(m, q) = raw[m % 32][4 (m / 32) + q].
#
# gemm_cases(): a list of hashes:
#   n, k: N (C's columns), K (M is 128); adt, bdt: A's and B's types;
#   swz: the swizzle of A's and B's layouts; mma_n: mma_n= (0: none);
#   sfa, sfb: [kb, r0, k0, kx]: the scale buffer is (128, kb), the region
#     SFA=sfa[r0 : r0 + 128, k0 : k0 + kx] (SFB: rows r0 .. r0 + n)
use strict;
use warnings;

sub gemms_cases {
    my @spec = (
        # n, k, adt, bdt, swz, mma_n, sfa, sfb
        [ 64, 128, "float8_e4m3fn", "float8_e4m3fn", 3,  0, [4, 0, 0, 4], [4,  0, 0, 4]],
        [128,  64, "float8_e5m2",   "float8_e4m3fn", 0, 64, [4, 0, 2, 2], [4,  0, 1, 2]],
        [ 32, 128, "float8_e4m3fn", "float8_e5m2",   2,  0, [1, 0, 0, 1], [1, 64, 0, 1]],
        [ 64,  32, "float8_e5m2",   "float8_e5m2",   1,  0, [2, 0, 1, 1], [2, 32, 0, 1]],
    );
    my @cases;
    for my $s (@spec) {
        my %c;
        @c{qw(n k adt bdt swz mma_n sfa sfb)} = @$s;
        push @cases, \%c;
    }
    return @cases;
}

# Element (r, c) of a rows x cols fp8 tile of mma_shared_layout(dt, swz,
# (rows, cols)) (doc/txir.md), before the swizzle: span P = 16 << swz
# bytes = elements a row; atoms of 8 rows x P stacked down the rows, then
# the P-wide column blocks; without a swizzle the core-matrix layout
# (rows, cols/16, 16) : (16, rows*16, 1).
sub gemms_elem {
    my ($swz, $rows, $r, $c) = @_;
    return $r * 16 + int($c / 16) * $rows * 16 + $c % 16 if !$swz;
    my $P = 16 << $swz;
    return int($c / $P) * $rows * $P + $r * $P + $c % $P;
}

sub gemms_sf_layout {
    my ($kb) = @_;
    return "TileLayout(S[(4, 32) : (4 \@ TCol, 1 \@ TLane)] + R[4 : 32 \@ TLane])" if $kb == 1;
    return "TileLayout(S[(4, 32, $kb) : (4 \@ TCol, 1 \@ TLane, 1 \@ TCol)] + R[4 : 32 \@ TLane])";
}

sub gemms_kernel {
    my ($i, $c) = @_;
    my ($n, $k, $adt, $bdt, $swz) = @$c{qw(n k adt bdt swz)};
    my ($ka, $ra, $qa, $xa) = @{ $c->{sfa} };
    my ($kb, $rb, $qb, $xb) = @{ $c->{sfb} };
    my $bytes = 128 * $k + $n * $k + 2 * 512;
    my $kw = $c->{mma_n} ? ", mma_m=128, mma_n=$c->{mma_n}" : "";
    my ($la, $lb) = (gemms_sf_layout($ka), gemms_sf_layout($kb));
    return <<"END";


\@T.prim_func
def s$i(A_ptr: T.handle, B_ptr: T.handle, SA_ptr: T.handle, SB_ptr: T.handle, C_ptr: T.handle) -> None:
    # N $n K $k, $adt x $bdt, swizzle $swz, mma_n $c->{mma_n}, SFA [$ra:+128, $qa:+$xa] of (128, $ka), SFB [$rb:+$n, $qb:+$xb] of (128, $kb)
    A = T.match_buffer(A_ptr, (128, $k), "$adt")
    B = T.match_buffer(B_ptr, ($n, $k), "$bdt")
    SA = T.match_buffer(SA_ptr, (32, 16), "uint8")
    SB = T.match_buffer(SB_ptr, (32, 16), "uint8")
    C = T.match_buffer(C_ptr, (128, $n), "float32")

    T.device_entry()
    warp_id = T.warp_id([4])
    T.cta_id([1])
    wg_id = T.warpgroup_id([1])
    tid_in_wg = T.thread_id_in_wg([128])

    A_smem = T.alloc_buffer((128, $k), "$adt", scope="shared", layout=mma_shared_layout("$adt", $swz, (128, $k)), align=1024)
    B_smem = T.alloc_buffer(($n, $k), "$bdt", scope="shared", layout=mma_shared_layout("$bdt", $swz, ($n, $k)), align=1024)
    SA_smem = T.alloc_buffer((32, 16), "uint8", scope="shared", align=128)
    SB_smem = T.alloc_buffer((32, 16), "uint8", scope="shared", align=128)
    tmem_addr = T.alloc_shared([1], "uint32")
    tma_mbar = T.alloc_shared([1], "uint64")
    mma_mbar = T.alloc_shared([1], "uint64")

    if tid_in_wg == 0:
        T.ptx.mbarrier.init.shared.b64(tma_mbar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mma_mbar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()

    if warp_id == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(tmem_addr), T.uint32(256))
    T.cuda.cta_sync()
    acc = T.decl_buffer((128, $n), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout=TileLayout(S[(128, $n) : (1 \@ TLane, 1 \@ TCol)]))
    sfa_raw = T.decl_buffer((32, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0] + 128, layout=TileLayout(S[(32, 16) : (1 \@ TLane, 1 \@ TCol)] + R[4 : 32 \@ TLane]))
    sfb_raw = T.decl_buffer((32, 16), "uint8", scope="tmem", allocated_addr=tmem_addr[0] + 132, layout=TileLayout(S[(32, 16) : (1 \@ TLane, 1 \@ TCol)] + R[4 : 32 \@ TLane]))
    sfa = T.decl_buffer((128, $ka), "uint8", scope="tmem", allocated_addr=tmem_addr[0] + 128, layout=$la)
    sfb = T.decl_buffer((128, $kb), "uint8", scope="tmem", allocated_addr=tmem_addr[0] + 132, layout=$lb)

    if tid_in_wg == 0:
        Tx.copy_async(A_smem[0:128, 0:$k], A[0:128, 0:$k], dispatch="tma_auto", mbar=tma_mbar.ptr_to([0]))
        Tx.copy_async(B_smem[0:$n, 0:$k], B[0:$n, 0:$k], dispatch="tma_auto", mbar=tma_mbar.ptr_to([0]))
        Tx.copy_async(SA_smem[0:32, 0:16], SA[0:32, 0:16], dispatch="tma_auto", mbar=tma_mbar.ptr_to([0]))
        Tx.copy_async(SB_smem[0:32, 0:16], SB[0:32, 0:16], dispatch="tma_auto", mbar=tma_mbar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(tma_mbar.ptr_to([0]), T.uint32($bytes))
    T.cuda.mbarrier_wait(tma_mbar.ptr_to([0]), 0)
    T.cuda.cta_sync()

    if tid_in_wg == 0:
        Tx.copy_async(sfa_raw[:, :], SA_smem[:, :])
        Tx.copy_async(sfb_raw[:, :], SB_smem[:, :])
        Tx.gemm_async(acc[0:128, 0:$n], A_smem[:, :], B_smem[:, :], SFA=sfa[$ra:@{[$ra + 128]}, $qa:@{[$qa + $xa]}], SFB=sfb[$rb:@{[$rb + $n]}, $qb:@{[$qb + $xb]}], dispatch="tcgen05"$kw)
        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(mma_mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mma_mbar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    C_reg = T.alloc_local(($n,), "float32")
    C_view = C_reg.view(128, $n, layout=TileLayout(S[(128, $n) : (1 \@ axis_tid_in_wg, 1)]))
    if wg_id == 0:
        Tx.wg.copy_async(C_view[:, :], acc[0:128, 0:$n])
        T.ptx.tcgen05.wait__ld.sync.aligned()
    T.cuda.cta_sync()
    Tx.copy(C[tid_in_wg, 0:$n], C_reg[:])

    if warp_id == 0:
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(256))
END
}

sub gemms_header {
    return "# generated by tests/emu/gemms_gen.pl\n"
         . "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n"
         . "from tvm.backend.cuda.tile_primitive.tma_utils import mma_shared_layout\n"
         . "from tvm.tirx.layout import S, R, TCol, TileLayout, TLane\n"
         . "from tvm.tirx.layout import tid_in_wg as axis_tid_in_wg\n";
}

unless (caller) {
    my @cases = gemms_cases();
    print gemms_header();
    print gemms_kernel($_, $cases[$_]) for 0 .. $#cases;
}

1;
