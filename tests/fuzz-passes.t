#!/usr/bin/env perl
# Mutation fuzzing of the programs after the parser, on the IR they read:
# the output of txc-partition (plans a user may edit) into txc-dispatch,
# txc-lower --verify and txc-cuda, and lowered IR into txc-cuda, txc-ptx and
# txc-emu. Whatever the input, each exits 0 or 1, never crashes or trips a
# sanitizer, and a rejection says "error:". Fixed seed, small programs.
# A chain of programs runs one program at a time, each on the output of the
# one before, so that a crash anywhere in it is seen.
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
    ['partition', 'txc-dispatch', ['txc-dispatch'], ['txc-lower', '--verify'], ['txc-cuda']],
    ['partition', 'txc-lower', ['txc-lower', '--verify']],
    ['lower', 'txc-cuda', ['txc-cuda']],
    ['lower', 'txc-ptx', ['txc-ptx']],
    ['lower', 'txc-emu', ['txc-emu', '--max-steps', '2000000']],
);

sub crashed {
    my ($status, $err) = @_;
    return ($status & 127) || ($status >> 8) > 1 || $err =~ /Sanitizer|runtime error|internal error/;
}

# Runs the chain of programs on the file in: each on the output of the one
# before, until one fails or crashes. Returns that program's name, its wait
# status and its stderr, or the last one's.
sub run_chain {
    my ($in, @chain) = @_;
    my ($prog, $status, $err);
    for my $i (0 .. $#chain) {
        my ($p, @args) = @{$chain[$i]};
        my $out = "$tmp/out$i.tx";
        system(join(' ', map { "'$_'" } "$bin/$p", @args, $in) . " >'$out' 2>'$tmp/err'");
        ($prog, $status, $err) = ($p, $?, slurp("$tmp/err"));
        last if $status != 0 || crashed($status, $err);
        $in = $out;
    }
    return ($prog, $status, $err);
}
my $n = 0;
for my $in (@inputs) {
    my $name = $in =~ s{.*/}{}r;
    for my $s (@stages) {
        my ($after, $what, @chain) = @$s;
        next if system("'$bin/txc' --stop-after=$after '$in' -o '$tmp/base.tx' 2>/dev/null") != 0;
        my $orig = slurp("$tmp/base.tx");
        my ($crash, $silent, $first) = (0, 0, '');
        for my $r (1 .. $rounds) {
            open my $fh, '>', "$tmp/m.tx" or die;
            print $fh mutate($orig);
            close $fh;
            my ($prog, $status, $err) = run_chain("$tmp/m.tx", @chain);
            my $rc = $status >> 8;
            my $sig = $status & 127;
            if (crashed($status, $err)) {
                $crash++;
                $first ||= "round $r: $prog (exit $rc, signal $sig):\n$err";
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
