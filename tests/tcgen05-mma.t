#!/usr/bin/env perl
# tcgen05.mma .kind::f16 on the emulator (runtime/emu-mma.c): D = A @ B^T
# (+ D) over a K loop, A and B in shared memory (K-major, no swizzle and
# 32B/64B/128B swizzles), float16 and bfloat16, M = 128 and M = 64 (both
# halves of data-path layout F), the instruction descriptor built by
# T.cuda.tcgen05.encode_instr_descriptor, completion by tcgen05.commit;
# then the errors.
#
# The kernels come from tests/emu/mma_gen.pl (its comment says what each
# does and how A and B are laid out; mma_byte() is the layout, from
# doc/tcgen05-mma.md: the PTX ISA's K-major canonical layouts, CUTLASS's
# make_umma_desc). The model, computed here:
#   the instruction descriptor (PTX ISA 9.7.16.4.2, Table 42): dtype F32
#     = 1 at bits [5:4], atype and btype (F16 0, BF16 1) at [9:7] and
#     [12:10], negate A at 13, N >> 3 at [22:17], M >> 4 at [28:24]
#   D[m][n] = sum over k < 16*ks of A[m][k] * B[n][k] (negated with
#     neg_a): the first MMA has enable_input_d = 0, so the cells' initial
#     0xABABABAB is not added; small integers, so every summation order
#     gives the same float32
#   D[m][n] is in column col + n of lane m (M = 128) or lane
#     lane + 32 * (m / 16) + m % 16 (M = 64, data-path layout F)
# Every other cell of the allocated columns keeps 0xABABABAB. A and B are
# placed in Img (S's copy) by mma_byte(); every other byte of Img is 0xFF
# (a NaN in float16 and bfloat16), so a misread element shows. Each
# module also goes through ptxas for sm_100a.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/mma_gen.pl";

my $have_nvcc = have_nvcc();


my @cases = mma_cases();
my $src = "$tmp/mma.tx";
system("perl '$top/tests/emu/mma_gen.pl' >'$src'") == 0 or die "mma_gen.pl failed";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every tcgen05.mma kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("tcgen05.mma kernels: ptxas sm_100a", "no nvcc");
}
my $seed = 12345;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return ($seed >> 16) % 7 - 3 }
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my $K = 16 * $c->{ks};
    my $name = sprintf("k%d: M %d N %d K 16 x %d, %s, swizzle %d, lane %d col %d%s%s", $i, $c->{m}, $c->{n}, $c->{ks},
                       $c->{dt}, $c->{swz}, $c->{lane}, $c->{col}, $c->{neg} ? ", neg_a" : "",
                       $c->{tvm} ? " (TVM's spelling)" : "");
    my @A = map { [map { rnd() } 1 .. $K] } 1 .. $c->{m};
    my @B = map { [map { rnd() } 1 .. $K] } 1 .. $c->{n};
    my ($clash, $img) = mma_image($c->{nw}, $c->{dt}, [\@A, sub { mma_byte($c, $c->{aoff}, @_) }],
                                  [\@B, sub { mma_byte($c, $c->{boff}, @_) }]);
    ok(!$clash, "$name: A and B take distinct bytes of S");
    npy_put("$tmp/img.npy", "<u4", [$c->{nw}], $img);
    unlink "$tmp/t.npy", "$tmp/i.npy";
    my $rc = system("'$bin/txc-emu' --kernel k$i --in Img='$tmp/img.npy' --out I='$tmp/i.npy' --tmem-out '$tmp/t.npy' "
                    . "'$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "$name: runs", slurp("$tmp/err"));
    next if $rc;
    my (undef, $id) = npy_get("$tmp/i.npy");
    my $got = unpack("V", $id);
    my $t = $c->{dt} eq "bfloat16" ? 1 : 0;
    my $want = (1 << 4) | ($t << 7) | ($t << 10) | ($c->{neg} << 13) | (($c->{n} >> 3) << 17) | (($c->{m} >> 4) << 24);
    ok($got == $want, "$name: the instruction descriptor's bits", sprintf("got 0x%08x, want 0x%08x", $got, $want));
    my %model;
    for my $m (0 .. $c->{m} - 1) {
        my $lane = $c->{m} == 128 ? $m : $c->{lane} + 32 * int($m / 16) + $m % 16;
        for my $n (0 .. $c->{n} - 1) {
            my $s = 0;
            $s += $A[$m][$_] * $B[$n][$_] for 0 .. $K - 1;
            $s = -$s if $c->{neg};
            $model{"$lane," . ($c->{col} + $n)} = unpack("V", pack("f", $s));
        }
    }
    my ($h, $tm) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $tm);
    my @bad;
    for my $lane (0 .. 127) {
        for my $col (0 .. $c->{ncols} - 1) {
            my ($g, $w) = ($tm[$lane * 512 + $col], $model{"$lane,$col"} // 0xABABABAB);
            push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $lane, $col, $g, $w) if $g != $w;
        }
    }
    ok($h =~ /'shape': \(128, 512\)/ && !@bad && keys(%model) == $c->{m} * $c->{n},
       "$name: tensor memory after the MMAs is the model's (" . $c->{m} * $c->{n} . " cells of D)",
       @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
}

# ---- errors the emulator finds (tests/emu/mma_bad.tx), each message exact -----------
chdir $top or die;
my $bad = "tests/emu/mma_bad.tx";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/bad.cubin' $bad >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "mma_bad.tx: every kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("mma_bad.tx: ptxas sm_100a", "no nvcc");
}
my $at = "thread (cta 0, thread 0)";
# By hand: the instruction descriptor of M = 128, N = 64, float16, D F32 is
# (128 >> 4) << 24 | (64 >> 3) << 17 | 1 << 4 = 0x08100010 (Table 42);
# f16_d clears bit 4 (dtype 0).
# S (16384 bytes, 1024-aligned) starts at shared byte 0; B's descriptor in
# smem_oob: start 8192 >> 4 = 0x200, ldo 8 at bit 16, sdo 256 at bit 32,
# 0b001 at bit 46; row 16 is 8-row group 2, 2 * 4096 bytes on: byte 16384,
# past S and tmem_addr (16388 bytes). swizzle1: start 0, ldo 1, sdo 64,
# layout type 1 at bits [63:61].
my $sd = sprintf("0x%016x", 0x200 | (8 << 16) | (256 << 32) | (1 << 46));
# transposed: A M-major without a swizzle, so SBO (sdo 128: 2048 bytes) is
# the stride between its 16-byte chunks along M (PTX ISA 9.7.16.3); chunk
# 8 (rows 64..71) of k 0 starts at 8 * 2048 = 16384, past S: start 0, ldo
# 8 at bit 16, sdo 128 at bit 32, 0b001 at bit 46.
my $sdt = sprintf("0x%016x", (8 << 16) | (128 << 32) | (1 << 46));
my $s1 = sprintf("0x%016x", (1 << 16) | (64 << 32) | (1 << 46) | (1 << 61));
my @errors = (
    [ unallocated => "$bad:29:9: error: $at: tcgen05.mma writes tensor-memory columns 0..63 (N = 64), but column 32 is "
      . "not allocated (allocated: columns 0..31)" ],
    [ lane => "$bad:58:9: error: $at: tcgen05.mma with M = 128: the accumulator's address 0x00100000 names lane 16; "
      . "M = 128 fills lanes 0..127, so the lane is 0" ],
    [ m64_lane => "$bad:87:9: error: $at: tcgen05.mma with M = 64: the accumulator's address 0x00080000 names lane 8; "
      . "M = 64 fills lanes 0..15 or 16..31 of each warp's quarter (data-path layout F), so the lane is 0 or 16" ],
    [ transposed => "$bad:116:9: error: $at: tcgen05.mma reads shared-memory bytes 16384..16399 (k 0, 16-byte chunk 8 "
      . "along MN of A, MN-major; descriptor $sdt), outside every shared buffer (the CTA has 16388 bytes of shared "
      . "memory)" ],
    [ f16_d => "$bad:146:83: error: $at: tcgen05.mma: the instruction descriptor 0x08100000 has dtype of D (1: F32) "
      . "(bits [5:4]) = 0; txc requires 1" ],
    [ smem_oob => "$bad:176:9: error: $at: tcgen05.mma reads shared-memory bytes 16384..16399 (row 16, 16-byte chunk 0 "
      . "of B; descriptor $sd), outside every shared buffer (the CTA has 16388 bytes of shared memory)" ],
    [ swizzle1 => "$bad:206:69: error: $at: tcgen05.mma: the descriptor $s1 has swizzle mode 1 (128B with 32-byte "
      . "atoms), which the emulator does not model: its layout is unverified (doc/tcgen05-cp.md)" ],
);
emu_errors($bin, $tmp, $bad, @errors);

# ---- errors txc-parse finds (tests/emu/mma_sema.tx): the whole list, exact ----------
{
    my $f = "tests/emu/mma_sema.tx";
    my $rc = system("'$bin/txc-parse' $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $want = join "", map { "$f:$_\n" } (
        "17:67: error: tcgen05.mma kind \"tf32\": txc emits .kind::f16 (float16 and bfloat16 inputs, float32 "
        . "accumulation) and .kind::mxf8f6f4 (block-scaled 8-, 6- and 4-bit inputs)",
        "18:49: error: the instruction descriptor 0x08100000 has dtype of D (1: F32) (bits [5:4]) = 0; txc requires 1",
        "19:49: error: the instruction descriptor 0x02100010 describes M = 32: with cta_group 1, M is 64 or 128",
        "20:41: error: A's shared-memory descriptor is a 64-bit integer, not uint32",
        "21:56: error: enable_input_d is a boolean or a 32-bit integer, not float",
        "22:82: error: tcgen05.mma with cta_group 1 takes 4 disable-output-lane masks, not 3",
        "23:85: error: a disable-output-lane mask must be the constant 0: txc emits and runs tcgen05.mma with every "
        . "output lane enabled",
        "24:77: error: d_dtype is \"float32\": txc emits .kind::f16 with float32 accumulation, not \"float16\"",
        "25:96: error: a_dtype is \"float16\" or \"bfloat16\" (.kind::f16), not \"float32\"",
        "26:115: error: b_dtype \"bfloat16\" differs from a_dtype \"float16\": txc requires A and B of one type",
        "27:128: error: tcgen05.mma .kind::f16 shape: M = 96: with cta_group 1, M is 64 or 128 (PTX ISA Table 39)",
        "28:135: error: tcgen05.mma .kind::f16 shape: N = 12: with cta_group 1 and M = 128, N is a multiple of 8 from "
        . "8 to 256 (PTX ISA Table 39)",
        "29:141: error: K is 16 for tcgen05.mma .kind::f16, not 32",
        "30:185: error: is_sparse=True: txc emits dense tcgen05.mma only",
        "31:48: error: T.cuda.tcgen05.encode_instr_descriptor() writes a 32-bit descriptor; 'ad' is uint64",
        "32:128: error: tcgen05.mma .kind::f16 shape: M = 64: with cta_group 2, M is 128 or 256 (PTX ISA Table 39)",
    );
    my $got = join "", grep { /^\Q$f\E:/ } split /^/, slurp("$tmp/err");    # the messages, not the excerpts
    ok($rc != 0 && $got eq $want, "txc-parse: the operand errors of tcgen05.mma and its instruction descriptor",
       "want:\n$want", "got (exit $rc):\n$got");
}

done();
