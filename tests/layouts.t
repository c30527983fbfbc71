#!/usr/bin/env perl
# Checks that do not only agree with themselves: each kernel of
# tests/layouts/ loads a tile with one layout family (row-major, padded,
# swizzled, swizzled over padded rows, column-major shared; strided,
# thread-interleaved, row registers, one register per lane, registers whose
# runs cross the rows of the view)
# and writes the raw storage out in storage order. The expected output is
# computed here from the input and the layout's definition (tirx.md, ptx.md),
# without txc. The kernel runs on the emulator as written and as lowered by
# txc, and, when there is a GPU, compiled and run by txc-run.
use strict;
use warnings;
use File::Temp qw(tempdir);

my $top = $0 =~ s{/tests/[^/]*$}{}r;
$top = '.' if $top eq $0;
my $bin = $ENV{TXC_BIN} // "$top/bin";
$bin = "$top/$bin" unless $bin =~ m{^/};
my $tmp = tempdir(CLEANUP => 1);
srand(7);

my %code = (float16 => ['<f2', 'v', 2], float32 => ['<f4', 'V', 4]);

sub npy_write {
    my ($path, $dt, $shape, $vals) = @_;
    my $dims = @$shape == 1 ? "$shape->[0]," : join(', ', @$shape);
    my $h = "{'descr': '$code{$dt}[0]', 'fortran_order': False, 'shape': ($dims), }";
    $h .= ' ' x (63 - (10 + length($h)) % 64) . "\n";
    open my $f, '>:raw', $path or die;
    print $f "\x93NUMPY\x01\x00", pack('v', length $h), $h, pack("$code{$dt}[1]*", @$vals);
    close $f;
}

sub npy_read {
    my ($path, $dt) = @_;
    open my $f, '<:raw', $path or return;
    local $/;
    my $s = <$f>;
    my $hl = unpack('v', substr($s, 8, 2));
    return [unpack("$code{$dt}[1]*", substr($s, 10 + $hl))];
}

# The expected storage of each kernel: B[storage offset] = A[element].
my %expect = (
    shared_rowmajor => sub { my ($A, $r, $c) = @_; map { $A->[$_] } 0 .. $r * $c - 1 },
    shared_padded => sub {
        my ($A, $r, $c) = @_;
        my @B = (0) x (32 * 72);
        for my $i (0 .. 31) { $B[$i * 72 + $_] = $A->[$i * 64 + $_] for 0 .. 63 }
        @B;
    },
    shared_swizzled => sub {
        my ($A, $r, $c) = @_;
        my @B;
        for my $e (0 .. 2047) {
            my $byte = 2 * $e;                                  # row-major 64-wide rows: 128 bytes
            my $phys = $byte ^ ((($byte >> 7) & 7) << 4);       # ptx.md: the 128B swizzle
            $B[$phys / 2] = $A->[$e];
        }
        @B;
    },
    shared_colmajor => sub {
        my ($A, $r, $c) = @_;
        my @B;
        for my $i (0 .. 31) { $B[$_ * 32 + $i] = $A->[$i * 64 + $_] for 0 .. 63 }
        @B;
    },
    reg_strided => sub {
        my ($A) = @_;
        my @B = (0) x 512;
        for my $l (0 .. 31) { $B[$l * 16 + 2 * $_] = $A->[$l * 8 + $_] for 0 .. 7 }
        @B;
    },
    reg_interleaved => sub {
        my ($A) = @_;
        my @B;
        for my $l (0 .. 31) { $B[$l * 8 + $_] = $A->[$_ * 32 + $l] for 0 .. 7 }
        @B;
    },
    reg_rows => sub { my ($A) = @_; map { $A->[$_] } 0 .. 255 },
    reg_one => sub { my ($A) = @_; (@$A[0 .. 31], @$A[0 .. 31]) },
    reg_dynamic_start => sub {
        my ($A) = @_;                                           # A is (32, 32)
        map { my ($t, $j) = (int($_ / 32), $_ % 32); $A->[$t * 32 + 4 * (7 - int($j / 4)) + $j % 4] } 0 .. 1023;
    },
    reg_uneven => sub {
        my ($A) = @_;                                           # A is (24, 128)
        map { $A->[int($_ / 64) * 128 + 32 + $_ % 64] } 0 .. 1535;
    },
    reg_uneven_store => sub {
        my ($A) = @_;                                           # A is (24, 64)
        my @B = (0) x 3072;
        for my $r (0 .. 23) { $B[$r * 128 + 16 + $_] = $A->[(($r + 12) % 24) * 64 + $_] for 0 .. 63 }
        @B;
    },
    shared_swizzled_padded => sub {
        my ($A) = @_;
        my @B = (0) x 2048;
        for my $r (0 .. 15) {
            for my $c (0 .. 111) {
                my $byte = 2 * ($r * 128 + $c);                 # rows of 128 float16: 256 bytes
                my $phys = $byte ^ ((($byte >> 7) & 7) << 4);   # ptx.md: the 128B swizzle
                $B[$phys / 2] = $A->[$r * 112 + $c];
            }
        }
        @B;
    },
);

my $n = 0;
sub ok { my ($good, $name, @diag) = @_; $n++; print(($good ? "ok" : "not ok") . " $n - $name\n"); unless ($good) { print "# $_\n" for map { split /\n/ } @diag } }
sub skip { $n++; print "ok $n - $_[0] # SKIP $_[1]\n" }

sub compare {
    my ($got, $want) = @_;
    return "no output" unless $got;
    return "got " . scalar(@$got) . " elements, want " . scalar(@$want) if @$got != @$want;
    my @bad = grep { $got->[$_] != $want->[$_] } 0 .. $#$want;
    return @bad ? scalar(@bad) . " elements differ, first at $bad[0]: got $got->[$bad[0]], want $want->[$bad[0]]" : '';
}

my $gpu = system("'$bin/txc-run' --help >/dev/null 2>&1") == 0;
for my $file (sort glob("$top/tests/layouts/*.tx")) {
    my $name = $file =~ s{.*/}{}r =~ s{\.tx$}{}r;
    my $text = do { local (@ARGV, $/) = ($file); <> };
    my ($r, $c, $dt) = $text =~ /A_ptr, \((\d+), (\d+)\), "(\w+)"/ or die "$name: no A";
    my ($nb) = $text =~ /B_ptr, \((\d+),\)/;
    my $mask = $dt eq 'float16' ? 0xffff : 0xffffffff;
    my @A = map { 1 + int(rand($mask - 1)) } 1 .. $r * $c;
    @A = map { $_ & 0x7bff | 0x0400 } @A if $dt eq 'float16';       # finite, non-zero
    @A = map { $_ & 0x7f7fffff | 0x00800000 } @A if $dt eq 'float32';
    npy_write("$tmp/a.npy", $dt, [$r, $c], \@A);
    my @want = $expect{$name}->(\@A, $r, $c);
    die "$name: expected size" unless @want == $nb;

    system("'$bin/txc' --emit=ir '$file' -o '$tmp/$name.ir.tx'") == 0 or die "$name: txc failed";
    for my $form (['as written', $file], ['lowered by txc', "$tmp/$name.ir.tx"]) {
        unlink "$tmp/b.npy";
        my $rc = system("'$bin/txc-emu' '$form->[1]' --in A='$tmp/a.npy' --out B='$tmp/b.npy' >/dev/null 2>'$tmp/err'");
        my $why = $rc ? "txc-emu failed: " . do { local (@ARGV, $/) = ("$tmp/err"); <> } : compare(npy_read("$tmp/b.npy", $dt), \@want);
        ok(!$why, "$name, $form->[0], on the emulator: storage as the layout says", $why);
    }
    if (!$gpu) { skip("$name on the GPU", "no txc-run"); next }
    if (system("'$bin/txc' --emit=cubin '$file' -o '$tmp/$name.cubin' 2>'$tmp/err'") != 0) {
        skip("$name on the GPU", "no nvcc"); next;
    }
    unlink "$tmp/b.npy";
    my $rc = system("'$bin/txc-run' '$file' --cubin '$tmp/$name.cubin' --in A='$tmp/a.npy' --out B='$tmp/b.npy' >'$tmp/out' 2>&1") >> 8;
    if ($rc == 3) { skip("$name on the GPU", "no GPU"); next }
    my $why = $rc ? "txc-run exit $rc: " . do { local (@ARGV, $/) = ("$tmp/out"); <> } : compare(npy_read("$tmp/b.npy", $dt), \@want);
    ok(!$why, "$name on the GPU: storage as the layout says", $why);
}
print "1..$n\n";
