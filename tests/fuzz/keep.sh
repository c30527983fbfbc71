#!/bin/sh
# tests/fuzz/keep.sh [--pending] [--min] NAME FILE [WHAT]: keeps an input
# that crashed or hung target NAME (tests/fuzz/targets) as a regression test:
# copies FILE into tests/fuzz/crashes/NAME/, where tests/fuzz-crashes.t runs
# it, or with --pending into tests/fuzz/pending/NAME/ (a bug not fixed yet:
# not run by prove; FUZZ_PENDING=1 prove tests/fuzz-crashes.t runs them).
# The name is WHAT (a few words: deep-plus-chain) or else the kind of
# failure and the id afl-fuzz gave it (sig06-000003, hang-000001).
# --min first shrinks it with afl-tmin on build-fuzz/bin (make fuzz).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
dest=crashes min=0
while [ $# -gt 0 ]; do
  case $1 in
    --pending) dest=pending; shift ;;
    --min) min=1; shift ;;
    -*) echo "keep.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# = 2 ] || [ $# = 3 ] || { echo "usage: $0 [--pending] [--min] NAME FILE [WHAT]" >&2; exit 2; }
name=$1 file=$2
line=$(grep "^$name " "$TOP/tests/fuzz/targets") || { echo "keep.sh: no target '$name' in tests/fuzz/targets" >&2; exit 2; }
[ -f "$file" ] || { echo "keep.sh: no file '$file'" >&2; exit 2; }

base=$(basename "$file")
case $base in
  id:*sig:*) what=sig$(echo "$base" | sed 's/.*sig:\([0-9]*\).*/\1/')-$(echo "$base" | sed 's/^id:\([0-9]*\).*/\1/') ;;
  id:*) what=$(case $file in */hangs/*) echo hang ;; *) echo input ;; esac)-$(echo "$base" | sed 's/^id:\([0-9]*\).*/\1/') ;;
  *) what=${base%.*} ;;
esac
[ $# = 3 ] && what=$3
case $line in *" layout "*) ext=txt ;; *) ext=tx ;; esac
mkdir -p "$TOP/tests/fuzz/$dest/$name"
out=$TOP/tests/fuzz/$dest/$name/$what.$ext
[ -e "$out" ] && { echo "keep.sh: $out exists; give another name" >&2; exit 1; }

if [ $min = 1 ]; then
  set -- $line
  shift 3
  prog=$1
  shift
  scratch=$(mktemp -d)
  hang=
  case $file in */hangs/*) hang=-H ;; esac
  export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:malloc_context_size=0:symbolize=0:allocator_may_return_null=1:handle_segv=0:handle_abort=0:handle_sigill=0:max_allocation_size_mb=1024
  # shellcheck disable=SC2046
  afl-tmin $hang -i "$file" -o "$out" -- "$TOP/build-fuzz/bin/$prog" $(echo "$*" | sed "s|%T|$scratch|g") >"$scratch/tmin.log" 2>&1 ||
    { tail -5 "$scratch/tmin.log" >&2; rm -rf "$scratch"; exit 1; }
  rm -rf "$scratch"
  echo "keep.sh: $(wc -c <"$file") bytes shrunk to $(wc -c <"$out")"
else
  cp "$file" "$out"
fi
echo "keep.sh: ${out#"$TOP"/}"
