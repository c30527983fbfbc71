# tap.pl: the TAP helpers of the Perl tests (tma.t, im2col.t, tcgen05.t).
#   ok(GOOD, NAME, DIAG...)  one test; the diagnostics print when it fails.
#                            GOOD is taken in scalar context (the prototype):
#                            load this file in BEGIN, so that a failed match
#                            (an empty list) cannot shift NAME into GOOD
#   skip(NAME, WHY)          one test skipped
#   done()                   the plan, at the end
#   slurp(FILE), spit(FILE, TEXT)
#   txc_paths()              ($top, $bin, $tmp) of the test calling it
#   have_nvcc()              nvcc is on PATH or in /usr/local/cuda/bin (added to PATH)
#   enc16(V, DTYPE)          the float16 / bfloat16 bits of a small integer V (|V| < 256)
#   mma_image(NW, DTYPE, [MATRIX, AT]...)
#                            NW 32-bit words of shared memory (0xFF elsewhere) holding
#                            each matrix of small integers (rows of K) as 16-bit
#                            elements, (r, k) at byte AT->(r, k); returns the number
#                            of clashes (a byte used twice or past the end) and the bytes
#   emu_errors(BIN, TMP, FILE, [KERNEL, WANT]...)
#                            one test per planted bug: txc-emu --kernel
#                            KERNEL FILE exits 1, prints nothing on stdout,
#                            and its first line on stderr is WANT
use strict;
use warnings;
use File::Temp qw(tempdir);

my $tap_n = 0;

sub ok ($$@) {
    my ($good, $name, @diag) = @_;
    $tap_n++;
    print(($good ? "ok" : "not ok") . " $tap_n - $name\n");
    print map { "# $_\n" } map { split /\n/ } @diag unless $good;
    return $good;
}
sub skip { $tap_n++; print "ok $tap_n - $_[0] # SKIP $_[1]\n" }
sub done { print "1..$tap_n\n" }
sub slurp { my ($f) = @_; open my $h, '<', $f or return ''; local $/; <$h> // '' }
sub spit { my ($f, $t) = @_; open my $h, '>', $f or die "$f: $!"; print $h $t; close $h }

sub txc_paths {
    my $top = $0 =~ s{/tests/[^/]*$}{}r;
    $top = '.' if $top eq $0;
    my $bin = $ENV{TXC_BIN} // "$top/bin";
    $bin = "$top/$bin" unless $bin =~ m{^/};
    return ($top, $bin, tempdir(CLEANUP => !$ENV{KEEP}));
}


sub emu_errors {
    my ($bin, $tmp, $file, @cases) = @_;
    for my $e (@cases) {
        my ($k, $want) = @$e;
        my $rc = system("'$bin/txc-emu' --kernel $k --seed 1 '$file' >'$tmp/out' 2>'$tmp/err'") >> 8;
        my ($first) = split /\n/, slurp("$tmp/err");
        $first //= '';
        ok($rc == 1 && $first eq $want && slurp("$tmp/out") eq '', "error: $k", "want (exit 1): $want",
           "got (exit $rc): $first");
    }
}
sub have_nvcc {
    $ENV{PATH} .= ':/usr/local/cuda/bin' unless $ENV{PATH} =~ m{/usr/local/cuda/bin};
    return !system("command -v nvcc >/dev/null 2>&1");
}

sub enc16 {
    my ($v, $dt) = @_;
    return 0 if $v == 0;
    return unpack("V", pack("f", $v)) >> 16 if $dt eq "bfloat16";    # exact for small integers
    my ($s, $a, $e) = ($v < 0 ? 1 : 0, abs $v, 0);
    $e++ while (1 << ($e + 1)) <= $a;
    return ($s << 15) | (($e + 15) << 10) | (($a - (1 << $e)) * (1 << (10 - $e)));
}

sub mma_image {
    my ($nw, $dt, @ops) = @_;
    my @img = (0xFF) x (4 * $nw);
    my (%used, $clash);
    $clash = 0;
    for my $op (@ops) {
        my ($mat, $at) = @$op;
        for my $r (0 .. $#$mat) {
            for my $k (0 .. $#{ $mat->[$r] }) {
                my $a = $at->($r, $k);
                $clash++ if $used{$a}++ || $a + 1 >= 4 * $nw;
                my $h = enc16($mat->[$r][$k], $dt);
                @img[$a, $a + 1] = ($h & 0xFF, $h >> 8);
            }
        }
    }
    return ($clash, pack("C*", @img));
}
1;
