#!/usr/bin/env perl
# The dispatch cases of tests/dispatch/cases.tx: each case runs through
# txc-parse | txc-align | txc-vectorize | txc-partition | txc-dispatch, and
# the variant and plan of each tile op, or the diagnostics, are compared with
# the case's EXPECT / WARN / ERROR lines (written by hand from the rules);
# WARN and ERROR lines are matched by tests/filecheck as CHECK lines.
use strict;
use warnings;
use File::Temp qw(tempdir);

my $top = $0 =~ s{/tests/[^/]*$}{}r;
$top = '.' if $top eq $0;
require "$top/tests/filecheck";
my $bin = $ENV{TXC_BIN} // "$top/bin";
$bin = "$top/$bin" unless $bin =~ m{^/};
my $tmp = tempdir(CLEANUP => 1);

open my $fh, '<', "$top/tests/dispatch/cases.tx" or die "cases.tx: $!";
my @cases;
while (my $line = <$fh>) {
    if ($line =~ /^# CASE: (.*)/) {
        push @cases, { name => $1, text => '', expect => [], warn => [], error => [] };
    } elsif (@cases) {
        my $c = $cases[-1];
        if ($line =~ /^# EXPECT: (.*)/) { push @{ $c->{expect} }, $1 }
        elsif ($line =~ /^# (WARN|ERROR): (.*)/) {
            push @{ $c->{ lc $1 } }, { kind => "CHECK", text => $2, line => $. };
        }
        else { $c->{text} .= $line }
    }
}
close $fh;

my $n = 0;
sub ok { my ($good, $name, @diag) = @_; $n++; print(($good ? "ok" : "not ok") . " $n - $name\n"); print map { "# $_\n" } map { split /\n/ } @diag unless $good; }

my $pipe = join ' | ', map { "'$bin/$_'" } qw(txc-align txc-vectorize txc-partition txc-dispatch);
for my $c (@cases) {
    open my $out, '>', "$tmp/case.tx" or die;
    print $out $c->{text};
    close $out;
    my $rc = system("'$bin/txc-parse' '$tmp/case.tx' | $pipe >'$tmp/out' 2>'$tmp/err'") >> 8;
    my $err = do { local (@ARGV, $/) = ("$tmp/err"); <> // '' };
    my $ir = do { local (@ARGV, $/) = ("$tmp/out"); <> // '' };
    if (@{ $c->{error} }) {
        my @miss = FileCheck::check("cases.tx", $c->{error}, $err);
        ok($rc != 0 && !@miss, "$c->{name}: rejected", "exit $rc", @miss ? (@miss, $err) : ());
        next;
    }
    # each dispatched tile op, in order: its variant and plan numbers
    my @got;
    for my $line (split /\n/, $ir) {
        next unless $line =~ /Tx\.\w*\.?copy(?:_async)?\(/ && $line =~ /dispatch="(\w+)"/;
        my $g = $1;
        for my $k (qw(vec threads outer)) {
            $g .= " $k=$1" if $line =~ /\b$k=(\d+)/;
        }
        push @got, $g;
    }
    my $want = join '; ', @{ $c->{expect} };
    my $have = join '; ', @got;
    ok($rc == 0 && $have eq $want, "$c->{name}: $want", "exit $rc", "got: $have", $rc ? $err : ());
    # the brute-force check of the lowered code: every element once, at the
    # address its layout gives, aligned to the access
    my $vrc = system("'$bin/txc-lower' --verify <'$tmp/out' >/dev/null 2>'$tmp/verr'") >> 8;
    my $verr = do { local (@ARGV, $/) = ("$tmp/verr"); <> // '' };
    my $vector = grep { !/^fallback/ } @got;  # fallback copies are element loops, nothing to verify
    ok($vrc == 0 && $verr =~ /verified (\d+) copies/ && $1 == $vector, "$c->{name}: txc-lower --verify", $verr);
    my @miss = FileCheck::check("cases.tx", $c->{warn}, $err);
    ok(!@miss && (@{ $c->{warn} } || $err !~ /warning:/), "$c->{name}: warnings as expected",
       @miss, $err) if @{ $c->{warn} } || $err =~ /warning:/;
}
print "1..$n\n";
