#!/usr/bin/env perl
# Mutation fuzzing of the programs after the parser, on the IR they read:
# the output of txc-partition (plans a user may edit) into txc-dispatch,
# txc-lower --verify and txc-cuda, and lowered IR into txc-cuda and
# txc-emu. Whatever the input, each exits 0 or 1, never crashes or trips a
# sanitizer, and a rejection says "error:". Fixed seed, small programs.
use strict;
use warnings;
use File::Temp qw(tempdir);

my $top = $0 =~ s{/tests/[^/]*$}{}r;
$top = '.' if $top eq $0;
my $bin = $ENV{TXC_BIN} // "$top/bin";
$bin = "$top/$bin" unless $bin =~ m{^/};
my $rounds = $ENV{FUZZ_ROUNDS} // 40;
my $tmp = tempdir(CLEANUP => 1);
srand($ENV{FUZZ_SEED} // 20261123);

my @tokens = ('0', '1', '-1', '8', '16', '4096', '9223372036854775807', 'vec=', 'threads=', 'outer=', '@ laneid',
              '@ tx', 'S[', 'R[', ':', ',', '(', ')', '[', ']', 'T.plan("reg", ', 'dispatch="fallback"',
              'dispatch="reg"', 'T.pointer_offset(', 'T.cuda.copy_bytes(', '*', '//', '%', '^', 'tid', 'f');

sub mutate {
    my ($text) = @_;
    for (1 .. 1 + int(rand(3))) {
        my $len = length $text;
        my $at = int(rand($len));
        my $k = int(rand(4));
        if ($k == 0) { substr($text, $at, 1 + int(rand(3))) = $tokens[int(rand(@tokens))] }
        elsif ($k == 1) { substr($text, $at, 0) = $tokens[int(rand(@tokens))] }
        elsif ($k == 2) { substr($text, $at, int(rand(6))) = '' }
        else {
            # change a number inside the text
            my @nums;
            push @nums, [$-[0], $+[0] - $-[0]] while $text =~ /\d+/g;
            next unless @nums;
            my $n = $nums[int(rand(@nums))];
            substr($text, $n->[0], $n->[1]) = (0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 127, 128, 1000000)[int(rand(13))];
        }
    }
    return $text;
}

sub slurp { local (@ARGV, $/) = @_; return <> // '' }

my @inputs = (glob("$top/tests/layouts/*.tx"), "$top/examples/reg_roundtrip.tx", glob("$top/tests/check/seed00*.tx"));
my @stages = (
    ['partition', 'txc-dispatch', "'$bin/txc-dispatch' IN | '$bin/txc-lower' --verify | '$bin/txc-cuda'"],
    ['partition', 'txc-lower', "'$bin/txc-lower' --verify IN"],
    ['lower', 'txc-cuda', "'$bin/txc-cuda' IN"],
    ['lower', 'txc-emu', "'$bin/txc-emu' --max-steps 2000000 IN"],
);
my $n = 0;
for my $in (@inputs) {
    my $name = $in =~ s{.*/}{}r;
    for my $s (@stages) {
        my ($after, $what, $cmd) = @$s;
        next if system("'$bin/txc' --stop-after=$after '$in' -o '$tmp/base.tx' 2>/dev/null") != 0;
        my $orig = slurp("$tmp/base.tx");
        my ($crash, $silent, $first) = (0, 0, '');
        for my $r (1 .. $rounds) {
            open my $fh, '>', "$tmp/m.tx" or die;
            print $fh mutate($orig);
            close $fh;
            (my $c = $cmd) =~ s/IN/'$tmp\/m.tx'/;
            system("($c) >/dev/null 2>'$tmp/err'");
            my $rc = $? >> 8;
            my $sig = $? & 127;
            my $err = slurp("$tmp/err");
            if ($sig || $rc > 1 || $err =~ /Sanitizer|runtime error|internal error/) {
                $crash++;
                $first ||= "round $r (exit $rc, signal $sig):\n$err";
                system("cp '$tmp/m.tx' '$tmp/crash-$name-$what.tx'");
            } elsif ($rc == 1 && $err !~ /error/) {
                $silent++;
            }
        }
        $n++;
        print(($crash ? 'not ok' : 'ok') . " $n - $name after $after -> $what: $rounds mutations, no crash\n");
        print map { "# $_\n" } split /\n/, $first if $first;
        $n++;
        print(($silent ? 'not ok' : 'ok') . " $n - $name after $after -> $what: every rejection says why\n");
    }
}
print "1..$n\n";
