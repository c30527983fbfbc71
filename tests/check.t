#!/usr/bin/env perl
# CHECK tests: every tests/check/*.tx names the commands to run on itself in
# "# RUN:" lines (%s is the file; txc's programs come from $TXC_BIN, run
# from the top of the repository, stdout and stderr together) and what each
# output must hold in the CHECK lines after its RUN line, matched by
# tests/filecheck (the dialect: tests/README.md). One test point per RUN
# line: the command exits 0 and every check holds. A RUN line ending in
# "; skip-unless nvcc" is skipped when nvcc is missing.
use strict;
use warnings;

my $top = $0 =~ s{/tests/[^/]*$}{}r;
$top = '.' if $top eq $0;
require "$top/tests/filecheck";
my $bin = $ENV{TXC_BIN} // "$top/bin";
$bin = "$top/$bin" unless $bin =~ m{^/};
$ENV{PATH} = "$bin:/usr/local/cuda/bin:$ENV{PATH}";
my $nvcc = system('command -v nvcc >/dev/null 2>&1') == 0;

my $n = 0;
for my $file (sort glob("$top/tests/check/*.tx")) {
    my $name = $file =~ s{.*/}{}r;
    my @groups = eval { FileCheck::groups($file) };
    if ($@ || !@groups || !defined $groups[0]{run}) {
        $n++;
        print "not ok $n - $name: " . ($@ || "no RUN line\n");
        next;
    }
    for my $g (@groups) {
        (my $run = $g->{run}) =~ s/\s*;\s*skip-unless nvcc\s*$//;
        my $skip = $run ne $g->{run};
        $n++;
        if ($skip && !$nvcc) {
            print "ok $n - $name: $run # SKIP no nvcc\n";
            next;
        }
        (my $cmd = $run) =~ s/%s/'$file'/g;
        my $out = `cd '$top' && ($cmd) 2>&1`;
        my $rc = $? >> 8;
        my @why = FileCheck::check($name, $g->{checks}, $out);
        push @why, "exit status $rc" if $rc != 0;
        push @why, "no CHECK line for this RUN line" unless @{ $g->{checks} };
        print((@why ? "not ok" : "ok") . " $n - $name: $run\n");
        if (@why) { print "# $_\n" for @why; print "# output:\n"; print "#   $_\n" for split /\n/, $out }
    }
}
print "1..$n\n";
