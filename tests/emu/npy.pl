# npy.pl: the .npy helpers of tests/emu.t, written from NumPy's format
# description (version 1.0), independent of runtime/npy.c.
#   npy_bytes(DESCR, SHAPE, DATA): a whole .npy file; SHAPE is a list ref
#   npy_put(FILE, DESCR, SHAPE, DATA): writes one
#   npy_get(FILE): (header dict text, data bytes)
#   swz(M, B, S, A): the swizzle of ComposeLayout(M, B, S, ...) on address A
use strict;
use warnings;

sub npy_bytes {
    my ($descr, $shape, $data) = @_;
    my $s = @$shape == 1 ? "($shape->[0],)" : "(" . join(", ", @$shape) . ")";
    my $h = "{'descr': '$descr', 'fortran_order': False, 'shape': $s, }";
    $h .= ' ' while (10 + length($h) + 1) % 64;
    $h .= "\n";
    return "\x93NUMPY\x01\x00" . pack("v", length $h) . $h . $data;
}

sub npy_put {
    my ($file, @rest) = @_;
    open my $f, '>:raw', $file or die "$file: $!";
    print $f npy_bytes(@rest);
    close $f or die;
}

sub npy_get {
    my ($file) = @_;
    open my $f, '<:raw', $file or die "$file: $!";
    local $/;
    my $s = <$f>;
    die "$file: not a .npy file\n" unless substr($s, 0, 8) eq "\x93NUMPY\x01\x00";
    my $n = unpack("v", substr($s, 8, 2));
    die "$file: header not padded to 64\n" if (10 + $n) % 64;
    return (substr($s, 10, $n), substr($s, 10 + $n));
}

sub swz {
    my ($m, $b, $sh, $a) = @_;
    my $x = $a >> $m;
    $x ^= ($x & (((1 << $b) - 1) << $sh)) >> $sh;
    return ($x << $m) | ($a & ((1 << $m) - 1));
}

1;
