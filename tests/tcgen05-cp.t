#!/usr/bin/env perl
# tcgen05.cp on the emulator (runtime/emu-tccp.c): every shape with every
# swizzle (none, 32B, 64B, 128B) and two descriptors each, the descriptor
# built by T.cuda.tcgen05.encode_matrix_descriptor, completion by
# tcgen05.commit on an mbarrier; then the errors.
#
# The kernels come from tests/emu/tccp_gen.pl (its comment says what each
# does). The model of tensor memory after the cp, computed here from
# shared/reference/ptx.md ("Tensor memory and tcgen05"):
#   source row r, 16-byte chunk k (k < bits/128) is at byte a of S:
#     no swizzle: start + (r>>3)*SBO + (r&7)*16 + k*LBO
#     swizzle of span Sp: start + (r>>3)*SBO + (r&7)*Sp + 16k, then
#       a ^= ((a >> 7) & m) << 4, m = 1, 3, 7 for 32B, 64B, 128B
#     (LBO = ldo*16, SBO = sdo*16; S starts at a 1024-byte boundary, so its
#     offsets are the absolute addresses as far as the swizzle sees)
#   its word w (w < 4) goes to column col + 4k + w of the lanes
#     .128x256b / .128x128b  row + r
#     .4x256b                row + 32r
#     .64x128b.warpx2::02_13 row + r and row + r + 64
#     .64x128b.warpx2::01_23 r < 32: r, r + 32; r >= 32: r + 32, r + 64
#     .32x128b.warpx4        r, r + 32, r + 64, r + 96
# Every other cell of the 32 allocated columns keeps the emulator's
# initial 0xABABABAB. The descriptor each kernel built is checked field by
# field against the PTX ISA's table, so that the emulator's encoder and
# decoder cannot agree on a wrong layout. Each module also goes through
# ptxas for sm_100a.
use strict;
use warnings;
use FindBin;
BEGIN { require "$FindBin::Bin/tap.pl" }

my ($top, $bin, $tmp) = txc_paths();
require "$top/tests/emu/npy.pl";
require "$top/tests/emu/tccp_gen.pl";

my $have_nvcc = have_nvcc();

# ptx.md's lanes of source row r (relative to the address's lane)
sub lanes {
    my ($c, $r) = @_;
    return ($r) if $c->{shape} =~ /^128x/;
    return (32 * $r) if $c->{shape} eq "4x256b";
    return ($r, $r + 64) if $c->{mc} eq "warpx2::02_13";
    return $r < 32 ? ($r, $r + 32) : ($r + 32, $r + 64) if $c->{mc} eq "warpx2::01_23";
    return ($r, $r + 32, $r + 64, $r + 96);
}

my @cases = tccp_cases();
my $src = "$tmp/tccp.tx";
system("perl '$top/tests/emu/tccp_gen.pl' >'$src'") == 0 or die "tccp_gen.pl failed";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/x.cubin' '$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "every tcgen05.cp kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("tcgen05.cp kernels: ptxas sm_100a", "no nvcc");
}
my %seen;
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my $name = sprintf("k%d: .%s%s swizzle %d ldo %d sdo %d start %d at row %d col %d%s", $i, $c->{shape},
                       $c->{mc} ? ".$c->{mc}" : "", $c->{swz}, $c->{ldo}, $c->{sdo}, $c->{start}, $c->{row}, $c->{col},
                       $c->{tvm} ? " (TVM's spelling)" : "");
    $seen{"$c->{shape}.$c->{mc}.$c->{swz}"}++;
    my @a = map { (($_ * 2654435761 + $i * 40503) % 4294967291) ^ 0x5a5a0000 } 0 .. $c->{nw} - 1;
    npy_put("$tmp/a.npy", "<u4", [$c->{nw}], pack("V*", @a));
    unlink "$tmp/t.npy", "$tmp/d.npy";
    my $rc = system("'$bin/txc-emu' --kernel k$i --in A='$tmp/a.npy' --out D='$tmp/d.npy' --tmem-out '$tmp/t.npy' "
                    . "'$src' >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "$name: runs", slurp("$tmp/err"));
    next if $rc;
    # the descriptor, field by field (PTX ISA 9.7.16.4.1, Table 40): S is the
    # kernel's first shared buffer, 1024-aligned, so it starts at shared byte 0
    my (undef, $dd) = npy_get("$tmp/d.npy");
    my ($lo, $hi) = unpack("VV", $dd);
    my $want_lo = ($c->{start} >> 4) | ($c->{ldo} << 16);
    my $want_hi = $c->{sdo} | (1 << 14) | ({ 0 => 0, 1 => 6, 2 => 4, 3 => 2 }->{$c->{swz}} << 29);
    ok($lo == $want_lo && $hi == $want_hi, "$name: the descriptor's bits",
       sprintf("got 0x%08x%08x, want 0x%08x%08x", $hi, $lo, $want_hi, $want_lo));
    my (%model, $clash);
    for my $ch (tccp_chunks($c)) {
        my ($addr, $r, $k) = @$ch;
        for my $lane (lanes($c, $r)) {
            for my $w (0 .. 3) {
                my $key = ($c->{row} + $lane) . "," . ($c->{col} + 4 * $k + $w);
                $clash++ if exists $model{$key};
                $model{$key} = $a[$addr / 4 + $w];
            }
        }
    }
    my $cells = $c->{rows} * scalar(my @l0 = lanes($c, 0)) * $c->{bits} / 32;
    ok(!$clash && keys(%model) == $cells, "$name: the model writes $cells distinct cells");
    my ($h, $t) = npy_get("$tmp/t.npy");
    my @tm = unpack("V*", $t);
    my @bad;
    for my $lane (0 .. 127) {
        for my $col (0 .. 31) {
            my ($got, $want) = ($tm[$lane * 512 + $col], $model{"$lane,$col"} // 0xABABABAB);
            push @bad, sprintf("lane %d column %d: 0x%08x, want 0x%08x", $lane, $col, $got, $want) if $got != $want;
        }
    }
    ok($h =~ /'shape': \(128, 512\)/ && !@bad, "$name: tensor memory after the cp is the model's",
       @bad[0 .. ($#bad < 4 ? $#bad : 4)]);
}
ok(keys(%seen) == 24, "6 shapes x 4 swizzles, each with two descriptors");

# ---- errors the emulator finds (tests/emu/tccp_bad.tx), each message exact -----------
chdir $top or die;
my $bad = "tests/emu/tccp_bad.tx";
if ($have_nvcc) {
    my $rc = system("'$bin/txc' --arch=sm_100a --emit=cubin -o '$tmp/bad.cubin' $bad >'$tmp/out' 2>'$tmp/err'");
    ok($rc == 0, "tccp_bad.tx: every kernel through ptxas for sm_100a", slurp("$tmp/err"));
} else {
    skip("tccp_bad.tx: ptxas sm_100a", "no nvcc");
}
my $at = "thread (cta 0, thread 0)";
# The descriptors, by hand: S (the first shared buffer, 1024-aligned) starts
# at shared byte 0, so the start field is 0; ldo 8 -> bits [29:16], sdo 16
# (256 in smem_oob) -> bits [45:32], 0b001 at bit 46, swizzle none. In
# smem_oob row 8 starts SBO = 4096 bytes on, past S (4096 bytes) and
# tmem_addr (4): 4100 bytes of shared memory.
my $d = (8 << 16) | (16 << 32) | (1 << 46);
my @errors = (
    [ unallocated => "$bad:25:9: error: $at: tcgen05.cp writes tensor-memory columns 32..39, but column 32 is not "
      . "allocated (allocated: columns 0..31)" ],
    [ bad_fixed => "$bad:50:58: error: $at: tcgen05.cp: the shared-memory descriptor "
      . sprintf("0x%016x", $d & ~(1 << 46)) . " has bits [48:46] = 0, not the fixed 0b001" ],
    [ smem_oob => "$bad:75:9: error: $at: tcgen05.cp reads shared-memory bytes 4096..4111 (row 8, 16-byte chunk 0 of "
      . "the source; descriptor " . sprintf("0x%016x", (8 << 16) | (256 << 32) | (1 << 46)) . "), outside every shared "
      . "buffer (the CTA has 4100 bytes of shared memory)" ],
    [ misaligned => "$bad:96:9: error: $at: tcgen05.cp: the tensor-memory address 0x00000002 (lane 0, column 2) is not "
      . "128-bit aligned: its column must be a multiple of 4" ],
    [ lanes => "$bad:118:9: error: $at: tcgen05.cp .64x128b.warpx2::02_13 at address 0x00010000 (lane 1) writes lanes "
      . "up to 128; tensor memory has lanes 0..127" ],
    [ no_commit => "$bad:147:5: error: $at: T.ptx.mbarrier.try_wait: the phase of parity 0 of the mbarrier at byte 0 "
      . "of shared buffer 'bar' has 1 of 1 arrivals and 0 transaction bytes pending, and in lockstep no other thread "
      . "can arrive before this wait is run" ],
    [ pending => "$bad:171:9: error: $at: this reads byte 16 of shared buffer 'S', which the asynchronous copy at "
      . "$bad:168 (thread 0) has not written yet: wait for it first with cp.async.wait_group (the issuing thread), "
      . "then a barrier for the others" ],
);
emu_errors($bin, $tmp, $bad, @errors);

# ---- errors txc-parse finds (tests/emu/tccp_sema.tx): the whole list, exact ----------
{
    my $f = "tests/emu/tccp_sema.tx";
    my $rc = system("'$bin/txc-parse' $f >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $want = join "", map { "$f:$_\n" } (
        "16:46: error: tcgen05.cp .64x128b takes multicast=\"warpx2::02_13\" or multicast=\"warpx2::01_23\" (PTX "
        . "requires one)",
        "17:74: error: tcgen05.cp .128x256b takes no multicast, not \"warpx4\"",
        "18:46: error: tcgen05.cp shape \"64x64b\": PTX has 128x256b, 4x256b, 128x128b, 64x128b and 32x128b",
        "19:58: error: the shared-memory descriptor 0x0000000800080000 has bits [48:46] = 0, not the fixed 0b001",
        "20:58: error: the shared-memory descriptor 0x6000400800080000 has swizzle mode 3 (bits [63:61]); the modes "
        . "are 0, 1, 2, 4 and 6",
        "21:58: error: the shared-memory descriptor is a 64-bit integer, not uint32",
        "22:84: error: ldo is the leading byte offset in 16-byte units, 0 to 16383, not 16384",
        "23:106: error: swizzle is 0 (none), 1 (32B), 2 (64B), 3 (128B) or 4 (128B with 32-byte atoms), not 5",
        "24:69: error: the matrix's start address, element '2' of 'S' (4-byte elements), is not provably 16-byte "
        . "aligned (the descriptor holds it >> 4)",
        "25:69: error: the matrix of a shared-memory descriptor is in shared memory; 'A' is in global memory",
        "26:49: error: T.cuda.tcgen05.encode_matrix_descriptor() writes a 64-bit descriptor; 'w' is uint32",
        "27:9: error: T.cuda.tcgen05.encode_matrix_descriptor() needs ldo, sdo and swizzle (as operands or keywords); "
        . "swizzle is missing",
    );
    my $got = join "", grep { /^\Q$f\E:/ } split /^/, slurp("$tmp/err");    # the messages, not the excerpts
    ok($rc != 0 && $got eq $want, "txc-parse: the operand errors of tcgen05.cp and its descriptor", "want:\n$want",
       "got (exit $rc):\n$got");
}

done();
