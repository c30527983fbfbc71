#!/usr/bin/env perl
# FileCheck-style tests: every tests/check/*.tx names the commands to run on
# itself in "# RUN:" lines (%s is the file; txc programs come from
# $TXC_BIN) and what each output must contain in the "# CHECK:" lines after
# its RUN line, matched
# in order against whole lines with runs of spaces squashed; "# CHECK-NEXT:"
# must match the very next line, "# CHECK-NOT:" must not appear between the
# surrounding matches, and "# CHECK-COUNT-N:" must match N lines in a row.
# A RUN line ending in "; skip-unless nvcc" is skipped when nvcc is missing.
use strict;
use warnings;

my $top = $0 =~ s{/tests/[^/]*$}{}r;
$top = '.' if $top eq $0;
my $bin = $ENV{TXC_BIN} // "$top/bin";
$bin = "$top/$bin" unless $bin =~ m{^/};
$ENV{PATH} = "$bin:/usr/local/cuda/bin:$ENV{PATH}";
my $nvcc = system('command -v nvcc >/dev/null 2>&1') == 0;

sub squash { my $s = shift; $s =~ s/^\s+|\s+$//g; $s =~ s/\s+/ /g; return $s }
my $n = 0;
for my $file (sort glob("$top/tests/check/*.tx")) {
    my $name = $file =~ s{.*/}{}r;
    open my $fh, '<', $file or die;
    # each RUN line has the CHECK lines that follow it, up to the next RUN
    my @groups;
    while (<$fh>) {
        push @groups, [$1, []] if /^# RUN: (.*)/;
        push @{ $groups[-1][1] }, [$1 // '', $2] if @groups && /^# CHECK(-NEXT|-NOT|-COUNT-\d+)?: (.*)/;
    }
    close $fh;
    for my $g (@groups) {
        my ($run, @checks) = ($g->[0], @{ $g->[1] });
        my $skip = $run =~ s/\s*;\s*skip-unless nvcc\s*$//;
        $n++;
        if ($skip && !$nvcc) {
            print "ok $n - $name: $run # SKIP no nvcc\n";
            next;
        }
        (my $cmd = $run) =~ s/%s/'$file'/g;
        my $out = `cd '$top' && ($cmd) 2>&1`;
        my $rc = $? >> 8;
        my @lines = map { squash($_) } split /\n/, $out;
        my ($pos, @why) = (0);
        my @not;
        for my $c (@checks) {
            my ($kind, $pat) = ($c->[0], squash($c->[1]));
            if ($kind eq '-NOT') { push @not, $pat; next }
            my $count = $kind =~ /-COUNT-(\d+)/ ? $1 : 1;
            my $found = -1;
            if ($kind eq '-NEXT') {
                $found = $pos if $pos < @lines && index($lines[$pos], $pat) >= 0;
            } else {
                for my $i ($pos .. $#lines) { if (index($lines[$i], $pat) >= 0) { $found = $i; last } }
            }
            if ($found < 0) { push @why, "no line matches CHECK$kind: $pat"; last }
            for my $k (1 .. $count - 1) {
                if ($found + $k > $#lines || index($lines[$found + $k], $pat) < 0) {
                    push @why, "CHECK$kind: $pat matched " . $k . " lines in a row";
                    last;
                }
            }
            for my $np (@not) {
                for my $i ($pos .. $found - 1) { push @why, "CHECK-NOT: $np appears: $lines[$i]" if index($lines[$i], $np) >= 0 }
            }
            @not = ();
            $pos = $found + $count;
        }
        for my $np (@not) {
            for my $i ($pos .. $#lines) { push @why, "CHECK-NOT: $np appears: $lines[$i]" if index($lines[$i], $np) >= 0 }
        }
        push @why, "exit status $rc" if $rc != 0 && !grep { /exit status/ } @why;
        print((@why ? "not ok" : "ok") . " $n - $name: $run\n");
        if (@why) { print "# $_\n" for @why; print "# output:\n"; print "#   $_\n" for split /\n/, $out }
    }
}
print "1..$n\n";
