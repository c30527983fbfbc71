#!/usr/bin/env perl
# The block-scaled tcgen05.mma (.kind::mxf8f6f4.block_scale.scale_vec::1X)
# on the emulator (runtime/emu-mmas.c): D = (A * scale_A) @ (B * scale_B)^T
# (+ D) over a K loop, A and B float8_e4m3fn / float8_e5m2 in shared memory
# (K-major, no swizzle and 128B), the UE8M0 scales put in tensor memory by
# tcgen05.cp .32x128b.warpx4 (or tcgen05.st by every warp), the
# instruction descriptor built by
# T.cuda.tcgen05.encode_instr_descriptor_block_scaled with the scale-factor
# id of each MMA; then two planted bugs (a wrong scale-factor id, a
# missing scale copy), the errors of the emulator and of txc-parse.
#
# The kernels come from tests/emu/mmas_gen.pl (its comment gives the
# layouts: mmas_byte(), mmas_scale_byte()). The model, computed here from
# the definitions (doc/tcgen05-mma.md, "Block-scaled MMA"):
#   fp8 (OCP 8-bit floating point, the PTX ISA's .e4m3 / .e5m2): sign,
#     exponent (4 bits, bias 7 / 5 bits, bias 15), mantissa (3 / 2 bits);
#     exponent 0: subnormal; E4M3 has no infinity, S.1111.111 is NaN
#   UE8M0: the byte e is 2^(e - 127)
#   the instruction descriptor (ISA 9.7.16.4.2, block-scaled table;
#     CUTLASS InstrDescriptorBlockScaled): b_sf_id [5:4], atype [9:7]
#     (E4M3 0, E5M2 1), btype [12:10], N >> 3 [22:17], scale type UE8M0 = 1
#     at 23, M >> 4 [28:24], a_sf_id [30:29]
#   D[m][n] = sum over MMAs j and k < 32 of A[m][32j+k] * 2^(eA[m][j]-127)
#     * B[n][32j+k] * 2^(eB[n][j]-127): the scale of row r for MMA j is
#     byte j (the scale-factor id) of column c + r / 32 in lane r % 32,
#     duplicated in each 32-lane quarter (ISA 9.7.16.10.7 "Block Scaling"
#     and "Scale Factor A ID"; CUTLASS's tmem_sf_frg)
# Why the float32 sums are exact: every element is an integer of at most 4
# in magnitude, every scale 2^-3 .. 2^3, so each term is an integer
# multiple of 2^-6 below 2^10 in magnitude (2^16 units) and a sum of at most
# 128 terms stays below 2^23 units: every partial sum is a float32, and
# every summation order gives the same bits. With the planted scale 2^44
# (byte 0xAB) the same holds, scaled by a power of two.
# Every other byte of Img is 0xFF (a NaN in both formats, and a NaN scale),
# so a misread element or scale shows.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/mmas_gen.pl";

my $have_nvcc = have_nvcc();

# fp8 byte b of type t, decoded from the bit definition
sub fp8 {
    my ($b, $t) = @_;
    my ($eb, $mb) = $t eq "float8_e4m3fn" ? (4, 3) : (5, 2);
    my $bias = (1 << ($eb - 1)) - 1;
    my ($s, $e, $m) = ($b >> 7, ($b >> $mb) & ((1 << $eb) - 1), $b & ((1 << $mb) - 1));
    my $v;
    if ($t eq "float8_e4m3fn" && $e == 15 && $m == 7) {
        return "nan";
    } elsif ($t eq "float8_e5m2" && $e == 31) {
        return $m ? "nan" : ($s ? "-inf" : "inf");
    } elsif ($e == 0) {
        $v = $m * 2**(1 - $bias - $mb);
    } else {
        $v = (1 + $m / 2**$mb) * 2**($e - $bias);
    }
    return $s ? -$v : $v;
}

my @cases = mmas_cases();
my $src = "$tmp/mmas.tx";
system("perl '$top/tests/emu/mmas_gen.pl' >'$src'") == 0 or die "mmas_gen.pl failed";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every block-scaled tcgen05.mma kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("block-scaled tcgen05.mma kernels: ptxas sm_100a", "no nvcc");
}

# The CUDA txc emits: the ISA's block-scaled form (9.7.16.10.9, "tcgen05.mma":
# [d-tmem], a-desc, b-desc, idesc, [scale-A-tmem], [scale-B-tmem],
# enable-input-d), and s0's descriptor worked out by hand: M = 128, N = 64,
# E4M3 x E4M3, UE8M0 is 8 << 24 | 1 << 23 | 8 << 17 = 0x08900000, the
# scale-factor ids (the loop's j) ORed in at bits 29 and 4.
{
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cu -o '$tmp/x.cu' '$src' >'$tmp/out' 2>'$tmp/err'");
    my $cu = slurp("$tmp/x.cu");
    my $ins = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%0], %1, %2, %3, [%5], [%6], p;";
    ok($rc == 0 && index($cu, $ins) >= 0 && $cu =~ /= 0x08900000u \| \(\(\(uint32_t\)\(j\) & 3u\) << 29\) \| \(\(\(uint32_t\)\(j\) & 3u\) << 4\);/,
       "the CUDA: the block-scaled instruction and s0's instruction descriptor", slurp("$tmp/err"));
}

my $seed = 4242;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed >> 16 }
# a random fp8 byte of type t whose value is an integer of at most 4 in magnitude
sub elem {
    my ($t) = @_;
    while (1) {
        my $b = rnd() % 256;
        my $v = fp8($b, $t);
        return ($b, $v) if $v !~ /n/ && $v == int($v) && abs($v) <= 4;
    }
}

my %code = (float8_e4m3fn => 0, float8_e5m2 => 1);
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my ($M, $N, $K) = ($c->{m}, $c->{n}, 32 * $c->{ks});
    my $name = sprintf("s%d: M 128 N %d K 32 x %d, %s x %s, swizzle %d%s%s%s", $i, $N, $c->{ks}, $c->{at}, $c->{bt},
                       $c->{swz}, $c->{tvm} ? " (TVM's spelling)" : "", $c->{bst} ? ", B's scales by tcgen05.st" : "",
                       $c->{bug} ? ", planted bug $c->{bug}" : "");
    my @img = (0xFF) x (4 * $c->{nw});
    my (@A, @B, @eA, @eB);
    my (%used, $clash);
    my $put = sub { my ($at, $b) = @_; $clash++ if $used{$at}++ || $at >= @img; $img[$at] = $b };
    for my $r (0 .. $M - 1) {
        for my $k (0 .. $K - 1) {
            my ($b, $v) = elem($c->{at});
            $A[$r][$k] = $v;
            $put->(mmas_byte($c, $c->{aoff}, $r, $k), $b);
        }
        for my $j (0 .. $c->{ks} - 1) {
            $eA[$r][$j] = 124 + rnd() % 7;
            $put->(mmas_scale_byte($c->{fa}, $r, $j), $eA[$r][$j]);
        }
    }
    for my $r (0 .. $N - 1) {
        for my $k (0 .. $K - 1) {
            my ($b, $v) = elem($c->{bt});
            $B[$r][$k] = $v;
            $put->(mmas_byte($c, $c->{boff}, $r, $k), $b);
        }
        for my $j (0 .. $c->{ks} - 1) {
            $eB[$r][$j] = 124 + rnd() % 7;
            $put->(mmas_scale_byte($c->{fb}, $r, $j), $eB[$r][$j]);
        }
    }
    ok(!$clash, "$name: A, B and the scales take distinct bytes of S");
    npy_put("$tmp/img.npy", "<u4", [$c->{nw}], pack("C*", @img));
    unlink "$tmp/t.npy", "$tmp/i.npy";
    my $rc = system("'$bin/txc-emu' --kernel s$i --in Img='$tmp/img.npy' --out I='$tmp/i.npy' --tmem-out '$tmp/t.npy' "
                    . "'$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "$name: runs", slurp("$tmp/err"));
    next if $rc;
    my (undef, $id) = npy_get("$tmp/i.npy");
    my $got = unpack("V", $id);
    my $last = $c->{ks} - 1;
    my $want = (($c->{bug} eq "sfid" ? 0 : $last) << 29) | (($M >> 4) << 24) | (1 << 23) | (($N >> 3) << 17)
             | ($code{$c->{bt}} << 10) | ($code{$c->{at}} << 7) | ($last << 4);
    ok($got == $want, "$name: the instruction descriptor's bits", sprintf("got 0x%08x, want 0x%08x", $got, $want));

    # the model: the cells of D, then the scale columns as the copies leave them
    my $word = sub { my ($at) = @_; return unpack("V", pack("C4", @img[$at .. $at + 3])) };
    my (%model, %right);
    for my $m (0 .. $M - 1) {
        for my $n (0 .. $N - 1) {
            my ($s, $s_right) = (0, 0);
            for my $j (0 .. $c->{ks} - 1) {
                my $dot = 0;
                $dot += $A[$m][32 * $j + $_] * $B[$n][32 * $j + $_] for 0 .. 31;
                my $ea = $c->{bug} eq "sfid" ? $eA[$m][0] : $eA[$m][$j];
                my $eb = $c->{bug} eq "nocopy" ? 0xAB : $eB[$n][$j];
                $s += $dot * 2**($ea - 127) * 2**($eb - 127);
                $s_right += $dot * 2**($eA[$m][$j] - 127) * 2**($eB[$n][$j] - 127);
            }
            $model{"$m," . ($c->{col} + $n)} = unpack("V", pack("f", $s));
            $right{"$m," . ($c->{col} + $n)} = unpack("V", pack("f", $s_right));
        }
    }
    for my $lane (0 .. 127) {
        for my $q (0 .. 3) {
            $model{"$lane," . ($c->{sa} + $q)} = $word->($c->{fa} + 16 * ($lane % 32) + 4 * $q);
            next if $c->{bug} eq "nocopy";
            $model{"$lane," . ($c->{sb} + $q)} = $word->($c->{fb} + 16 * ($lane % 32) + 4 * $q);
        }
    }
    my ($h, $tm) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $tm);
    my (@bad, $differs);
    for my $lane (0 .. 127) {
        for my $col (0 .. $c->{ncols} - 1) {
            my ($g, $w) = ($tm[$lane * 512 + $col], $model{"$lane,$col"} // 0xABABABAB);
            push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $lane, $col, $g, $w) if $g != $w;
            $differs++ if exists $right{"$lane,$col"} && $g != $right{"$lane,$col"};
        }
    }
    ok($h =~ /'shape': \(128, 512\)/ && !@bad,
       "$name: tensor memory after the MMAs is the model's ($M x $N cells of D, the scale columns, the rest untouched)",
       @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
    if ($c->{bug}) {
        ok($differs && $differs > $N, "$name: D differs from the bug-free model in $differs cells (the check can fail)");
    }
}

# ---- errors the emulator finds (tests/emu/mmas_bad.tx), each message exact -----------
chdir $top or die;
my $bad = "tests/emu/mmas_bad.tx";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/bad.cubin' $bad >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "mmas_bad.tx: every kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("mmas_bad.tx: ptxas sm_100a", "no nvcc");
}
my $at = "thread (cta 0, thread 0)";
my $op = "tcgen05.mma kind=\"mxf8f6f4\"";
# By hand (the block-scaled table): M = 128, N = 32, E4M3 A and B, UE8M0
# is 8 << 24 | 1 << 23 | 4 << 17 = 0x08880000; with atype 3 (E2M3) at
# [9:7]: 0x08880180; with trans_a (bit 15): 0x08888000. The scale address
# at lane 32, column 32 is 32 << 16 | 32 = 0x00200020.
my @errors = (
    [ fp6 => "$bad:31:83: error: $at: $op: the instruction descriptor 0x08880180 has atype float6_e2m3fn; the emulator "
      . "reads 8-bit A and B only (float8_e4m3fn, float8_e5m2): where 6- and 4-bit elements sit in shared memory is not "
      . "modelled" ],
    [ transposed => "$bad:60:83: error: $at: $op: the instruction descriptor 0x08888000 transposes A (bit 15): the "
      . "emulator models K-major A and B only" ],
    [ d_lane => "$bad:89:9: error: $at: $op with M = 128: the accumulator's address 0x00200000 names lane 32; M = 128 "
      . "fills lanes 0..127, so the lane is 0" ],
    [ scale_lane => "$bad:118:122: error: $at: $op: the tensor-memory address 0x00200020 of A's scales names lane 32; "
      . "the scale of row r is in lane r % 32 of each warp's quarter, so the address's lane is 0" ],
    [ scale_cols => "$bad:147:173: error: $at: $op reads B's scales (64 rows) from tensor-memory columns 63..64, but "
      . "column 64 is not allocated (allocated: columns 0..63)" ],
    [ sf_id => "$bad:173:264: error: $at: T.cuda.tcgen05.encode_instr_descriptor_block_scaled: a_sf_id is 4; the "
      . "scale-factor id is 0 to 3 (the byte of the 32-bit scale cell)" ],
    # warp 0 stored 0x38383838 in lanes 0..31 of columns 36..39; lane 32
    # keeps 0xABABABAB
    [ not_duplicated => "$bad:211:9: error: $at: $op: the scale of B's row 0 (byte 0 of column 36) is 0x38 in lane 0 "
      . "but 0xab in lane 32: the scales are duplicated to all four 32-lane partitions (PTX ISA, \"Block Scaling\"; "
      . "tcgen05.cp .32x128b.warpx4 copies them so)" ],
);
emu_errors($bin, $tmp, $bad, @errors);

# ---- errors txc-parse finds (tests/emu/mmas_sema.tx, mmas_idesc_sema.tx): the whole lists, exact ----
# 0x08100010 is a .kind::f16 descriptor (bit 23 clear); 0x04900000 has
# M = 4 << 4 = 64; 0x08900100 atype 2 (TF32's code, not a block-scaled
# format); 0x88900000 sets bit 31.
my %sema = (
    "tests/emu/mmas_sema.tx" => [
        "17:67: error: tcgen05.mma kind \"mxf4\": txc emits .kind::f16 (float16 and bfloat16 inputs, float32 "
        . "accumulation) and .kind::mxf8f6f4 (block-scaled 8-, 6- and 4-bit inputs)",
        "18:67: error: tcgen05.mma kind=\"mxf8f6f4\" (.block_scale) takes scale_b=, the tensor-memory address of B's "
        . "scales",
        "19:70: error: scale_a= is the tensor-memory address of a block-scaled MMA's scales: kind=\"mxf8f6f4\", not "
        . "\"f16\"",
        "19:92: error: scale_b= is the tensor-memory address of a block-scaled MMA's scales: kind=\"mxf8f6f4\", not "
        . "\"f16\"",
        "20:87: error: scale_a= is a 32-bit tensor-memory address, not uint64",
        "21:49: error: the instruction descriptor 0x08100010 has scale type (0: UE4M3, 1: UE8M0) (bits [23:23]) = 0; "
        . "txc requires 1",
        "22:49: error: the instruction descriptor 0x04900000 describes M = 64: with cta_group 1, M is 128",
        "23:49: error: the instruction descriptor 0x08900100 has atype 2 and btype 0 (bits [9:7], [12:10]); "
        . ".kind::mxf8f6f4 takes 0 (E4M3), 1 (E5M2), 3 (E2M3), 4 (E3M2) and 5 (E2M1)",
        "24:62: error: a block-scaled tcgen05.mma (kind=\"mxf8f6f4\") has no disable-output-lane masks",
        "25:106: error: the instruction descriptor 0x88900000 has K size (.kind::mxf4 only) (bits [31:31]) = 1; txc "
        . "requires 0",
        "26:15: error: the PTX instruction \"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::2X\": txc "
        . "does not emit .scale_vec::2X there; it takes .scale_vec::1X or the end of the instruction "
        . "(tcgen05.mma.cta_group::(1|2).kind::mxf8f6f4.block_scale[.scale_vec::1X])",
    ],
    "tests/emu/mmas_idesc_sema.tx" => [
        "17:90: error: d_dtype is \"float32\": a block-scaled tcgen05.mma accumulates in float32, not \"float16\"",
        "18:109: error: a_dtype is one of \"float8_e4m3fn\", \"float8_e5m2\", \"float6_e2m3fn\", \"float6_e3m2fn\", "
        . "\"float4_e2m1fn\" (.kind::mxf8f6f4), not \"float16\"",
        "19:189: error: sfb_dtype is \"float8_e8m0fnu\" (UE8M0, the scale type of .kind::mxf8f6f4 with "
        . ".scale_vec::1X), not \"float8_e4m3fn\"",
        "20:209: error: block-scaled tcgen05.mma .kind::mxf8f6f4 shape: M = 64: with cta_group 1, M is 128 (PTX ISA "
        . "Table 39)",
        "21:222: error: K is 32 for a dense tcgen05.mma .kind::mxf8f6f4, not 16",
        "22:234: error: trans_a=True: only 8-bit A and B may be MN-major (a_dtype is \"float4_e2m1fn\"; CUTLASS's "
        . "InstrDescriptor: \"Major value of 1 is only valid for E4M3, E5M2, ...\")",
        "23:264: error: a_sf_id is 0 to 3 (the byte of the 32-bit scale cell), not 4",
        "24:264: error: b_sf_id is an integer, not float32",
        "25:266: error: is_sparse=True: txc emits dense tcgen05.mma only",
        "26:61: error: T.cuda.tcgen05.encode_instr_descriptor_block_scaled() writes a 32-bit descriptor; 'ad' is uint64",
        "27:216: error: block-scaled tcgen05.mma .kind::mxf8f6f4 shape: N = 20: with cta_group 1 and M = 128, N is a "
        . "multiple of 8 from 8 to 256 (PTX ISA Table 39)",
    ],
);
for my $f (sort keys %sema) {
    my $rc = system("'$bin/txc-parse' $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $want = join "", map { "$f:$_\n" } @{ $sema{$f} };
    my $got = join "", grep { /^\Q$f\E:/ } split /^/, slurp("$tmp/err");    # the messages, not the excerpts
    ok($rc != 0 && $got eq $want, "txc-parse: $f, every error exact", "want:\n$want", "got (exit $rc):\n$got");
}

done();
