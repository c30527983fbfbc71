#!/usr/bin/env perl
# Mutation fuzzing of txc-parse with a fixed seed: byte flips, deleted and
# duplicated lines, truncation, and spliced tokens applied to every example.
# Whatever the input, the program exits 0 or 1 (never a crash or a
# sanitizer report), a rejection says "error:", and an accepted input
# prints a fixed point.
use strict;
use warnings;
use File::Temp qw(tempdir);

my $top = $0 =~ s{/tests/[^/]*$}{}r;
$top = '.' if $top eq $0;
my $bin = $ENV{TXC_BIN} // "$top/bin";
$bin = "$top/$bin" unless $bin =~ m{^/};
my $rounds = $ENV{FUZZ_ROUNDS} // 150;
my $tmp = tempdir(CLEANUP => 1);
srand($ENV{FUZZ_SEED} // 20261122);

my @tokens = ('(', ')', '[', ']', ':', ',', '=', '@', '+', '*', '//', 'if ', 'for ', 'def ', '    ', "\n",
              'T.', 'Tx.', '"', "'", '0', '-1', '99999999999999999999', 'S[', 'laneid', 'None', '.view(',
              'T.alloc_shared(', 'Tx.cta.copy(', "\t", "\x00", "\xff", '\\', '#', ';', 'slice(', '1e999');

sub mutate {
    my ($text) = @_;
    my $n = 1 + int(rand(4));
    for (1 .. $n) {
        my $len = length $text;
        last if $len == 0;
        my $k = int(rand(6));
        my $at = int(rand($len));
        if ($k == 0) {
            substr($text, $at, 1) = chr(int(rand(128)));
        } elsif ($k == 1) {
            substr($text, $at, 0) = $tokens[int(rand(@tokens))];
        } elsif ($k == 2) {
            substr($text, $at, int(rand(20))) = '';
        } elsif ($k == 3) {
            my @lines = split /\n/, $text, -1;
            my $i = int(rand(@lines));
            splice(@lines, $i, 0, $lines[int(rand(@lines))]);
            $text = join "\n", @lines;
        } elsif ($k == 4) {
            my @lines = split /\n/, $text, -1;
            splice(@lines, int(rand(@lines)), 1);
            $text = join "\n", @lines;
        } else {
            $text = substr($text, 0, $at);
        }
    }
    return $text;
}

sub slurp { local (@ARGV, $/) = @_; return <> // '' }

my @examples = glob("$top/examples/*.tx");
my $n = 0;
for my $ex (@examples) {
    my $orig = slurp($ex);
    my ($crashes, $silent, $unstable, $accepted) = (0, 0, 0, 0);
    my $first = '';
    for my $r (1 .. $rounds) {
        my $in = "$tmp/in.tx";
        open my $fh, '>:raw', $in or die;
        print $fh mutate($orig);
        close $fh;
        my $rc = system("'$bin/txc-parse' '$in' -o '$tmp/out.tx' 2>'$tmp/err' >/dev/null");
        my $status = $rc == -1 ? 255 : ($rc & 127) ? 128 + ($rc & 127) : $rc >> 8;
        my $err = slurp("$tmp/err");
        if ($status > 1 || $err =~ /Sanitizer|runtime error|internal error/) {
            $crashes++;
            $first ||= "exit $status on mutation $r:\n$err";
            system("cp '$in' '$tmp/crash.tx'");
        } elsif ($status == 1 && $err !~ /error:/) {
            $silent++;
        } elsif ($status == 0) {
            $accepted++;
            system("'$bin/txc-parse' '$tmp/out.tx' -o '$tmp/again.tx' 2>/dev/null");
            $unstable++ if slurp("$tmp/out.tx") ne slurp("$tmp/again.tx");
        }
        unlink "$tmp/out.tx";
    }
    my $name = $ex =~ s{.*/}{}r;
    $n++;
    print(($crashes ? 'not ok' : 'ok') . " $n - $name: $rounds mutations, no crash ($accepted accepted)\n");
    print map { "# $_\n" } split /\n/, $first if $first;
    $n++;
    print(($silent ? 'not ok' : 'ok') . " $n - $name: every rejection says why\n");
    $n++;
    print(($unstable ? 'not ok' : 'ok') . " $n - $name: every accepted mutation prints a fixed point\n");
}
print "1..$n\n";
