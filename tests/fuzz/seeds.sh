#!/bin/sh
# tests/fuzz/seeds.sh BIN DIR: writes the seeds of `make fuzz` into
# DIR/KIND/, one directory per kind named in the seeds column of
# tests/fuzz/targets:
#   source     the examples, the golden IR and every program of the tests
#              that goes through the whole pipeline
#   errors     the rejected programs of tests/errors/
#   parse ... lower   the IR after that pass for every source seed, as
#              `txc --dump-dir` writes it (with the default target and with
#              sm_100a), plus the hand-edited tests whose RUN line or
#              "# program:" line starts at the next pass (tests/check/,
#              tests/errors/)
#   emu        the programs of tests/emu/
#   layout     layout expressions: those of tests/layout-tool.t and
#              doc/txc-layout.md, and every layout= of the test programs
# A file over 10 KB with several kernels is cut into one seed per kernel,
# each with the lines before the first kernel (AFL works best on small
# inputs). BIN holds the programs (txc and the passes).
set -eu
[ $# = 2 ] || { echo "usage: $0 BIN DIR" >&2; exit 2; }
BIN=$1 DIR=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MAX=10240
rm -rf "$DIR"
mkdir -p "$DIR/source" "$DIR/errors" "$DIR/emu" "$DIR/layout" "$DIR/dumps"
DIR=$(cd "$DIR" && pwd) BIN=$(cd "$BIN" && pwd)

# put KIND FILE [NAME]: copies FILE into DIR/KIND, cut per kernel when large.
put() {
  name=${3:-$(echo "${2#"$TOP"/}" | tr '/' '_')}
  if [ "$(wc -c <"$2")" -le $MAX ] || [ "$(grep -c '^@T.prim_func' "$2")" -lt 2 ]; then
    cp "$2" "$DIR/$1/$name"
    return
  fi
  awk -v out="$DIR/$1/${name%.tx}" '
    /^@T\.prim_func/ { n++ }
    !n { head = head $0 "\n"; next }
    /^@T\.prim_func/ { f = sprintf("%s.%03d.tx", out, n); printf "%s", head > f }
    { print > f }' "$2"
}

# The program that reads a test program first: that of its RUN line
# ("txc-vectorize %s | ..." gives txc-vectorize) or of its "# program:" line.
run_of() { sed -n 's/^# RUN: \(txc[-a-z]*\) .*/\1/p; s/^# program: \(txc[-a-z]*\).*/\1/p' "$1" | head -1; }

for f in "$TOP"/examples/*.tx "$TOP"/tests/golden/*.tx "$TOP"/tests/layouts/*.tx "$TOP"/tests/run/*.tx \
         "$TOP"/tests/dispatch/*.tx "$TOP"/tests/check/*.tx; do
  case $(run_of "$f") in
    '' | txc) put source "$f" ;;
  esac
done
for f in "$TOP"/tests/errors/*.tx; do put errors "$f"; done
for f in "$TOP"/tests/emu/*.tx; do put emu "$f"; done

# The IR before each pass: the driver's dumps of every source seed. It runs
# in the seeds' directory, so that the #@ lines of the IR name the file
# alone. (Never -o /dev/null: the driver renames its output into place.)
for f in "$DIR"/source/*; do
  n=$(basename "$f" .tx)
  for arch in sm_90a sm_100a; do
    d=$DIR/dumps/$n.$arch
    mkdir -p "$d"
    (cd "$DIR/source" && "$BIN/txc" --arch=$arch --emit=ir --dump-dir="$d" -o "$d/out" "$n.tx" 2>/dev/null) || true
  done
done
for pass in parse align vectorize partition dispatch lower; do
  mkdir -p "$DIR/$pass"
  for d in "$DIR"/dumps/*; do
    for f in "$d"/*-$pass.tx; do
      [ -s "$f" ] && cp "$f" "$DIR/$pass/$(basename "$d").tx"
    done
  done
done
for f in "$TOP"/tests/check/*.tx "$TOP"/tests/cuda/*.tx "$TOP"/tests/errors/*.tx; do
  case $(run_of "$f"),$f in
    txc-align,*) put parse "$f" ;;
    txc-vectorize,*) put align "$f" ;;
    txc-partition,*) put vectorize "$f" ;;
    txc-dispatch,*) put partition "$f" ;;
    txc-lower,*) put dispatch "$f" ;;
    txc-cuda,* | *,"$TOP"/tests/cuda/*) put lower "$f" ;;
  esac
done
rm -rf "$DIR/dumps"

# Layout expressions: quoted ones that start with a layout constructor, and
# the value of every layout= keyword of the programs.
perl -e '
  my $dir = shift;
  my $names = qr/(?:S|R|TileLayout|ComposeLayout|wg_local_layout|tmem_datapath_layout|tcgen05_atom_layout|mma_shared_layout)/;
  my %seen;
  for my $file (@ARGV) {
    open my $fh, "<", $file or die "$file: $!\n";
    local $/;
    my $text = <$fh>;
    if ($file =~ /\.tx$/) {
      while ($text =~ /\blayout=/g) {
        my ($depth, $i, $start) = (0, pos($text), pos($text));
        for (; $i < length $text; $i++) {
          my $c = substr($text, $i, 1);
          $depth++ if $c eq "(" || $c eq "[";
          last if $depth == 0 && ($c eq "," || $c eq ")" || $c eq "\n");
          $depth-- if $c eq ")" || $c eq "]";
        }
        $seen{substr($text, $start, $i - $start)} = 1;
      }
    } else {
      # (a quoted command line of the tests gives its layout only)
      $seen{$1 =~ s/ --.*//r} = 1 while $text =~ /\x27($names[\[(][^\x27\n]*)\x27/g;
    }
  }
  my $n = 0;
  for my $l (sort grep { !/^\w+$/ } keys %seen) {  # not the names of variables
    open my $out, ">", sprintf("%s/%03d.txt", $dir, $n++) or die;
    print $out "$l\n";
  }
' "$DIR/layout" "$TOP/tests/layout-tool.t" "$TOP/doc/txc-layout.md" "$TOP"/examples/*.tx "$TOP"/tests/*/*.tx

# The same text twice (a dump that does not depend on the target) once.
for k in "$DIR"/*; do
  [ -n "$(ls "$k")" ] && md5sum "$k"/* | sort | awk '$1 == last { print $2 } { last = $1 }' | xargs -r rm -f
  echo "seeds: $(basename "$k"): $(ls "$k" | wc -l) files"
done
